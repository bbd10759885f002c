//! The CSV files of Neo4j's import tool (`neo4j-admin database import full`) for a validated
//! SimpleKG graph (SPEC.md §2).
//!
//! Source of the format: Neo4j Operations Manual 5, "Import" (header format `name:type`,
//! `:ID` / `:START_ID` / `:END_ID`, `--array-delimiter`, `--multiline-fields`, `--id-type`).
//! One file per entity label (`nodes_<n>.csv`, labels sorted) and per relation key
//! (`relationships_<n>.csv`, (label, subject label, object label) sorted); a header line of
//! quoted `name:type` fields; strings always quoted (`"` doubled inside), numbers bare, a null
//! an empty unquoted field (no property); list elements joined by the array delimiter, the
//! first of [`ARRAY_DELIMITERS`] no string list element contains. The CSV syntax has no empty
//! list (`[]` and `[""]` both read as no property), so the last column
//! ([`EMPTY_LISTS_COLUMN`], read by the launcher's `KgbenchImport`, not stored) names the
//! properties to store as `[]` (`name`) or `[""]` (`name=`).
//!
//! Floats are written as Python's `repr(float)` (shortest round-trip digits, e.g. `170.0`,
//! `1e-300`, `1e+16`), which Java's `Double.parseDouble` reads back as the same double; JSON
//! integers in `float` columns are converted to the nearest double first.
//!
//! Rows are formatted in parallel (rayon) in fixed chunks and written in graph order, so the
//! files are byte-identical for any number of threads.

use std::fmt;
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::validate::{Dtype, Props, Schema};
use super::value::Val;
use crate::convert::values::py_float_repr;

/// Array delimiters tried in order; the first one no list element contains is used.
pub const ARRAY_DELIMITERS: [u8; 7] = [0x1f, 0x1e, 0x1d, 0x1c, b';', b'|', b'\t'];
/// Column naming a row's `[]` / `[""]` list properties, read by `KgbenchImport` (not stored).
pub const EMPTY_LISTS_COLUMN: &str = "kgbench-empty-lists";

/// How nodes are identified in the CSV files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdType {
    /// `eid:ID` (the import tool's default string ids; `eid` stored from that column).
    String,
    /// `:ID` = the entity's 0-based index in the graph's entity order (`--id-type=ACTUAL`),
    /// plus `eid` as a plain string column.
    Actual,
}

/// The import tool's CSV type of a SPEC datatype.
pub fn csv_type(dt: Dtype) -> &'static str {
    match dt {
        Dtype::Str => "string",
        Dtype::Int => "long",
        Dtype::Float => "double",
        Dtype::Bool => "boolean",
        Dtype::Date => "date",
        Dtype::ListStr => "string[]",
        Dtype::ListInt => "long[]",
        Dtype::ListFloat => "double[]",
        Dtype::ListDate => "date[]",
    }
}

/// Why the CSV files could not be written.
#[derive(Debug)]
pub enum CsvError {
    /// Every delimiter of [`ARRAY_DELIMITERS`] occurs in some string list element.
    NoArrayDelimiter,
    /// Creating or writing a file failed.
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// Stopped by [`crate::cancel::request`] (Ctrl-C); the files of the call were removed.
    Interrupted,
}

crate::cancel::interrupted_from_cancelled!(CsvError);

impl fmt::Display for CsvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CsvError::NoArrayDelimiter => f.write_str(
                "every array delimiter candidate occurs in some list element; load through \
                 Bolt instead",
            ),
            CsvError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            CsvError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for CsvError {}

/// The files written and the import tool's arguments for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportCsv {
    /// `--nodes=LABEL=FILE`..., `--relationships=TYPE=FILE`..., `--array-delimiter=U+XXXX`,
    /// then `--multiline-fields=true` when some string has a line break and
    /// `--id-type=ACTUAL` for [`IdType::Actual`].
    pub args: Vec<String>,
    /// Every file written, in argument order.
    pub files: Vec<PathBuf>,
}

/// Which delimiter candidates a string contains (bit `i` = `ARRAY_DELIMITERS[i]`).
fn delimiter_bits(s: &str) -> u8 {
    let mut bits = 0u8;
    for &b in s.as_bytes() {
        if let Some(i) = ARRAY_DELIMITERS.iter().position(|&d| d == b) {
            bits |= 1 << i;
        }
    }
    bits
}

fn has_line_break(s: &str) -> bool {
    memchr::memchr2(b'\n', b'\r', s.as_bytes()).is_some()
}

