//! Binding of `kgbench_core::neo4j` as `kgbench._core.neo4j`.
//!
//! - `validate(graph) -> GraphCheck`: the loader's validation of a SimpleKG graph given as a
//!   `graph.json` path (read here) or as JSON bytes.
//! - `write_import_csv(graph, out_dir, id_type=, threads=) -> GraphCheck`: the same, then,
//!   when the graph is valid, the import tool's CSV files.
//!
//! The GIL is released while reading, parsing, validating and writing, which stop on Ctrl-C
//! (`KeyboardInterrupt`; no CSV file is left).

use std::path::{Path, PathBuf};
use std::time::Instant;

use kgbench_core::neo4j::{self as core, CsvError, GraphError, IdType, ReadError, Report};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;

use crate::input_error;
use pyo3::types::{PyBytes, PyDict, PyTuple};

pyo3::create_exception!(
    kgbench._core.neo4j,
    ArrayDelimiterError,
    PyValueError,
    "Every array delimiter candidate of the import-tool CSV occurs in some string list element."
);

/// What validation (and CSV writing) found; see `python/kgbench/_core/neo4j.pyi`.
#[pyclass(frozen, module = "kgbench._core.neo4j")]
struct GraphCheck {
    #[pyo3(get)]
    problems: Vec<String>,
    #[pyo3(get)]
    total: usize,
    #[pyo3(get)]
    entity_properties: Py<PyDict>,
    #[pyo3(get)]
    relation_properties: Py<PyDict>,
    #[pyo3(get)]
    nodes_by_label: Py<PyDict>,
    #[pyo3(get)]
    relationships_by_type: Py<PyDict>,
    #[pyo3(get)]
    entities: usize,
    #[pyo3(get)]
    relations: usize,
    #[pyo3(get)]
    tool_args: Option<Vec<String>>,
    #[pyo3(get)]
    timings: Py<PyDict>,
}

/// The graph argument: a `graph.json` path or JSON text (the `bytes` object itself, shared
/// with the worker thread: no copy).
enum Input {
    Path(PathBuf),
    Bytes(PyBackedBytes),
}

enum Failure {
    Read(ReadError),
    Graph(GraphError),
    Options(String),
}

fn run(
    input: Input,
    source: &str,
    csv: Option<(&Path, IdType)>,
    threads: Option<usize>,
) -> Result<Report, Failure> {
    let work = || -> Result<Report, Failure> {
        let t = Instant::now();
        let owned;
        let mut timings = Vec::new();
        let (bytes, require_keys) = match input {
            Input::Path(ref p) => {
                owned = core::read_graph_file(p).map_err(Failure::Read)?;
                timings.push(("read_s", t.elapsed().as_secs_f64()));
                (owned.as_slice(), true)
            }
            Input::Bytes(ref b) => (&b[..], false),
        };
        let mut report =
            core::check_graph(bytes, source, require_keys, csv).map_err(Failure::Graph)?;
        timings.append(&mut report.timings);
        report.timings = timings;
        Ok(report)
    };
    match threads {
        None => work(),
        Some(n) => match rayon::ThreadPoolBuilder::new().num_threads(n).build() {
            Ok(pool) => pool.install(work),
            Err(e) => Err(Failure::Options(e.to_string())),
        },
    }
}

fn to_py(py: Python<'_>, out: Report) -> PyResult<GraphCheck> {
    let schema = &out.checked.schema;
    let props_dict = |props: &core::validate::Props| -> PyResult<Py<PyDict>> {
        let d = PyDict::new(py);
        for (name, dt) in props {
            d.set_item(name, dt.name())?;
        }
        Ok(d.unbind())
    };
    let ents = PyDict::new(py);
    for (label, props) in &schema.entities {
        ents.set_item(label, props_dict(props)?)?;
    }
    let rels = PyDict::new(py);
    for ((label, subj, obj), props) in &schema.relations {
        let key = PyTuple::new(py, [label, subj, obj])?;
        rels.set_item(key, props_dict(props)?)?;
    }
    let counts = |items: Vec<(String, usize)>| -> PyResult<Py<PyDict>> {
        let d = PyDict::new(py);
        for (k, n) in items {
            d.set_item(k, n)?;
        }
        Ok(d.unbind())
    };
    let timings = PyDict::new(py);
    for (k, v) in &out.timings {
        let old: f64 = match timings.get_item(k)? {
            Some(x) => x.extract()?,
            None => 0.0,
        };
        timings.set_item(k, old + v)?;
    }
    Ok(GraphCheck {
        nodes_by_label: counts(out.checked.nodes_by_label())?,
        relationships_by_type: counts(out.checked.relationships_by_type())?,
        problems: out.checked.problems.items,
        total: out.checked.problems.total,
        entity_properties: ents.unbind(),
        relation_properties: rels.unbind(),
        entities: out.entities,
        relations: out.relations,
        tool_args: out.csv.map(|c| c.args),
        timings: timings.unbind(),
    })
}

