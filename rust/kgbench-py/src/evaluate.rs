//! Binding of `kgbench_core::evaluate` as `kgbench._core.evaluate`.
//!
//! Python values are turned into canonical keys directly (no intermediate Rust value tree);
//! the heavy comparisons run with the GIL released, batches in parallel (rayon).

use std::path::PathBuf;

use kgbench_core::evaluate::{
    ex, metrics,
    score::{self, ScoreError},
    table::{Table, TableBuilder},
    value::{self, ListKeys, MapKeys},
};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;

use crate::input_error;
use pyo3::types::{
    PyBool, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple,
};

/// Append the canonical key of a Python result value to `out`.
///
/// Errors: `TypeError` for a value outside the value model; `ValueError` for lists and
/// maps nested deeper than `value::MAX_DEPTH` levels (refused instead of exhausting the
/// stack).
fn write_key(obj: &Bound<'_, PyAny>, out: &mut Vec<u8>) -> PyResult<()> {
    write_key_at(obj, out, 0)
}

/// [`write_key`] of a value inside `depth` open lists and maps.
fn write_key_at(obj: &Bound<'_, PyAny>, out: &mut Vec<u8>, depth: usize) -> PyResult<()> {
    let nested = || -> PyResult<usize> {
        if depth >= value::MAX_DEPTH {
            Err(PyValueError::new_err(format!(
                "value nested deeper than {} levels",
                value::MAX_DEPTH
            )))
        } else {
            Ok(depth + 1)
        }
    };
    if obj.is_none() {
        value::push_null(out);
    } else if let Ok(b) = obj.cast::<PyBool>() {
        value::push_bool(out, b.is_true());
    } else if let Ok(i) = obj.cast::<PyInt>() {
        match i.extract::<i64>() {
            Ok(v) => value::push_int(out, v),
            Err(_) => write_big_int(i, out)?,
        }
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        value::push_float(out, f.value());
    } else if let Ok(s) = obj.cast::<PyString>() {
        value::push_str(out, &s.to_cow()?);
    } else if let Ok(d) = obj.cast::<PyDict>() {
        let depth = nested()?;
        let mut map = MapKeys::default();
        for (k, v) in d.iter() {
            let key = k.cast::<PyString>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "map keys must be strings, got {}",
                    k.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?;
            write_key_at(&v, map.entry_buf(&key.to_cow()?), depth)?;
            map.end_entry();
        }
        map.finish(out);
    } else if obj.cast::<PyList>().is_ok()
        || obj.cast::<PyTuple>().is_ok()
        || obj.cast::<PySet>().is_ok()
        || obj.cast::<PyFrozenSet>().is_ok()
    {
        let depth = nested()?;
        let mut list = ListKeys::default();
        for item in obj.try_iter()? {
            write_key_at(&item?, list.item_buf(), depth)?;
            list.end_item();
        }
        list.finish_list(out);
    } else if obj.hasattr("iso_format")? {
        // neo4j.time.Date / DateTime / Time / Duration
        let s = obj.call_method0("iso_format")?;
        value::push_str(out, &s.cast::<PyString>()?.to_cow()?);
    } else if obj.hasattr("isoformat")? {
        // datetime.date / datetime.datetime / datetime.time
        let s = obj.call_method0("isoformat")?;
        value::push_str(out, &s.cast::<PyString>()?.to_cow()?);
    } else {
        let name = obj.get_type().name()?.to_string();
        return Err(PyTypeError::new_err(format!(
            "unsupported result value of type {name} (expected None, bool, int, float, str, \
             date, list or dict)"
        )));
    }
    Ok(())
}

/// Integers outside i64: equal to a float when the float has exactly that value.
fn write_big_int(i: &Bound<'_, PyInt>, out: &mut Vec<u8>) -> PyResult<()> {
    let py = i.py();
    let builtins = py.import("builtins")?;
    if let Ok(f) = builtins.getattr("float")?.call1((i,)) {
        if f.eq(i)? {
            value::push_float(out, f.extract::<f64>()?);
            return Ok(());
        }
    }
    let text = i.str()?;
    value::push_big_int_decimal(out, &text.to_cow()?);
    Ok(())
}

