//! SynthKGQA's graph side (seed synthkgqa-gtsqa.txt §3; `shared/spec/synthkgqa.md` §3.1,
//! §4): seed-graph sampling and the embedding of an answer-subgraph isomorphism type into a
//! seed graph, on an in-memory adjacency of the KG's entity–entity triples.
//!
//! - [`KgGraph`]: nodes `0..n`, triples `(head, relation, tail)`, and per node its incident
//!   triples (either direction) and its number of distinct neighbours `d`.
//! - [`seed_graph`]: Algorithm 1 of the seed (the code's `node_neighbourhood`): start at a
//!   uniform node of degree > 0; while the node set has fewer than `n_nodes` nodes and the
//!   triple set fewer than `n_edges` triples, draw a candidate `z` from the nodes added so far
//!   (weights `exp(1/d)` with [`Bias::InverseDegree`], the paper's bias; uniform with
//!   [`Bias::Uniform`], the code's default), draw a new neighbour `n` of `z` the same way, and
//!   add every triple between `n` and the node set. A candidate without a new neighbour is
//!   dropped; when every candidate is dropped a uniform KG node joins with no triple (as the
//!   code does). Over `n_edges` triples, a uniform subset of `n_edges` is kept.
//! - [`embed`]: a random embedding of a GTSQA isomorphism type (parsed by
//!   [`crate::iso::gtsqa::parse_identifier`]) into a seed graph, by seeded backtracking: tree
//!   nodes go to distinct graph nodes, tree edges to distinct seed-graph triples joining their
//!   images (either direction); the root is the answer, the leaves the seeds.
//!
//! Randomness comes from [`Rng`], a SplitMix64 generator defined here so that a seed gives
//! the same samples on every platform and every version of kgbench's dependencies.

use std::collections::HashSet;

use crate::iso::gtsqa::ParsedIdentifier;

/// A small deterministic PRNG (SplitMix64; Steele, Lea and Flood 2014).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform float in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform index in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// Shuffle `v` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i + 1);
            v.swap(i, j);
        }
    }

    /// An index drawn with probability proportional to `weights` (not all zero).
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut x = self.next_f64() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }
}

/// The KG's entity–entity triples with an undirected incidence index.
#[derive(Debug, Clone)]
pub struct KgGraph {
    triples: Vec<(u32, u32, u32)>,
    /// CSR offsets into `incident` per node.
    offsets: Vec<u32>,
    /// Triple indices incident to each node (as head or tail).
    incident: Vec<u32>,
    /// Distinct neighbours per node.
    degree: Vec<u32>,
    /// `exp(1/d)` per node (`d` at least 1), the [`Bias::InverseDegree`] weight.
    inverse_degree_weight: Vec<f64>,
}

/// Bad input to [`KgGraph::new`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SynthError {
    /// A triple names a node outside `0..n_nodes`.
    #[error("triple {index} names node {node}, but the graph has {n_nodes} nodes")]
    NodeOutOfRange {
        index: usize,
        node: u32,
        n_nodes: usize,
    },
    /// The graph has no triple to sample from.
    #[error("the graph has no entity-entity triple")]
    Empty,
}

impl KgGraph {
    /// Index `triples` over nodes `0..n_nodes` (self-loops are kept as triples but give no
    /// neighbour).
    ///
    /// # Errors
    /// [`SynthError`] for a node out of range or no triple.
    pub fn new(n_nodes: usize, triples: Vec<(u32, u32, u32)>) -> Result<Self, SynthError> {
        if triples.is_empty() {
            return Err(SynthError::Empty);
        }
        let mut count = vec![0u32; n_nodes + 1];
        for (i, &(h, _, t)) in triples.iter().enumerate() {
            for node in [h, t] {
                if node as usize >= n_nodes {
                    return Err(SynthError::NodeOutOfRange {
                        index: i,
                        node,
                        n_nodes,
                    });
                }
            }
            count[h as usize] += 1;
            if t != h {
                count[t as usize] += 1;
            }
        }
        let mut offsets = vec![0u32; n_nodes + 1];
        for v in 0..n_nodes {
            offsets[v + 1] = offsets[v] + count[v];
        }
        let mut fill = offsets.clone();
        let mut incident = vec![0u32; offsets[n_nodes] as usize];
        for (i, &(h, _, t)) in triples.iter().enumerate() {
            incident[fill[h as usize] as usize] = i as u32;
            fill[h as usize] += 1;
            if t != h {
                incident[fill[t as usize] as usize] = i as u32;
                fill[t as usize] += 1;
            }
        }
        let mut g = KgGraph {
            triples,
            offsets,
            incident,
            degree: vec![0; n_nodes],
            inverse_degree_weight: vec![0.0; n_nodes],
        };
        for v in 0..n_nodes {
            let d = g.neighbours(v as u32).collect::<HashSet<u32>>().len();
            g.degree[v] = d as u32;
            g.inverse_degree_weight[v] = (1.0 / f64::from(d.max(1) as u32)).exp();
        }
        Ok(g)
    }

