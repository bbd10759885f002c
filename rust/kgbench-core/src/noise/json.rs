//! JSON text of [`Val`] trees as Python's `json.dumps` writes it (`ensure_ascii=True`, floats as
//! `repr(float)`): indented by 2 spaces (`indent=2`, the format of kgbench's `graph.json`) or
//! on one line with `", "` / `": "` separators (the log's records).
//!
//! An item can be written with some of its top-level string values replaced
//! ([`Overrides`]): the output ids (`--opaque-ids`) and the current label, without copying
//! the tree.

use std::io::Write;

use crate::convert::values::py_float_repr;
use crate::neo4j::value::Val;

/// Top-level keys of an object whose values are written as the given strings instead.
pub type Overrides<'o> = [(&'o str, &'o str)];

/// How many leading bytes of `b` need no escape (printable ASCII other than `"` and `\\`),
/// 8 bytes at a time.
pub(crate) fn plain_prefix(b: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let mut i = 0;
    while i + 8 <= b.len() {
        let mut word = [0u8; 8];
        word.copy_from_slice(&b[i..i + 8]);
        let w = u64::from_le_bytes(word);
        let special = (w.wrapping_sub(LO * 0x20) & !w & HI) // a byte < 0x20
            | (w & HI) // a byte >= 0x80
            | has_zero(w ^ (LO * 0x22)) // '"'
            | has_zero(w ^ (LO * 0x5c)) // '\\'
            | has_zero(w ^ (LO * 0x7f)); // DEL
        if special != 0 {
            // the lowest flagged byte is the first special one (a borrow only flags bytes
            // above a true match)
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && b[i] >= 0x20 && b[i] < 0x7f && b[i] != b'"' && b[i] != b'\\' {
        i += 1;
    }
    i
}

/// Append `s` as a JSON string with Python's `ensure_ascii=True` escapes.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut i = 0;
    while i < b.len() {
        let run = plain_prefix(&b[i..]);
        out.extend_from_slice(&b[i..i + run]);
        i += run;
        if i == b.len() {
            break;
        }
        let c = s[i..].chars().next().unwrap_or('\0');
        i += c.len_utf8();
        match c {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '\u{8}' => out.extend_from_slice(b"\\b"),
            '\u{c}' => out.extend_from_slice(b"\\f"),
            c => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push(b'"');
}

/// A newline and `level` indentation steps of 2 spaces.
pub fn newline(out: &mut Vec<u8>, level: usize) {
    out.push(b'\n');
    for _ in 0..level {
        out.extend_from_slice(b"  ");
    }
}

/// Append a float as Python's `repr(float)`.
pub fn write_float(out: &mut Vec<u8>, f: f64) {
    out.extend_from_slice(py_float_repr(f).as_bytes());
}

/// Append `v`: indented (`Some(level)`, the nesting level of `v`) or compact (`None`).
pub fn write_val(out: &mut Vec<u8>, v: &Val<'_>, level: Option<usize>) {
    write_item(out, v, level, &[]);
}

/// Append `v` with the top-level `overrides` applied (when `v` is an object).
pub fn write_item(out: &mut Vec<u8>, v: &Val<'_>, level: Option<usize>, overrides: &Overrides) {
    match v {
        Val::Null => out.extend_from_slice(b"null"),
        Val::Bool(true) => out.extend_from_slice(b"true"),
        Val::Bool(false) => out.extend_from_slice(b"false"),
        Val::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Val::Float(f) => write_float(out, *f),
        Val::Str(s) => write_str(out, s),
        Val::Foreign(r) => write_str(out, r),
        Val::List(items) => {
            if items.is_empty() {
                out.extend_from_slice(b"[]");
                return;
            }
            out.push(b'[');
            for (i, x) in items.iter().enumerate() {
                sep(out, i, level);
                write_val(out, x, level.map(|l| l + 1));
            }
            close(out, level, b']');
        }
        Val::Obj(pairs) => {
            if pairs.is_empty() {
                out.extend_from_slice(b"{}");
                return;
            }
            out.push(b'{');
            for (i, (k, x)) in pairs.iter().enumerate() {
                sep(out, i, level);
                write_str(out, k);
                out.extend_from_slice(b": ");
                let hit = if overrides.is_empty() {
                    None
                } else {
                    overrides.iter().find(|(ok, _)| *ok == k.as_ref())
                };
                match hit {
                    Some((_, s)) => write_str(out, s),
                    None => write_val(out, x, level.map(|l| l + 1)),
                }
            }
            close(out, level, b'}');
        }
    }
}

/// The separator before element `i` of a container at `level`.
fn sep(out: &mut Vec<u8>, i: usize, level: Option<usize>) {
    match level {
        Some(l) => {
            if i > 0 {
                out.push(b',');
            }
            newline(out, l + 1);
        }
        None => {
            if i > 0 {
                out.extend_from_slice(b", ");
            }
        }
    }
}

fn close(out: &mut Vec<u8>, level: Option<usize>, c: u8) {
    if let Some(l) = level {
        newline(out, l);
    }
    out.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neo4j::value::parse;

    fn text(v: &Val<'_>, level: Option<usize>) -> String {
        let mut out = Vec::new();
        write_val(&mut out, v, level);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn python_json_dumps_formats() {
        let v = parse(
            r#"{"a": [1, 2.5, "é\"\n", null, true], "b": {}, "c": [], "d": 1e-7, "e": 100.0}"#
                .as_bytes(),
        )
        .unwrap();
        assert_eq!(
            text(&v, None),
            r#"{"a": [1, 2.5, "\u00e9\"\n", null, true], "b": {}, "c": [], "d": 1e-07, "e": 100.0}"#
        );
        assert_eq!(
            text(&v, Some(0)),
            "{\n  \"a\": [\n    1,\n    2.5,\n    \"\\u00e9\\\"\\n\",\n    null,\n    true\n  ],\n  \"b\": {},\n  \"c\": [],\n  \"d\": 1e-07,\n  \"e\": 100.0\n}"
        );
        for text in [
            "",
            "plain ascii text of some length",
            "a\u{7f}b\"c\\d\u{1}e\u{e9}\u{1F600}x",
        ] {
            let mut out = Vec::new();
            write_str(&mut out, text);
            let want: String = std::iter::once('"'.to_string())
                .chain(text.chars().map(|c| {
                    match c {
                        '"' => "\\\"".to_string(),
                        '\\' => "\\\\".to_string(),
                        ' '..='~' => c.to_string(),
                        c => c
                            .encode_utf16(&mut [0u16; 2])
                            .iter()
                            .map(|u| format!("\\u{u:04x}"))
                            .collect(),
                    }
                }))
                .chain(std::iter::once('"'.to_string()))
                .collect();
            assert_eq!(String::from_utf8(out).unwrap(), want, "{text:?}");
        }
        let mut out = Vec::new();
        write_item(&mut out, &v, None, &[("b", "x")]);
        assert!(String::from_utf8(out).unwrap().contains(r#""b": "x""#));
    }
}
