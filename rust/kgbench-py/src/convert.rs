//! Binding of `kgbench_core::convert` as `kgbench._core.convert`.

use kgbench_core::convert::{self as core, input::Format, ConvertError, Options};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

type ConvertResult = (
    Py<PyBytes>,
    String,
    String,
    Option<Py<PyBytes>>,
    Option<Py<PyBytes>>,
);

/// Convert Wikidata RDF files to a CypherBench SimpleKG (SPEC.md §1–§2).
///
/// Returns `(graph_json, report_json, schema_json, entity_rows, relation_rows)`:
/// `graph.json` as UTF-8 bytes, the report and the graph's schema block as text,
/// and, when `tables` is true and every value fits the rows (finite floats), the
/// Parquet tables as CSV bytes (else `None`; see `kgbench_core::convert::tables`).
/// Raises `ValueError` for an invalid schema (every problem with its JSON path),
/// malformed RDF or entity JSON (file, line, byte offset, excerpt) or unreadable / truncated
/// input. The GIL is released while converting.
#[pyfunction]
#[pyo3(signature = (schema_json, inputs, *, max_entities_per_root=None, skip_invalid=false,
                    format=None, progress=false, threads=None,
                    entity_prefix="http://www.wikidata.org/entity/".to_string(),
                    prop_prefix="http://www.wikidata.org/prop/".to_string(),
                    tables=false))]
#[allow(clippy::too_many_arguments)]
fn convert(
    py: Python<'_>,
    schema_json: String,
    inputs: Vec<String>,
    max_entities_per_root: Option<usize>,
    skip_invalid: bool,
    format: Option<String>,
    progress: bool,
    threads: Option<usize>,
    entity_prefix: String,
    prop_prefix: String,
    tables: bool,
) -> PyResult<ConvertResult> {
    let format = match format.as_deref() {
        None | Some("auto") => None,
        Some("nt") | Some("ntriples") => Some(Format::NTriples),
        Some("ttl") | Some("turtle") => Some(Format::Turtle),
        Some("json") => Some(Format::Json),
        Some(other) => {
            return Err(PyValueError::new_err(format!(
                "format must be 'nt', 'ttl', 'json' or 'auto', not {other:?}"
            )))
        }
    };
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be >= 1"));
    }
    let opts = Options {
        max_entities_per_root,
        skip_invalid,
        format,
        progress,
        entity_prefix,
        prop_prefix,
        tables,
    };
    // Ctrl-C raises KeyboardInterrupt at once (the output is written by the caller, from
    // the result, so an interrupted run writes nothing)
    let result = crate::interrupt::detach_interruptible(py, move || {
        let pool = thread_pool(threads)?;
        pool.install(|| core::convert(&schema_json, &inputs, &opts))
    })?;
    match result {
        Ok(out) => {
            let graph = PyBytes::new(py, out.graph_json.as_bytes()).unbind();
            drop(out.graph_json);
            let (ents, rels) = match out.tables {
                Some(t) if !t.lossy => (
                    Some(PyBytes::new(py, t.entities.as_bytes()).unbind()),
                    Some(PyBytes::new(py, t.relations.as_bytes()).unbind()),
                ),
                _ => (None, None),
            };
            Ok((graph, out.report_json, out.schema_json, ents, rels))
        }
        Err(e @ ConvertError::Options(_)) => Err(PyRuntimeError::new_err(e.to_string())),
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}

/// Validate a conversion schema; returns the list of problems (empty when valid),
/// each `"<json path>: <message>"`.
#[pyfunction]
fn validate_schema(schema_json: &str) -> Vec<String> {
    match core::parse_schema(schema_json) {
        Ok(_) => Vec::new(),
        Err(e) => e.0,
    }
}

/// The unit table: list of `(qid, label, dimension, factor_to_si, offset)`.
#[pyfunction]
fn unit_table() -> Vec<(String, String, String, f64, f64)> {
    core::units::UNITS
        .iter()
        .map(|(q, u)| {
            (
                q.to_string(),
                u.label.to_string(),
                format!("{:?}", u.dim),
                u.factor,
                u.offset,
            )
        })
        .collect()
}

/// Convert `value` between two units given by QID (`"Q11573"` → `"Q174728"`).
/// Raises `ValueError` for unknown units, unitless sources or different dimensions.
#[pyfunction]
fn convert_unit(value: f64, src_qid: &str, trg_qid: &str) -> PyResult<f64> {
    let src = core::units::by_qid(src_qid)
        .ok_or_else(|| PyValueError::new_err(format!("unknown unit {src_qid}")))?;
    let trg = core::units::by_qid(trg_qid)
        .ok_or_else(|| PyValueError::new_err(format!("unknown unit {trg_qid}")))?;
    core::units::convert(value, src, trg)
        .map_err(|e| PyValueError::new_err(format!("cannot convert {src_qid} to {trg_qid}: {e:?}")))
}