    /// Number of nodes.
    #[must_use]
    pub fn n_nodes(&self) -> usize {
        self.degree.len()
    }

    /// The triples, in input order.
    #[must_use]
    pub fn triples(&self) -> &[(u32, u32, u32)] {
        &self.triples
    }

    /// Triple indices incident to `v`.
    #[must_use]
    pub fn incident(&self, v: u32) -> &[u32] {
        let (a, b) = (self.offsets[v as usize], self.offsets[v as usize + 1]);
        &self.incident[a as usize..b as usize]
    }

    /// Neighbours of `v` (with repetitions, one per incident triple; self-loops excluded).
    pub fn neighbours(&self, v: u32) -> impl Iterator<Item = u32> + '_ {
        self.incident(v).iter().filter_map(move |&i| {
            let (h, _, t) = self.triples[i as usize];
            let other = if h == v { t } else { h };
            (other != v).then_some(other)
        })
    }

    /// Distinct neighbours of `v`.
    #[must_use]
    pub fn degree(&self, v: u32) -> u32 {
        self.degree[v as usize]
    }
}

/// How [`seed_graph`] weights its draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bias {
    /// `exp(1/d)` for a node with `d` distinct neighbours (the paper's Algorithm 1).
    InverseDegree,
    /// Uniform (the public code's default).
    Uniform,
}

/// Parameters of [`seed_graph`] (spec §3.1; defaults 10 nodes, 30 triples, the paper's bias).
#[derive(Debug, Clone, Copy)]
pub struct SeedParams {
    pub n_nodes: usize,
    pub n_edges: usize,
    pub bias: Bias,
}

impl Default for SeedParams {
    fn default() -> Self {
        SeedParams {
            n_nodes: 10,
            n_edges: 30,
            bias: Bias::InverseDegree,
        }
    }
}

/// A sampled seed graph: its nodes in the order they joined and its triple indices
/// (ascending, KG order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedGraph {
    pub nodes: Vec<u32>,
    pub triples: Vec<u32>,
}

fn weight(g: &KgGraph, v: u32, bias: Bias) -> f64 {
    match bias {
        Bias::Uniform => 1.0,
        Bias::InverseDegree => g.inverse_degree_weight[v as usize],
    }
}

/// Sample one seed graph (module documentation). `starts`: the nodes with degree > 0
/// (see [`start_nodes`]); must not be empty.
pub fn seed_graph(g: &KgGraph, starts: &[u32], p: &SeedParams, rng: &mut Rng) -> SeedGraph {
    let s = starts[rng.below(starts.len())];
    let mut nodes = vec![s];
    let mut in_set: HashSet<u32> = HashSet::from([s]);
    let mut candidates = vec![s];
    let mut triples: HashSet<u32> = HashSet::new();
    while nodes.len() < p.n_nodes && triples.len() < p.n_edges {
        if candidates.is_empty() {
            // every candidate is exhausted: a uniform KG node outside the set joins without
            // a triple (drawn by rejection: the set is tiny next to the graph)
            if in_set.len() >= g.n_nodes() {
                break;
            }
            let v = loop {
                let v = rng.below(g.n_nodes()) as u32;
                if !in_set.contains(&v) {
                    break v;
                }
            };
            nodes.push(v);
            in_set.insert(v);
            candidates.push(v);
            continue;
        }
        let w: Vec<f64> = candidates.iter().map(|&v| weight(g, v, p.bias)).collect();
        let zi = rng.weighted(&w);
        let z = candidates[zi];
        let mut fresh: Vec<u32> = g.neighbours(z).filter(|n| !in_set.contains(n)).collect();
        fresh.sort_unstable();
        fresh.dedup();
        if fresh.is_empty() {
            candidates.remove(zi);
            continue;
        }
        let w: Vec<f64> = fresh.iter().map(|&v| weight(g, v, p.bias)).collect();
        let n = fresh[rng.weighted(&w)];
        for &i in g.incident(n) {
            let (h, _, t) = g.triples[i as usize];
            let other = if h == n { t } else { h };
            if in_set.contains(&other) || other == n {
                triples.insert(i);
            }
        }
        nodes.push(n);
        in_set.insert(n);
        candidates.push(n);
    }
    let mut triples: Vec<u32> = triples.into_iter().collect();
    triples.sort_unstable();
    if triples.len() > p.n_edges {
        rng.shuffle(&mut triples);
        triples.truncate(p.n_edges);
        triples.sort_unstable();
    }
    SeedGraph { nodes, triples }
}

