//! Binding of `kgbench_core::noise` as `kgbench._core.noise`: NGDBench noise injection
//! (spec ngdbench.md §1–§3, §7).
//!
//! - `inject(graph_path, out_dir, profile_json, seed=42, opaque_ids=False) -> str`: read the
//!   SimpleKG `graph.json` at `graph_path` (or in that directory), write `graph.json`,
//!   `noise_log.json` (and with `opaque_ids` `clean_graph.json`) into `out_dir`; returns the
//!   run report as one line of JSON (`kgbench_core::noise::Report::to_json`). The GIL is
//!   released during the run.
//! - `named_profile(name) -> str | None`: the JSON text of a shipped profile
//!   (`general_guid_new` = `default`, `general_guid_original` = `original`).
//! - `profile_names() -> list[str]`: the shipped profiles' names.
//! - `check_profile(profile_json) -> list[tuple[str, float]]`: the `(type, rate)` pairs in run
//!   order of a valid profile.
//!
//! Errors: `kgbench.errors.InputError` for a bad profile (the message names the field), an
//! unreadable or malformed graph; `OSError` when an output file cannot be written.

use std::path::PathBuf;

use kgbench_core::noise::{self, NoiseError, Options, Profile};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;

use crate::input_error;

fn to_py(py: Python<'_>, e: NoiseError) -> PyErr {
    match e {
        NoiseError::Io { .. } => PyOSError::new_err(e.to_string()),
        other => input_error(py, other.to_string()),
    }
}

/// Inject noise; see the module documentation.
#[pyfunction]
#[pyo3(signature = (graph_path, out_dir, profile_json, seed=42, opaque_ids=false))]
fn inject(
    py: Python<'_>,
    graph_path: &str,
    out_dir: &str,
    profile_json: &str,
    seed: u64,
    opaque_ids: bool,
) -> PyResult<String> {
    let profile = Profile::parse(profile_json).map_err(|e| input_error(py, e.to_string()))?;
    let opts = Options {
        profile,
        seed,
        opaque_ids,
    };
    let (graph, out) = (PathBuf::from(graph_path), PathBuf::from(out_dir));
    crate::interrupt::detach_interruptible(py, move || noise::inject(&graph, &out, &opts))?
        .map(|r| r.to_json())
        .map_err(|e| to_py(py, e))
}

/// The JSON text of the shipped profile `name` (a name or an alias), or None.
#[pyfunction]
fn named_profile(name: &str) -> Option<&'static str> {
    noise::named(name)
}

/// The shipped profiles' names.
#[pyfunction]
fn profile_names() -> Vec<&'static str> {
    noise::NAMED_PROFILES.iter().map(|(n, _, _)| *n).collect()
}

/// The `(type, rate)` pairs of a profile, in run order; raises InputError for a bad profile.
#[pyfunction]
fn check_profile(py: Python<'_>, profile_json: &str) -> PyResult<Vec<(&'static str, f64)>> {
    let p = Profile::parse(profile_json).map_err(|e| input_error(py, e.to_string()))?;
    Ok(p.rates.iter().map(|(t, r)| (t.name(), *r)).collect())
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "noise")?;
    m.add_function(wrap_pyfunction!(inject, &m)?)?;
    m.add_function(wrap_pyfunction!(named_profile, &m)?)?;
    m.add_function(wrap_pyfunction!(profile_names, &m)?)?;
    m.add_function(wrap_pyfunction!(check_profile, &m)?)?;
    crate::add_submodule(parent, &m)
}
