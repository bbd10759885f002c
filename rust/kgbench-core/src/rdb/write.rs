//! The two outputs of [`super::convert`]: `<db_id>.nt` (`rows_to_ntriples` and the block
//! ordering of `_convert`) and `graph.json` (`rows_to_entities`, `fk_to_relations`,
//! `_graph_text`), plus the foreign-key join rows and the per-column analyses (mismatches,
//! property-graph datatypes).

use std::fs::{self, File};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::lex;
use super::sqlite::{Connection, Value};
use super::table::{handle_tuple_key, Cell, Column, HandleIndex, TableData};
use super::{
    ColumnOutcome, FkJob, Job, Kind, Mismatch, Outcome, PgColumn, PyValue, RdbError, TableOutcome,
};

const RDF_TYPE: &[u8] = b"<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>";
const XSD: &str = "http://www.w3.org/2001/XMLSchema#";
/// Rows per generated chunk.
const CHUNK: usize = 8192;
/// Examples kept per mismatched column.
const EXAMPLES: usize = 3;

// ------------------------------------------------------------------------------------------
// Joins
// ------------------------------------------------------------------------------------------

/// The rows of one foreign-key join: child and parent handles.
pub enum JoinRows {
    /// Both sides single integer handles.
    Ints(Vec<(i64, i64)>),
    /// Canonical handle keys.
    General(Vec<(Vec<u8>, Vec<u8>)>),
}

/// Run `fk`'s join.
pub fn join(conn: &Connection, fk: &FkJob) -> Result<JoinRows, String> {
    let mut ints = Vec::new();
    let mut general: Option<Vec<(Vec<u8>, Vec<u8>)>> = None;
    conn.query(&fk.sql, |row| {
        if row.len() != fk.nc + fk.np {
            return Err(format!(
                "expected {} columns, got {}",
                fk.nc + fk.np,
                row.len()
            ));
        }
        if general.is_none() {
            if let (1, 1, Value::Int(a), Value::Int(b)) = (fk.nc, fk.np, &row[0], &row[1]) {
                ints.push((*a, *b));
                return Ok(());
            }
            let mut g = Vec::with_capacity(ints.len() + 1);
            for &(a, b) in &ints {
                let (mut ka, mut kb) = (Vec::new(), Vec::new());
                handle_tuple_key(&[Value::Int(a)], &mut ka);
                handle_tuple_key(&[Value::Int(b)], &mut kb);
                g.push((ka, kb));
            }
            general = Some(g);
        }
        let (mut ka, mut kb) = (Vec::new(), Vec::new());
        handle_tuple_key(&row[..fk.nc], &mut ka);
        handle_tuple_key(&row[fk.nc..], &mut kb);
        if let Some(g) = general.as_mut() {
            g.push((ka, kb));
        }
        Ok(())
    })?;
    Ok(match general {
        Some(g) => JoinRows::General(g),
        None => JoinRows::Ints(ints),
    })
}

fn lookup(ix: &HandleIndex<'_>, int: Option<i64>, key: &[u8]) -> Option<u32> {
    match ix {
        HandleIndex::Ints(v) => {
            let h = match int {
                Some(h) => h,
                // a canonical single-int key: b'i' + 8 bytes
                None if key.len() == 9 && key[0] == b'i' => {
                    i64::from_le_bytes(key[1..].try_into().ok()?)
                }
                None => return None,
            };
            v.binary_search(&h).ok().map(|i| i as u32)
        }
        HandleIndex::General(m) => match int {
            Some(h) => {
                let mut k = Vec::with_capacity(9);
                handle_tuple_key(&[Value::Int(h)], &mut k);
                m.get(k.as_slice()).copied()
            }
            None => m.get(key).copied(),
        },
    }
}

impl JoinRows {
    /// The (child row, parent row) pairs, in join order.
    ///
    /// Errors: a handle the table read did not return (the database changed meanwhile).
    pub fn resolve(self, child: &TableData, parent: &TableData) -> Result<Vec<(u32, u32)>, String> {
        let (ci, pi) = (HandleIndex::new(child), HandleIndex::new(parent));
        let missing = || "a joined row is missing from its table".to_string();
        match self {
            JoinRows::Ints(v) => v
                .iter()
                .map(|&(a, b)| {
                    Ok((
                        lookup(&ci, Some(a), &[]).ok_or_else(missing)?,
                        lookup(&pi, Some(b), &[]).ok_or_else(missing)?,
                    ))
                })
                .collect(),
            JoinRows::General(v) => v
                .iter()
                .map(|(a, b)| {
                    Ok((
                        lookup(&ci, None, a).ok_or_else(missing)?,
                        lookup(&pi, None, b).ok_or_else(missing)?,
                    ))
                })
                .collect(),
        }
    }
}

// ------------------------------------------------------------------------------------------
// Cell terms
// ------------------------------------------------------------------------------------------

fn typed(lex_form: &[u8], dt: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    out.extend_from_slice(lex_form);
    out.extend_from_slice(b"\"^^<");
    out.extend_from_slice(XSD.as_bytes());
    out.extend_from_slice(dt.as_bytes());
    out.push(b'>');
}

fn typed_with(dt: &str, out: &mut Vec<u8>, f: impl FnOnce(&mut Vec<u8>)) {
    out.push(b'"');
    f(out);
    out.extend_from_slice(b"\"^^<");
    out.extend_from_slice(XSD.as_bytes());
    out.extend_from_slice(dt.as_bytes());
    out.push(b'>');
}