/// The nodes with at least one neighbour, ascending (the start nodes of [`seed_graph`]).
#[must_use]
pub fn start_nodes(g: &KgGraph) -> Vec<u32> {
    (0..g.n_nodes() as u32)
        .filter(|&v| g.degree(v) > 0)
        .collect()
}

/// An isomorphism type placed in a seed graph: `nodes[i]` is the graph node of tree node
/// `i` (tree node 0 is the answer), `edges[j]` the triple index of tree edge `j` (in the
/// parsed tree's edge order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embedding {
    pub nodes: Vec<u32>,
    pub edges: Vec<u32>,
}

/// A random embedding of `tree` into the seed graph `seed` (module documentation), or
/// `None` when none is found within `max_steps` backtracking steps.
pub fn embed(
    g: &KgGraph,
    seed: &SeedGraph,
    tree: &ParsedIdentifier,
    rng: &mut Rng,
    max_steps: usize,
) -> Option<Embedding> {
    let n = tree.n_nodes as usize;
    // tree edges (parent, child); the parser numbers nodes in creation order, each child
    // after its parent, so placing nodes in index order always has the parent placed
    let edges: Vec<(usize, usize)> = tree
        .edges
        .iter()
        .map(|&[a, b]| (a as usize, b as usize))
        .collect();
    let mut parent_edge = vec![usize::MAX; n];
    for (j, &(_, c)) in edges.iter().enumerate() {
        parent_edge[c] = j;
    }
    // seed-graph incidence restricted to the sampled triples
    let allowed: HashSet<u32> = seed.triples.iter().copied().collect();
    let mut roots: Vec<u32> = seed
        .nodes
        .iter()
        .copied()
        .filter(|&v| g.incident(v).iter().any(|i| allowed.contains(i)))
        .collect();
    rng.shuffle(&mut roots);
    let mut state = EmbedState {
        g,
        allowed: &allowed,
        edges: &edges,
        parent_edge: &parent_edge,
        nodes: vec![u32::MAX; n],
        used_nodes: HashSet::new(),
        used_triples: HashSet::new(),
        edge_of: vec![u32::MAX; edges.len()],
        steps: 0,
        max_steps,
    };
    for r in roots {
        state.nodes[0] = r;
        state.used_nodes.insert(r);
        if state.place(1, rng) {
            return Some(Embedding {
                nodes: state.nodes,
                edges: state.edge_of,
            });
        }
        state.used_nodes.remove(&r);
        if state.steps >= max_steps {
            break;
        }
    }
    None
}

struct EmbedState<'a> {
    g: &'a KgGraph,
    allowed: &'a HashSet<u32>,
    edges: &'a [(usize, usize)],
    parent_edge: &'a [usize],
    nodes: Vec<u32>,
    used_nodes: HashSet<u32>,
    used_triples: HashSet<u32>,
    edge_of: Vec<u32>,
    steps: usize,
    max_steps: usize,
}