type TermTuple = (
    String,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
);

/// Parse RDF files with the converter's reader (same decompression, block
/// splitting and oxttl parsers) and return every triple as
/// `(subject, predicate, object_kind, object_value, datatype, language)`, with
/// `object_kind` one of `"iri"`, `"bnode"`, `"literal"`; blank nodes keep their
/// labels. For differential tests against other RDF parsers.
#[pyfunction]
#[pyo3(signature = (inputs, *, format=None, threads=None))]
fn parse_rdf(
    py: Python<'_>,
    inputs: Vec<String>,
    format: Option<String>,
    threads: Option<usize>,
) -> PyResult<Vec<TermTuple>> {
    use core::oxrdf::{NamedOrBlankNodeRef as NamedOrBlankNode, TermRef as Term};
    let format = match format.as_deref() {
        None => None,
        Some("nt") => Some(Format::NTriples),
        Some("ttl") => Some(Format::Turtle),
        Some(o) => return Err(PyValueError::new_err(format!("unknown format {o:?}"))),
    };
    let res = py.detach(move || {
        let pool = thread_pool(threads)?;
        pool.install(|| {
            let extract = |t: core::oxrdf::TripleRef<'_>| -> Option<TermTuple> {
                let s = match t.subject {
                    NamedOrBlankNode::NamedNode(n) => n.as_str().to_string(),
                    NamedOrBlankNode::BlankNode(b) => format!("_:{}", b.as_str()),
                };
                let (k, v, d, l) = match t.object {
                    Term::NamedNode(n) => ("iri", n.as_str().to_string(), None, None),
                    Term::BlankNode(b) => ("bnode", b.as_str().to_string(), None, None),
                    Term::Literal(l) => (
                        "literal",
                        l.value().to_string(),
                        Some(l.datatype().as_str().to_string()),
                        l.language().map(str::to_string),
                    ),
                    #[allow(unreachable_patterns)]
                    _ => ("other", String::new(), None, None),
                };
                Some((s, t.predicate.as_str().to_string(), k.to_string(), v, d, l))
            };
            let mut out = Vec::new();
            let mut stats = core::input::ReadStats::default();
            core::read::read_all(
                &inputs,
                format,
                &extract,
                false,
                false,
                &mut stats,
                &mut |b| out.extend(b),
            )?;
            Ok::<_, ConvertError>(out)
        })
    });
    res.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Decompress the file at `path` as the converter does (multistream bzip2 /
/// multi-member gzip in parallel on `threads` workers, all cores when `None`)
/// and count its bytes: `(compressed_bytes, decompressed_bytes, note)`. For the
/// decompression-only rate in benches. Raises `ValueError` for unreadable,
/// truncated or corrupt input (with the compressed byte offset).
#[pyfunction]
#[pyo3(signature = (path, *, threads=None))]
fn decompress_count(
    py: Python<'_>,
    path: String,
    threads: Option<usize>,
) -> PyResult<(u64, u64, String)> {
    let res = py.detach(move || {
        let pool = thread_pool(threads).map_err(|e| e.to_string())?;
        pool.install(|| {
            core::decompress::count_decompressed(&path).map_err(|e| format!("{path}: {e}"))
        })
    });
    res.map_err(PyValueError::new_err)
}

/// Python `repr(float)` as kgbench writes floats in graph.json (for tests).
#[pyfunction]
fn float_repr(value: f64) -> String {
    core::values::py_float_repr(value)
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "convert")?;
    m.add_function(wrap_pyfunction!(convert, &m)?)?;
    m.add_function(wrap_pyfunction!(validate_schema, &m)?)?;
    m.add_function(wrap_pyfunction!(unit_table, &m)?)?;
    m.add_function(wrap_pyfunction!(convert_unit, &m)?)?;
    m.add_function(wrap_pyfunction!(float_repr, &m)?)?;
    m.add_function(wrap_pyfunction!(parse_rdf, &m)?)?;
    m.add_function(wrap_pyfunction!(decompress_count, &m)?)?;
    crate::add_submodule(parent, &m)
}

/// A rayon pool with `threads` workers (all cores when `None`).
fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool, ConvertError> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        builder = builder.num_threads(t);
    }
    builder
        .build()
        .map_err(|e| ConvertError::Options(e.to_string()))
}
