//! Binding of `kgbench_core::cypher` as `kgbench._core.cypher`.
//!
//! - `write_clauses(query) -> list[str]`: the read-only gate (never raises).
//! - `lexical_write_clauses(query) -> list[str]`: its parser-free fallback scan.
//! - `provenance_queries(query) -> list[str]`: PSJS provenance queries, one per
//!   UNION branch; raises `CypherSyntaxError` (a `ValueError`).
//! - `provenance_details(query) -> list[dict]`: the same with the MATCH part and
//!   the node variables.

use kgbench_core::cypher::{self as core, CypherError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

pyo3::create_exception!(
    kgbench._core.cypher,
    CypherSyntaxError,
    PyValueError,
    "A query that kgbench cannot parse as one openCypher query (empty, not Cypher, several statements, too large). Subclass of ValueError; attribute `offset` (byte offset of the first error, or None)."
);

fn to_py_err(py: Python<'_>, err: CypherError) -> PyErr {
    let offset = match &err {
        CypherError::Syntax { offset, .. } => Some(*offset),
        _ => None,
    };
    let exc = CypherSyntaxError::new_err(err.to_string());
    let value = exc.value(py);
    // Attaching the attribute cannot fail on a fresh exception instance.
    let _ = value.setattr("offset", offset);
    exc
}

/// The text of a Python string; lone surrogates (not valid Unicode) are
/// replaced by U+FFFD so that the gate never raises.
fn lossy(query: &Bound<'_, PyString>) -> String {
    match query.to_str() {
        Ok(text) => text.to_string(),
        Err(_) => query.to_string_lossy().into_owned(),
    }
}

/// Write clauses of `query` (e.g. `["MERGE", "SET"]`), empty when read-only.
/// Never raises on a `str`. Rules: kgbench_core::cypher::gate.
#[pyfunction]
fn write_clauses(py: Python<'_>, query: &Bound<'_, PyString>) -> Vec<String> {
    let text = lossy(query);
    py.detach(|| core::write_clauses(&text))
}

/// The conservative lexical scan used by `write_clauses` on unparseable input.
#[pyfunction]
fn lexical_write_clauses(py: Python<'_>, query: &Bound<'_, PyString>) -> Vec<String> {
    let text = lossy(query);
    py.detach(|| core::lexical_write_clauses(&text))
}

/// The text of `query`, or `CypherSyntaxError` when it holds lone surrogates.
fn strict_text(py: Python<'_>, query: &Bound<'_, PyString>) -> PyResult<String> {
    match query.to_str() {
        Ok(text) => Ok(text.to_string()),
        Err(_) => Err(to_py_err(
            py,
            CypherError::Syntax {
                offset: 0,
                message: "the query is not valid Unicode (lone surrogate)".to_string(),
            },
        )),
    }
}

/// Provenance queries (SPEC.md §4), one per UNION branch with a MATCH part;
/// each returns the column `element_id`. Raises `CypherSyntaxError`.
#[pyfunction]
fn provenance_queries(py: Python<'_>, query: &Bound<'_, PyString>) -> PyResult<Vec<String>> {
    let query = strict_text(py, query)?;
    match py.detach(|| core::provenance_queries(&query)) {
        Ok(found) => Ok(found.into_iter().map(|p| p.cypher).collect()),
        Err(err) => Err(to_py_err(py, err)),
    }
}

/// Like `provenance_queries`, as dicts with keys `cypher`, `match_cypher`
/// and `node_variables`.
#[pyfunction]
fn provenance_details<'py>(
    py: Python<'py>,
    query: &Bound<'py, PyString>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let query = strict_text(py, query)?;
    let found = py
        .detach(|| core::provenance_queries(&query))
        .map_err(|err| to_py_err(py, err))?;
    found
        .into_iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("cypher", p.cypher)?;
            d.set_item("match_cypher", p.match_cypher)?;
            d.set_item("node_variables", p.node_variables)?;
            Ok(d)
        })
        .collect()
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = parent.py();
    let m = PyModule::new(py, "cypher")?;
    m.add_function(wrap_pyfunction!(write_clauses, &m)?)?;
    m.add_function(wrap_pyfunction!(lexical_write_clauses, &m)?)?;
    m.add_function(wrap_pyfunction!(provenance_queries, &m)?)?;
    m.add_function(wrap_pyfunction!(provenance_details, &m)?)?;
    m.add("CypherSyntaxError", py.get_type::<CypherSyntaxError>())?;
    m.add(
        "READ_ONLY_PROCEDURES",
        pyo3::types::PyTuple::new(py, core::READ_ONLY_PROCEDURES)?,
    )?;
    m.add("ELEMENT_ID_COLUMN", core::provenance::ELEMENT_ID_COLUMN)?;
    crate::add_submodule(parent, &m)
}
