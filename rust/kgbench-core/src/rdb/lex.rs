//! Lexical forms shared by the N-Triples and graph.json writers, each the byte-for-byte twin
//! of a Python function of `kgbench.rdb.convert` or of Python's own formatting (named per
//! item). The IRI naming itself is [`super::naming`].
//! Every writer appends to a `Vec<u8>` and never fails.

use std::fmt::Write as _;

/// Python's `repr(float)` (shortest round-trip digits; fixed notation for decimal exponents
/// -4..=15, else `d.ddde±XX`; integral values end in `.0`; `inf`, `-inf`, `nan`).
pub fn py_float_repr(v: f64, out: &mut Vec<u8>) {
    if v.is_nan() {
        out.extend_from_slice(b"nan");
        return;
    }
    if v.is_infinite() {
        out.extend_from_slice(if v > 0.0 { b"inf" } else { b"-inf" });
        return;
    }
    let (neg, digits, exp) = shortest(v);
    if neg {
        out.push(b'-');
    }
    let d = digits.as_bytes();
    if (-4..16).contains(&exp) {
        if exp >= 0 {
            let e = exp as usize;
            if d.len() > e + 1 {
                out.extend_from_slice(&d[..=e]);
                out.push(b'.');
                out.extend_from_slice(&d[e + 1..]);
            } else {
                out.extend_from_slice(d);
                out.resize(out.len() + (e + 1 - d.len()), b'0');
                out.extend_from_slice(b".0");
            }
        } else {
            out.extend_from_slice(b"0.");
            out.resize(out.len() + (-exp - 1) as usize, b'0');
            out.extend_from_slice(d);
        }
    } else {
        out.push(d[0]);
        if d.len() > 1 {
            out.push(b'.');
            out.extend_from_slice(&d[1..]);
        }
        let _ = write!(
            Bytes(out),
            "e{}{:02}",
            if exp < 0 { '-' } else { '+' },
            exp.unsigned_abs()
        );
    }
}

/// `(negative, significant digits, decimal exponent of the first digit)` of a finite `v`,
/// shortest round-trip digits (Rust's `{:e}` gives the same digits as Python's `repr`).
fn shortest(v: f64) -> (bool, String, i32) {
    let mut s = format!("{:e}", v.abs());
    let n = s
        .split('e')
        .next()
        .unwrap_or("")
        .bytes()
        .filter(u8::is_ascii_digit)
        .count();
    if n >= 15 {
        // the shortest digits may sit exactly halfway between two candidates (possible only
        // with 16 or 17 digits); Python rounds that tie to even, as exact formatting does
        let exact = format!("{:.*e}", n - 1, v.abs());
        if exact != s && exact.parse::<f64>() == Ok(v.abs()) {
            s = exact;
        }
    }
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    (
        v.is_sign_negative(),
        digits,
        exp.parse::<i32>().unwrap_or(0),
    )
}

/// A `fmt::Write` over a byte vector.
struct Bytes<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for Bytes<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// `_double_lex`: `repr(v)` with `INF`, `-INF`, `NaN` for the special values.
pub fn double_lex(v: f64, out: &mut Vec<u8>) {
    if v.is_nan() {
        out.extend_from_slice(b"NaN");
    } else if v.is_infinite() {
        out.extend_from_slice(if v > 0.0 { b"INF" } else { b"-INF" });
    } else {
        py_float_repr(v, out);
    }
}

/// `_decimal_lex` of a finite float: `repr(v)`, in plain positional notation when `repr`
/// uses an exponent (`format(Decimal(repr(v)), "f")`).
pub fn decimal_lex(v: f64, out: &mut Vec<u8>) {
    let (neg, digits, exp) = shortest(v);
    if (-4..16).contains(&exp) {
        py_float_repr(v, out);
        return;
    }
    if neg {
        out.push(b'-');
    }
    let d = digits.as_bytes();
    if exp >= 0 {
        let e = exp as usize;
        out.extend_from_slice(d);
        if e + 1 > d.len() {
            out.resize(out.len() + (e + 1 - d.len()), b'0');
        } else if e + 1 < d.len() {
            // not reached: repr uses an exponent only from 1e16 on, 17 digits at most
            let n = out.len() - (d.len() - e - 1);
            out.insert(n, b'.');
        }
    } else {
        out.extend_from_slice(b"0.");
        out.resize(out.len() + (-exp - 1) as usize, b'0');
        out.extend_from_slice(d);
    }
}

