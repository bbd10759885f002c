//! Binding of `kgbench_core::cypher` as `kgbench._core.cypher`.
//!
//! Every function parses through the one front end
//! (`kgbench_core::cypher::frontend`) and takes `dialect` (`"5"`, the
//! default, or `"25"`: the Cypher version of the server).
//!
//! - `write_clauses(query, dialect="5") -> list[str]`: the read-only gate (never
//!   raises on a `str`; an unknown dialect raises `InputError`).
//! - `lexical_write_clauses(query) -> list[str]`: its parser-free fallback scan.
//! - `syntax_error(query, dialect="5") -> str | None`: the front end's one-line
//!   error for a query it cannot parse (the text every ledger shows).
//! - `provenance_queries(query, dialect="5") -> list[str]`: PSJS provenance queries, one per
//!   UNION branch; raises `CypherSyntaxError` (a `ValueError`).
//! - `gate_and_provenance(query, dialect="5") -> (list[str], list[str] | None,
//!   str | None)`: both from one parse (never raises on a `str`).
//! - `provenance_details(query) -> list[dict]`: the same with the MATCH part and
//!   the node variables.
//! - `analyze_queries(queries, schema_json=None, questions=None,
//!   entity_values=None, allowed_procedures=(), as_json=False) -> list`: PIPE-Cypher's
//!   static gates G1-G6, structural features, signature, difficulty and
//!   category per query (kgbench_core::cypher::analyze), in parallel.
//! - `neighbour_queries(gold, schema_json=None, seed=0, max_count=64, dialect="5")
//!   -> list[tuple[str, str]]`: seeded near-miss mutations `(kind, query)` of a gold
//!   query for test-suite EX (kgbench_core::cypher::neighbours); raises
//!   `CypherSyntaxError` when the gold does not parse.

use kgbench_core::cypher::analyze::{static_gates, GateRecord};
use kgbench_core::cypher::Dialect;
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

/// The dialect named by `name` (`"5"` or `"25"`), or `InputError`.
fn dialect(py: Python<'_>, name: &str) -> PyResult<Dialect> {
    Dialect::from_name(name).map_err(|e| crate::input_error(py, e))
}

/// Write clauses of `query` (e.g. `["MERGE", "SET"]`), empty when read-only.
/// Never raises on a `str`. Rules: kgbench_core::cypher::gate.
#[pyfunction]
#[pyo3(signature = (query, dialect="5"))]
fn write_clauses(
    py: Python<'_>,
    query: &Bound<'_, PyString>,
    dialect: &str,
) -> PyResult<Vec<String>> {
    let d = self::dialect(py, dialect)?;
    let text = lossy(query);
    Ok(py.detach(|| core::write_clauses_in(&text, d)))
}

/// The one-line error (`"Cypher syntax error at byte N: reason"`) of a query the
/// front end cannot parse, or `None` when it parses.
#[pyfunction]
#[pyo3(signature = (query, dialect="5"))]
fn syntax_error(
    py: Python<'_>,
    query: &Bound<'_, PyString>,
    dialect: &str,
) -> PyResult<Option<String>> {
    let d = self::dialect(py, dialect)?;
    let text = match strict_text(py, query) {
        Ok(text) => text,
        Err(err) => return Ok(Some(err.value(py).to_string())),
    };
    Ok(py.detach(|| {
        core::with_front(&text, d, |_| ())
            .err()
            .map(|e| e.to_string())
    }))
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
#[pyo3(signature = (query, dialect="5"))]
fn provenance_queries(
    py: Python<'_>,
    query: &Bound<'_, PyString>,
    dialect: &str,
) -> PyResult<Vec<String>> {
    let d = self::dialect(py, dialect)?;
    let query = strict_text(py, query)?;
    match py.detach(|| core::provenance_queries_in(&query, d)) {
        Ok(found) => Ok(found.into_iter().map(|p| p.cypher).collect()),
        Err(err) => Err(to_py_err(py, err)),
    }
}

/// Like `provenance_queries`, as dicts with keys `cypher`, `match_cypher`,
/// `node_variables` and `relationship_cypher` (the element ids of the
/// relationships the MATCH part matched, column `element_id`).
#[pyfunction]
#[pyo3(signature = (query, dialect="5"))]
fn provenance_details<'py>(
    py: Python<'py>,
    query: &Bound<'py, PyString>,
    dialect: &str,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let d = self::dialect(py, dialect)?;
    let query = strict_text(py, query)?;
    let found = py
        .detach(|| core::provenance_queries_in(&query, d))
        .map_err(|err| to_py_err(py, err))?;
    found
        .into_iter()
        .map(|p| {
            let d = PyDict::new(py);
            d.set_item("cypher", p.cypher)?;
            d.set_item("match_cypher", p.match_cypher)?;
            d.set_item("node_variables", p.node_variables)?;
            d.set_item("relationship_cypher", p.relationship_cypher)?;
            Ok(d)
        })
        .collect()
}

