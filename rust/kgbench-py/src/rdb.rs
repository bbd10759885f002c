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
//! Errors: `kgbench.errors.InputError` with a one-line message naming the database and the
//! table or foreign key (`<db>: table t: cannot read: ...`, `<db>: foreign key t(c) -> p:
//! join failed: ...`) or the output file (`<path>: cannot write: ...`); `ValueError` for a
//! malformed job.

use kgbench_core::rdb::{self, Job, Outcome, PyValue, RdbError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
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

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "rdb")?;
    m.add_function(wrap_pyfunction!(convert, &m)?)?;
    crate::add_submodule(parent, &m)
}