/// `nt_storage`: the literal of a value's storage class.
fn nt_storage(col: &Column, c: Cell, out: &mut Vec<u8>) {
    match c {
        Cell::Null => {}
        Cell::Int(v) => typed_with("integer", out, |o| lex::int(v, o)),
        Cell::Big(s, l) => typed(col.bytes(s, l), "integer", out),
        Cell::Float(v) => typed_with("double", out, |o| lex::double_lex(v, o)),
        Cell::Text(s, l) => lex::nt_string(col.bytes(s, l), out),
        Cell::Blob(s, l) => typed_with("hexBinary", out, |o| lex::hex_upper(col.bytes(s, l), o)),
    }
}

fn bool_of(col: &Column, c: Cell) -> Option<bool> {
    match c {
        Cell::Int(1) => Some(true),
        Cell::Int(0) => Some(false),
        Cell::Text(s, l) => lex::text_bool(col.bytes(s, l)),
        _ => None,
    }
}

/// Whether a non-NULL cell fits `kind` in N-Triples (`_NT_BY_KIND` is not None).
fn nt_fits(kind: Kind, col: &Column, c: Cell) -> bool {
    match (kind, c) {
        (Kind::Integer, Cell::Int(_) | Cell::Big(..)) => true,
        (Kind::Double, Cell::Int(_) | Cell::Big(..) | Cell::Float(_)) => true,
        (Kind::Decimal, Cell::Int(_) | Cell::Big(..)) => true,
        (Kind::Decimal, Cell::Float(v)) => v.is_finite(),
        (Kind::Boolean, _) => bool_of(col, c).is_some(),
        (Kind::Date, Cell::Text(s, l)) => lex::date_ok(col.bytes(s, l)),
        (Kind::DateTime, Cell::Text(s, l)) => lex::datetime_ok(col.bytes(s, l)),
        (Kind::Time, Cell::Text(s, l)) => lex::time_ok(col.bytes(s, l)),
        (Kind::String, Cell::Text(..)) => true,
        (Kind::Untyped, _) => true,
        _ => false,
    }
}

/// The object term of a non-NULL cell of kind `kind` (`_cell_terms`: the storage-class
/// literal when it does not fit).
fn nt_term(kind: Kind, col: &Column, c: Cell, out: &mut Vec<u8>) {
    match (kind, c) {
        (Kind::Integer, Cell::Int(v)) => typed_with("integer", out, |o| lex::int(v, o)),
        (Kind::Integer, Cell::Big(s, l)) => typed(col.bytes(s, l), "integer", out),
        (Kind::Double, Cell::Float(v)) => typed_with("double", out, |o| lex::double_lex(v, o)),
        (Kind::Double, Cell::Int(v)) => typed_with("double", out, |o| lex::double_lex(v as f64, o)),
        (Kind::Double, Cell::Big(s, l)) => {
            let v = std::str::from_utf8(col.bytes(s, l))
                .ok()
                .and_then(|t| t.parse::<f64>().ok());
            typed_with("double", out, |o| lex::double_lex(v.unwrap_or(f64::NAN), o))
        }
        (Kind::Decimal, Cell::Int(v)) => typed_with("decimal", out, |o| lex::int(v, o)),
        (Kind::Decimal, Cell::Big(s, l)) => typed(col.bytes(s, l), "decimal", out),
        (Kind::Decimal, Cell::Float(v)) if v.is_finite() => {
            typed_with("decimal", out, |o| lex::decimal_lex(v, o))
        }
        (Kind::Boolean, _) if bool_of(col, c).is_some() => {
            let b = bool_of(col, c) == Some(true);
            typed(if b { b"true" } else { b"false" }, "boolean", out)
        }
        (Kind::Date, Cell::Text(s, l)) if lex::date_ok(col.bytes(s, l)) => {
            typed(col.bytes(s, l), "date", out)
        }
        (Kind::DateTime, Cell::Text(s, l)) if lex::datetime_ok(col.bytes(s, l)) => {
            let b = col.bytes(s, l);
            typed_with("dateTime", out, |o| {
                o.extend_from_slice(&b[..10]);
                o.push(b'T');
                o.extend_from_slice(&b[11..]);
            })
        }
        (Kind::Time, Cell::Text(s, l)) if lex::time_ok(col.bytes(s, l)) => {
            typed(col.bytes(s, l), "time", out)
        }
        (Kind::String, Cell::Text(s, l)) => lex::nt_string(col.bytes(s, l), out),
        _ => nt_storage(col, c, out),
    }
}

fn py_value(col: &Column, c: Cell) -> PyValue {
    let text = |s, l| String::from_utf8_lossy(col.bytes(s, l)).into_owned();
    match c {
        Cell::Int(v) => PyValue::Int(v),
        Cell::Big(s, l) => PyValue::BigInt(text(s, l)),
        Cell::Float(v) => PyValue::Float(v),
        Cell::Text(s, l) => PyValue::Str(text(s, l)),
        Cell::Blob(s, l) => PyValue::Bytes(col.bytes(s, l).to_vec()),
        Cell::Null => PyValue::Str(String::new()),
    }
}

// ------------------------------------------------------------------------------------------
// Property-graph values
// ------------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum PgMode {
    /// The value as its kind makes it (`_PG_BY_KIND`).
    Native,
    /// `sqlite_text` of the value, a JSON string.
    Text,
}