fn list_has_line_break(items: &[Val<'_>]) -> bool {
    items
        .iter()
        .any(|v| matches!(v, Val::Str(s) if has_line_break(s)))
}

/// (delimiter bits used by the item's string list elements, whether one of its strings has a
/// line break): the aliases, provenance and `list_keys` properties for the first; every
/// top-level string, string list element and string (list element) of a top-level object for
/// the second.
pub fn scan_item(item: &Val<'_>, list_keys: &[&str]) -> (u8, bool) {
    let mut bits = 0u8;
    let mut add = |v: Option<&Val<'_>>| {
        if let Some(Val::List(items)) = v {
            for x in items {
                if let Val::Str(s) = x {
                    bits |= delimiter_bits(s);
                }
            }
        }
    };
    add(item.get("aliases"));
    add(item.get("provenance"));
    if let Some(props) = item.get("properties") {
        for k in list_keys {
            add(props.get(k));
        }
    }
    let mut newline = false;
    if let Val::Obj(pairs) = item {
        for (_, v) in pairs {
            newline |= match v {
                Val::Str(s) => has_line_break(s),
                Val::List(items) => list_has_line_break(items),
                Val::Obj(inner) => inner.iter().any(|(_, x)| match x {
                    Val::Str(s) => has_line_break(s),
                    Val::List(items) => list_has_line_break(items),
                    _ => false,
                }),
                _ => false,
            };
            if newline {
                break;
            }
        }
    }
    (bits, newline)
}

/// Append `s` as a quoted CSV field (`"` doubled).
fn push_quoted(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    push_doubling_quotes(out, s);
    out.push(b'"');
}

/// Append `s` with every `"` doubled (the inside of a quoted CSV field).
fn push_doubling_quotes(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    let mut start = 0;
    for i in memchr::memchr_iter(b'"', b) {
        out.extend_from_slice(&b[start..=i]);
        out.push(b'"');
        start = i + 1;
    }
    out.extend_from_slice(&b[start..]);
}

fn push_int(out: &mut Vec<u8>, i: i128) {
    let _ = match i64::try_from(i) {
        Ok(v) => write!(out, "{v}"),
        Err(_) => write!(out, "{i}"),
    };
}

fn as_f64(v: &Val<'_>) -> f64 {
    match v {
        Val::Int(i) => *i as f64,
        Val::Float(f) => *f,
        _ => f64::NAN,
    }
}

/// Append one element of a list field (inside the quotes; `"` doubled).
fn push_element(out: &mut Vec<u8>, v: &Val<'_>, dt: Dtype) {
    match (dt, v) {
        (Dtype::ListFloat, _) => out.extend_from_slice(py_float_repr(as_f64(v)).as_bytes()),
        (_, Val::Int(i)) => push_int(out, *i),
        (_, Val::Str(s)) => push_doubling_quotes(out, s),
        _ => {}
    }
}

