//! Binding of `kgbench_core::synth` as `kgbench._core.synth`: SynthKGQA's seed-graph
//! sampling and isomorphism-type embedding on an in-memory KG.
//!
//! - `KgGraph(n_nodes, heads, relations, tails)`: the entity–entity triples (ids `0..n`).
//! - `KgGraph.seed_graphs(count, seed, n_nodes=10, n_edges=30, bias="inverse_degree")`
//!   `-> list[tuple[list[int], list[int]]]`: `count` seed graphs (nodes, triple indices),
//!   the i-th from the i-th draw of one generator seeded with `seed`.
//! - `KgGraph.embed(nodes, triples, identifier, seed, max_steps=10000)`
//!   `-> tuple[list[int], list[int]] | None`: tree nodes → graph nodes (node 0 the answer) and
//!   tree edges → triple indices, or None.

use kgbench_core::iso::gtsqa::parse_identifier;
use kgbench_core::synth::{
    embed, seed_graph, start_nodes, Bias, KgGraph as CoreGraph, Rng, SeedGraph, SeedParams,
};
use pyo3::prelude::*;

use crate::input_error;

/// The KG's entity–entity triples, indexed for sampling.
#[pyclass(module = "kgbench._core.synth", frozen)]
struct KgGraph {
    inner: CoreGraph,
    starts: Vec<u32>,
}

#[pymethods]
impl KgGraph {
    /// Index the triples `(heads[i], relations[i], tails[i])` over nodes `0..n_nodes`.
    /// Raises `kgbench.errors.InputError` for lists of different lengths, a node out of range
    /// or no triple.
    #[new]
    fn new(
        py: Python<'_>,
        n_nodes: usize,
        heads: Vec<u32>,
        relations: Vec<u32>,
        tails: Vec<u32>,
    ) -> PyResult<Self> {
        if heads.len() != relations.len() || heads.len() != tails.len() {
            return Err(input_error(
                py,
                "heads, relations and tails must have the same length".into(),
            ));
        }
        let triples = heads
            .into_iter()
            .zip(relations)
            .zip(tails)
            .map(|((h, r), t)| (h, r, t))
            .collect();
        let inner = py
            .detach(|| CoreGraph::new(n_nodes, triples))
            .map_err(|e| input_error(py, e.to_string()))?;
        let starts = start_nodes(&inner);
        Ok(KgGraph { inner, starts })
    }

    /// Number of nodes.
    #[getter]
    fn n_nodes(&self) -> usize {
        self.inner.n_nodes()
    }

    /// Number of triples.
    #[getter]
    fn n_triples(&self) -> usize {
        self.inner.triples().len()
    }

    /// Distinct neighbours of node `v`.
    fn degree(&self, v: u32) -> u32 {
        self.inner.degree(v)
    }

    /// `count` seed graphs (spec §3.1) as (nodes in joining order, ascending triple indices).
    /// `bias`: "inverse_degree" (the paper's exp(1/d)) or "uniform" (the code's default).
    #[pyo3(signature = (count, seed, n_nodes=10, n_edges=30, bias="inverse_degree"))]
    fn seed_graphs(
        &self,
        py: Python<'_>,
        count: usize,
        seed: u64,
        n_nodes: usize,
        n_edges: usize,
        bias: &str,
    ) -> PyResult<Vec<(Vec<u32>, Vec<u32>)>> {
        let bias = match bias {
            "inverse_degree" => Bias::InverseDegree,
            "uniform" => Bias::Uniform,
            other => {
                return Err(input_error(
                    py,
                    format!("bias must be inverse_degree or uniform, not {other:?}"),
                ))
            }
        };
        if n_nodes < 2 || n_edges < 1 {
            return Err(input_error(
                py,
                "a seed graph needs n_nodes >= 2 and n_edges >= 1".into(),
            ));
        }
        let p = SeedParams {
            n_nodes,
            n_edges,
            bias,
        };
        Ok(py.detach(|| {
            let mut rng = Rng::new(seed);
            (0..count)
                .map(|_| {
                    let s = seed_graph(&self.inner, &self.starts, &p, &mut rng);
                    (s.nodes, s.triples)
                })
                .collect()
        }))
    }

    /// Embed the isomorphism type `identifier` (GTSQA notation) into the seed graph
    /// (`nodes`, `triples`); None when it does not fit within `max_steps` backtracking steps.
    /// Raises `kgbench.errors.InputError` for an identifier that does not parse.
    #[pyo3(signature = (nodes, triples, identifier, seed, max_steps=10_000))]
    fn embed(
        &self,
        py: Python<'_>,
        nodes: Vec<u32>,
        triples: Vec<u32>,
        identifier: &str,
        seed: u64,
        max_steps: usize,
    ) -> PyResult<Option<(Vec<u32>, Vec<u32>)>> {
        let tree = parse_identifier(identifier).map_err(|e| input_error(py, e.to_string()))?;
        let n = self.inner.triples().len();
        if let Some(bad) = triples.iter().find(|&&i| i as usize >= n) {
            return Err(input_error(py, format!("triple index {bad} out of range")));
        }
        if let Some(bad) = nodes.iter().find(|&&v| v as usize >= self.inner.n_nodes()) {
            return Err(input_error(py, format!("node {bad} out of range")));
        }
        let seed_graph = SeedGraph { nodes, triples };
        let mut rng = Rng::new(seed);
        Ok(embed(&self.inner, &seed_graph, &tree, &mut rng, max_steps).map(|e| (e.nodes, e.edges)))
    }
}

pub(crate) fn register(parent: &Bound<'_, PyModule>) -> PyResult<()> {
    let m = PyModule::new(parent.py(), "synth")?;
    m.add_class::<KgGraph>()?;
    crate::add_submodule(parent, &m)
}
