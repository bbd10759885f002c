//! Binding of `kgbench_core::rdb` as `kgbench._core.rdb`: the row work of `kgbench rdb`
//! (spec spider4sparql.md §3; the planning, ontology and report stay in
//! `kgbench.rdb.convert`).
//!
//! - `convert(job_json: str) -> dict`: run one conversion planned by Python (the JSON of
//!   `kgbench_core::rdb::Job`): read the SQLite file, write the N-Triples file and graph.json
//!   atomically, return the counts: `{"tables": [{"rows", "nodes", "row_naming", "merged",
//!   "columns": [{"kind", "promoted", "trimmed", "cells"}], "mismatches": [{"column",
//!   "count", "examples": [int | float | str | bytes]}], "pg_columns": [{"column", "dtype",
//!   "widened_from"}]}], "fk_matches": [int], "type_triples", "data_triples",
//!   "ref_triples", "relationships"}`. The GIL is released during the run, which stops on
//!   Ctrl-C (`KeyboardInterrupt`; neither output file is published).
//!
//! - the IRI naming rule of `kgbench_core::rdb::naming` (the one implementation; called by
//!   `kgbench.rdb.naming.Naming`): `check_style(style)`, `table_local(style, table)`,
//!   `class_iri(style, base, table)`, `column_local(style, table, column)`,
//!   `column_iri(style, base, table, column)`, `ref_local(style, table, columns)`,
//!   `ref_iri(style, base, table, columns)`, `row_iri(style, base, table, key)`,
//!   `eid(table, key)`, `literal_text(value)`, `sparql_term(local)`; `style` is `"s4s"` or
//!   `"w3c"` (else `ValueError`), `key` a sequence of `(column, value)` pairs, a value
//!   `None`, bool, int, float, str, bytes (anything else by its `str`).
//!
//! Errors: `kgbench.errors.InputError` with a one-line message naming the database and the
//! table or foreign key (`<db>: table t: cannot read: ...`, `<db>: foreign key t(c) -> p:
//! join failed: ...`) or the output file (`<path>: cannot write: ...`); `ValueError` for a
//! malformed job.

use kgbench_core::rdb::naming::{self, KeyValue, Naming, Style};
use kgbench_core::rdb::{self, Job, Outcome, PyValue, RdbError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString};
use pyo3::IntoPyObjectExt;

use crate::input_error;

fn message(job: &Job, e: &RdbError) -> String {
    match e {
        RdbError::Open(m) => format!("{}: cannot open: {m}", job.db),
        RdbError::Read(t, m) => format!(
            "{}: table {}: cannot read: {m}",
            job.db, job.tables[*t].name
        ),
        RdbError::Join(k, m) => format!(
            "{}: foreign key {}: join failed: {m}",
            job.db, job.fks[*k].describe
        ),
        RdbError::Io { path, error } => {
            let text = error.to_string();
            // Python's strerror: the text before " (os error N)"
            let short = text.split(" (os error").next().unwrap_or(&text).to_string();
            format!("{path}: cannot write: {short}")
        }
        RdbError::Interrupted => format!("{}: interrupted", job.db),
    }
}

fn value<'py>(py: Python<'py>, v: &PyValue) -> PyResult<Bound<'py, PyAny>> {
    match v {
        PyValue::Int(i) => i.into_bound_py_any(py),
        PyValue::BigInt(s) => py.import("builtins")?.getattr("int")?.call1((s.as_str(),)),
        PyValue::Float(f) => f.into_bound_py_any(py),
        PyValue::Str(s) => s.into_bound_py_any(py),
        PyValue::Bytes(b) => pyo3::types::PyBytes::new(py, b).into_bound_py_any(py),
    }
}