/// Whether a non-NULL cell fits `kind` in the property graph (`_PG_BY_KIND` is not _MISS;
/// not for `untyped`).
fn pg_fits(kind: Kind, col: &Column, c: Cell) -> bool {
    match (kind, c) {
        (Kind::Integer, Cell::Int(_) | Cell::Big(..)) => true,
        (Kind::Double | Kind::Decimal, Cell::Int(_) | Cell::Big(..)) => true,
        (Kind::Double | Kind::Decimal, Cell::Float(v)) => v.is_finite(),
        (Kind::Boolean, _) => bool_of(col, c).is_some(),
        (Kind::Date, Cell::Text(s, l)) => lex::date_ok(col.bytes(s, l)),
        (Kind::DateTime, Cell::Text(s, l)) => lex::datetime_ok(col.bytes(s, l)),
        (Kind::Time, Cell::Text(s, l)) => lex::time_ok(col.bytes(s, l)),
        (Kind::String, Cell::Text(..)) => true,
        _ => false,
    }
}

fn pg_kind_dtype(kind: Kind) -> &'static str {
    match kind {
        Kind::Integer => "int",
        Kind::Double | Kind::Decimal => "float",
        Kind::Boolean => "bool",
        Kind::Date => "date",
        _ => "str",
    }
}

/// The JSON value of a non-NULL cell.
fn pg_value(kind: Kind, mode: PgMode, col: &Column, c: Cell, out: &mut Vec<u8>) {
    if mode == PgMode::Text {
        // sqlite_text
        match c {
            Cell::Int(v) => {
                out.push(b'"');
                lex::int(v, out);
                out.push(b'"');
            }
            Cell::Big(s, l) | Cell::Text(s, l) => lex::json_string(col.bytes(s, l), out),
            Cell::Float(v) => {
                out.push(b'"');
                lex::double_lex(v, out);
                out.push(b'"');
            }
            Cell::Blob(s, l) => {
                out.push(b'"');
                lex::hex_upper(col.bytes(s, l), out);
                out.push(b'"');
            }
            Cell::Null => out.extend_from_slice(b"null"),
        }
        return;
    }
    if kind == Kind::Boolean {
        out.extend_from_slice(if bool_of(col, c) == Some(true) {
            b"true"
        } else {
            b"false"
        });
        return;
    }
    match c {
        Cell::Int(v) => lex::int(v, out),
        Cell::Big(s, l) => out.extend_from_slice(col.bytes(s, l)),
        Cell::Float(v) => lex::py_float_repr(v, out),
        Cell::Text(s, l) => lex::json_string(col.bytes(s, l), out),
        Cell::Blob(s, l) => {
            out.push(b'"');
            lex::hex_upper(col.bytes(s, l), out);
            out.push(b'"');
        }
        Cell::Null => out.extend_from_slice(b"null"),
    }
}

/// A column's property-graph plan: (datatype, widened from, mode).
fn pg_plan(kind: Kind, col: &Column) -> (&'static str, Option<&'static str>, PgMode) {
    if kind == Kind::Untyped {
        let (mut int, mut float, mut text, mut miss) = (false, false, false, false);
        for &c in &col.cells {
            match c {
                Cell::Null => {}
                Cell::Int(_) | Cell::Big(..) => int = true,
                Cell::Float(v) if v.is_finite() => float = true,
                Cell::Float(_) => miss = true,
                Cell::Text(..) | Cell::Blob(..) => text = true,
            }
        }
        let dtype = if int && !float && !text && !miss {
            "int"
        } else if (int || float) && !text && !miss {
            "float"
        } else {
            "str"
        };
        let mode = if dtype == "str" && (int || float || miss) {
            PgMode::Text
        } else {
            PgMode::Native
        };
        return (dtype, None, mode);
    }
    let dtype = pg_kind_dtype(kind);
    if col
        .cells
        .iter()
        .any(|&c| c != Cell::Null && !pg_fits(kind, col, c))
    {
        ("str", (dtype != "str").then_some(dtype), PgMode::Text)
    } else {
        (dtype, None, PgMode::Native)
    }
}

// ------------------------------------------------------------------------------------------
// Per-table plans
// ------------------------------------------------------------------------------------------

enum Slot {
    Type,
    Col(usize),
    Ref(usize),
}

/// The reference triples of one predicate from a child table: per child row, the distinct
/// parent subjects in order (`targets[offsets[i]..offsets[i + 1]]`: (parent table, row)).
struct RefGroup<'a> {
    predicate: &'a str,
    offsets: Vec<u32>,
    targets: Vec<(u32, u32)>,
}

/// One column's analysis: outcome, mismatches, property-graph plan.
type Analysed = (ColumnOutcome, Option<Mismatch>, Option<(PgColumn, PgMode)>);

/// Merged entities: per entity `(0, first row)` then `(pg column, row)` pairs.
type Entities = Vec<Vec<(usize, u32)>>;

struct Plan<'a> {
    kinds: Vec<Kind>,
    slots: Vec<(&'a [u8], Slot)>,
    refs: Vec<RefGroup<'a>>,
    pg: Vec<(usize, PgMode)>,
    outcome: TableOutcome,
    cells: usize,
    ref_triples: usize,
    /// Lines to sort and de-duplicate (a column predicate equals a reference predicate).
    collision: bool,
}