/// Whether a list value is one the CSV cannot carry (`[]` or `[""]`).
fn is_empty_list(items: &[Val<'_>]) -> bool {
    match items {
        [] => true,
        [Val::Str(s)] => s.is_empty(),
        _ => false,
    }
}

/// Append a list field: nothing for `[]` / `[""]`, else the quoted joined elements.
fn push_list(out: &mut Vec<u8>, items: &[Val<'_>], dt: Dtype, delim: u8) {
    if is_empty_list(items) {
        return;
    }
    out.push(b'"');
    for (n, v) in items.iter().enumerate() {
        if n > 0 {
            out.push(delim);
        }
        push_element(out, v, dt);
    }
    out.push(b'"');
}

/// Append the field of a non-null property value of datatype `dt`.
fn push_value(out: &mut Vec<u8>, v: &Val<'_>, dt: Dtype, delim: u8) {
    match (dt, v) {
        (_, Val::List(items)) => push_list(out, items, dt, delim),
        (Dtype::Bool, Val::Bool(b)) => {
            out.extend_from_slice(if *b { b"\"true\"" } else { b"\"false\"" })
        }
        (Dtype::Float, _) => out.extend_from_slice(py_float_repr(as_f64(v)).as_bytes()),
        (_, Val::Int(i)) => push_int(out, *i),
        (_, Val::Str(s)) => push_quoted(out, s),
        _ => {}
    }
}

/// The list of an optional list value (`null` / missing = `[]`).
fn list_of<'v, 'a>(v: Option<&'v Val<'a>>) -> &'v [Val<'a>] {
    match v {
        Some(Val::List(items)) => items,
        _ => &[],
    }
}

/// One row's declared property fields and its empty-lists field, each preceded by a comma,
/// then the line end. `empty` holds the entries already collected (aliases, provenance).
pub struct RowLayout<'s> {
    /// Declared properties sorted by name.
    names: Vec<(&'s str, Dtype)>,
}

impl<'s> RowLayout<'s> {
    /// The layout of the declared properties `props` (columns sorted by name).
    pub fn new(props: &'s Props) -> RowLayout<'s> {
        let mut names: Vec<(&str, Dtype)> = props.iter().map(|(n, d)| (n.as_str(), *d)).collect();
        names.sort_by(|a, b| a.0.cmp(b.0));
        RowLayout { names }
    }

    fn header(&self, out: &mut Vec<u8>) {
        for (name, dt) in &self.names {
            out.push(b',');
            push_quoted(out, &format!("{name}:{}", csv_type(*dt)));
        }
        out.push(b',');
        push_quoted(out, &format!("{EMPTY_LISTS_COLUMN}:string[]"));
        out.push(b'\n');
    }

    fn finish_row(
        &self,
        out: &mut Vec<u8>,
        props: Option<&Val<'_>>,
        empty: &mut Vec<(&'static str, &'s str, bool)>,
        delim: u8,
    ) {
        for (name, dt) in &self.names {
            out.push(b',');
            match props.and_then(|p| p.get(name)) {
                None | Some(Val::Null) => {}
                Some(v) => push_value(out, v, *dt, delim),
            }
        }
        for (name, dt) in &self.names {
            if dt.element().is_none() {
                continue;
            }
            if let Some(Val::List(items)) = props.and_then(|p| p.get(name)) {
                if is_empty_list(items) {
                    empty.push(("", name, !items.is_empty()));
                }
            }
        }
        out.push(b',');
        if !empty.is_empty() {
            out.push(b'"');
            for (n, (fixed, name, one_empty)) in empty.iter().enumerate() {
                if n > 0 {
                    out.push(delim);
                }
                out.extend_from_slice(fixed.as_bytes());
                out.extend_from_slice(name.as_bytes());
                if *one_empty {
                    out.push(b'=');
                }
            }
            out.push(b'"');
        }
        out.push(b'\n');
    }
}

/// Collect the `[]` / `[""]` entry of a metadata list (aliases, provenance).
fn meta_entry(empty: &mut Vec<(&'static str, &str, bool)>, key: &'static str, items: &[Val<'_>]) {
    if is_empty_list(items) {
        empty.push((key, "", !items.is_empty()));
    }
}

/// Append the CSV row of entity `i` (graph order) of a valid graph.
pub fn node_row(
    out: &mut Vec<u8>,
    i: usize,
    ent: &Val<'_>,
    layout: &RowLayout<'_>,
    delim: u8,
    id_type: IdType,
) {
    if id_type == IdType::Actual {
        push_int(out, i as i128);
        out.push(b',');
    }
    push_quoted(out, ent.get("eid").and_then(Val::as_str).unwrap_or(""));
    out.push(b',');
    push_quoted(out, ent.get("name").and_then(Val::as_str).unwrap_or(""));
    out.push(b',');
    let aliases = list_of(ent.get("aliases"));
    push_list(out, aliases, Dtype::ListStr, delim);
    out.push(b',');
    if let Some(Val::Str(d)) = ent.get("description") {
        push_quoted(out, d);
    }
    out.push(b',');
    let prov = list_of(ent.get("provenance"));
    push_list(out, prov, Dtype::ListStr, delim);
    let mut empty = Vec::new();
    meta_entry(&mut empty, "aliases", aliases);
    meta_entry(&mut empty, "provenance", prov);
    layout.finish_row(out, ent.get("properties"), &mut empty, delim);
}

/// Append the CSV row of a relation of a valid graph; `ends` are the graph indices of its
/// subject and object entities (written with [`IdType::Actual`]).
pub fn relationship_row(
    out: &mut Vec<u8>,
    rel: &Val<'_>,
    ends: (u32, u32),
    layout: &RowLayout<'_>,
    delim: u8,
    id_type: IdType,
) {
    match id_type {
        IdType::String => {
            push_quoted(out, rel.get("subj_id").and_then(Val::as_str).unwrap_or(""));
            out.push(b',');
            push_quoted(out, rel.get("obj_id").and_then(Val::as_str).unwrap_or(""));
        }
        IdType::Actual => {
            push_int(out, ends.0.into());
            out.push(b',');
            push_int(out, ends.1.into());
        }
    }
    out.push(b',');
    push_quoted(out, rel.get("rid").and_then(Val::as_str).unwrap_or(""));
    out.push(b',');
    let prov = list_of(rel.get("provenance"));
    push_list(out, prov, Dtype::ListStr, delim);
    let mut empty = Vec::new();
    meta_entry(&mut empty, "provenance", prov);
    layout.finish_row(out, rel.get("properties"), &mut empty, delim);
}

/// The header line of a node file.
pub fn node_header(layout: &RowLayout<'_>, id_type: IdType) -> Vec<u8> {
    let mut header = Vec::new();
    if id_type == IdType::Actual {
        header.extend_from_slice(b"\":ID\",\"eid\",");
    } else {
        header.extend_from_slice(b"\"eid:ID\",");
    }
    header.extend_from_slice(
        b"\"name\",\"aliases:string[]\",\"description\",\"provenance:string[]\"",
    );
    layout.header(&mut header);
    header
}

/// The header line of a relationship file.
pub fn relationship_header(layout: &RowLayout<'_>) -> Vec<u8> {
    let mut header = Vec::new();
    header.extend_from_slice(b"\":START_ID\",\":END_ID\",\"rid\",\"provenance:string[]\"");
    layout.header(&mut header);
    header
}

/// The names of every list-typed declared property (entity or relation), sorted, unique: the
/// properties whose elements the array delimiter must avoid.
pub fn list_keys(schema: &Schema) -> Vec<&str> {
    let mut keys: Vec<&str> = schema
        .entities
        .iter()
        .map(|(_, p)| p)
        .chain(schema.relations.iter().map(|(_, p)| p))
        .flat_map(|p| p.iter())
        .filter(|(_, d)| d.element().is_some())
        .map(|(n, _)| n.as_str())
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The first of [`ARRAY_DELIMITERS`] whose bit is not in `used` (see [`scan_item`]).
pub fn pick_delimiter(used: u8) -> Option<u8> {
    (0..ARRAY_DELIMITERS.len())
        .find(|i| used & (1 << i) == 0)
        .map(|i| ARRAY_DELIMITERS[i])
}

/// The rows of one file: its header and its row pieces in order.
pub struct FileRows<'r> {
    /// `--nodes=LABEL` or `--relationships=TYPE`, without the file.
    pub arg: String,
    /// `nodes_<n>.csv` / `relationships_<n>.csv`.
    pub name: String,
    /// The header line.
    pub header: Vec<u8>,
    /// The row chunks, in graph order.
    pub pieces: Vec<&'r [u8]>,
}

/// Write the files (in parallel, one writer per file) into `out_dir` (created if needed) and
/// return the import tool's arguments: the files' then `--array-delimiter`, then
/// `--multiline-fields=true` when `multiline`, then `--id-type=ACTUAL` for actual node ids.
///
/// Errors: [`CsvError::Io`] naming the file or directory; [`CsvError::Interrupted`] once
/// [`crate::cancel::request`] was called (polled between row pieces; the call's files are
/// then removed, so no CSV file that looks complete is left).
pub fn write_files(
    out_dir: &Path,
    files: &[FileRows<'_>],
    delim: u8,
    multiline: bool,
    id_type: IdType,
) -> Result<ImportCsv, CsvError> {
    std::fs::create_dir_all(out_dir).map_err(io_err(out_dir))?;
    let paths: Vec<PathBuf> = files.iter().map(|f| out_dir.join(&f.name)).collect();
    let written =
        files
            .par_iter()
            .zip(paths.par_iter())
            .try_for_each(|(f, path)| -> Result<(), CsvError> {
                crate::cancel::check()?;
                let mut out = File::create(path).map_err(io_err(path))?;
                out.write_all(&f.header).map_err(io_err(path))?;
                for piece in &f.pieces {
                    crate::cancel::check()?;
                    out.write_all(piece).map_err(io_err(path))?;
                }
                Ok(())
            });
    if crate::cancel::requested() {
        for path in &paths {
            let _ = std::fs::remove_file(path);
        }
        return Err(CsvError::Interrupted);
    }
    written?;
    let mut args: Vec<String> = files
        .iter()
        .zip(&paths)
        .map(|(f, p)| format!("{}={}", f.arg, p.display()))
        .collect();
    args.push(format!("--array-delimiter=U+{:04X}", delim));
    if multiline {
        args.push("--multiline-fields=true".to_string());
    }
    if id_type == IdType::Actual {
        args.push("--id-type=ACTUAL".to_string());
    }
    Ok(ImportCsv { args, files: paths })
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> CsvError + '_ {
    move |source| CsvError::Io {
        path: path.to_path_buf(),
        source,
    }
}
