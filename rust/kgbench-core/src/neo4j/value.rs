//! A SimpleKG graph as a borrowed JSON value tree, and Python's `repr` of its values.
//!
//! The validator's messages name offending values the way the Python loader always has
//! (`repr()` of the value as `json.load` returns it), so this module renders values as Python
//! does: `None`, `True`, `'text'` with Python's quote choice and escapes, `1.5e-07`,
//! `['a', 1]`, `{'k': 'v'}`.
//!
//! Parsing goes through `serde_json` (strings without escapes are borrowed from the input).
//! JSON objects keep Python's `dict` semantics for repeated keys: the first key's position,
//! the last value.

use std::borrow::Cow;
use std::fmt::{self, Write};

use rustc_hash::FxHashMap;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::convert::values::py_float_repr;

/// The object key that marks a value which is not JSON at all (e.g. a Python `datetime.date`
/// in a graph dict): `{"\u0000kgbench:not-json": "<repr of the object>"}`. The Python side
/// writes it for such values (`json.dumps(default=...)`); it reads back as [`Val::Foreign`],
/// which fails every datatype check and prints as the object's `repr`.
pub const NOT_JSON_KEY: &str = "\u{0}kgbench:not-json";

/// One JSON value of a graph; strings and keys borrow from the input unless they had escapes.
#[derive(Debug, Clone, PartialEq)]
pub enum Val<'a> {
    /// JSON `null` (Python `None`).
    Null,
    /// JSON `true` / `false`.
    Bool(bool),
    /// A JSON number without fraction or exponent that fits 64 bits (signed or unsigned).
    Int(i128),
    /// Any other JSON number.
    Float(f64),
    /// A JSON string.
    Str(Cow<'a, str>),
    /// A JSON array.
    List(Vec<Val<'a>>),
    /// A JSON object, keys in first-occurrence order, each with its last value.
    Obj(Vec<(Cow<'a, str>, Val<'a>)>),
    /// A value that was not JSON in the caller's data (see [`NOT_JSON_KEY`]): its Python `repr`.
    Foreign(Cow<'a, str>),
}

impl<'a> Val<'a> {
    /// The value of `key` when this is an object holding it.
    pub fn get(&self, key: &str) -> Option<&Val<'a>> {
        match self {
            Val::Obj(pairs) => pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, when this is a JSON string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Python's `repr()` of the value as `json.load` would have returned it.
    pub fn py_repr(&self) -> String {
        let mut out = String::new();
        self.write_repr(&mut out);
        out
    }

    /// Append Python's `repr()` of the value to `out`.
    pub fn write_repr(&self, out: &mut String) {
        match self {
            Val::Null => out.push_str("None"),
            Val::Bool(true) => out.push_str("True"),
            Val::Bool(false) => out.push_str("False"),
            Val::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Val::Float(f) => out.push_str(&py_float_repr(*f)),
            Val::Str(s) => write_str_repr(out, s),
            Val::List(items) => {
                out.push('[');
                for (n, v) in items.iter().enumerate() {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    v.write_repr(out);
                }
                out.push(']');
            }
            Val::Obj(pairs) => {
                out.push('{');
                for (n, (k, v)) in pairs.iter().enumerate() {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    write_str_repr(out, k);
                    out.push_str(": ");
                    v.write_repr(out);
                }
                out.push('}');
            }
            Val::Foreign(r) => out.push_str(r),
        }
    }
}

/// Python's `repr()` of an optional value (a missing key reads as `None`, as `dict.get` does).
pub fn repr_opt(v: Option<&Val<'_>>) -> String {
    v.map_or_else(|| "None".to_string(), Val::py_repr)
}

/// Python's `repr()` of a string: single quotes unless the text holds `'` and no `"`;
/// backslash escapes for the quote, `\\`, `\t`, `\n`, `\r`, other control characters and the
/// non-printable characters (`\xhh`, `\uhhhh`, `\Uhhhhhhhh`).
pub fn py_str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_str_repr(&mut out, s);
    out
}

fn write_str_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x7f || py_printable(c) => out.push(c),
            c => {
                let n = c as u32;
                let _ = if n <= 0xff {
                    write!(out, "\\x{n:02x}")
                } else if n <= 0xffff {
                    write!(out, "\\u{n:04x}")
                } else {
                    write!(out, "\\U{n:08x}")
                };
            }
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable()` for one non-ASCII character: false for the Unicode general
/// categories Cc, Cf, Co, Zl, Zp, Zs and the noncharacters (Cn). Other unassigned code points
/// count as printable here (Python's answer depends on its Unicode version).
fn py_printable(c: char) -> bool {
    let n = c as u32;
    const NOT_PRINTABLE: &[(u32, u32)] = &[
        (0x80, 0xa0), // Cc (C1 controls), then U+00A0 (Zs)
        (0xad, 0xad),
        (0x600, 0x605),
        (0x61c, 0x61c),
        (0x6dd, 0x6dd),
        (0x70f, 0x70f),
        (0x890, 0x891),
        (0x8e2, 0x8e2),
        (0x1680, 0x1680),
        (0x180e, 0x180e),
        (0x2000, 0x200f),
        (0x2028, 0x202f),
        (0x205f, 0x2064),
        (0x2066, 0x206f),
        (0x3000, 0x3000),
        (0xe000, 0xf8ff),
        (0xfdd0, 0xfdef),
        (0xfeff, 0xfeff),
        (0xfff9, 0xfffb),
        (0x110bd, 0x110bd),
        (0x110cd, 0x110cd),
        (0x13430, 0x1343f),
        (0x1bca0, 0x1bca3),
        (0x1d173, 0x1d17a),
        (0xe0001, 0xe0001),
        (0xe0020, 0xe007f),
        (0xf0000, 0x10ffff),
    ];
    if n & 0xfffe == 0xfffe {
        return false; // U+xFFFE / U+xFFFF of every plane (noncharacters)
    }
    !NOT_PRINTABLE.iter().any(|&(lo, hi)| lo <= n && n <= hi)
}

/// A JSON syntax error: 1-based line and column (serde_json's) and the message without them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// 1-based line of the error.
    pub line: usize,
    /// 1-based column of the error (bytes of the line).
    pub column: usize,
    /// What is wrong, e.g. `expected value`.
    pub message: String,
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// Parse JSON text into a borrowed [`Val`] tree.
///
/// Errors: malformed JSON (including `NaN` / `Infinity`, invalid UTF-8, lone surrogate escapes,
/// nesting deeper than 128) as a [`JsonError`] with its line and column.
pub fn parse(bytes: &[u8]) -> Result<Val<'_>, JsonError> {
    serde_json::from_slice(bytes).map_err(|e| {
        let text = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        JsonError {
            line: e.line(),
            column: e.column(),
            message: text.strip_suffix(&suffix).unwrap_or(&text).to_string(),
        }
    })
}

/// An object key, borrowed when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de> Deserialize<'de> for Val<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValVisitor)
    }
}

struct ValVisitor;

impl<'de> Visitor<'de> for ValVisitor {
    type Value = Val<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Val<'de>, E> {
        Ok(Val::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Val<'de>, E> {
        Ok(Val::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Val<'de>, E> {
        Ok(Val::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Val<'de>, E> {
        Ok(Val::Int(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Val<'de>, E> {
        Ok(Val::Int(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Val<'de>, E> {
        Ok(Val::Float(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Val<'de>, E> {
        Ok(Val::Str(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element::<Val<'de>>()? {
            items.push(v);
        }
        Ok(Val::List(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Val<'de>, A::Error> {
        let mut pairs: Vec<(Cow<'de, str>, Val<'de>)> = Vec::new();
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            let v = map.next_value::<Val<'de>>()?;
            pairs.push((k, v));
        }
        dedupe_keys(&mut pairs);
        if pairs.len() == 1 && pairs[0].0 == NOT_JSON_KEY {
            if let Some((_, Val::Str(r))) = pairs.pop() {
                return Ok(Val::Foreign(r));
            }
            unreachable!("a one-pair object was just checked");
        }
        Ok(Val::Obj(pairs))
    }
}

/// Python `dict` semantics for repeated keys: keep the first key's position, the last value.
fn dedupe_keys(pairs: &mut Vec<(Cow<'_, str>, Val<'_>)>) {
    let n = pairs.len();
    if n < 2 {
        return;
    }
    let mut first: FxHashMap<&str, usize> = FxHashMap::default();
    let mut moves: Vec<(usize, usize)> = Vec::new(); // (later index, first index)
    for (i, (k, _)) in pairs.iter().enumerate() {
        if n <= 16 {
            if let Some(j) = pairs[..i].iter().position(|(p, _)| p == k) {
                moves.push((i, j));
            }
        } else if let Some(&j) = first.get(k.as_ref()) {
            moves.push((i, j));
        } else {
            first.insert(k, i);
        }
    }
    drop(first);
    if moves.is_empty() {
        return;
    }
    let mut keep = vec![true; n];
    for &(i, j) in &moves {
        let v = std::mem::replace(&mut pairs[i].1, Val::Null);
        pairs[j].1 = v;
        keep[i] = false;
    }
    let mut idx = 0;
    pairs.retain(|_| {
        let k = keep[idx];
        idx += 1;
        k
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_repr_of_values() {
        let v = parse(br#"[null, true, false, -3, 18446744073709551615, 1.5, 1e-300, 1e16,
             170.0, "it's", "say \"hi\"", "both ' and \"", {"a": [1, {}]}, [], "\u00e9\u00a0\u200b\u0000\u007f\t"]"#)
        .unwrap();
        assert_eq!(
            v.py_repr(),
            r#"[None, True, False, -3, 18446744073709551615, 1.5, 1e-300, 1e+16, 170.0, "it's", 'say "hi"', 'both \' and "', {'a': [1, {}]}, [], 'é\xa0\u200b\x00\x7f\t']"#
        );
        assert_eq!(
            py_str_repr("\u{1f600}\u{e000}\u{10ffff}"),
            "'\u{1f600}\\ue000\\U0010ffff'"
        );
    }

    #[test]
    fn repeated_keys_keep_first_position_and_last_value() {
        let v = parse(br#"{"a": 1, "b": 2, "a": 3}"#).unwrap();
        assert_eq!(v.py_repr(), "{'a': 3, 'b': 2}");
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{}\": {i},", i % 20));
        }
        text.push_str("\"z\": 0}");
        let v = parse(text.as_bytes()).unwrap();
        let Val::Obj(pairs) = &v else { panic!() };
        assert_eq!(pairs.len(), 21);
        assert_eq!(pairs[0], (Cow::Borrowed("k0"), Val::Int(20)));
        assert_eq!(pairs[19], (Cow::Borrowed("k19"), Val::Int(39)));
    }

    #[test]
    fn numbers_strings_and_foreign_values() {
        let v = parse(br#"[1, -0, 1.0, 9007199254740993, "a\nb", {"\u0000kgbench:not-json": "datetime.date(2020, 1, 1)"}]"#).unwrap();
        let Val::List(items) = &v else { panic!() };
        assert_eq!(items[0], Val::Int(1));
        assert_eq!(items[2], Val::Float(1.0));
        assert_eq!(items[3], Val::Int(9007199254740993));
        assert!(matches!(&items[4], Val::Str(Cow::Owned(s)) if s == "a\nb"));
        assert_eq!(
            items[5],
            Val::Foreign(Cow::Borrowed("datetime.date(2020, 1, 1)"))
        );
        // serde_json reads `-0` as the float -0.0 (Python: the int 0; json.dumps never writes it)
        assert_eq!(
            v.py_repr(),
            "[1, -0.0, 1.0, 9007199254740993, 'a\\nb', datetime.date(2020, 1, 1)]"
        );
    }

    #[test]
    fn syntax_errors_have_line_and_column() {
        let e = parse(b"{\"schema\": {}, \"entities\": [\n  {\"eid\": }\n]}").unwrap_err();
        assert_eq!((e.line, e.column), (2, 11));
        assert_eq!(e.message, "expected value");
        assert!(parse(b"[NaN]").is_err());
    }
}