/// A table from a sequence of rows (sequences, or dicts with the same keys).
fn table_from_py(rows: &Bound<'_, PyAny>, what: &str) -> PyResult<Table> {
    let py = rows.py();
    Table::build(None, |b: &mut TableBuilder<'_>| -> PyResult<()> {
        for (r, row) in rows.try_iter()?.enumerate() {
            let row = row?;
            let res = if let Ok(d) = row.cast::<PyDict>() {
                let record = b.record();
                for (k, v) in d.iter() {
                    let name = k.str()?;
                    let name = name.to_cow()?;
                    write_key(&v, record.cell(&name)).map_err(|e| {
                        annotate(py, e, &format!("{what}: row {r}, column {name:?}"))
                    })?;
                    record.end_cell();
                }
                b.end_record()
            } else {
                for (c, cell) in row.try_iter()?.enumerate() {
                    write_key(&cell?, b.cell_buf())
                        .map_err(|e| annotate(py, e, &format!("{what}: row {r}, column {c}")))?;
                    b.end_cell();
                }
                b.end_row()
            };
            res.map_err(|e| input_error(py, format!("{what}: {e}")))?;
        }
        Ok(())
    })
}

fn annotate(py: Python<'_>, e: PyErr, ctx: &str) -> PyErr {
    let msg = format!("{ctx}: {}", e.value(py));
    if e.is_instance_of::<PyTypeError>(py) {
        PyTypeError::new_err(msg)
    } else {
        PyValueError::new_err(msg)
    }
}

/// canonical_key(value) -> bytes: the canonical key of one result value (equal keys iff
/// equal values under SPEC.md §4).
#[pyfunction]
fn canonical_key<'py>(value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let mut out = Vec::new();
    write_key(value, &mut out)?;
    Ok(PyBytes::new(value.py(), &out))
}

/// execution_accuracy(gold_rows, pred_rows, order_matters, rel_tol=None) -> float.
#[pyfunction]
#[pyo3(signature = (gold_rows, pred_rows, order_matters, rel_tol=None))]
fn execution_accuracy(
    py: Python<'_>,
    gold_rows: &Bound<'_, PyAny>,
    pred_rows: &Bound<'_, PyAny>,
    order_matters: bool,
    rel_tol: Option<f64>,
) -> PyResult<f64> {
    check_tol(py, rel_tol)?;
    let g = table_from_py(gold_rows, "gold_rows")?;
    let p = table_from_py(pred_rows, "pred_rows")?;
    let (verdict, g) = if g.nrows() * g.ncols() > 10_000 {
        // a big table: compared on a worker thread, Ctrl-C raises KeyboardInterrupt at once
        // (the column-bijection search polls `kgbench_core::cancel`)
        crate::interrupt::detach_interruptible(py, move || {
            (
                ex::verdict_tol(g.as_ref(), p.as_ref(), order_matters, rel_tol),
                g,
            )
        })?
    } else {
        (
            ex::verdict_tol(g.as_ref(), p.as_ref(), order_matters, rel_tol),
            g,
        )
    };
    match verdict {
        ex::Verdict::Equal => Ok(1.0),
        ex::Verdict::Different => Ok(0.0),
        ex::Verdict::Undecided => Err(input_error(py, undecided_message(&g))),
    }
}

/// The error of a comparison the column-bijection search could not decide.
fn undecided_message(g: &Table) -> String {
    format!(
        "EX undecided: the column-bijection search stopped after its bound of {} steps \
         ({} rows x {} columns; see kgbench docs metrics.md §1)",
        ex::search_budget(g.nrows(), g.ncols()),
        g.nrows(),
        g.ncols()
    )
}

fn check_tol(py: Python<'_>, rel_tol: Option<f64>) -> PyResult<()> {
    match rel_tol {
        Some(t) if !(t.is_finite() && t >= 0.0) => Err(input_error(
            py,
            format!("rel_tol must be a finite number >= 0, got {t}"),
        )),
        _ => Ok(()),
    }
}

