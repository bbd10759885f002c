//! Property values: conversion of a Wikidata value to a schema datatype with the
//! original engine's rules (SPEC.md §1; seed cypherbench.txt Appendix B.6), and
//! Python-compatible rendering (`str(v)`, `repr(float)`) for tie-breaks and JSON.

use std::cmp::Ordering;

/// A converted property value.
#[derive(Debug, Clone, PartialEq)]
pub enum PV {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    /// `YYYY-MM-DD` (zero-padded year).
    Date(String),
}

impl PV {
    /// Python's `str(v)` of the value the original held (dates as ISO strings).
    pub fn py_str(&self) -> String {
        match self {
            PV::Str(s) | PV::Date(s) => s.clone(),
            PV::Int(i) => i.to_string(),
            PV::Float(f) => py_float_repr(*f),
            PV::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        }
    }
    /// Python's `<` between two values of the same datatype.
    pub fn py_cmp(&self, other: &PV) -> Ordering {
        match (self, other) {
            (PV::Str(a), PV::Str(b)) | (PV::Date(a), PV::Date(b)) => a.cmp(b),
            (PV::Int(a), PV::Int(b)) => a.cmp(b),
            (PV::Float(a), PV::Float(b)) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
            (PV::Bool(a), PV::Bool(b)) => a.cmp(b),
            _ => Ordering::Equal,
        }
    }
    /// The original's scalar tie-break key `(len(str(v)), v)`: `true` if `self` wins.
    pub fn better_than(&self, other: &PV) -> bool {
        let (a, b) = (self.py_str(), other.py_str());
        match a.chars().count().cmp(&b.chars().count()) {
            Ordering::Less => true,
            Ordering::Greater => false,
            Ordering::Equal => self.py_cmp(other) == Ordering::Less,
        }
    }
}

/// Python's `repr(float)`: shortest round-trip digits, exponent form when the
/// decimal exponent is < -4 or >= 16.
pub fn py_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() {
            "-0.0".into()
        } else {
            "0.0".into()
        };
    }
    let sci = format!("{:e}", f); // e.g. "-1.96e0", "1e22"
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let neg = mant.starts_with('-');
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let sign = if neg { "-" } else { "" };
    if (-4..16).contains(&exp) {
        let n = digits.len() as i32;
        if exp >= 0 {
            let int_len = exp + 1;
            if n <= int_len {
                format!("{sign}{}{}.0", digits, "0".repeat((int_len - n) as usize))
            } else {
                format!(
                    "{sign}{}.{}",
                    &digits[..int_len as usize],
                    &digits[int_len as usize..]
                )
            }
        } else {
            format!("{sign}0.{}{}", "0".repeat((-exp - 1) as usize), digits)
        }
    } else {
        let m = if digits.len() > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits
        };
        format!(
            "{sign}{m}e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.abs()
        )
    }
}

/// Python's `int(s)` for a string (whitespace, sign, digits with single `_`).
pub fn py_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let (neg, body) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    if body.is_empty() || body.starts_with('_') || body.ends_with('_') || body.contains("__") {
        return None;
    }
    if !body.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return None;
    }
    let digits: String = body.chars().filter(|c| *c != '_').collect();
    let v: i64 = digits.parse().ok()?;
    Some(if neg { -v } else { v })
}

