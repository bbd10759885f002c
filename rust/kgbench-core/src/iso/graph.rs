//! Answer-subgraph checks (GTSQA's data-quality filters) and the per-thread
//! [`Workspace`] shared by the encoders.

use std::fmt;

/// An answer subgraph with nodes already mapped to small integers.
///
/// Nodes are `0..n_nodes`; every node should be an endpoint of an edge, the
/// answer or a seed entity (any other index counts as an isolated node and
/// makes the graph disconnected). Edges are undirected pairs: the relation and
/// the direction of a triple are ignored (seed Appendix A.2).
#[derive(Debug, Clone, Copy)]
pub struct AnswerSubgraph<'a> {
    /// Number of nodes; node ids are `0..n_nodes`.
    pub n_nodes: u32,
    /// Undirected edges `[head, tail]`, each id `< n_nodes`. Repeated pairs are
    /// parallel edges (they form a cycle); `[v, v]` is a self-loop.
    pub edges: &'a [[u32; 2]],
    /// The answer node (the root of the tree).
    pub answer: u32,
    /// Seed entities (duplicates are ignored).
    pub seeds: &'a [u32],
}

/// A reason why a subgraph is not a valid GTSQA answer tree.
///
/// The names ([`Defect::name`]) are the flag names of [`Analysis`] and of the
/// Python record `kgbench.iso.AnswerSubgraphAnalysis`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Defect {
    /// No edges at all.
    Empty,
    /// No seed entities were given.
    NoSeeds,
    /// The answer node is not an endpoint of any edge.
    AnswerMissing,
    /// A seed entity is not an endpoint of any edge.
    MissingSeeds,
    /// The answer node is also a seed entity (self-answering question).
    AnswerIsSeed,
    /// The undirected graph (edges, answer and seeds) has more than one component.
    Disconnected,
    /// The undirected multigraph has a cycle (including self-loops and parallel edges).
    Cycle,
    /// A leaf (degree-1 node) is neither a seed entity nor the answer.
    HangingBranches,
    /// A seed entity has degree >= 2, i.e. it is not a leaf.
    InternalSeeds,
}

impl Defect {
    /// All defects, in the order they are reported.
    pub const ALL: [Defect; 9] = [
        Defect::Empty,
        Defect::NoSeeds,
        Defect::AnswerMissing,
        Defect::MissingSeeds,
        Defect::AnswerIsSeed,
        Defect::Disconnected,
        Defect::Cycle,
        Defect::HangingBranches,
        Defect::InternalSeeds,
    ];

    /// Stable snake_case name (`"cycle"`, `"hanging_branches"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Defect::Empty => "empty",
            Defect::NoSeeds => "no_seeds",
            Defect::AnswerMissing => "answer_missing",
            Defect::MissingSeeds => "missing_seeds",
            Defect::AnswerIsSeed => "answer_is_seed",
            Defect::Disconnected => "disconnected",
            Defect::Cycle => "cycle",
            Defect::HangingBranches => "hanging_branches",
            Defect::InternalSeeds => "internal_seeds",
        }
    }

    /// One-line human description.
    pub fn description(self) -> &'static str {
        match self {
            Defect::Empty => "the answer subgraph has no edges",
            Defect::NoSeeds => "no seed entities",
            Defect::AnswerMissing => "the answer node is not in the answer subgraph",
            Defect::MissingSeeds => "a seed entity is not in the answer subgraph",
            Defect::AnswerIsSeed => "the answer node is also a seed entity",
            Defect::Disconnected => "the answer subgraph is not connected",
            Defect::Cycle => "the answer subgraph has a cycle (or a self-loop or parallel edges)",
            Defect::HangingBranches => "a leaf is neither a seed entity nor the answer",
            Defect::InternalSeeds => "a seed entity is not a leaf",
        }
    }
}

impl fmt::Display for Defect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.description())
    }
}

/// The defects of an invalid answer subgraph, in [`Defect::ALL`] order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid answer subgraph: {}", .0.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("; "))]
pub struct InvalidAnswerSubgraph(pub Vec<Defect>);

