//! JSON text exactly as Python's `json.dump(obj, f, indent=2)` writes it
//! (`ensure_ascii=True`, `", "`/`": "` separators, floats as `repr(float)`), so
//! that `graph.json` is byte-compatible with the original engine's files.

use super::values::py_float_repr;

/// An object key: static for the fixed field names (no allocation).
pub type JKey = std::borrow::Cow<'static, str>;

/// A JSON value with ordered object keys.
#[derive(Debug, Clone)]
pub enum J {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(JKey, J)>),
}

fn write_str(out: &mut String, s: &str) {
    use std::fmt::Write;
    out.push('"');
    // Runs of plain ASCII are copied at once; only escapes go char by char.
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        while i < b.len() && b[i] >= 0x20 && b[i] < 0x7f && b[i] != b'"' && b[i] != b'\\' {
            i += 1;
        }
        out.push_str(&s[start..i]);
        if i == b.len() {
            break;
        }
        let c = s[i..].chars().next().unwrap_or('\0');
        i += c.len_utf8();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    let _ = write!(out, "\\u{:04x}", unit);
                }
            }
        }
    }
    out.push('"');
}

fn indent(out: &mut String, level: usize) {
    out.push('\n');
    for _ in 0..level {
        out.push_str("  ");
    }
}

/// Append `v` to `out` as Python's `json.dumps(v, indent=2)`.
pub fn write(out: &mut String, v: &J, level: usize) {
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Int(i) => {
            use std::fmt::Write;
            let _ = write!(out, "{i}");
        }
        J::Float(f) => out.push_str(&py_float_repr(*f)),
        J::Str(s) => write_str(out, s),
        J::Arr(a) => {
            if a.is_empty() {
                out.push_str("[]");
                return;
            }
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write(out, x, level + 1);
            }
            indent(out, level);
            out.push(']');
        }
        J::Obj(o) => {
            if o.is_empty() {
                out.push_str("{}");
                return;
            }
            out.push('{');
            for (i, (k, x)) in o.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                indent(out, level + 1);
                write_str(out, k);
                out.push_str(": ");
                write(out, x, level + 1);
            }
            indent(out, level);
            out.push('}');
        }
    }
}

/// `v` as Python's `json.dumps(v, indent=2)`, with the elements of large
/// arrays that are values of the top-level object written in parallel (rayon)
/// and joined in order: the text is identical to [`write`]'s.
pub fn write_top_parallel(v: &J) -> String {
    use rayon::prelude::*;
    const CHUNK: usize = 4096;
    let J::Obj(o) = v else {
        let mut out = String::new();
        write(&mut out, v, 0);
        return out;
    };
    if o.is_empty() {
        return "{}".into();
    }
    let mut out = String::with_capacity(1 << 16);
    out.push('{');
    for (i, (k, x)) in o.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        indent(&mut out, 1);
        write_str(&mut out, k);
        out.push_str(": ");
        match x {
            J::Arr(a) if a.len() > CHUNK => {
                let parts: Vec<String> = a
                    .par_chunks(CHUNK)
                    .enumerate()
                    .map(|(ci, chunk)| {
                        let mut s = String::with_capacity(chunk.len() * 512);
                        for (j, e) in chunk.iter().enumerate() {
                            if ci > 0 || j > 0 {
                                s.push(',');
                            }
                            indent(&mut s, 2);
                            write(&mut s, e, 2);
                        }
                        s
                    })
                    .collect();
                out.reserve(parts.iter().map(String::len).sum::<usize>() + 8);
                out.push('[');
                for p in parts {
                    out.push_str(&p);
                }
                indent(&mut out, 1);
                out.push(']');
            }
            _ => write(&mut out, x, 1),
        }
    }
    indent(&mut out, 0);
    out.push('}');
    out
}

/// Free `v`, the elements of the top-level object's arrays in parallel (rayon).
pub fn par_drop(v: J) {
    use rayon::prelude::*;
    if let J::Obj(o) = v {
        o.into_par_iter().for_each(|(_, x)| {
            if let J::Arr(a) = x {
                a.into_par_iter().with_min_len(1024).for_each(drop);
            }
        });
    }
}

/// `v` as Python's `json.dumps(v)` (one line, `", "` / `": "` separators).
pub fn compact(v: &J) -> String {
    let mut out = String::new();
    compact_into(&mut out, v);
    out
}

fn compact_into(out: &mut String, v: &J) {
    match v {
        J::Arr(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                compact_into(out, x);
            }
            out.push(']');
        }
        J::Obj(o) => {
            out.push('{');
            for (i, (k, x)) in o.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(out, k);
                out.push_str(": ");
                compact_into(out, x);
            }
            out.push('}');
        }
        _ => write(out, v, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_layout() {
        let v = J::Obj(vec![
            ("a".into(), J::Arr(vec![J::Int(1), J::Float(2.0)])),
            ("b".into(), J::Obj(vec![])),
            ("c".into(), J::Str("Zoë \u{1F600}\n".into())),
        ]);
        let mut s = String::new();
        write(&mut s, &v, 0);
        assert_eq!(write_top_parallel(&v), s);
        assert_eq!(
            s,
            "{\n  \"a\": [\n    1,\n    2.0\n  ],\n  \"b\": {},\n  \"c\": \"Zo\\u00eb \\ud83d\\ude00\\n\"\n}"
        );
    }
}

#[cfg(test)]
mod parallel_tests {
    use super::*;

    #[test]
    fn parallel_writer_matches_sequential() {
        for n in [0usize, 1, 4095, 4096, 4097, 10_000] {
            let arr: Vec<J> = (0..n)
                .map(|i| {
                    J::Obj(vec![
                        ("id".into(), J::Int(i as i64)),
                        ("x".into(), J::Arr(vec![J::Str(format!("é{i}")), J::Null])),
                    ])
                })
                .collect();
            let v = J::Obj(vec![
                (
                    "schema".into(),
                    J::Obj(vec![("name".into(), J::Str("s".into()))]),
                ),
                ("entities".into(), J::Arr(arr.clone())),
                ("relations".into(), J::Arr(arr)),
            ]);
            let mut s = String::new();
            write(&mut s, &v, 0);
            assert_eq!(write_top_parallel(&v), s, "n = {n}");
        }
        // Python's ensure_ascii escapes everything outside ' '..'~', DEL included.
        let mut del = String::new();
        write(&mut del, &J::Str("a\u{7f}b\u{1}".into()), 0);
        assert_eq!(del, "\"a\\u007fb\\u0001\"");
        assert_eq!(
            compact(&J::Obj(vec![(
                "a".into(),
                J::Arr(vec![J::Int(1), J::Null])
            )])),
            "{\"a\": [1, null]}"
        );
    }
}