fn ref_groups<'a>(
    t: usize,
    job: &'a Job,
    tables: &[TableData],
    matches: &[Vec<(u32, u32)>],
) -> (Vec<RefGroup<'a>>, usize) {
    let n = tables[t].n;
    let mut preds: Vec<&str> = Vec::new();
    for fk in job.fks.iter().filter(|fk| fk.child == t) {
        if !preds.contains(&fk.predicate.as_str()) {
            preds.push(&fk.predicate);
        }
    }
    let mut total = 0;
    let groups = preds
        .into_iter()
        .map(|pred| {
            let mut pairs: Vec<(u32, u32, u32)> = Vec::new();
            for (k, fk) in job.fks.iter().enumerate() {
                if fk.child == t && fk.predicate == pred {
                    pairs.extend(matches[k].iter().map(|&(i, p)| (i, fk.parent as u32, p)));
                }
            }
            if !pairs.windows(2).all(|w| w[0].0 <= w[1].0) {
                pairs.sort_by_key(|p| p.0);
            }
            let subj = |&(_, pt, p): &(u32, u32, u32)| tables[pt as usize].subject(p as usize);
            let mut offsets = Vec::with_capacity(n + 1);
            let mut targets = Vec::with_capacity(pairs.len());
            offsets.push(0u32);
            let mut a = 0;
            for i in 0..n as u32 {
                let mut b = a;
                while b < pairs.len() && pairs[b].0 == i {
                    b += 1;
                }
                let run = &mut pairs[a..b];
                if run.len() > 1 {
                    run.sort_by(|x, y| subj(x).cmp(subj(y)));
                }
                for (x, p) in run.iter().enumerate() {
                    if x == 0 || subj(p) != subj(&run[x - 1]) {
                        targets.push((p.1, p.2));
                    }
                }
                offsets.push(targets.len() as u32);
                a = b;
            }
            total += targets.len();
            RefGroup {
                predicate: pred,
                offsets,
                targets,
            }
        })
        .collect();
    (groups, total)
}

fn plan<'a>(t: usize, job: &'a Job, tables: &[TableData], matches: &[Vec<(u32, u32)>]) -> Plan<'a> {
    let tj = &job.tables[t];
    let data = &tables[t];
    let analysed: Vec<Analysed> = data
        .columns
        .par_iter()
        .zip(&tj.columns)
        .enumerate()
        .map(|(j, (col, cj))| {
            let kind = col.promoted.unwrap_or(cj.kind);
            let mut cells = 0;
            let mut miss: Option<Mismatch> = None;
            for &c in &col.cells {
                if c == Cell::Null {
                    continue;
                }
                cells += 1;
                if !nt_fits(kind, col, c) {
                    let m = miss.get_or_insert(Mismatch {
                        column: j,
                        count: 0,
                        examples: Vec::new(),
                    });
                    m.count += 1;
                    if m.examples.len() < EXAMPLES {
                        m.examples.push(py_value(col, c));
                    }
                }
            }
            let pg = cj.prop.as_ref().map(|_| {
                let (dtype, widened_from, mode) = pg_plan(kind, col);
                (
                    PgColumn {
                        column: j,
                        dtype,
                        widened_from,
                    },
                    mode,
                )
            });
            let out = ColumnOutcome {
                kind,
                promoted: col.promoted.is_some(),
                trimmed: col.trimmed,
                cells,
            };
            (out, miss, pg)
        })
        .collect();
    let (refs, ref_triples) = ref_groups(t, job, tables, matches);
    let mut slots: Vec<(&[u8], Slot)> = vec![(RDF_TYPE, Slot::Type)];
    slots.extend(
        tj.columns
            .iter()
            .enumerate()
            .map(|(j, c)| (c.predicate.as_bytes(), Slot::Col(j))),
    );
    slots.extend(
        refs.iter()
            .enumerate()
            .map(|(g, r)| (r.predicate.as_bytes(), Slot::Ref(g))),
    );
    slots.sort_by(|a, b| a.0.cmp(b.0));
    let mut preds: FxHashSet<&str> = tj.columns.iter().map(|c| c.predicate.as_str()).collect();
    preds.extend(refs.iter().map(|r| r.predicate));
    let collision = preds.len() < tj.columns.len() + refs.len();
    let mut columns = Vec::new();
    let mut mismatches = Vec::new();
    let mut pg_columns = Vec::new();
    let mut pg = Vec::new();
    let mut cells = 0;
    for (c, m, p) in analysed {
        cells += c.cells;
        columns.push(c);
        mismatches.extend(m);
        if let Some((p, mode)) = p {
            pg.push((p.column, mode));
            pg_columns.push(p);
        }
    }
    Plan {
        kinds: columns.iter().map(|c| c.kind).collect(),
        slots,
        refs,
        pg,
        outcome: TableOutcome {
            rows: data.n,
            nodes: 0,
            row_naming: data.row_naming,
            merged: data.merged,
            columns,
            mismatches,
            pg_columns,
        },
        cells,
        ref_triples,
        collision,
    }
}

