//! The graph as table rows for `entities.parquet` / `relations.parquet`: one
//! NDJSON object per entity / relation with flattened column names, which the
//! Python side hands to polars (`read_ndjson` with an explicit schema, then
//! `write_parquet`). Same columns as `kgbench.convert.write_parquet`:
//!
//! - entities: `eid, label, name, aliases, description, provenance`, then
//!   `prop.<Label>.<property>` for the entity's own properties;
//! - relations: `rid, label, subj_id, obj_id, provenance`, then
//!   `prop.<label>(<subj_label>-><obj_label>).<property>`.
//!
//! Columns an entity / relation has no value for are left out of its object
//! (polars reads them as null). Dates stay `YYYY-MM-DD` strings (the Python side
//! casts them). Strings are written as UTF-8 with JSON escapes only where JSON
//! requires them.

use super::pyjson::{JKey, J};
use super::values::py_float_repr;

/// NDJSON rows of the two tables.
#[derive(Debug, Default)]
pub struct Tables {
    pub entities: String,
    pub relations: String,
    /// A property value was a non-finite float, which JSON text cannot carry
    /// as a number: such values are written as null, and the caller must not
    /// use these rows (it builds the tables from the graph instead).
    pub lossy: bool,
}

fn write_str(out: &mut String, s: &str) {
    out.push('"');
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0..=0x1f => None,
            _ => continue,
        };
        out.push_str(&s[last..i]);
        match esc {
            Some(e) => out.push_str(e),
            None => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{:04x}", b);
            }
        }
        last = i + 1;
    }
    out.push_str(&s[last..]);
    out.push('"');
}

/// Compact JSON of a property value (scalars and lists of scalars).
fn write_value(out: &mut String, v: &J, lossy: &mut bool) {
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Int(i) => {
            use std::fmt::Write;
            let _ = write!(out, "{i}");
        }
        J::Float(f) => {
            if f.is_finite() {
                out.push_str(&py_float_repr(*f));
            } else {
                *lossy = true;
                out.push_str("null");
            }
        }
        J::Str(s) => write_str(out, s),
        J::Arr(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x, lossy);
            }
            out.push(']');
        }
        J::Obj(_) => {
            // Never a property value; kept out of the tables.
            *lossy = true;
            out.push_str("null");
        }
    }
}

fn field<'a>(o: &'a [(JKey, J)], k: &str) -> Option<&'a J> {
    o.iter().find(|(k0, _)| k0 == k).map(|(_, v)| v)
}

fn str_of<'a>(o: &'a [(JKey, J)], k: &str) -> &'a str {
    match field(o, k) {
        Some(J::Str(s)) => s,
        _ => "",
    }
}

/// Append one row: the `plain` fields as they are, then every property under
/// `prop.<owner>.<key>`.
fn row(out: &mut String, o: &[(JKey, J)], plain: &[&str], owner: &str, lossy: &mut bool) {
    out.push('{');
    let mut first = true;
    for k in plain {
        if let Some(v) = field(o, k) {
            if !first {
                out.push(',');
            }
            first = false;
            write_str(out, k);
            out.push(':');
            write_value(out, v, lossy);
        }
    }
    if let Some(J::Obj(props)) = field(o, "properties") {
        for (k, v) in props {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str("\"prop.");
            // The column name is written through the escaper without its quotes.
            let mut name = String::with_capacity(owner.len() + k.len() + 1);
            name.push_str(owner);
            name.push('.');
            name.push_str(k);
            let mut quoted = String::new();
            write_str(&mut quoted, &name);
            out.push_str(&quoted[1..]);
            out.push(':');
            write_value(out, v, lossy);
        }
    }
    out.push_str("}\n");
}

/// Table rows of a SimpleKG graph (the [`J`] tree `convert` builds).
pub fn tables(graph: &J) -> Tables {
    let mut t = Tables::default();
    let J::Obj(g) = graph else {
        return t;
    };
    if let Some(J::Arr(ents)) = field(g, "entities") {
        t.entities.reserve(ents.len() * 256);
        for e in ents {
            if let J::Obj(o) = e {
                let label = str_of(o, "label");
                row(
                    &mut t.entities,
                    o,
                    &[
                        "eid",
                        "label",
                        "name",
                        "aliases",
                        "description",
                        "provenance",
                    ],
                    label,
                    &mut t.lossy,
                );
            }
        }
    }
    if let Some(J::Arr(rels)) = field(g, "relations") {
        t.relations.reserve(rels.len() * 160);
        for r in rels {
            if let J::Obj(o) = r {
                let subj = str_of(o, "subj_id").split('#').next().unwrap_or("");
                let obj = str_of(o, "obj_id").split('#').next().unwrap_or("");
                let owner = format!("{}({}->{})", str_of(o, "label"), subj, obj);
                row(
                    &mut t.relations,
                    o,
                    &["rid", "label", "subj_id", "obj_id", "provenance"],
                    &owner,
                    &mut t.lossy,
                );
            }
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_flat_ndjson() {
        let g = J::Obj(vec![
            (
                "entities".into(),
                J::Arr(vec![J::Obj(vec![
                    ("eid".into(), J::Str("Person#Q1".into())),
                    ("label".into(), J::Str("Person".into())),
                    ("name".into(), J::Str("Zoë \"Z\"\n".into())),
                    ("aliases".into(), J::Arr(vec![])),
                    ("description".into(), J::Null),
                    (
                        "properties".into(),
                        J::Obj(vec![
                            ("h".into(), J::Float(196.0)),
                            ("l".into(), J::Arr(vec![J::Int(1), J::Int(2)])),
                        ]),
                    ),
                    ("provenance".into(), J::Arr(vec![])),
                ])]),
            ),
            (
                "relations".into(),
                J::Arr(vec![J::Obj(vec![
                    ("rid".into(), J::Str("0".into())),
                    ("label".into(), J::Str("bornIn".into())),
                    ("subj_id".into(), J::Str("Person#Q1".into())),
                    ("obj_id".into(), J::Str("City#Q2".into())),
                    ("properties".into(), J::Obj(vec![])),
                    ("provenance".into(), J::Arr(vec![])),
                ])]),
            ),
        ]);
        let t = tables(&g);
        assert_eq!(
            t.entities,
            "{\"eid\":\"Person#Q1\",\"label\":\"Person\",\"name\":\"Zoë \\\"Z\\\"\\n\",\"aliases\":[],\"description\":null,\"provenance\":[],\"prop.Person.h\":196.0,\"prop.Person.l\":[1,2]}\n"
        );
        assert_eq!(
            t.relations,
            "{\"rid\":\"0\",\"label\":\"bornIn\",\"subj_id\":\"Person#Q1\",\"obj_id\":\"City#Q2\",\"provenance\":[]}\n"
        );
        assert!(!t.lossy);
    }

    #[test]
    fn non_finite_floats_mark_the_rows_lossy() {
        let g = J::Obj(vec![(
            "entities".into(),
            J::Arr(vec![J::Obj(vec![
                ("eid".into(), J::Str("A#Q1".into())),
                ("label".into(), J::Str("A".into())),
                (
                    "properties".into(),
                    J::Obj(vec![("x".into(), J::Float(f64::INFINITY))]),
                ),
            ])]),
        )]);
        let t = tables(&g);
        assert!(t.lossy);
        assert_eq!(
            t.entities,
            "{\"eid\":\"A#Q1\",\"label\":\"A\",\"prop.A.x\":null}\n"
        );
    }
}