/// `(write_clauses, provenance queries or None, error or None)`.
type GateAndProvenance = (Vec<String>, Option<Vec<String>>, Option<String>);

/// The gate's write clauses and the provenance queries of `query` from one parse:
/// `(write_clauses, provenance_queries or None, error or None)`; the error is the
/// `CypherSyntaxError` text `provenance_queries` would raise. Never raises on a `str`.
#[pyfunction]
#[pyo3(signature = (query, dialect="5"))]
fn gate_and_provenance(
    py: Python<'_>,
    query: &Bound<'_, PyString>,
    dialect: &str,
) -> PyResult<GateAndProvenance> {
    let d = self::dialect(py, dialect)?;
    let text = lossy(query);
    let (writes, found) = py.detach(|| core::gate_and_provenance(&text, d));
    Ok(match found {
        Ok(found) => (
            writes,
            Some(found.into_iter().map(|p| p.cypher).collect()),
            None,
        ),
        Err(err) => (writes, None, Some(err.to_string())),
    })
}

/// One compact row of `analyze_queries(..., as_json=True)`.
type JsonRow = (
    String,
    bool,
    bool,
    bool,
    &'static str,
    &'static str,
    String,
    Vec<String>,
);

/// The analysis of each query (see `kgbench.generate.pipe.features`), as a dict, or with
/// `as_json` as the compact tuple `(validation_json, read_only, g2_valid,
/// schema_valid, category, difficulty, signature, string_literal_values)` whose JSON text
/// is the same dict serialised in parallel (for bulk gating: embed it as is). With
/// `schema_json` (a graph profile, spec §2) the schema gates add their findings to
/// `issues` and `schema_valid`; `questions` / `entity_values` (same length as `queries`)
/// feed G5. Raises `kgbench.errors.InputError` for a bad schema or mismatched lengths.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // the Python keyword arguments
#[pyo3(signature = (queries, schema_json=None, questions=None, entity_values=None, allowed_procedures=Vec::new(), as_json=false, dialect="5"))]
fn analyze_queries<'py>(
    py: Python<'py>,
    queries: Vec<String>,
    schema_json: Option<String>,
    questions: Option<Vec<String>>,
    entity_values: Option<Vec<Vec<String>>>,
    allowed_procedures: Vec<String>,
    as_json: bool,
    dialect: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let dialect = self::dialect(py, dialect)?;
    use kgbench_core::cypher::analyze::{Schema, SchemaIndex};
    use pyo3::IntoPyObjectExt;
    let n = queries.len();
    for (name, len) in [
        ("questions", questions.as_ref().map(Vec::len)),
        ("entity_values", entity_values.as_ref().map(Vec::len)),
    ] {
        if let Some(len) = len.filter(|&len| len != n) {
            return Err(crate::input_error(
                py,
                format!("{name} has {len} entries for {n} queries"),
            ));
        }
    }
    let schema = match &schema_json {
        None => None,
        Some(text) => {
            let s: Schema = serde_json::from_str(text)
                .map_err(|e| crate::input_error(py, format!("schema: {e}")))?;
            Some(SchemaIndex::new(&s))
        }
    };
    let job = Job {
        queries,
        schema,
        questions,
        entity_values,
        allowed_procedures,
        dialect,
    };
    if as_json {
        let rows: Vec<JsonRow> = py.detach(|| {
            job.run(|r| {
                let a = &r.analysis;
                (
                    serde_json::to_string(&r).unwrap_or_default(),
                    r.read_only,
                    r.g2_valid,
                    r.schema_valid,
                    a.category,
                    a.difficulty,
                    a.signature.clone(),
                    a.string_literals.iter().map(|l| l.value.clone()).collect(),
                )
            })
        });
        return rows.into_iter().map(|r| r.into_bound_py_any(py)).collect();
    }
    let values: Vec<serde_json::Value> =
        py.detach(|| job.run(|r| serde_json::to_value(&r).unwrap_or(serde_json::Value::Null)));
    values.iter().map(|v| crate::json_to_py(py, v)).collect()
}