/// Python's `float(s)` (finite results only; `None` otherwise).
pub fn py_float(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    let cleaned: String = if t.contains('_') {
        let b = t.as_bytes();
        for (i, &c) in b.iter().enumerate() {
            if c == b'_'
                && (i == 0
                    || i + 1 == b.len()
                    || !b[i - 1].is_ascii_digit()
                    || !b[i + 1].is_ascii_digit())
            {
                return None;
            }
        }
        t.replace('_', "")
    } else {
        t.to_string()
    };
    let lower = cleaned.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if matches!(body, "inf" | "infinity" | "nan") {
        return None;
    }
    cleaned.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// A parsed Wikidata time value (`YYYY-MM-DDTHH:MM:SSZ`), as Python's
/// `strptime(s, '%Y-%m-%dT%H:%M:%SZ')` accepts it: exactly four year digits,
/// one or two digits elsewhere, a real Gregorian date with year >= 1.
pub fn parse_time(s: &str) -> Option<(i32, u32, u32)> {
    let b = s.as_bytes();
    let mut i = 0;
    let num = |i: &mut usize, min: usize, max: usize| -> Option<u32> {
        let start = *i;
        while *i < b.len() && *i - start < max && b[*i].is_ascii_digit() {
            *i += 1;
        }
        if *i - start < min {
            return None;
        }
        s[start..*i].parse().ok()
    };
    let expect = |i: &mut usize, c: u8| -> Option<()> {
        if *i < b.len() && b[*i] == c {
            *i += 1;
            Some(())
        } else {
            None
        }
    };
    let y = num(&mut i, 4, 4)?;
    expect(&mut i, b'-')?;
    let m = num(&mut i, 1, 2)?;
    expect(&mut i, b'-')?;
    let d = num(&mut i, 1, 2)?;
    expect(&mut i, b'T')?;
    let hh = num(&mut i, 1, 2)?;
    expect(&mut i, b':')?;
    let mm = num(&mut i, 1, 2)?;
    expect(&mut i, b':')?;
    let ss = num(&mut i, 1, 2)?;
    expect(&mut i, b'Z')?;
    if i != b.len() || y == 0 || !(1..=12).contains(&m) || hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let dim = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ][(m - 1) as usize];
    if d == 0 || d > dim {
        return None;
    }
    Some((y as i32, m, d))
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// The original's rendering of a date as text for a non-date datatype, by
/// precision (11 day: `"11 March 1952"`, 10 month: `"March 1952"`, 9 year:
/// `"1952"`, 8 decade: `"1950s"`, 7 century: `"20th century"`); `None` below 7.
/// Years render without zero padding, as glibc's `strftime('%Y')` does.
pub fn date_text(y: i32, m: u32, d: u32, precision: i64) -> Option<String> {
    let month = MONTHS[(m - 1) as usize];
    Some(match precision {
        11 => format!("{d:02} {month} {y}"),
        10 => format!("{month} {y}"),
        9 => format!("{y}"),
        8 => format!("{}s", (y / 10) * 10),
        7 => {
            let c = y / 100 + 1;
            if c == 21 {
                format!("{c}st century")
            } else {
                format!("{c}th century")
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_repr_matches_python() {
        for (f, s) in [
            (196.0, "196.0"),
            (1.96, "1.96"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5, "-2.5"),
            (1.2345e-7, "1.2345e-07"),
            (123456789012345680.0, "1.2345678901234568e+17"),
        ] {
            assert_eq!(py_float_repr(f), s);
        }
    }

    #[test]
    fn ints_and_floats_like_python() {
        assert_eq!(py_int(" +12 "), Some(12));
        assert_eq!(py_int("1_000"), Some(1000));
        assert_eq!(py_int("1.0"), None);
        assert_eq!(py_float("+1.96"), Some(1.96));
        assert_eq!(py_float("1.96 metre"), None);
        assert_eq!(py_float("nan"), None);
    }

    #[test]
    fn times() {
        assert_eq!(parse_time("1952-03-11T00:00:00Z"), Some((1952, 3, 11)));
        assert_eq!(parse_time("2012-02-31T00:00:00Z"), None);
        assert_eq!(parse_time("+2012-02-03T00:00:00Z"), None);
        assert_eq!(parse_time("0000-02-29T00:00:00Z"), None);
        assert_eq!(date_text(1952, 3, 11, 11).unwrap(), "11 March 1952");
        assert_eq!(date_text(1999, 1, 1, 7).unwrap(), "20th century");
        assert_eq!(date_text(2001, 1, 1, 7).unwrap(), "21st century");
    }
}
