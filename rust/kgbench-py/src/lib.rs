//! `kgbench._core`: the native half of the `kgbench` Python package.
//!
//! One submodule per pipeline stage, each registered by its own file, so the
//! Python side imports `kgbench._core.iso`, `kgbench._core.convert`, ...
//! Logic lives in `kgbench-core`; this crate only converts arguments and errors.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

mod convert;
mod cypher;
mod evaluate;
mod iso;
mod neo4j;
mod sample;

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
    sample::register(m)?;
    Ok(())
}
