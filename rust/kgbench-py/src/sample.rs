//! Binding of `kgbench_core::sample` as `kgbench._core.sample`.
//!
//! - `SampleGraph(node_labels, node_values, edge_src, edge_dst, edge_types, edge_values,
//!   value_text, label_text, type_text, salt=0, node_keys=[])`: an in-memory snapshot (value ids, `0` =
//!   null; `*_values` are one column per property slot).
//! - `SampleGraph.instantiate(n_nodes, rels, node_reqs, rel_reqs, projection, suffix, k,
//!   pivot_cap=None) -> list[tuple[list[int], list[list[int]]]]`: per assignment (labels of
//!   the node variables, then types of the relationship variables) the `k` distinct rows of
//!   projected value ids with the largest MD5, largest first.
//!
//! The GIL is released while building and enumerating, which stop on Ctrl-C
//! (`KeyboardInterrupt`). Bad ids or columns raise `kgbench.errors.InputError` (a
//! `ValueError`).

use std::sync::Arc;

use kgbench_core::sample::{self as core, Columns, Pattern, Projected, Req};
use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

use crate::input_error;

/// One assignment (label ids, then type ids) with its ranked rows of value ids.
type Ranked = (Vec<u32>, Vec<Vec<u32>>);

/// An in-memory graph snapshot; see `python/kgbench/_core/sample.pyi`.
#[pyclass(frozen, module = "kgbench._core.sample")]
struct SampleGraph {
    /// Shared with the worker thread of [`SampleGraph::instantiate`].
    graph: Arc<core::Graph>,
}

fn req(code: u8) -> PyResult<Req> {
    match code {
        0 => Ok(Req::NotNull),
        1 => Ok(Req::IsNull),
        2 => Ok(Req::Free),
        _ => Err(pyo3::exceptions::PyValueError::new_err(format!(
            "requirement code {code} (0 NOT NULL, 1 IS NULL, 2 free)"
        ))),
    }
}

#[pymethods]
impl SampleGraph {
    #[new]
    #[pyo3(signature = (node_labels, node_values, edge_src, edge_dst, edge_types, edge_values, value_text, label_text, type_text, salt=0, node_keys=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        node_labels: Vec<u32>,
        node_values: Vec<Vec<u32>>,
        edge_src: Vec<u32>,
        edge_dst: Vec<u32>,
        edge_types: Vec<u32>,
        edge_values: Vec<Vec<u32>>,
        value_text: Vec<Vec<u8>>,
        label_text: Vec<String>,
        type_text: Vec<String>,
        salt: u64,
        node_keys: Vec<u64>,
    ) -> PyResult<Self> {
        let cols = Columns {
            node_labels,
            node_values,
            edge_src,
            edge_dst,
            edge_types,
            edge_values,
            value_text,
            label_text: label_text.into_iter().map(String::into_bytes).collect(),
            type_text: type_text.into_iter().map(String::into_bytes).collect(),
            node_keys,
        };
        let graph =
            crate::interrupt::detach_interruptible(py, move || core::Graph::new(cols, salt))?
                .map_err(|e| input_error(py, e.to_string()))?;
        Ok(SampleGraph {
            graph: Arc::new(graph),
        })
    }

    /// Number of nodes.
    #[getter]
    fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Number of relationships.
    #[getter]
    fn relationship_count(&self) -> usize {
        self.graph.relationship_count()
    }

    #[pyo3(signature = (n_nodes, rels, node_reqs, rel_reqs, projection, suffix, k, pivot_cap=None))]
    #[allow(clippy::too_many_arguments)]
    fn instantiate(
        &self,
        py: Python<'_>,
        n_nodes: usize,
        rels: Vec<(usize, usize)>,
        node_reqs: Vec<(usize, usize, u8)>,
        rel_reqs: Vec<(usize, usize, u8)>,
        projection: Vec<(bool, usize, usize)>,
        suffix: &str,
        k: usize,
        pivot_cap: Option<usize>,
    ) -> PyResult<Vec<Ranked>> {
        let pattern = Pattern {
            n_nodes,
            rels,
            node_reqs: node_reqs
                .into_iter()
                .map(|(v, s, c)| Ok((v, s, req(c)?)))
                .collect::<PyResult<_>>()?,
            rel_reqs: rel_reqs
                .into_iter()
                .map(|(v, s, c)| Ok((v, s, req(c)?)))
                .collect::<PyResult<_>>()?,
            projection: projection
                .into_iter()
                .map(|(is_rel, var, slot)| Projected { is_rel, var, slot })
                .collect(),
        };
        let suffix = suffix.as_bytes().to_vec();
        let graph = Arc::clone(&self.graph);
        // on a worker thread: Ctrl-C raises KeyboardInterrupt at once (the search polls
        // `kgbench_core::cancel` and stops)
        let out = crate::interrupt::detach_interruptible(py, move || {
            core::instantiate(&graph, &pattern, &suffix, k, pivot_cap)
        })?
        .map_err(|e| match e {
            core::SampleError::Interrupted => PyKeyboardInterrupt::new_err("interrupted"),
            e => input_error(py, e.to_string()),
        })?;
        Ok(out.into_iter().map(|i| (i.assignment, i.rows)).collect())
    }
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "sample")?;
    m.add_class::<SampleGraph>()?;
    crate::add_submodule(parent, &m)
}
