//! Binding of `kgbench_core::iso` as `kgbench._core.iso`.

use pyo3::prelude::*;

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "iso")?;
    crate::add_submodule(parent, &m)
}