/// execution_accuracy_batch(gold_tables, pred_tables, order_matters, rel_tol=None) -> bytes.
#[pyfunction]
#[pyo3(signature = (gold_tables, pred_tables, order_matters, rel_tol=None))]
fn execution_accuracy_batch<'py>(
    py: Python<'py>,
    gold_tables: &Bound<'py, PyAny>,
    pred_tables: &Bound<'py, PyAny>,
    order_matters: &Bound<'py, PyAny>,
    rel_tol: Option<f64>,
) -> PyResult<Bound<'py, PyBytes>> {
    check_tol(py, rel_tol)?;
    let gold: Vec<Table> = gold_tables
        .try_iter()?
        .enumerate()
        .map(|(i, t)| table_from_py(&t?, &format!("gold_tables[{i}]")))
        .collect::<PyResult<_>>()?;
    let pred: Vec<Table> = pred_tables
        .try_iter()?
        .enumerate()
        .map(|(i, t)| table_from_py(&t?, &format!("pred_tables[{i}]")))
        .collect::<PyResult<_>>()?;
    if gold.len() != pred.len() {
        return Err(input_error(
            py,
            format!(
                "gold_tables has {} tables but pred_tables has {}",
                gold.len(),
                pred.len()
            ),
        ));
    }
    let orders: Vec<bool> = if let Ok(b) = order_matters.cast::<PyBool>() {
        vec![b.is_true(); gold.len()]
    } else {
        let v: Vec<bool> = order_matters.extract()?;
        if v.len() != gold.len() {
            return Err(input_error(
                py,
                format!(
                    "order_matters has {} entries but there are {} table pairs",
                    v.len(),
                    gold.len()
                ),
            ));
        }
        v
    };
    // on a worker thread: Ctrl-C raises KeyboardInterrupt at once, and the remaining pairs
    // are skipped (polled per pair; the column-bijection search polls too)
    let scores: Vec<f64> = crate::interrupt::detach_interruptible(py, move || {
        use rayon::prelude::*;
        gold.par_iter()
            .zip(pred.par_iter())
            .zip(orders.par_iter())
            .with_min_len(256)
            .map(|((g, p), &o)| {
                if kgbench_core::cancel::requested() {
                    return f64::NAN; // the result is dropped: the caller raises
                }
                match ex::verdict_tol(g.as_ref(), p.as_ref(), o, rel_tol) {
                    ex::Verdict::Equal => 1.0,
                    ex::Verdict::Different => 0.0,
                    ex::Verdict::Undecided => f64::NAN,
                }
            })
            .collect()
    })?;
    let bytes: Vec<u8> = scores.iter().flat_map(|x| x.to_le_bytes()).collect();
    Ok(PyBytes::new(py, &bytes))
}

