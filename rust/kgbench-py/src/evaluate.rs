//! Binding of `kgbench_core::evaluate` as `kgbench._core.evaluate`.

use pyo3::prelude::*;

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "evaluate")?;
    crate::add_submodule(parent, &m)
}