/// `str(int(v))` of an integral float (exact decimal expansion; `-0.0` is `0`).
pub fn integral_float(v: f64, out: &mut Vec<u8>) {
    if v == 0.0 {
        out.push(b'0');
    } else {
        let _ = write!(Bytes(out), "{v:.0}");
    }
}

/// An `i64` in decimal.
pub fn int(v: i64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 20];
    let mut n = v.unsigned_abs();
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&buf[i..]);
}

/// Python's `repr(bytes)` (`b'...'`, or `b"..."` when the bytes hold `'` but no `"`).
pub fn bytes_repr(b: &[u8], out: &mut Vec<u8>) {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') {
        b'"'
    } else {
        b'\''
    };
    out.push(b'b');
    out.push(quote);
    for &c in b {
        match c {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            c if c == quote => {
                out.push(b'\\');
                out.push(c);
            }
            c if !(0x20..0x7f).contains(&c) => {
                out.extend_from_slice(b"\\x");
                out.push(HEX_LOWER[(c >> 4) as usize]);
                out.push(HEX_LOWER[(c & 15) as usize]);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";
const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// `bytes.hex().upper()`.
pub fn hex_upper(b: &[u8], out: &mut Vec<u8>) {
    out.reserve(2 * b.len());
    for &c in b {
        out.push(HEX_UPPER[(c >> 4) as usize]);
        out.push(HEX_UPPER[(c & 15) as usize]);
    }
}

/// `nt_string`: an N-Triples string literal (quoted; `\\`, `"`, `\n`, `\r`, `\t`, `\b`, `\f`
/// as short escapes, the other C0 controls and DEL as `\u00XX`).
pub fn nt_string(text: &[u8], out: &mut Vec<u8>) {
    quoted(text, true, HEX_UPPER, out);
}

/// A JSON string as Python's `json.dumps(..., ensure_ascii=False)` writes it (`"`, `\\`
/// and the C0 controls escaped, `\u00xx` in lower case; everything else literal).
pub fn json_string(text: &[u8], out: &mut Vec<u8>) {
    quoted(text, false, HEX_LOWER, out);
}

/// `text` double-quoted with the short escapes both syntaxes share; other C0 controls (and
/// DEL when `escape_del`) as `\u00` + two `hex` digits.
#[inline]
fn quoted(text: &[u8], escape_del: bool, hex: &[u8; 16], out: &mut Vec<u8>) {
    out.push(b'"');
    let mut start = 0;
    for (i, &c) in text.iter().enumerate() {
        if c >= 0x20 && c != b'"' && c != b'\\' && !(escape_del && c == 0x7f) {
            continue;
        }
        out.extend_from_slice(&text[start..i]);
        start = i + 1;
        match c {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'"' => out.extend_from_slice(b"\\\""),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            c => {
                out.extend_from_slice(b"\\u00");
                out.push(hex[(c >> 4) as usize]);
                out.push(hex[(c & 15) as usize]);
            }
        }
    }
    out.extend_from_slice(&text[start..]);
    out.push(b'"');
}

fn digits(b: &[u8]) -> bool {
    !b.is_empty() && b.iter().all(u8::is_ascii_digit)
}

fn num(b: &[u8]) -> u32 {
    b.iter().fold(0, |n, &c| n * 10 + u32::from(c - b'0'))
}

/// `_date_ok`: `YYYY-MM-DD`, a real Gregorian date with year 1..=9999.
pub fn date_ok(s: &[u8]) -> bool {
    if s.len() != 10 || s[4] != b'-' || s[7] != b'-' {
        return false;
    }
    if !(digits(&s[..4]) && digits(&s[5..7]) && digits(&s[8..])) {
        return false;
    }
    let (y, m, d) = (num(&s[..4]), num(&s[5..7]), num(&s[8..]));
    if y == 0 || !(1..=12).contains(&m) || d == 0 {
        return false;
    }
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    d <= days
}

/// `_time_ok`: `hh:mm:ss` with an optional `.d+` (`24:00:00` with zero fraction allowed).
pub fn time_ok(s: &[u8]) -> bool {
    if s.len() < 8 || s[2] != b':' || s[5] != b':' || !s.is_ascii() {
        return false;
    }
    let (hh, mm, ss, rest) = (&s[..2], &s[3..5], &s[6..8], &s[8..]);
    if !(digits(hh) && digits(mm) && digits(ss)) {
        return false;
    }
    if !(rest.is_empty() || (rest[0] == b'.' && digits(&rest[1..]))) {
        return false;
    }
    if hh == b"24" {
        return mm == b"00" && ss == b"00" && rest.iter().all(|c| matches!(c, b'.' | b'0'));
    }
    num(hh) < 24 && num(mm) < 60 && num(ss) < 60
}

/// `_datetime_text` is not None: `YYYY-MM-DD[ T]hh:mm:ss[.f]` (the lexical form replaces
/// byte 10 by `T`).
pub fn datetime_ok(s: &[u8]) -> bool {
    s.len() >= 19 && s.is_ascii() && matches!(s[10], b' ' | b'T') && date_ok(&s[..10]) && {
        time_ok(&s[11..])
    }
}

/// `_bool_of` of a text: `t`/`true` and `f`/`false` in any case.
pub fn text_bool(s: &[u8]) -> Option<bool> {
    if s.eq_ignore_ascii_case(b"t") || s.eq_ignore_ascii_case(b"true") {
        Some(true)
    } else if s.eq_ignore_ascii_case(b"f") || s.eq_ignore_ascii_case(b"false") {
        Some(false)
    } else {
        None
    }
}

/// `_is_numeral`: 0 not a plain numeral, 1 an integer numeral, 2 a decimal numeral whose
/// float's `repr` has the same decimal value.
pub fn numeral(s: &[u8]) -> u8 {
    if s.is_empty() || !s.is_ascii() {
        return 0;
    }
    let body = if s[0] == b'-' { &s[1..] } else { s };
    let (head, tail) = match body.iter().position(|&c| c == b'.') {
        Some(p) => (&body[..p], Some(&body[p + 1..])),
        None => (body, None),
    };
    if !digits(head) || (head.len() > 1 && head[0] == b'0') {
        return 0;
    }
    let Some(tail) = tail else { return 1 };
    if !digits(tail) {
        return 0;
    }
    let text = std::str::from_utf8(s).unwrap_or("");
    let Ok(f) = text.parse::<f64>() else { return 0 };
    let mut r = Vec::new();
    py_float_repr(f, &mut r);
    if decimal_value(&r).is_some() && decimal_value(&r) == decimal_value(s) {
        2
    } else {
        0
    }
}

/// The value of a decimal numeral (`[-]digits[.digits][e[+-]digits]`) as (negative, digits
/// without leading or trailing zeros, exponent of the first digit); zero is `(false, "", 0)`.
fn decimal_value(s: &[u8]) -> Option<(bool, Vec<u8>, i64)> {
    let (neg, s) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (mant, exp) = match s.iter().position(|&c| c == b'e' || c == b'E') {
        Some(p) => {
            let e = std::str::from_utf8(&s[p + 1..]).ok()?.parse::<i64>().ok()?;
            (&s[..p], e)
        }
        None => (s, 0),
    };
    let (int, frac) = match mant.iter().position(|&c| c == b'.') {
        Some(p) => (&mant[..p], &mant[p + 1..]),
        None => (mant, &mant[..0]),
    };
    if !int.iter().chain(frac).all(u8::is_ascii_digit) || int.len() + frac.len() == 0 {
        return None;
    }
    let all: Vec<u8> = int.iter().chain(frac).copied().collect();
    let mut point = int.len() as i64 + exp;
    let lead = all.iter().take_while(|&&c| c == b'0').count();
    point -= lead as i64;
    let mut d = all[lead..].to_vec();
    while d.last() == Some(&b'0') {
        d.pop();
    }
    if d.is_empty() {
        return Some((false, d, 0));
    }
    Some((neg, d, point))
}

/// SHA-1 of `data` (FIPS 180-4), for the `s4s` blank-node labels.
pub fn sha1(data: &[u8]) -> [u8; 20] {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xEFCD_AB89,
        0x98BA_DCFE,
        0x1032_5476,
        0xC3D2_E1F0,
    ];
    let bit_len = (data.len() as u64).wrapping_mul(8);
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&bit_len.to_be_bytes());
    let mut w = [0u32; 80];
    for block in msg.chunks_exact(64) {
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes([word[0], word[1], word[2], word[3]]);
        }
        for i in 16..80 {
            w[i] = (w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16]).rotate_left(1);
        }
        let [mut a, mut b, mut c, mut d, mut e] = h;
        for (i, wi) in w.iter().enumerate() {
            let (f, k) = match i {
                0..=19 => ((b & c) | (!b & d), 0x5A82_7999),
                20..=39 => (b ^ c ^ d, 0x6ED9_EBA1),
                40..=59 => ((b & c) | (b & d) | (c & d), 0x8F1B_BCDC),
                _ => (b ^ c ^ d, 0xCA62_C1D6),
            };
            let t = a
                .rotate_left(5)
                .wrapping_add(f)
                .wrapping_add(e)
                .wrapping_add(k)
                .wrapping_add(*wi);
            e = d;
            d = c;
            c = b.rotate_left(30);
            b = a;
            a = t;
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 20];
    for (i, x) in h.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&x.to_be_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl Fn(&mut Vec<u8>)) -> String {
        let mut v = Vec::new();
        f(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn float_repr_matches_python() {
        let cases = [
            (1.0, "1.0"),
            (-0.0, "-0.0"),
            (0.1, "0.1"),
            (1.5e-5, "1.5e-05"),
            (1e-4, "0.0001"),
            (1e16, "1e+16"),
            (1234567890123456.0, "1234567890123456.0"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.5, "2.5"),
            (19.111099243164062, "19.111099243164062"),
            (95.33560180664062, "95.33560180664062"),
            (100.0, "100.0"),
            (f64::INFINITY, "inf"),
        ];
        for (v, want) in cases {
            assert_eq!(s(|o| py_float_repr(v, o)), want, "{v}");
        }
        assert_eq!(s(|o| double_lex(f64::NEG_INFINITY, o)), "-INF");
        assert_eq!(s(|o| decimal_lex(1e16, o)), "10000000000000000");
        assert_eq!(s(|o| decimal_lex(-1.5e-5, o)), "-0.000015");
        assert_eq!(s(|o| decimal_lex(2.5, o)), "2.5");
        assert_eq!(s(|o| integral_float(-0.0, o)), "0");
        assert_eq!(s(|o| integral_float(1e20, o)), "100000000000000000000");
        assert_eq!(s(|o| int(i64::MIN, o)), "-9223372036854775808");
    }

    #[test]
    fn escapes_match_python() {
        assert_eq!(
            s(|o| nt_string(b"a\"\\\n\x01\x7f\xc3\xa9", o)),
            "\"a\\\"\\\\\\n\\u0001\\u007Fé\""
        );
        assert_eq!(
            s(|o| json_string(b"a\"\x01\x7f\x08", o)),
            "\"a\\\"\\u0001\x7f\\b\""
        );
        assert_eq!(
            s(|o| bytes_repr(b"a'\"\x00\x7f\xff\\", o)),
            "b'a\\'\"\\x00\\x7f\\xff\\\\'"
        );
        assert_eq!(s(|o| bytes_repr(b"a'", o)), "b\"a'\"");
        assert_eq!(s(|o| hex_upper(b"\x00\xab", o)), "00AB");
    }

    #[test]
    fn dates_times_numerals() {
        assert!(date_ok(b"2000-02-29"));
        assert!(!date_ok(b"1900-02-29"));
        assert!(!date_ok(b"0000-01-01"));
        assert!(!date_ok(b"2010-1-05x"));
        assert!(time_ok(b"24:00:00.000"));
        assert!(!time_ok(b"24:00:01"));
        assert!(time_ok(b"23:59:59.5"));
        assert!(!time_ok(b"23:59:59."));
        assert!(datetime_ok(b"2010-01-05 10:00:00"));
        assert!(!datetime_ok(b"2010-01-05_10:00:00"));
        assert_eq!(numeral(b"007"), 0);
        assert_eq!(numeral(b"-12"), 1);
        assert_eq!(numeral(b"0.1"), 2);
        assert_eq!(numeral(b"0.10000000000000000001"), 0);
        assert_eq!(numeral(b"1.5e3"), 0);
        assert_eq!(numeral(b"-0.0"), 2);
        assert_eq!(numeral(b"10000000000000000.0"), 2);
        assert_eq!(text_bool(b"TRUE"), Some(true));
        assert_eq!(text_bool(b"F"), Some(false));
    }

    #[test]
    fn sha1_vectors() {
        let hex = |d: [u8; 20]| s(|o| hex_upper(&d, o)).to_lowercase();
        assert_eq!(hex(sha1(b"")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(
            hex(sha1(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        let long = vec![b'a'; 1000];
        assert_eq!(hex(sha1(&long)), "291e9a6c66994949b57ba5e650361e98fc36b1ba");
    }
}
