//! JSON text exactly as Python's `json.dump(obj, f, indent=2)` writes it
//! (`ensure_ascii=True`, `", "`/`": "` separators, floats as `repr(float)`), so
//! that `graph.json` is byte-compatible with the original engine's files.

use super::values::py_float_repr;

/// A JSON value with ordered object keys.
#[derive(Debug, Clone)]
pub enum J {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7f => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{:04x}", unit));
                }
            }
            c => out.push(c),
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
        J::Int(i) => out.push_str(&i.to_string()),
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
        assert_eq!(
            s,
            "{\n  \"a\": [\n    1,\n    2.0\n  ],\n  \"b\": {},\n  \"c\": \"Zo\\u00eb \\ud83d\\ude00\\n\"\n}"
        );
    }
}
