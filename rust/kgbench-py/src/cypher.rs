//! Binding of `kgbench_core::cypher` as `kgbench._core.cypher`.

use pyo3::prelude::*;

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "cypher")?;
    crate::add_submodule(parent, &m)
}