/// uninformative_reason(gold_rows) -> str | None: why a gold result is uninformative
/// (`"empty"`, `"all_null"`, `"single_zero"`, `"single_false"`, `"single_empty_list"`), or
/// None (kgbench_core::evaluate::informative).
#[pyfunction]
fn uninformative_reason(gold_rows: &Bound<'_, PyAny>) -> PyResult<Option<&'static str>> {
    let g = table_from_py(gold_rows, "gold_rows")?;
    Ok(kgbench_core::evaluate::uninformative(g.as_ref()).map(|u| u.as_str()))
}

/// order_matters(gold_cypher) -> bool: `'order by' in gold_cypher.lower()` (SPEC.md §4).
#[pyfunction]
fn order_matters(gold_cypher: &str) -> bool {
    ex::order_matters(gold_cypher)
}

/// score_files(gold, pred, out=None, rel_tol=None) -> (summary dict, bytes of float64 EX).
#[pyfunction]
#[pyo3(signature = (gold, pred, out=None, rel_tol=None))]
fn score_files<'py>(
    py: Python<'py>,
    gold: PathBuf,
    pred: PathBuf,
    out: Option<PathBuf>,
    rel_tol: Option<f64>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyBytes>)> {
    check_tol(py, rel_tol)?;
    let res = crate::interrupt::detach_interruptible(py, move || {
        score::score_files(&gold, &pred, out.as_deref(), rel_tol)
    })?;
    let (statuses, s) = match res {
        Ok(r) => r,
        Err(e @ ScoreError::Io { .. }) => return Err(PyOSError::new_err(e.to_string())),
        Err(e) => return Err(input_error(py, e.to_string())),
    };
    let d = PyDict::new(py);
    d.set_item("n_gold", s.n_gold)?;
    d.set_item("n_pred", s.n_pred)?;
    d.set_item("n_match", s.n_match)?;
    d.set_item("n_mismatch", s.n_mismatch)?;
    d.set_item("n_identical_query", s.n_identical_query)?;
    d.set_item("n_missing", s.n_missing)?;
    d.set_item("n_pred_error", s.n_pred_error)?;
    d.set_item("n_gold_error", s.n_gold_error)?;
    d.set_item("n_undecided", s.n_undecided)?;
    d.set_item("n_extra_pred", s.n_extra_pred)?;
    d.set_item("ex", s.ex)?;
    let by_reason = PyDict::new(py);
    for (u, n) in kgbench_core::evaluate::Uninformative::ALL
        .iter()
        .zip(s.n_uninformative)
    {
        if n > 0 {
            by_reason.set_item(u.as_str(), n)?;
        }
    }
    d.set_item(
        "n_informative",
        s.n_gold - s.n_uninformative.iter().sum::<usize>(),
    )?;
    d.set_item("n_uninformative", by_reason)?;
    d.set_item("ex_informative", s.ex_informative)?;
    let bytes: Vec<u8> = statuses
        .iter()
        .flat_map(|st| st.ex().to_le_bytes())
        .collect();
    Ok((d, PyBytes::new(py, &bytes)))
}

fn keys_of(items: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    items
        .try_iter()?
        .map(|it| {
            let mut k = Vec::new();
            write_key(&it?, &mut k)?;
            Ok(k)
        })
        .collect()
}

fn metric_err(py: Python<'_>, e: metrics::MetricError) -> PyErr {
    input_error(py, e.to_string())
}

/// set_scores(gold, pred, bag) -> dict(precision, recall, f1, jaccard, n_common, n_gold, n_pred).
#[pyfunction]
fn set_scores<'py>(
    py: Python<'py>,
    gold: &Bound<'py, PyAny>,
    pred: &Bound<'py, PyAny>,
    bag: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let s = metrics::set_scores(&keys_of(gold)?, &keys_of(pred)?, bag);
    let d = PyDict::new(py);
    d.set_item("precision", s.precision)?;
    d.set_item("recall", s.recall)?;
    d.set_item("f1", s.f1)?;
    d.set_item("jaccard", s.jaccard)?;
    d.set_item("n_common", s.n_common)?;
    d.set_item("n_gold", s.n_gold)?;
    d.set_item("n_pred", s.n_pred)?;
    Ok(d)
}

fn gtsqa_dict<'py>(py: Python<'py>, s: metrics::GtsqaScores) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("hits", s.hits)?;
    d.set_item("recall", s.recall)?;
    d.set_item("triple_recall", s.triple_recall)?;
    d.set_item("triple_precision", s.triple_precision)?;
    d.set_item("triple_f1", s.triple_f1)?;
    d.set_item("answer_node_hits", s.answer_node_hits)?;
    d.set_item("answer_node_recall", s.answer_node_recall)?;
    d.set_item("n_triples", s.n_triples)?;
    d.set_item("empty_answer", s.empty_answer)?;
    Ok(d)
}