/// The N-Triples lines of row `i`, predicates in order.
fn row_lines(
    i: usize,
    t: usize,
    tj: &super::TableJob,
    p: &Plan<'_>,
    tables: &[TableData],
    out: &mut Vec<u8>,
) {
    let data = &tables[t];
    let s = data.subject(i);
    for (pred, slot) in &p.slots {
        match *slot {
            Slot::Type => {
                out.extend_from_slice(s);
                out.push(b' ');
                out.extend_from_slice(RDF_TYPE);
                out.push(b' ');
                out.extend_from_slice(tj.class_iri.as_bytes());
                out.extend_from_slice(b" .\n");
            }
            Slot::Col(j) => {
                let col = &data.columns[j];
                let c = col.cells[i];
                if c == Cell::Null {
                    continue;
                }
                out.extend_from_slice(s);
                out.push(b' ');
                out.extend_from_slice(pred);
                out.push(b' ');
                nt_term(p.kinds[j], col, c, out);
                out.extend_from_slice(b" .\n");
            }
            Slot::Ref(g) => {
                let r = &p.refs[g];
                for &(pt, k) in &r.targets[r.offsets[i] as usize..r.offsets[i + 1] as usize] {
                    out.extend_from_slice(s);
                    out.push(b' ');
                    out.extend_from_slice(pred);
                    out.push(b' ');
                    out.extend_from_slice(tables[pt as usize].subject(k as usize));
                    out.extend_from_slice(b" .\n");
                }
            }
        }
    }
}

/// The rows of `data` in byte order of their subjects (a stable sort: equal subjects keep
/// row order). The subjects share a prefix (`<base t/`); rows are sorted by the 16 bytes
/// after the longest prefix they all share, then (ties only) by the whole subjects.
fn subject_order(data: &TableData) -> Vec<u32> {
    let n = data.n;
    if n == 0 {
        return Vec::new();
    }
    let first = data.subject(0);
    let shared = (1..n)
        .into_par_iter()
        .with_min_len(1 << 14)
        .map(|i| {
            let s = data.subject(i);
            first.iter().zip(s).take_while(|(a, b)| a == b).count()
        })
        .min()
        .unwrap_or(first.len());
    let key = |i: usize| -> u128 {
        let s = data.subject(i);
        let tail = &s[shared.min(s.len())..];
        let mut k = [0u8; 16];
        let m = tail.len().min(16);
        k[..m].copy_from_slice(&tail[..m]);
        u128::from_be_bytes(k)
    };
    let mut keyed: Vec<(u128, u32)> = (0..n)
        .into_par_iter()
        .with_min_len(1 << 12)
        .map(|i| (key(i), i as u32))
        .collect();
    keyed.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| data.subject(a.1 as usize).cmp(data.subject(b.1 as usize)))
            .then(a.1.cmp(&b.1))
    });
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// `_count_lines`: (type, data, reference) triples among `lines`.
fn count_lines(lines: &[&[u8]]) -> (usize, usize, usize) {
    let (mut ty, mut da, mut re) = (0, 0, 0);
    for line in lines {
        let mut parts = line.splitn(3, |&c| c == b' ');
        let (_, pred, obj) = (
            parts.next(),
            parts.next().unwrap_or(b""),
            parts.next().unwrap_or(b""),
        );
        if obj.first() == Some(&b'"') {
            da += 1;
        } else if pred == RDF_TYPE {
            ty += 1;
        } else {
            re += 1;
        }
    }
    (ty, da, re)
}

/// Split generated text into its lines (each with its `\n`).
fn split_lines(buf: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in memchr::memchr_iter(b'\n', buf) {
        out.push(&buf[start..=i]);
        start = i + 1;
    }
    out
}

// ------------------------------------------------------------------------------------------
// Files
// ------------------------------------------------------------------------------------------

/// The output file being written: chunks go at increasing offsets; the first write error is
/// kept (and later chunks dropped) until [`write_file`] reports it.
struct Sink<'f> {
    file: &'f File,
    offset: u64,
    error: Option<std::io::Error>,
}

impl Sink<'_> {
    fn send(&mut self, buf: Vec<u8>) {
        if self.error.is_none() && !crate::cancel::requested() {
            if let Err(e) = self.file.write_all_at(&buf, self.offset) {
                self.error = Some(e);
            }
        }
        self.offset += buf.len() as u64;
    }

    /// Generate `n` chunks with `f` in parallel, a few at a time, and write each batch in
    /// parallel at its offsets (the kernel's page-cache work is then shared by the cores).
    fn par_chunks<F>(&mut self, n: usize, f: F)
    where
        F: Fn(usize) -> Vec<u8> + Sync,
    {
        let batch = 4 * rayon::current_num_threads().max(1);
        let mut start = 0;
        while start < n {
            if crate::cancel::requested() {
                return; // `write_file` reports it and removes the temporary file
            }
            let end = (start + batch).min(n);
            let bufs: Vec<Vec<u8>> = (start..end).into_par_iter().map(&f).collect();
            let mut at = Vec::with_capacity(bufs.len());
            for b in &bufs {
                at.push(self.offset);
                self.offset += b.len() as u64;
            }
            if self.error.is_none() {
                let file = self.file;
                self.error = bufs
                    .par_iter()
                    .zip(at)
                    .map(|(b, off)| file.write_all_at(b, off))
                    .find_any(Result::is_err)
                    .and_then(Result::err);
            }
            start = end;
        }
    }
}

fn io_err(path: &Path, error: std::io::Error) -> RdbError {
    RdbError::Io {
        path: path.display().to_string(),
        error,
    }
}