impl EmbedState<'_> {
    /// Place tree nodes `k..` (node `k`'s parent is placed).
    fn place(&mut self, k: usize, rng: &mut Rng) -> bool {
        if k == self.nodes.len() {
            return true;
        }
        self.steps += 1;
        if self.steps > self.max_steps {
            return false;
        }
        let j = self.parent_edge[k];
        let parent = self.nodes[self.edges[j].0];
        let mut options: Vec<(u32, u32)> = self
            .g
            .incident(parent)
            .iter()
            .filter(|i| self.allowed.contains(i) && !self.used_triples.contains(i))
            .filter_map(|&i| {
                let (h, _, t) = self.g.triples[i as usize];
                let other = if h == parent { t } else { h };
                (other != parent && !self.used_nodes.contains(&other)).then_some((other, i))
            })
            .collect();
        options.sort_unstable();
        rng.shuffle(&mut options);
        for (v, i) in options {
            self.nodes[k] = v;
            self.edge_of[j] = i;
            self.used_nodes.insert(v);
            self.used_triples.insert(i);
            if self.place(k + 1, rng) {
                return true;
            }
            self.used_nodes.remove(&v);
            self.used_triples.remove(&i);
            if self.steps > self.max_steps {
                return false;
            }
        }
        self.nodes[k] = u32::MAX;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iso::gtsqa::parse_identifier;

    fn star_and_path() -> KgGraph {
        // 0-1-2-3 path, 1 also linked to 4 and 5; 6 isolated
        KgGraph::new(
            7,
            vec![(0, 0, 1), (1, 1, 2), (2, 0, 3), (4, 2, 1), (1, 0, 5)],
        )
        .unwrap()
    }

    #[test]
    fn degrees_and_neighbours() {
        let g = star_and_path();
        assert_eq!(g.degree(1), 4);
        assert_eq!(g.degree(6), 0);
        assert_eq!(start_nodes(&g), vec![0, 1, 2, 3, 4, 5]);
        assert!(KgGraph::new(2, vec![(0, 0, 2)]).is_err());
        assert_eq!(KgGraph::new(2, vec![]).unwrap_err(), SynthError::Empty);
    }

    #[test]
    fn seed_graphs_are_connected_samples_and_deterministic() {
        let g = star_and_path();
        let starts = start_nodes(&g);
        let p = SeedParams::default();
        for seed in 0..50 {
            let a = seed_graph(&g, &starts, &p, &mut Rng::new(seed));
            let b = seed_graph(&g, &starts, &p, &mut Rng::new(seed));
            assert_eq!(a, b);
            // every triple joins two sampled nodes
            let nodes: HashSet<u32> = a.nodes.iter().copied().collect();
            for &i in &a.triples {
                let (h, _, t) = g.triples()[i as usize];
                assert!(nodes.contains(&h) && nodes.contains(&t));
            }
            // the component of 0..5 is fully reached before the isolated node joins
            assert!(a.triples.len() == 5);
        }
        let small = SeedParams {
            n_nodes: 10,
            n_edges: 2,
            bias: Bias::Uniform,
        };
        let s = seed_graph(&g, &starts, &small, &mut Rng::new(7));
        assert!(s.triples.len() <= 2);
    }

    #[test]
    fn embeds_types_on_distinct_nodes_and_triples() {
        let g = star_and_path();
        let seed = SeedGraph {
            nodes: (0..6).collect(),
            triples: (0..5).collect(),
        };
        for id in ["(1)", "(3)", "(1)(1)", "(2)(1)", "(1)(1)(1)", "((1)(1))"] {
            let tree = parse_identifier(id).unwrap();
            let e = embed(&g, &seed, &tree, &mut Rng::new(3), 10_000)
                .unwrap_or_else(|| panic!("{id} not embedded"));
            let distinct: HashSet<u32> = e.nodes.iter().copied().collect();
            assert_eq!(distinct.len(), e.nodes.len(), "{id}");
            let triples: HashSet<u32> = e.edges.iter().copied().collect();
            assert_eq!(triples.len(), e.edges.len());
            for (j, &[a, b]) in tree.edges.iter().enumerate() {
                let (h, _, t) = g.triples()[e.edges[j] as usize];
                let (x, y) = (e.nodes[a as usize], e.nodes[b as usize]);
                assert!((h, t) == (x, y) || (h, t) == (y, x), "{id}");
            }
        }
        // (5) needs a path of 5 edges: not in this graph
        let tree = parse_identifier("(5)").unwrap();
        assert!(embed(&g, &seed, &tree, &mut Rng::new(3), 10_000).is_none());
    }

    #[test]
    fn rng_is_stable() {
        let mut r = Rng::new(1111);
        let first: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        let mut r2 = Rng::new(1111);
        assert_eq!(first, (0..3).map(|_| r2.next_u64()).collect::<Vec<_>>());
        let mut r3 = Rng::new(5);
        for _ in 0..1000 {
            assert!(r3.below(7) < 7);
            let f = r3.next_f64();
            assert!((0.0..1.0).contains(&f));
        }
    }
}
