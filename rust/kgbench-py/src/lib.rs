//! `kgbench._core`: the native half of the `kgbench` Python package.
//!
//! One submodule per pipeline stage, each registered by its own file, so the
//! Python side imports `kgbench._core.iso`, `kgbench._core.convert`, ...
//! Logic lives in `kgbench-core`; this crate only converts arguments and errors.

/// Rust allocations of the module go through mimalloc (see Cargo.toml); Python's own
/// allocator is untouched, and no allocation crosses the seam to be freed on the other side.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod convert;
mod cypher;
mod evaluate;
mod interrupt;
mod iso;
mod neo4j;
mod noise;
mod rdb;
mod sample;
mod select;
mod synth;

/// Add `child` as attribute `name` of `parent` and register it in `sys.modules`
/// as `kgbench._core.<name>` so that `import kgbench._core.<name>` works.
pub(crate) fn add_submodule(
    parent: &Bound<'_, PyModule>,
    child: &Bound<'_, PyModule>,
) -> PyResult<()> {
    let py = parent.py();
    let name = child.name()?;
    parent.add_submodule(child)?;
    py.import("sys")?
        .getattr("modules")?
        .set_item(format!("kgbench._core.{name}"), child)?;
    Ok(())
}

/// `kgbench.errors.InputError(msg)` (a `ValueError` subclass), or a plain `ValueError`
/// when the Python package cannot be imported.
pub(crate) fn input_error(py: Python<'_>, msg: String) -> PyErr {
    match py
        .import("kgbench.errors")
        .and_then(|m| m.getattr("InputError"))
        .and_then(|cls| cls.call1((msg.clone(),)))
    {
        Ok(exc) => PyErr::from_value(exc),
        Err(_) => PyValueError::new_err(msg),
    }
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    iso::register(m)?;
    convert::register(m)?;
    cypher::register(m)?;
    evaluate::register(m)?;
    neo4j::register(m)?;
    noise::register(m)?;
    rdb::register(m)?;
    sample::register(m)?;
    select::register(m)?;
    synth::register(m)?;
    Ok(())
}

/// A `serde_json::Value` as the equivalent Python object (dict, list, str,
/// int, float, bool, None).
pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    value: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::types::{PyDict, PyList};
    use pyo3::IntoPyObjectExt;
    Ok(match value {
        serde_json::Value::Null => py.None().into_bound(py),
        serde_json::Value::Bool(b) => b.into_bound_py_any(py)?,
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_bound_py_any(py)?
            } else if let Some(u) = n.as_u64() {
                u.into_bound_py_any(py)?
            } else {
                n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?
            }
        }
        serde_json::Value::String(s) => s.into_bound_py_any(py)?,
        serde_json::Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        serde_json::Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}