/// Structure and data-quality flags of an answer subgraph (seed Appendix A.1-A.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// GTSQA isomorphism identifier; `None` when the subgraph has a defect.
    pub identifier: Option<String>,
    /// Largest shortest-path distance from the answer to a seed entity it
    /// reaches; `None` when the answer is missing or reaches no seed.
    pub n_hops: Option<u32>,
    /// Number of distinct seed entities given.
    pub n_seeds: u32,
    /// Number of edges (triples), parallel edges included.
    pub n_edges: u32,
    /// Number of distinct nodes that are endpoints of an edge.
    pub n_nodes: u32,
    /// Connected and acyclic (over edges, answer and seeds).
    pub is_tree: bool,
    /// One component (over edges, answer and seeds).
    pub is_connected: bool,
    /// A cycle, self-loop or parallel edge exists.
    pub has_cycle: bool,
    /// A leaf is neither a seed nor the answer.
    pub hanging_branches: bool,
    /// The answer is a seed entity.
    pub answer_is_seed: bool,
    /// A seed entity has degree >= 2.
    pub internal_seeds: bool,
    /// The answer is not an endpoint of any edge.
    pub answer_missing: bool,
    /// A seed is not an endpoint of any edge.
    pub missing_seeds: bool,
}

impl Analysis {
    /// The defects found, in [`Defect::ALL`] order (empty for a valid answer tree).
    pub fn defects(&self) -> Vec<Defect> {
        Defect::ALL
            .into_iter()
            .filter(|d| match d {
                Defect::Empty => self.n_edges == 0,
                Defect::NoSeeds => self.n_seeds == 0,
                Defect::AnswerMissing => self.answer_missing,
                Defect::MissingSeeds => self.missing_seeds,
                Defect::AnswerIsSeed => self.answer_is_seed,
                Defect::Disconnected => !self.is_connected,
                Defect::Cycle => self.has_cycle,
                Defect::HangingBranches => self.hanging_branches,
                Defect::InternalSeeds => self.internal_seeds,
            })
            .collect()
    }
}

/// Reusable buffers, so that classifying millions of small subgraphs does not
/// allocate per item. One per thread.
#[derive(Debug, Default)]
pub struct Workspace {
    pub(crate) deg: Vec<u32>,
    pub(crate) adj_start: Vec<u32>,
    pub(crate) adj: Vec<u32>,
    pub(crate) uf: Vec<u32>,
    pub(crate) is_seed: Vec<bool>,
    pub(crate) dist: Vec<u32>,
    pub(crate) parent: Vec<u32>,
    pub(crate) queue: Vec<u32>,
    // Per-node term / AHU data.
    pub(crate) k: Vec<u32>,
    pub(crate) base: Vec<u32>,
    pub(crate) size: Vec<u32>,
    pub(crate) depth: Vec<u32>,
    pub(crate) level: Vec<u32>,
    pub(crate) rank: Vec<u32>,
    pub(crate) key: Vec<u32>,
    pub(crate) kid_start: Vec<u32>,
    pub(crate) kid_len: Vec<u32>,
    pub(crate) kids: Vec<u32>,
    pub(crate) by_level: Vec<u32>,
    pub(crate) level_start: Vec<u32>,
    pub(crate) stack: Vec<u32>,
}

pub(crate) const NONE: u32 = u32::MAX;

fn reset(v: &mut Vec<u32>, n: usize, value: u32) {
    v.clear();
    v.resize(n, value);
}

fn find(uf: &mut [u32], mut x: u32) -> u32 {
    while uf[x as usize] != x {
        let p = uf[x as usize];
        uf[x as usize] = uf[p as usize];
        x = p;
    }
    x
}

impl Workspace {
    /// Degrees and CSR adjacency of the undirected multigraph.
    pub(crate) fn build_adjacency(&mut self, n: usize, edges: &[[u32; 2]]) {
        reset(&mut self.deg, n, 0);
        for &[a, b] in edges {
            self.deg[a as usize] += 1;
            self.deg[b as usize] += 1;
        }
        self.adj_start.clear();
        self.adj_start.reserve(n + 1);
        let mut acc = 0u32;
        self.adj_start.push(0);
        for &d in &self.deg {
            acc += d;
            self.adj_start.push(acc);
        }
        // `key` doubles as the fill cursor here.
        self.key.clear();
        self.key.extend_from_slice(&self.adj_start[..n]);
        reset(&mut self.adj, acc as usize, 0);
        for &[a, b] in edges {
            let ca = &mut self.key[a as usize];
            self.adj[*ca as usize] = b;
            *ca += 1;
            let cb = &mut self.key[b as usize];
            self.adj[*cb as usize] = a;
            *cb += 1;
        }
    }