/// gtsqa_scores(gold_answers, pred_answers, gold_triples, retrieved_triples, answer_nodes,
/// count_duplicates=False) -> dict: strict set EM and triple scores.
#[pyfunction]
#[pyo3(signature = (gold_answers, pred_answers, gold_triples, retrieved_triples, answer_nodes, count_duplicates=false))]
fn gtsqa_scores<'py>(
    py: Python<'py>,
    gold_answers: &Bound<'py, PyAny>,
    pred_answers: &Bound<'py, PyAny>,
    gold_triples: Vec<(String, String, String)>,
    retrieved_triples: Vec<(String, String, String)>,
    answer_nodes: Vec<String>,
    count_duplicates: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let s = metrics::gtsqa_scores(
        &keys_of(gold_answers)?,
        &keys_of(pred_answers)?,
        &gold_triples,
        &retrieved_triples,
        &answer_nodes,
        metrics::GtsqaOptions {
            count_duplicates,
            empty_matches_all: false,
        },
    );
    gtsqa_dict(py, s)
}

/// gtsqa_scores_lenient(gold_labels, response, gold_triples, retrieved_triples, answer_nodes,
/// empty_matches_all=False, count_duplicates=False) -> dict: lenient EM (spec synthkgqa.md §5)
/// and triple scores.
#[pyfunction]
#[pyo3(signature = (gold_labels, response, gold_triples, retrieved_triples, answer_nodes, empty_matches_all=false, count_duplicates=false))]
#[allow(clippy::too_many_arguments)]
fn gtsqa_scores_lenient<'py>(
    py: Python<'py>,
    gold_labels: Vec<String>,
    response: &str,
    gold_triples: Vec<(String, String, String)>,
    retrieved_triples: Vec<(String, String, String)>,
    answer_nodes: Vec<String>,
    empty_matches_all: bool,
    count_duplicates: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let s = metrics::gtsqa_scores_lenient(
        &gold_labels,
        response,
        &gold_triples,
        &retrieved_triples,
        &answer_nodes,
        metrics::GtsqaOptions {
            count_duplicates,
            empty_matches_all,
        },
    );
    gtsqa_dict(py, s)
}

/// lenient_match(response, gold_labels, empty_matches_all=False) -> dict(hits, recall,
/// matched, empty_answer, final_answer): GTSQA's lenient answer matching.
#[pyfunction]
#[pyo3(signature = (response, gold_labels, empty_matches_all=false))]
fn lenient_match<'py>(
    py: Python<'py>,
    response: &str,
    gold_labels: Vec<String>,
    empty_matches_all: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let m = metrics::lenient_match(response, &gold_labels, empty_matches_all);
    let d = PyDict::new(py);
    d.set_item("hits", m.hits)?;
    d.set_item("recall", m.recall)?;
    d.set_item("matched", m.matched)?;
    d.set_item("empty_answer", m.empty_answer)?;
    d.set_item("final_answer", m.final_answer)?;
    Ok(d)
}

/// mdre(y, yhat) -> float (NGDBench eq. 9).
#[pyfunction]
fn mdre(py: Python<'_>, y: Vec<f64>, yhat: Vec<f64>) -> PyResult<f64> {
    metrics::mdre(&y, &yhat).map_err(|e| metric_err(py, e))
}

/// msle(y, yhat) -> float (NGDBench eq. 10).
#[pyfunction]
fn msle(py: Python<'_>, y: Vec<f64>, yhat: Vec<f64>) -> PyResult<f64> {
    metrics::msle(&y, &yhat).map_err(|e| metric_err(py, e))
}

/// smape(y, yhat) -> float in [0, 2] (NGDBench eq. 11).
#[pyfunction]
fn smape(py: Python<'_>, y: Vec<f64>, yhat: Vec<f64>) -> PyResult<f64> {
    metrics::smape(&y, &yhat).map_err(|e| metric_err(py, e))
}

/// mlre(y, yhat) -> float (NGDBench eq. 12, ε = 1e-6).
#[pyfunction]
fn mlre(py: Python<'_>, y: Vec<f64>, yhat: Vec<f64>) -> PyResult<f64> {
    metrics::mlre(&y, &yhat).map_err(|e| metric_err(py, e))
}

/// exact_match_rate(gold, pred) -> float: fraction of positions with equal values.
#[pyfunction]
fn exact_match_rate(
    py: Python<'_>,
    gold: &Bound<'_, PyAny>,
    pred: &Bound<'_, PyAny>,
) -> PyResult<f64> {
    metrics::exact_match_rate(&keys_of(gold)?, &keys_of(pred)?).map_err(|e| metric_err(py, e))
}