fn failure_to_py(py: Python<'_>, f: Failure) -> PyErr {
    match f {
        Failure::Read(e) | Failure::Graph(GraphError::Read(e)) => input_error(py, e.to_string()),
        Failure::Graph(GraphError::Csv(CsvError::NoArrayDelimiter)) => {
            ArrayDelimiterError::new_err(CsvError::NoArrayDelimiter.to_string())
        }
        Failure::Graph(GraphError::Csv(e)) => PyOSError::new_err(e.to_string()),
        Failure::Graph(GraphError::Interrupted) => PyKeyboardInterrupt::new_err("interrupted"),
        Failure::Options(e) => PyValueError::new_err(e),
    }
}

fn check(
    py: Python<'_>,
    graph: &Bound<'_, PyAny>,
    source: Option<String>,
    csv: Option<(PathBuf, IdType)>,
    threads: Option<usize>,
) -> PyResult<GraphCheck> {
    if threads == Some(0) {
        return Err(PyValueError::new_err("threads must be >= 1"));
    }
    let (input, source) = if let Ok(b) = graph.cast::<PyBytes>() {
        let source = source.unwrap_or_else(|| "graph".to_string());
        (Input::Bytes(PyBackedBytes::from(b.clone())), source)
    } else {
        let path: PathBuf = graph.extract()?;
        let source = source.unwrap_or_else(|| path.display().to_string());
        (Input::Path(path), source)
    };
    // Ctrl-C raises KeyboardInterrupt at once; the core stops and removes its CSV files
    let result = crate::interrupt::detach_interruptible(py, move || {
        let csv_ref = csv.as_ref().map(|(d, t)| (d.as_path(), *t));
        run(input, &source, csv_ref, threads)
    })?;
    match result {
        Ok(report) => to_py(py, report),
        Err(f) => Err(failure_to_py(py, f)),
    }
}

/// validate(graph, *, source=None) -> GraphCheck
///
/// Validate a SimpleKG graph (SPEC.md §2) given as a `graph.json` path (str / PathLike; must
/// be an object with `schema`, `entities`, `relations`) or as JSON bytes. `source` names the
/// input in errors (default: the path, or `"graph"`). Raises `kgbench.errors.InputError`
/// when the file cannot be read or is not JSON (line and column).
#[pyfunction]
#[pyo3(signature = (graph, *, source=None))]
fn validate(
    py: Python<'_>,
    graph: &Bound<'_, PyAny>,
    source: Option<String>,
) -> PyResult<GraphCheck> {
    check(py, graph, source, None, None)
}

/// write_import_csv(graph, out_dir, *, id_type="string", threads=None, source=None)
///     -> GraphCheck
///
/// Validate the graph as `validate` does; when it is valid, write the import tool's CSV files
/// into `out_dir` (rows formatted in parallel on `threads` workers, default all cores;
/// byte-identical output for any count) and set `tool_args`. `id_type`: `"string"` (`eid:ID`)
/// or `"actual"` (`:ID` = entity index, `--id-type=ACTUAL`). Raises `InputError` (unreadable
/// / not JSON), `ArrayDelimiterError`, `OSError` (writing failed), `ValueError` (bad option).
#[pyfunction]
#[pyo3(signature = (graph, out_dir, *, id_type="string", threads=None, source=None))]
fn write_import_csv(
    py: Python<'_>,
    graph: &Bound<'_, PyAny>,
    out_dir: PathBuf,
    id_type: &str,
    threads: Option<usize>,
    source: Option<String>,
) -> PyResult<GraphCheck> {
    let id_type = match id_type {
        "string" => IdType::String,
        "actual" => IdType::Actual,
        other => {
            return Err(PyValueError::new_err(format!(
                "id_type must be 'string' or 'integer', not {other:?}"
            )))
        }
    };
    check(py, graph, source, Some((out_dir, id_type)), threads)
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = parent.py();
    let m = PyModule::new(py, "neo4j")?;
    m.add_class::<GraphCheck>()?;
    m.add("ArrayDelimiterError", py.get_type::<ArrayDelimiterError>())?;
    m.add("MAX_PROBLEMS", core::MAX_PROBLEMS)?;
    let delims: Vec<String> = core::csv::ARRAY_DELIMITERS
        .iter()
        .map(|&d| char::from(d).to_string())
        .collect();
    m.add("ARRAY_DELIMITERS", delims)?;
    m.add("EMPTY_LISTS_COLUMN", core::csv::EMPTY_LISTS_COLUMN)?;
    let types = PyDict::new(py);
    for name in [
        "str",
        "int",
        "float",
        "bool",
        "date",
        "list[str]",
        "list[int]",
        "list[float]",
        "list[date]",
    ] {
        if let Some(dt) = core::Dtype::parse(name) {
            types.set_item(name, core::csv::csv_type(dt))?;
        }
    }
    m.add("CSV_TYPES", types)?;
    m.add_function(wrap_pyfunction!(validate, &m)?)?;
    m.add_function(wrap_pyfunction!(write_import_csv, &m)?)?;
    crate::add_submodule(parent, &m)
}