    /// Union-find over all nodes: returns `(connected, has_cycle)`.
    pub(crate) fn components(&mut self, n: usize, edges: &[[u32; 2]]) -> (bool, bool) {
        self.uf.clear();
        self.uf.extend(0..n as u32);
        let mut cycle = false;
        let mut merges = 0usize;
        for &[a, b] in edges {
            let ra = find(&mut self.uf, a);
            let rb = find(&mut self.uf, b);
            if ra == rb {
                cycle = true;
            } else {
                self.uf[ra as usize] = rb;
                merges += 1;
            }
        }
        (merges + 1 >= n, cycle)
    }

    /// Breadth-first search from `root`: fills `queue` (visit order), `parent`
    /// and `dist` (`NONE` when unreachable).
    pub(crate) fn bfs(&mut self, n: usize, root: u32) {
        reset(&mut self.dist, n, NONE);
        reset(&mut self.parent, n, NONE);
        self.queue.clear();
        self.queue.push(root);
        self.dist[root as usize] = 0;
        let mut head = 0;
        while head < self.queue.len() {
            let v = self.queue[head];
            head += 1;
            let dv = self.dist[v as usize];
            let (s, e) = (
                self.adj_start[v as usize] as usize,
                self.adj_start[v as usize + 1] as usize,
            );
            for i in s..e {
                let w = self.adj[i];
                if self.dist[w as usize] == NONE {
                    self.dist[w as usize] = dv + 1;
                    self.parent[w as usize] = v;
                    self.queue.push(w);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iso::identify::analyze;

    fn run(n: u32, edges: &[[u32; 2]], answer: u32, seeds: &[u32]) -> Analysis {
        let mut ws = Workspace::default();
        analyze(
            &mut ws,
            &AnswerSubgraph {
                n_nodes: n,
                edges,
                answer,
                seeds,
            },
        )
    }

    #[test]
    fn valid_star() {
        let a = run(3, &[[1, 0], [0, 2]], 0, &[1, 2]);
        assert_eq!(a.identifier.as_deref(), Some("(1)(1)"));
        assert_eq!(a.n_hops, Some(1));
        assert!(a.defects().is_empty());
    }

    #[test]
    fn every_defect() {
        assert_eq!(
            run(1, &[], 0, &[]).defects(),
            vec![Defect::Empty, Defect::NoSeeds, Defect::AnswerMissing]
        );
        let a = run(3, &[[0, 1], [1, 2], [2, 0]], 0, &[1]);
        assert!(a.has_cycle && !a.is_tree && a.is_connected);
        assert_eq!(a.defects(), vec![Defect::Cycle, Defect::InternalSeeds]);
        let a = run(3, &[[0, 1], [1, 0], [1, 2]], 0, &[2]);
        assert_eq!(a.defects(), vec![Defect::Cycle]);
        assert_eq!(
            run(2, &[[0, 0], [0, 1]], 0, &[1]).defects(),
            vec![Defect::Cycle]
        );
        let a = run(4, &[[0, 1], [2, 3]], 0, &[1, 2, 3]);
        assert_eq!(a.defects(), vec![Defect::Disconnected]);
        assert_eq!(a.n_hops, Some(1));
        assert_eq!(
            run(3, &[[0, 1], [0, 2]], 0, &[1]).defects(),
            vec![Defect::HangingBranches]
        );
        assert_eq!(
            run(3, &[[0, 1], [1, 2]], 0, &[1, 2]).defects(),
            vec![Defect::InternalSeeds]
        );
        assert_eq!(
            run(2, &[[0, 1]], 0, &[0, 1]).defects(),
            vec![Defect::AnswerIsSeed]
        );
        let a = run(3, &[[0, 1]], 2, &[1]);
        assert_eq!(
            a.defects(),
            vec![
                Defect::AnswerMissing,
                Defect::Disconnected,
                Defect::HangingBranches
            ]
        );
        assert_eq!(a.n_hops, None);
        assert_eq!(
            run(3, &[[0, 1]], 0, &[1, 2]).defects(),
            vec![Defect::MissingSeeds, Defect::Disconnected]
        );
    }
}