/// ex_set(gold_rows, pred_rows, gold_columns, pred_columns) -> float: PIPE-Cypher's EX_set
/// (kgbench_core::evaluate::ex_set). Columns name the cells of each row in order.
#[pyfunction]
fn ex_set(
    gold_rows: &Bound<'_, PyAny>,
    pred_rows: &Bound<'_, PyAny>,
    gold_columns: Vec<String>,
    pred_columns: Vec<String>,
) -> PyResult<f64> {
    let g = table_from_py(gold_rows, "gold_rows")?;
    let p = table_from_py(pred_rows, "pred_rows")?;
    Ok(kgbench_core::evaluate::ex_set::ex_set(
        g.as_ref(),
        &gold_columns,
        p.as_ref(),
        &pred_columns,
    ))
}

/// score_files_ex_set(gold, pred, out=None, rel_tol=None) -> (summary, ex_set_values):
/// EX and EX_set over two JSONL result files; `summary` has n_gold, n_pred, ex, ex_set and
/// the per-status counts; `out` gets {qid, ex, ex_set, status} lines.
#[pyfunction]
#[pyo3(signature = (gold, pred, out=None, rel_tol=None))]
fn score_files_ex_set<'py>(
    py: Python<'py>,
    gold: PathBuf,
    pred: PathBuf,
    out: Option<PathBuf>,
    rel_tol: Option<f64>,
) -> PyResult<(Bound<'py, PyDict>, Vec<f64>)> {
    check_tol(py, rel_tol)?;
    let res = crate::interrupt::detach_interruptible(py, move || {
        kgbench_core::evaluate::ex_set::score_files_ex_set(&gold, &pred, out.as_deref(), rel_tol)
    })?;
    let (scores, ex, ex_set_mean) = match res {
        Ok(r) => (r.scores, r.ex, r.ex_set),
        Err(e @ ScoreError::Io { .. }) => return Err(PyOSError::new_err(e.to_string())),
        Err(e) => return Err(input_error(py, e.to_string())),
    };
    let d = PyDict::new(py);
    d.set_item("n_gold", scores.len())?;
    d.set_item("ex", ex)?;
    d.set_item("ex_set", ex_set_mean)?;
    let mut counts: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (_, s) in &scores {
        *counts.entry(s.status.as_str()).or_default() += 1;
    }
    d.set_item("statuses", counts)?;
    Ok((d, scores.iter().map(|(_, s)| s.ex_set).collect()))
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "evaluate")?;
    m.add_function(wrap_pyfunction!(ex_set, &m)?)?;
    m.add_function(wrap_pyfunction!(score_files_ex_set, &m)?)?;
    m.add_function(wrap_pyfunction!(canonical_key, &m)?)?;
    m.add_function(wrap_pyfunction!(execution_accuracy, &m)?)?;
    m.add_function(wrap_pyfunction!(execution_accuracy_batch, &m)?)?;
    m.add_function(wrap_pyfunction!(order_matters, &m)?)?;
    m.add_function(wrap_pyfunction!(uninformative_reason, &m)?)?;
    m.add_function(wrap_pyfunction!(score_files, &m)?)?;
    m.add_function(wrap_pyfunction!(set_scores, &m)?)?;
    m.add_function(wrap_pyfunction!(gtsqa_scores, &m)?)?;
    m.add_function(wrap_pyfunction!(gtsqa_scores_lenient, &m)?)?;
    m.add_function(wrap_pyfunction!(lenient_match, &m)?)?;
    m.add_function(wrap_pyfunction!(mdre, &m)?)?;
    m.add_function(wrap_pyfunction!(msle, &m)?)?;
    m.add_function(wrap_pyfunction!(smape, &m)?)?;
    m.add_function(wrap_pyfunction!(mlre, &m)?)?;
    m.add_function(wrap_pyfunction!(exact_match_rate, &m)?)?;
    crate::add_submodule(parent, &m)
}
