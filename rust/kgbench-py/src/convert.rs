//! Binding of `kgbench_core::convert` as `kgbench._core.convert`.

use pyo3::prelude::*;

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "convert")?;
    crate::add_submodule(parent, &m)
}