/// Up to `max_count` neighbour queries `(kind, query)` of `gold` (test-suite EX's
/// near-misses: kgbench_core::cypher::neighbours), seeded by `seed`; `schema_json`
/// gives the labels, types and property keys with value types to swap from
/// (`{"labels": [...], "types": [...], "node_properties": {label: {key: type}},
/// "relationship_properties": {type: {key: type}}}`). Raises `CypherSyntaxError`
/// when `gold` does not parse, `InputError` for a bad schema or dialect.
#[pyfunction]
#[pyo3(signature = (gold, schema_json=None, seed=0, max_count=64, dialect="5"))]
fn neighbour_queries(
    py: Python<'_>,
    gold: &str,
    schema_json: Option<String>,
    seed: u64,
    max_count: usize,
    dialect: &str,
) -> PyResult<Vec<(String, String)>> {
    use kgbench_core::cypher::neighbours::{self, NeighbourSchema};
    let d = self::dialect(py, dialect)?;
    let schema: NeighbourSchema = match &schema_json {
        None => NeighbourSchema::default(),
        Some(text) => serde_json::from_str(text)
            .map_err(|e| crate::input_error(py, format!("neighbour schema: {e}")))?,
    };
    let gold = gold.to_string();
    let found = py.detach(|| neighbours::neighbour_queries(&gold, &schema, seed, max_count, d));
    match found {
        Ok(list) => Ok(list
            .into_iter()
            .map(|n| (n.kind.to_string(), n.query))
            .collect()),
        Err(e) => Err(to_py_err(py, e)),
    }
}

/// One analysis batch (arguments checked by `analyze_queries`).
struct Job {
    queries: Vec<String>,
    schema: Option<kgbench_core::cypher::analyze::SchemaIndex>,
    questions: Option<Vec<String>>,
    entity_values: Option<Vec<Vec<String>>>,
    allowed_procedures: Vec<String>,
    dialect: Dialect,
}

impl Job {
    /// Gate every query in parallel ([`static_gates`]); `f` maps each record.
    fn run<T: Send>(&self, f: impl Fn(GateRecord) -> T + Sync) -> Vec<T> {
        use rayon::prelude::*;
        (0..self.queries.len())
            .into_par_iter()
            .map(|i| {
                let q = self.questions.as_ref().map_or("", |q| q[i].as_str());
                let ev: &[String] = self.entity_values.as_ref().map_or(&[], |e| &e[i]);
                f(static_gates(
                    &self.queries[i],
                    self.schema.as_ref(),
                    q,
                    ev,
                    &self.allowed_procedures,
                    self.dialect,
                ))
            })
            .collect()
    }
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = parent.py();
    let m = PyModule::new(py, "cypher")?;
    m.add_function(wrap_pyfunction!(write_clauses, &m)?)?;
    m.add_function(wrap_pyfunction!(lexical_write_clauses, &m)?)?;
    m.add_function(wrap_pyfunction!(syntax_error, &m)?)?;
    m.add_function(wrap_pyfunction!(gate_and_provenance, &m)?)?;
    m.add_function(wrap_pyfunction!(provenance_queries, &m)?)?;
    m.add_function(wrap_pyfunction!(provenance_details, &m)?)?;
    m.add_function(wrap_pyfunction!(analyze_queries, &m)?)?;
    m.add_function(wrap_pyfunction!(neighbour_queries, &m)?)?;
    m.add(
        "CATEGORIES",
        pyo3::types::PyTuple::new(py, kgbench_core::cypher::analyze::CATEGORIES)?,
    )?;
    m.add("CypherSyntaxError", py.get_type::<CypherSyntaxError>())?;
    m.add(
        "READ_ONLY_PROCEDURES",
        pyo3::types::PyTuple::new(py, core::READ_ONLY_PROCEDURES)?,
    )?;
    m.add("ELEMENT_ID_COLUMN", core::provenance::ELEMENT_ID_COLUMN)?;
    crate::add_submodule(parent, &m)
}