fn outcome<'py>(py: Python<'py>, o: &Outcome) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let tables = PyList::empty(py);
    for t in &o.tables {
        let td = PyDict::new(py);
        td.set_item("rows", t.rows)?;
        td.set_item("nodes", t.nodes)?;
        td.set_item("row_naming", t.row_naming)?;
        td.set_item("merged", t.merged)?;
        let cols = PyList::empty(py);
        for c in &t.columns {
            let cd = PyDict::new(py);
            cd.set_item("kind", c.kind.name())?;
            cd.set_item("promoted", c.promoted)?;
            cd.set_item("trimmed", c.trimmed)?;
            cd.set_item("cells", c.cells)?;
            cols.append(cd)?;
        }
        td.set_item("columns", cols)?;
        let mis = PyList::empty(py);
        for m in &t.mismatches {
            let md = PyDict::new(py);
            md.set_item("column", m.column)?;
            md.set_item("count", m.count)?;
            let ex = PyList::empty(py);
            for v in &m.examples {
                ex.append(value(py, v)?)?;
            }
            md.set_item("examples", ex)?;
            mis.append(md)?;
        }
        td.set_item("mismatches", mis)?;
        let pg = PyList::empty(py);
        for p in &t.pg_columns {
            let pd = PyDict::new(py);
            pd.set_item("column", p.column)?;
            pd.set_item("dtype", p.dtype)?;
            pd.set_item("widened_from", p.widened_from)?;
            pg.append(pd)?;
        }
        td.set_item("pg_columns", pg)?;
        tables.append(td)?;
    }
    d.set_item("tables", tables)?;
    d.set_item("fk_matches", o.fk_matches.clone())?;
    d.set_item("type_triples", o.type_triples)?;
    d.set_item("data_triples", o.data_triples)?;
    d.set_item("ref_triples", o.ref_triples)?;
    d.set_item("relationships", o.relationships)?;
    Ok(d)
}

/// Run one conversion; see the module documentation.
#[pyfunction]
fn convert<'py>(py: Python<'py>, job_json: &str) -> PyResult<Bound<'py, PyDict>> {
    let job: Job = serde_json::from_str(job_json)
        .map_err(|e| PyValueError::new_err(format!("bad rdb job: {e}")))?;
    // Ctrl-C raises KeyboardInterrupt at once; the core stops and publishes neither file
    let job = std::sync::Arc::new(job);
    let run = std::sync::Arc::clone(&job);
    match crate::interrupt::detach_interruptible(py, move || rdb::convert(&run))? {
        Ok(o) => outcome(py, &o),
        Err(e) => Err(input_error(py, message(&job, &e))),
    }
}

/// The naming style `style` (`s4s` or `w3c`); `ValueError` naming it (by its `repr`) else.
fn style_of(style: &Bound<'_, PyAny>) -> PyResult<Style> {
    let parsed = style
        .cast::<PyString>()
        .ok()
        .and_then(|s| s.to_str().ok().and_then(Style::parse));
    parsed.ok_or_else(|| {
        let shown = style
            .repr()
            .map_or_else(|_| "?".to_string(), |r| r.to_string());
        PyValueError::new_err(format!("naming must be 's4s' or 'w3c', not {shown}"))
    })
}

fn naming_of(style: &Bound<'_, PyAny>, base: &str) -> PyResult<Naming> {
    Ok(Naming::new(style_of(style)?, base))
}

/// A key value of Python, owned for the call.
enum Owned {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(String),
    Bytes(Vec<u8>),
}

impl Owned {
    fn of(v: &Bound<'_, PyAny>) -> PyResult<Owned> {
        Ok(if v.is_none() {
            Owned::Null
        } else if let Ok(b) = v.cast::<PyBool>() {
            Owned::Bool(b.is_true())
        } else if let Ok(i) = v.cast::<PyInt>() {
            match i.extract::<i64>() {
                Ok(x) => Owned::Int(x),
                Err(_) => Owned::Text(i.str()?.to_str()?.to_string()),
            }
        } else if let Ok(f) = v.cast::<PyFloat>() {
            Owned::Float(f.value())
        } else if let Ok(s) = v.cast::<PyString>() {
            Owned::Text(s.to_str()?.to_string())
        } else if let Ok(b) = v.cast::<PyBytes>() {
            Owned::Bytes(b.as_bytes().to_vec())
        } else {
            Owned::Text(v.str()?.to_str()?.to_string())
        })
    }

    fn value(&self) -> KeyValue<'_> {
        match self {
            Owned::Null => KeyValue::Null,
            Owned::Bool(b) => KeyValue::Bool(*b),
            Owned::Int(i) => KeyValue::Int(*i),
            Owned::Float(f) => KeyValue::Float(*f),
            Owned::Text(s) => KeyValue::Text(s.as_bytes()),
            Owned::Bytes(b) => KeyValue::Bytes(b),
        }
    }
}