/// Write `path` atomically (a temporary file beside it, then a rename) from the chunks
/// `produce` gives the sink. [`RdbError::Interrupted`] (nothing renamed, the temporary file
/// removed) when [`crate::cancel::request`] was called before the rename.
fn write_file<F>(path: &Path, produce: F) -> Result<(), RdbError>
where
    F: FnOnce(&mut Sink<'_>),
{
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| io_err(path, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp: PathBuf;
    let mut attempt = 0u32;
    let file = loop {
        tmp = dir.join(format!(".{name}.{}.{attempt}.tmp", std::process::id()));
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => break f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 1000 => {
                attempt += 1
            }
            Err(e) => return Err(io_err(path, e)),
        }
    };
    let mut sink = Sink {
        file: &file,
        offset: 0,
        error: None,
    };
    produce(&mut sink);
    if crate::cancel::requested() {
        drop(file);
        let _ = fs::remove_file(&tmp);
        return Err(RdbError::Interrupted);
    }

    let result = match sink.error.take() {
        Some(e) => Err(e),
        None => file
            .set_len(sink.offset)
            .and_then(|()| fs::rename(&tmp, path)),
    };
    drop(file);
    if let Err(e) = result {
        let _ = fs::remove_file(&tmp);
        return Err(io_err(path, e));
    }
    Ok(())
}

/// Write both files; returns the outcome.
pub(crate) fn write_outputs(
    job: &Job,
    tables: &[TableData],
    matches: &[Vec<(u32, u32)>],
    timer: &mut super::Timer,
) -> Result<Outcome, RdbError> {
    let mut plans: Vec<Plan<'_>> = (0..tables.len())
        .into_par_iter()
        .map(|t| plan(t, job, tables, matches))
        .collect();
    timer.lap("plan");

    // ---- N-Triples
    let (mut n_type, mut n_data, mut n_ref) = (0, 0, 0);
    let mut blocks: Vec<(Vec<u8>, usize)> = Vec::new();
    let mut blank: Vec<usize> = Vec::new();
    for (t, tj) in job.tables.iter().enumerate() {
        if tables[t].row_naming == "blank" {
            blank.push(t);
            continue;
        }
        let mut key = tj.class_iri.as_bytes()[..tj.class_iri.len().saturating_sub(1)].to_vec();
        key.push(b'/');
        blocks.push((key, t));
        if !plans[t].collision {
            n_type += tables[t].n;
            n_data += plans[t].cells;
            n_ref += plans[t].ref_triples;
        }
    }
    blocks.sort_by(|a, b| a.0.cmp(&b.0));
    let gen_all = |t: usize| -> Vec<u8> {
        let mut buf = Vec::new();
        for i in 0..tables[t].n {
            if i.is_multiple_of(4096) && crate::cancel::requested() {
                break; // `write_file` reports it
            }
            row_lines(i, t, &job.tables[t], &plans[t], tables, &mut buf);
        }
        buf
    };
    // sorted, distinct lines of the tables that need them
    let mut sorted_blocks: Vec<Option<Vec<u8>>> = vec![None; tables.len()];
    for &(_, t) in &blocks {
        if plans[t].collision {
            let buf = gen_all(t);
            let mut lines = split_lines(&buf);
            lines.par_sort_unstable();
            lines.dedup();
            let (a, b, c) = count_lines(&lines);
            n_type += a;
            n_data += b;
            n_ref += c;
            sorted_blocks[t] = Some(lines.concat());
        }
    }
    let blank_bufs: Vec<Vec<u8>> = blank.par_iter().map(|&t| gen_all(t)).collect();
    let mut blank_lines: Vec<&[u8]> = blank_bufs.iter().flat_map(|b| split_lines(b)).collect();
    blank_lines.par_sort_unstable();
    blank_lines.dedup();
    let (a, b, c) = count_lines(&blank_lines);
    n_type += a;
    n_data += b;
    n_ref += c;
    write_file(Path::new(&job.nt_path), |sink| {
        for &(_, t) in &blocks {
            if let Some(buf) = sorted_blocks[t].take() {
                sink.send(buf);
                continue;
            }
            let data = &tables[t];
            let order = subject_order(data);
            let chunks = data.n.div_ceil(CHUNK);
            sink.par_chunks(chunks, |c| {
                let rows = &order[c * CHUNK..((c + 1) * CHUNK).min(data.n)];
                let mut buf = Vec::with_capacity(rows.len() * 256);
                for &i in rows {
                    row_lines(i as usize, t, &job.tables[t], &plans[t], tables, &mut buf);
                }
                buf
            });
        }
        for chunk in blank_lines.chunks(65536) {
            sink.send(chunk.concat());
        }
    })?;
    timer.lap("ntriples");
    timer.stamp("ntriples_done_unix");
    drop(blank_lines);
    drop(blank_bufs);

    // ---- graph.json: entities (rows merged by eid) and relations
    let entities: Vec<Option<Entities>> = (0..tables.len())
        .into_par_iter()
        .map(|t| merged_entities(&tables[t], &plans[t]))
        .collect();
    for (t, p) in plans.iter_mut().enumerate() {
        p.outcome.nodes = entities[t].as_ref().map_or(tables[t].n, Vec::len);
    }
    let kept = distinct_relations(job, tables, matches);
    let relationships = kept.len();
    let graph_written = write_file(Path::new(&job.graph_path), |sink| {
        sink.send(graph_head(job, &plans));
        let mut first = true;
        for (t, data) in tables.iter().enumerate() {
            let tj = &job.tables[t];
            let p = &plans[t];
            let lead = !first;
            match &entities[t] {
                None => {
                    if data.n == 0 {
                        continue;
                    }
                    first = false;
                    sink.par_chunks(data.n.div_ceil(CHUNK), |c| {
                        let mut buf = Vec::with_capacity(CHUNK * 256);
                        for i in c * CHUNK..((c + 1) * CHUNK).min(data.n) {
                            if lead || i > 0 {
                                buf.extend_from_slice(b", ");
                            }
                            let props = p.pg.iter().enumerate().filter_map(|(x, &(j, _))| {
                                (data.columns[j].cells[i] != Cell::Null).then_some((x, i as u32))
                            });
                            entity(tj, p, data, i, props, &mut buf);
                        }
                        buf
                    });
                }
                Some(ents) => {
                    let mut buf = Vec::new();
                    for (e, props) in ents.iter().enumerate() {
                        if lead || e > 0 {
                            buf.extend_from_slice(b", ");
                        }
                        first = false;
                        let i = props.first().map_or(0, |&(_, r)| r as usize);
                        entity(tj, p, data, i, props.iter().skip(1).copied(), &mut buf);
                    }
                    sink.send(buf);
                }
            }
        }
        sink.send(b"],\n\"relations\": [".to_vec());
        sink.par_chunks(kept.len().div_ceil(CHUNK), |c| {
            let mut buf = Vec::with_capacity(CHUNK * 200);
            for (x, &(k, m)) in kept
                .iter()
                .enumerate()
                .take(((c + 1) * CHUNK).min(kept.len()))
                .skip(c * CHUNK)
            {
                if x > 0 {
                    buf.extend_from_slice(b", ");
                }
                let fk = &job.fks[k as usize];
                let (i, p) = matches[k as usize][m as usize];
                buf.extend_from_slice(b"{\"rid\": \"");
                lex::int(x as i64, &mut buf);
                buf.extend_from_slice(b"\", \"label\": ");
                lex::json_string(fk.label.as_bytes(), &mut buf);
                buf.extend_from_slice(b", \"subj_id\": ");
                lex::json_string(tables[fk.child].eid(i as usize), &mut buf);
                buf.extend_from_slice(b", \"obj_id\": ");
                lex::json_string(tables[fk.parent].eid(p as usize), &mut buf);
                buf.extend_from_slice(b", \"properties\": {}, \"provenance\": []}");
            }
            buf
        });
        sink.send(b"]}\n".to_vec());
    });
    if let Err(RdbError::Interrupted) = graph_written {
        // the pair is published whole or not at all: no lone N-Triples file that looks done
        let _ = fs::remove_file(&job.nt_path);
    }
    graph_written?;
    timer.lap("graph_json");

    Ok(Outcome {
        tables: plans.into_iter().map(|p| p.outcome).collect(),
        fk_matches: matches.iter().map(Vec::len).collect(),
        type_triples: n_type,
        data_triples: n_data,
        ref_triples: n_ref,
        relationships,
    })
}

/// Rows merged by eid (`rows_to_entities`' `by_eid`), when some eids repeat: per entity,
/// `(0, first row)` then the `(pg column, row)` pairs of its properties in order.
fn merged_entities(data: &TableData, p: &Plan<'_>) -> Option<Entities> {
    if data.unique_eids {
        return None;
    }
    let mut index: rustc_hash::FxHashMap<&[u8], usize> = Default::default();
    let mut ents: Vec<Vec<(usize, u32)>> = Vec::new();
    for i in 0..data.n {
        let e = *index.entry(data.eid(i)).or_insert_with(|| {
            ents.push(vec![(0, i as u32)]);
            ents.len() - 1
        });
        let ent = &mut ents[e];
        for (x, &(j, _)) in p.pg.iter().enumerate() {
            if data.columns[j].cells[i] != Cell::Null && !ent[1..].iter().any(|&(y, _)| y == x) {
                ent.push((x, i as u32));
            }
        }
    }
    Some(ents)
}

/// One entity object; `props` are (pg column, row) pairs.
fn entity(
    tj: &super::TableJob,
    p: &Plan<'_>,
    data: &TableData,
    i: usize,
    props: impl Iterator<Item = (usize, u32)>,
    buf: &mut Vec<u8>,
) {
    buf.extend_from_slice(b"{\"eid\": ");
    lex::json_string(data.eid(i), buf);
    buf.extend_from_slice(b", \"label\": ");
    lex::json_string(tj.label.as_bytes(), buf);
    buf.extend_from_slice(b", \"name\": ");
    lex::json_string(data.name(i), buf);
    buf.extend_from_slice(b", \"aliases\": [], \"description\": null, \"properties\": {");
    for (n, (x, r)) in props.enumerate() {
        if n > 0 {
            buf.extend_from_slice(b", ");
        }
        let (j, mode) = p.pg[x];
        let col = &data.columns[j];
        lex::json_string(tj.columns[j].prop.as_deref().unwrap_or("").as_bytes(), buf);
        buf.extend_from_slice(b": ");
        pg_value(p.kinds[j], mode, col, col.cells[r as usize], buf);
    }
    buf.extend_from_slice(b"}, \"provenance\": []}");
}

/// `{"schema": {...},\n"entities": [` of graph.json.
fn graph_head(job: &Job, plans: &[Plan<'_>]) -> Vec<u8> {
    let mut buf = b"{\"schema\": {\"name\": ".to_vec();
    lex::json_string(job.db_id.as_bytes(), &mut buf);
    buf.extend_from_slice(b", \"entities\": [");
    for (t, (tj, p)) in job.tables.iter().zip(plans).enumerate() {
        if t > 0 {
            buf.extend_from_slice(b", ");
        }
        buf.extend_from_slice(b"{\"label\": ");
        lex::json_string(tj.label.as_bytes(), &mut buf);
        buf.extend_from_slice(b", \"properties\": {");
        for (x, c) in p.outcome.pg_columns.iter().enumerate() {
            if x > 0 {
                buf.extend_from_slice(b", ");
            }
            lex::json_string(
                tj.columns[c.column]
                    .prop
                    .as_deref()
                    .unwrap_or("")
                    .as_bytes(),
                &mut buf,
            );
            buf.extend_from_slice(b": ");
            lex::json_string(c.dtype.as_bytes(), &mut buf);
        }
        buf.extend_from_slice(b"}}");
    }
    buf.extend_from_slice(b"], \"relations\": ");
    buf.extend_from_slice(job.relation_schema_json.as_bytes());
    buf.extend_from_slice(b"},\n\"entities\": [");
    buf
}

/// The relationships in order without repeats (`dict.fromkeys` of (type, subject eid,
/// object eid)): (foreign key, match) pairs.
fn distinct_relations(
    job: &Job,
    tables: &[TableData],
    matches: &[Vec<(u32, u32)>],
) -> Vec<(u32, u32)> {
    // a relationship can only repeat within its type, across foreign keys sharing it or
    // between rows sharing an eid
    let needs_check = |k: usize| {
        let fk = &job.fks[k];
        job.fks.iter().filter(|o| o.label == fk.label).count() > 1
            || !tables[fk.child].unique_eids
            || !tables[fk.parent].unique_eids
    };
    let mut seen: FxHashSet<(&str, &[u8], &[u8])> = FxHashSet::default();
    let mut kept = Vec::with_capacity(matches.iter().map(Vec::len).sum());
    for (k, m) in matches.iter().enumerate() {
        if !needs_check(k) {
            kept.extend((0..m.len() as u32).map(|x| (k as u32, x)));
            continue;
        }
        let fk = &job.fks[k];
        for (x, &(i, p)) in m.iter().enumerate() {
            let key = (
                fk.label.as_str(),
                tables[fk.child].eid(i as usize),
                tables[fk.parent].eid(p as usize),
            );
            if seen.insert(key) {
                kept.push((k as u32, x as u32));
            }
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(values: &[Option<&str>]) -> Column {
        let mut col = Column::default();
        for v in values {
            let cell = match v {
                None => Cell::Null,
                Some(t) => {
                    let start = col.arena.len() as u32;
                    col.arena.extend_from_slice(t.as_bytes());
                    Cell::Text(start, t.len() as u32)
                }
            };
            col.cells.push(cell);
        }
        col
    }

    fn term(kind: Kind, col: &Column, c: Cell) -> String {
        let mut out = Vec::new();
        nt_term(kind, col, c, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn terms_by_kind_and_storage_fallback() {
        let col = column(&[Some("2010-01-05 10:00:00"), Some("T"), Some("nil")]);
        let x = |dt: &str| format!("^^<{XSD}{dt}>");
        assert_eq!(
            term(Kind::DateTime, &col, col.cells[0]),
            format!("\"2010-01-05T10:00:00\"{}", x("dateTime"))
        );
        assert_eq!(
            term(Kind::Boolean, &col, col.cells[1]),
            format!("\"true\"{}", x("boolean"))
        );
        // a mismatch keeps the literal of its storage class
        assert!(!nt_fits(Kind::Integer, &col, col.cells[2]));
        assert_eq!(term(Kind::Integer, &col, col.cells[2]), "\"nil\"");
        assert_eq!(
            term(Kind::Double, &col, Cell::Int(3)),
            format!("\"3.0\"{}", x("double"))
        );
        assert_eq!(
            term(Kind::Decimal, &col, Cell::Float(1e16)),
            format!("\"10000000000000000\"{}", x("decimal"))
        );
        assert_eq!(
            term(Kind::Decimal, &col, Cell::Float(f64::INFINITY)),
            format!("\"INF\"{}", x("double"))
        );
        assert_eq!(
            term(Kind::Boolean, &col, Cell::Int(0)),
            format!("\"false\"{}", x("boolean"))
        );
    }

    #[test]
    fn property_graph_plans() {
        // untyped: ints and floats -> float, a text among them -> str of every value
        let mut col = column(&[None]);
        col.cells.extend([Cell::Int(1), Cell::Float(2.5)]);
        assert!(matches!(
            pg_plan(Kind::Untyped, &col),
            ("float", None, PgMode::Native)
        ));
        let mut mixed = column(&[Some("a")]);
        mixed.cells.push(Cell::Int(1));
        assert!(matches!(
            pg_plan(Kind::Untyped, &mixed),
            ("str", None, PgMode::Text)
        ));
        // a date column with a bad value is widened to str
        let dates = column(&[Some("2010-01-05"), Some("2010-1-5")]);
        assert!(matches!(
            pg_plan(Kind::Date, &dates),
            ("str", Some("date"), PgMode::Text)
        ));
        let mut out = Vec::new();
        pg_value(
            Kind::Double,
            PgMode::Text,
            &col,
            Cell::Float(f64::INFINITY),
            &mut out,
        );
        assert_eq!(out, b"\"INF\"");
    }

    #[test]
    fn lines_split_and_counted() {
        let text = "<s> <p> \"a\u{2028}b\" .\n<s> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <c> .\n<s> <q> <o> .\n";
        let lines = split_lines(text.as_bytes());
        assert_eq!(lines.len(), 3);
        assert_eq!(count_lines(&lines), (1, 1, 1));
    }
}
