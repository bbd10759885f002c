//! Binding of `kgbench_core::select` as `kgbench._core.select`.
//!
//! - `select_diverse(candidates, target_per_group, seed="13", weights=None,
//!   max_signature_share=0.2, max_family_share=0.25) -> list[dict]`:
//!   PIPE-Cypher's greedy diversity selection (spec §4), one report per
//!   group in sorted group order, with `picked` = indices into `candidates`
//!   in pick order.

use std::collections::HashMap;

use kgbench_core::select::{select, Candidate, Params, Weights};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// One candidate as Python passes it.
type CandidateTuple = (
    String,
    String,
    String,
    String,
    String,
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<String>,
    f64,
);

/// Greedy diversity selection. `candidates`: tuples `(group, id, signature,
/// family, operator_combination, substructures, schema_atoms, values,
/// question_tokens, quality)`. `weights`: optional dict overriding the
/// spec §4 defaults (keys `query_signature`, `template_family`,
/// `structural_substructure`, `schema_atom`, `value_atom`, `lexical_novelty`,
/// `quality`, `operator_combination`, `cap_penalty`). Raises
/// `kgbench.errors.InputError` for an unknown weight or a target of 0; `KeyboardInterrupt`
/// on Ctrl-C (the GIL is released while selecting).
#[pyfunction]
#[pyo3(signature = (candidates, target_per_group, seed="13".to_string(), weights=None, max_signature_share=0.2, max_family_share=0.25))]
fn select_diverse<'py>(
    py: Python<'py>,
    candidates: Vec<CandidateTuple>,
    target_per_group: usize,
    seed: String,
    weights: Option<HashMap<String, f64>>,
    max_signature_share: f64,
    max_family_share: f64,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    if target_per_group == 0 {
        return Err(crate::input_error(
            py,
            "target_per_group must be positive".into(),
        ));
    }
    let mut w = Weights::default();
    for (k, v) in weights.unwrap_or_default() {
        let slot = match k.as_str() {
            "query_signature" => &mut w.query_signature,
            "template_family" => &mut w.template_family,
            "structural_substructure" => &mut w.structural_substructure,
            "schema_atom" => &mut w.schema_atom,
            "value_atom" => &mut w.value_atom,
            "lexical_novelty" => &mut w.lexical_novelty,
            "quality" => &mut w.quality,
            "operator_combination" => &mut w.operator_combination,
            "cap_penalty" => &mut w.cap_penalty,
            _ => {
                return Err(crate::input_error(
                    py,
                    format!("unknown selection weight {k:?}"),
                ))
            }
        };
        *slot = v;
    }
    let cands: Vec<Candidate> = candidates
        .into_iter()
        .map(|t| Candidate {
            group: t.0,
            id: t.1,
            signature: t.2,
            family: t.3,
            operator: t.4,
            substructures: t.5,
            schema_atoms: t.6,
            values: t.7,
            tokens: t.8,
            quality: t.9,
        })
        .collect();
    let params = Params {
        target_per_group,
        seed,
        max_signature_share,
        max_family_share,
        weights: w,
    };
    // on a worker thread: Ctrl-C raises KeyboardInterrupt at once (the core stops at its
    // next pick)
    let reports = crate::interrupt::detach_interruptible(py, move || select(&cands, &params))?
        .map_err(|_| PyKeyboardInterrupt::new_err("interrupted"))?;
    reports
        .into_iter()
        .map(|r| {
            let d = PyDict::new(py);
            d.set_item("group", r.group)?;
            d.set_item("input", r.input)?;
            d.set_item("target", r.target)?;
            d.set_item("selected", r.picked.len())?;
            d.set_item("underfilled", r.picked.len() < r.target)?;
            d.set_item("picked", r.picked)?;
            d.set_item("query_signatures", r.query_signatures)?;
            d.set_item("template_families", r.template_families)?;
            d.set_item("structural_substructures", r.structural_substructures)?;
            d.set_item("operator_combinations", r.operator_combinations)?;
            let caps = PyDict::new(py);
            if r.signature_cap_events > 0 {
                caps.set_item("query_signature_cap", r.signature_cap_events)?;
            }
            if r.family_cap_events > 0 {
                caps.set_item("template_family_cap", r.family_cap_events)?;
            }
            d.set_item("cap_events", caps)?;
            Ok(d)
        })
        .collect()
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "select")?;
    m.add_function(wrap_pyfunction!(select_diverse, &m)?)?;
    crate::add_submodule(parent, &m)
}