fn owned_key(key: &Bound<'_, PyAny>) -> PyResult<Vec<(String, Owned)>> {
    key.try_iter()?
        .map(|pair| {
            let (column, value): (String, Bound<'_, PyAny>) = pair?.extract()?;
            Ok((column, Owned::of(&value)?))
        })
        .collect()
}

fn key_values(key: &[(String, Owned)]) -> Vec<(&str, KeyValue<'_>)> {
    key.iter().map(|(c, v)| (c.as_str(), v.value())).collect()
}

/// `ValueError` unless `style` is a naming style.
#[pyfunction]
fn check_style(style: &Bound<'_, PyAny>) -> PyResult<()> {
    style_of(style).map(|_| ())
}

/// The local name of a table's class.
#[pyfunction]
fn table_local(style: &Bound<'_, PyAny>, table: &str) -> PyResult<String> {
    Ok(naming_of(style, "")?.table_local(table))
}

/// `<base>t`.
#[pyfunction]
fn class_iri(style: &Bound<'_, PyAny>, base: &str, table: &str) -> PyResult<String> {
    Ok(naming_of(style, base)?.class_iri(table))
}

/// `t#c`.
#[pyfunction]
fn column_local(style: &Bound<'_, PyAny>, table: &str, column: &str) -> PyResult<String> {
    Ok(naming_of(style, "")?.column_local(table, column))
}

/// `<base>t#c`.
#[pyfunction]
fn column_iri(style: &Bound<'_, PyAny>, base: &str, table: &str, column: &str) -> PyResult<String> {
    Ok(naming_of(style, base)?.column_iri(table, column))
}

/// `t#ref-c1;c2`.
#[pyfunction]
fn ref_local(style: &Bound<'_, PyAny>, table: &str, columns: Vec<String>) -> PyResult<String> {
    Ok(naming_of(style, "")?.ref_local(table, &columns))
}

/// `<base>t#ref-c1;c2`.
#[pyfunction]
fn ref_iri(
    style: &Bound<'_, PyAny>,
    base: &str,
    table: &str,
    columns: Vec<String>,
) -> PyResult<String> {
    Ok(naming_of(style, base)?.ref_iri(table, &columns))
}

/// `<base>t/k1=v1;k2=v2`.
#[pyfunction]
fn row_iri(
    style: &Bound<'_, PyAny>,
    base: &str,
    table: &str,
    key: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let naming = naming_of(style, base)?;
    let key = owned_key(key)?;
    Ok(naming.row_iri(table, &key_values(&key)))
}

/// `t#k1=v1;k2=v2`.
#[pyfunction]
fn eid(table: &str, key: &Bound<'_, PyAny>) -> PyResult<String> {
    let key = owned_key(key)?;
    Ok(String::from_utf8_lossy(&naming::eid(table, &key_values(&key))).into_owned())
}

/// The lexical text of a key value.
#[pyfunction]
fn literal_text(value: &Bound<'_, PyAny>) -> PyResult<String> {
    let v = Owned::of(value)?;
    let mut out = Vec::new();
    naming::literal_text(v.value(), &mut out);
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// A local name as a prefixed name under `PREFIX :`.
#[pyfunction]
fn sparql_term(local: &str) -> String {
    naming::sparql_term(local)
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "rdb")?;
    m.add_function(wrap_pyfunction!(convert, &m)?)?;
    m.add_function(wrap_pyfunction!(check_style, &m)?)?;
    m.add_function(wrap_pyfunction!(table_local, &m)?)?;
    m.add_function(wrap_pyfunction!(class_iri, &m)?)?;
    m.add_function(wrap_pyfunction!(column_local, &m)?)?;
    m.add_function(wrap_pyfunction!(column_iri, &m)?)?;
    m.add_function(wrap_pyfunction!(ref_local, &m)?)?;
    m.add_function(wrap_pyfunction!(ref_iri, &m)?)?;
    m.add_function(wrap_pyfunction!(row_iri, &m)?)?;
    m.add_function(wrap_pyfunction!(eid, &m)?)?;
    m.add_function(wrap_pyfunction!(literal_text, &m)?)?;
    m.add_function(wrap_pyfunction!(sparql_term, &m)?)?;
    m.add("S4S_BASE", naming::S4S_BASE)?;
    m.add("ROW_KEY", naming::ROW_KEY)?;
    crate::add_submodule(parent, &m)
}
