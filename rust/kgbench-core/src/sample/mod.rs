//! Graph sampling: an in-memory snapshot of a property graph and the instantiation of small
//! graph patterns over it, shared by kgbench's benchmark generators.
//!
//! The snapshot ([`Graph`]) holds each node's (first) label, each relationship's type and
//! ends, and the values of a few properties as *value ids* (`u32`, `0` = null): the caller
//! interns the property values and keeps them, and hands over the bytes each value hashes as.
//! Adjacency is stored twice (out and in) as compressed sparse rows, each node's edges
//! grouped by (relationship type, label of the other end).
//!
//! [`instantiate`] enumerates the matches of a pattern (node variables, relationship
//! variables between them, property requirements `IS NOT NULL` / `IS NULL` / free) with
//! Cypher's semantics: relationships are matched isomorphically (one relationship binds at
//! most one relationship variable), nodes homomorphically (two node variables may bind the
//! same node). It projects every match to its *assignment* (the labels of the node variables,
//! then the types of the relationship variables) and its *row* (the values of the projected
//! properties), and keeps, per assignment, the `k` distinct rows with the largest MD5 of
//! `text(row values) ++ assignment names ++ suffix`: the ranking of CypherBench's MATCH
//! instantiation query (`apoc.util.md5(row + [labels, types, category, seed])`, sorted
//! descending by `apoc.coll.sortMaps`; spec `cypherbench-taskgen.md` §3 and §6.9).
//!
//! Cost. A node variable of pattern degree one that has no property requirement and is not
//! projected (an unnamed *leaf*) is never enumerated: its possible (type, label) classes are
//! read off the grouped adjacency with their multiplicity (enough to keep relationship
//! isomorphism exact). So chains through hub nodes cost the hub's degree, not its square.
//! Two projected neighbours of one hub still cost the product of their degrees (the number of
//! distinct rows is that large); `pivot_cap` bounds it by expanding at most that many
//! relationships per (node, direction, type, other label) class, chosen by a seeded hash of
//! the other end — deterministic, and no longer exact (kgbench's default mode; `None` gives
//! the exact enumeration of CypherBench's query).

use std::collections::HashMap;

use md5::{Digest, Md5};
use rayon::prelude::*;

/// A property requirement of a pattern variable (the `<p>`, `<p^>`, `<p?>` annotations of
/// CypherBench's templates).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Req {
    /// `p IS NOT NULL`.
    NotNull,
    /// `p IS NULL`.
    IsNull,
    /// No requirement (the value is projected as it is, null included).
    Free,
}

/// A pattern variable's property slot that is projected into the row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Projected {
    /// `true`: relationship variable `var`; `false`: node variable `var`.
    pub is_rel: bool,
    /// Index of the variable.
    pub var: usize,
    /// Property slot (column of the snapshot's node or relationship values).
    pub slot: usize,
}

/// A small graph pattern: `n_nodes` node variables and relationship variables
/// `rels[i] = (subject variable, object variable)` (directed).
#[derive(Clone, Debug, Default)]
pub struct Pattern {
    /// Number of node variables.
    pub n_nodes: usize,
    /// Relationship variables as (subject, object) node-variable indexes.
    pub rels: Vec<(usize, usize)>,
    /// Node property requirements: (node variable, slot, requirement).
    pub node_reqs: Vec<(usize, usize, Req)>,
    /// Relationship property requirements: (relationship variable, slot, requirement).
    pub rel_reqs: Vec<(usize, usize, Req)>,
    /// The row: projected property slots, in order.
    pub projection: Vec<Projected>,
}

/// One assignment of labels and types with its top-ranked rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instantiation {
    /// Label ids of the node variables, then type ids of the relationship variables.
    pub assignment: Vec<u32>,
    /// Up to `k` distinct rows (value ids of the projection), largest hash first.
    pub rows: Vec<Vec<u32>>,
}

/// Errors of the snapshot builder and of [`instantiate`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SampleError {
    /// Inconsistent snapshot columns or an out-of-range id.
    #[error("graph snapshot: {0}")]
    Graph(String),
    /// A pattern that refers to a missing variable or slot.
    #[error("pattern: {0}")]
    Pattern(String),
    /// [`instantiate`] was stopped by [`crate::cancel::request`] (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}

/// An in-memory snapshot of a property graph (see the module documentation).
#[derive(Clone, Debug)]
pub struct Graph {
    label: Vec<u32>,
    node_slots: usize,
    node_vals: Vec<u32>,
    edge_src: Vec<u32>,
    edge_dst: Vec<u32>,
    edge_type: Vec<u32>,
    edge_slots: usize,
    edge_vals: Vec<u32>,
    out_off: Vec<usize>,
    out_adj: Vec<u32>,
    in_off: Vec<usize>,
    in_adj: Vec<u32>,
    value_text: Vec<Vec<u8>>,
    label_text: Vec<Vec<u8>>,
    type_text: Vec<Vec<u8>>,
}

/// Columns of a snapshot, as handed to [`Graph::new`].
#[derive(Clone, Debug, Default)]
pub struct Columns {
    /// Label id of each node (index = node).
    pub node_labels: Vec<u32>,
    /// Node property values, one column (length = number of nodes) per slot.
    pub node_values: Vec<Vec<u32>>,
    /// Subject node of each relationship.
    pub edge_src: Vec<u32>,
    /// Object node of each relationship.
    pub edge_dst: Vec<u32>,
    /// Type id of each relationship.
    pub edge_types: Vec<u32>,
    /// Relationship property values, one column per slot.
    pub edge_values: Vec<Vec<u32>>,
    /// The bytes each value id hashes as (index 0, null, hashes as nothing).
    pub value_text: Vec<Vec<u8>>,
    /// The name of each label id.
    pub label_text: Vec<Vec<u8>>,
    /// The name of each type id.
    pub type_text: Vec<Vec<u8>>,
    /// A stable key of each node (e.g. a hash of its entity id), so that the seeded order
    /// inside adjacency classes does not depend on the order the nodes were read in; empty:
    /// the node index.
    pub node_keys: Vec<u64>,
}

/// SplitMix64 finaliser: the seeded order of relationships inside a class.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn flatten(cols: &[Vec<u32>], n: usize, what: &str) -> Result<Vec<u32>, SampleError> {
    let slots = cols.len();
    let mut flat = vec![0u32; n * slots];
    for (s, col) in cols.iter().enumerate() {
        if col.len() != n {
            return Err(SampleError::Graph(format!(
                "{what} value column {s} has {} entries for {n} items",
                col.len()
            )));
        }
        for (i, &v) in col.iter().enumerate() {
            flat[i * slots + s] = v;
        }
    }
    Ok(flat)
}

impl Graph {
    /// Build a snapshot from its columns; `salt` seeds the order of relationships inside
    /// each (node, direction, type, other label) class (used by `pivot_cap`).
    ///
    /// Errors: [`SampleError::Graph`] when columns differ in length or an id is out of range
    /// (a node id ≥ the number of nodes, a label, type or value id without its text).
    pub fn new(cols: Columns, salt: u64) -> Result<Graph, SampleError> {
        let n = cols.node_labels.len();
        let m = cols.edge_src.len();
        if cols.edge_dst.len() != m || cols.edge_types.len() != m {
            return Err(SampleError::Graph(format!(
                "relationship columns differ in length: {} subjects, {} objects, {} types",
                m,
                cols.edge_dst.len(),
                cols.edge_types.len()
            )));
        }
        if n >= u32::MAX as usize || m >= u32::MAX as usize {
            return Err(SampleError::Graph("more than 2^32 - 1 items".into()));
        }
        if let Some(&l) = cols
            .node_labels
            .iter()
            .find(|&&l| l as usize >= cols.label_text.len())
        {
            return Err(SampleError::Graph(format!("label id {l} has no name")));
        }
        if let Some(&t) = cols
            .edge_types
            .iter()
            .find(|&&t| t as usize >= cols.type_text.len())
        {
            return Err(SampleError::Graph(format!("type id {t} has no name")));
        }
        for (what, ends) in [("subject", &cols.edge_src), ("object", &cols.edge_dst)] {
            if let Some(&x) = ends.iter().find(|&&x| x as usize >= n) {
                return Err(SampleError::Graph(format!(
                    "relationship {what} {x} is not a node (there are {n} nodes)"
                )));
            }
        }
        let nv = cols.value_text.len().max(1);
        for col in cols.node_values.iter().chain(cols.edge_values.iter()) {
            if let Some(&v) = col.iter().find(|&&v| v as usize >= nv) {
                return Err(SampleError::Graph(format!("value id {v} has no text")));
            }
        }
        if !cols.node_keys.is_empty() && cols.node_keys.len() != n {
            return Err(SampleError::Graph(format!(
                "{} node keys for {n} nodes",
                cols.node_keys.len()
            )));
        }
        let node_vals = flatten(&cols.node_values, n, "node")?;
        let edge_vals = flatten(&cols.edge_values, m, "relationship")?;
        let label = cols.node_labels;
        let key = |e: u32, other: u32| -> (u32, u32, u64, u32) {
            (
                cols.edge_types[e as usize],
                label[other as usize],
                mix(salt
                    ^ cols
                        .node_keys
                        .get(other as usize)
                        .copied()
                        .unwrap_or(u64::from(other))),
                e,
            )
        };
        let csr = |from: &[u32], to: &[u32]| -> (Vec<usize>, Vec<u32>) {
            let mut off = vec![0usize; n + 1];
            for &x in from {
                off[x as usize + 1] += 1;
            }
            for i in 0..n {
                off[i + 1] += off[i];
            }
            let mut fill = off.clone();
            let mut adj = vec![0u32; m];
            for (e, &x) in from.iter().enumerate() {
                adj[fill[x as usize]] = e as u32;
                fill[x as usize] += 1;
            }
            for i in 0..n {
                adj[off[i]..off[i + 1]].sort_unstable_by_key(|&e| key(e, to[e as usize]));
            }
            (off, adj)
        };
        let (out_off, out_adj) = csr(&cols.edge_src, &cols.edge_dst);
        let (in_off, in_adj) = csr(&cols.edge_dst, &cols.edge_src);
        Ok(Graph {
            label,
            node_slots: cols.node_values.len(),
            node_vals,
            edge_src: cols.edge_src,
            edge_dst: cols.edge_dst,
            edge_type: cols.edge_types,
            edge_slots: cols.edge_values.len(),
            edge_vals,
            out_off,
            out_adj,
            in_off,
            in_adj,
            value_text: cols.value_text,
            label_text: cols.label_text,
            type_text: cols.type_text,
        })
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.label.len()
    }

    /// Number of relationships.
    pub fn relationship_count(&self) -> usize {
        self.edge_src.len()
    }

    fn node_val(&self, node: u32, slot: usize) -> u32 {
        self.node_vals[node as usize * self.node_slots + slot]
    }

    fn edge_val(&self, edge: u32, slot: usize) -> u32 {
        self.edge_vals[edge as usize * self.edge_slots + slot]
    }

    /// Edges of `node` in direction `out` (`true`: `node` is the subject).
    fn adj(&self, node: u32, out: bool) -> &[u32] {
        let i = node as usize;
        if out {
            &self.out_adj[self.out_off[i]..self.out_off[i + 1]]
        } else {
            &self.in_adj[self.in_off[i]..self.in_off[i + 1]]
        }
    }

    /// The end of `edge` seen from `node` in direction `out`.
    fn other(&self, edge: u32, out: bool) -> u32 {
        if out {
            self.edge_dst[edge as usize]
        } else {
            self.edge_src[edge as usize]
        }
    }
}

fn holds(value: u32, req: Req) -> bool {
    match req {
        Req::NotNull => value != 0,
        Req::IsNull => value == 0,
        Req::Free => true,
    }
}

/// One step of the enumeration plan.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Bind node variable `var` to every node (a component's first variable).
    Start { var: usize },
    /// Bind relationship `rel` and its unbound end `to` from the bound end `from`.
    Expand {
        rel: usize,
        from: usize,
        to: usize,
        out: bool,
    },
    /// Bind relationship `rel` between two bound variables.
    Close { rel: usize },
    /// An unnamed leaf `to` reached by `rel` from `from`: bound to a (type, label) class.
    Leaf {
        rel: usize,
        from: usize,
        to: usize,
        out: bool,
    },
}

/// The validated plan of a pattern.
struct Plan {
    steps: Vec<Step>,
    node_reqs: Vec<Vec<(usize, Req)>>,
    rel_reqs: Vec<Vec<(usize, Req)>>,
}

fn plan(p: &Pattern, graph: &Graph) -> Result<Plan, SampleError> {
    let nn = p.n_nodes;
    let nr = p.rels.len();
    if nn == 0 {
        return Err(SampleError::Pattern("no node variable".into()));
    }
    for &(s, o) in &p.rels {
        if s >= nn || o >= nn {
            return Err(SampleError::Pattern(format!(
                "relationship ({s}, {o}) names a node variable beyond {nn}"
            )));
        }
    }
    let mut node_reqs = vec![Vec::new(); nn];
    for &(v, slot, req) in &p.node_reqs {
        if v >= nn || slot >= graph.node_slots {
            return Err(SampleError::Pattern(format!(
                "node requirement ({v}, slot {slot})"
            )));
        }
        node_reqs[v].push((slot, req));
    }
    let mut rel_reqs = vec![Vec::new(); nr];
    for &(r, slot, req) in &p.rel_reqs {
        if r >= nr || slot >= graph.edge_slots {
            return Err(SampleError::Pattern(format!(
                "relationship requirement ({r}, slot {slot})"
            )));
        }
        rel_reqs[r].push((slot, req));
    }
    let mut node_projected = vec![false; nn];
    let mut rel_projected = vec![false; nr];
    for pr in &p.projection {
        let ok = if pr.is_rel {
            pr.var < nr && pr.slot < graph.edge_slots
        } else {
            pr.var < nn && pr.slot < graph.node_slots
        };
        if !ok {
            return Err(SampleError::Pattern(format!("projection {pr:?}")));
        }
        if pr.is_rel {
            rel_projected[pr.var] = true;
        } else {
            node_projected[pr.var] = true;
        }
    }
    let mut degree = vec![0usize; nn];
    for &(s, o) in &p.rels {
        degree[s] += 1;
        degree[o] += 1;
    }
    let leaf_capable = |v: usize| -> bool {
        if degree[v] != 1 || !node_reqs[v].is_empty() || node_projected[v] {
            return false;
        }
        let r = p
            .rels
            .iter()
            .position(|&(s, o)| s == v || o == v)
            .unwrap_or(usize::MAX);
        r != usize::MAX && rel_reqs[r].is_empty() && !rel_projected[r] && p.rels[r].0 != p.rels[r].1
    };
    let mut bound = vec![false; nn];
    let mut rel_done = vec![false; nr];
    let mut steps = Vec::new();
    let mut leaves = Vec::new();
    while let Some(first) = (0..nn).filter(|&v| !bound[v]).max_by_key(|&v| {
        // the most connected non-leaf variable starts a component (lowest index on ties)
        (!leaf_capable(v), degree[v], std::cmp::Reverse(v))
    }) {
        bound[first] = true;
        steps.push(Step::Start { var: first });
        let mut queue = std::collections::VecDeque::from([first]);
        while let Some(u) = queue.pop_front() {
            for (r, &(s, o)) in p.rels.iter().enumerate() {
                if rel_done[r] || (s != u && o != u) {
                    continue;
                }
                let (to, out) = if s == u { (o, true) } else { (s, false) };
                rel_done[r] = true;
                if bound[to] {
                    steps.push(Step::Close { rel: r });
                } else if leaf_capable(to) {
                    bound[to] = true;
                    leaves.push(Step::Leaf {
                        rel: r,
                        from: u,
                        to,
                        out,
                    });
                } else {
                    bound[to] = true;
                    steps.push(Step::Expand {
                        rel: r,
                        from: u,
                        to,
                        out,
                    });
                    queue.push_back(to);
                }
            }
        }
    }
    steps.extend(leaves);
    Ok(Plan {
        steps,
        node_reqs,
        rel_reqs,
    })
}

/// A binding of a leaf: a run of the pivot's adjacency (one type, one other label).
#[derive(Clone, Copy, Debug, Default)]
struct Class {
    pivot: u32,
    out: bool,
    ty: u32,
    label: u32,
    len: usize,
}

/// Per-assignment top-k of distinct rows by hash.
type TopK = Vec<([u8; 16], Vec<u32>)>;

fn insert_top(top: &mut TopK, k: usize, hash: [u8; 16], row: &[u32]) {
    if top.len() == k && top.last().is_some_and(|(h, _)| hash <= *h) {
        return;
    }
    // equal hashes are the same row (duplicates of one distinct row)
    match top.binary_search_by(|(h, _)| hash.cmp(h)) {
        Ok(_) => {}
        Err(pos) => {
            top.insert(pos, (hash, row.to_vec()));
            top.truncate(k);
        }
    }
}

struct Search<'a> {
    g: &'a Graph,
    p: &'a Pattern,
    plan: &'a Plan,
    k: usize,
    cap: Option<usize>,
    suffix: &'a [u8],
    nodes: Vec<u32>,
    edges: Vec<u32>,
    classes: Vec<Option<Class>>,
    labels: Vec<u32>,
    row: Vec<u32>,
    assignment: Vec<u32>,
    out: HashMap<Vec<u32>, TopK>,
    /// Search steps since the last poll of [`crate::cancel`].
    ticks: u32,
    /// A stop was requested: every step returns at once.
    stopped: bool,
}

/// Search steps between two polls of [`crate::cancel`].
const POLL_STEPS: u32 = 4096;

impl Search<'_> {
    fn node_ok(&self, var: usize, node: u32) -> bool {
        self.plan.node_reqs[var]
            .iter()
            .all(|&(slot, req)| holds(self.g.node_val(node, slot), req))
    }

    fn edge_ok(&self, rel: usize, edge: u32, depth: usize) -> bool {
        // isomorphism: not already bound to an earlier relationship variable
        let earlier = self.plan.steps[..depth].iter().any(|s| match *s {
            Step::Expand { rel: r, .. } | Step::Close { rel: r } => self.edges[r] == edge,
            _ => false,
        });
        !earlier
            && self.plan.rel_reqs[rel]
                .iter()
                .all(|&(slot, req)| holds(self.g.edge_val(edge, slot), req))
    }

    fn step(&mut self, depth: usize) {
        self.ticks += 1;
        if self.ticks >= POLL_STEPS {
            self.ticks = 0;
            self.stopped |= crate::cancel::requested();
        }
        if self.stopped {
            return;
        }
        let Some(&step) = self.plan.steps.get(depth) else {
            self.emit();
            return;
        };
        let g = self.g;
        match step {
            Step::Start { var } => {
                // only the first Start is driven by the caller; later components scan all nodes
                for node in 0..g.node_count() as u32 {
                    if self.node_ok(var, node) {
                        self.nodes[var] = node;
                        self.labels[var] = g.label[node as usize];
                        self.step(depth + 1);
                    }
                }
            }
            Step::Expand { rel, from, to, out } => {
                let adj = g.adj(self.nodes[from], out);
                let mut run: Option<(u32, u32)> = None;
                let mut taken = 0usize;
                for &e in adj {
                    let other = g.other(e, out);
                    if let Some(cap) = self.cap {
                        let class = (g.edge_type[e as usize], g.label[other as usize]);
                        if run != Some(class) {
                            run = Some(class);
                            taken = 0;
                        }
                        if taken >= cap {
                            continue;
                        }
                        taken += 1;
                    }
                    if self.edge_ok(rel, e, depth) && self.node_ok(to, other) {
                        self.edges[rel] = e;
                        self.nodes[to] = other;
                        self.labels[to] = g.label[other as usize];
                        self.step(depth + 1);
                    }
                }
                self.edges[rel] = u32::MAX;
            }
            Step::Close { rel } => {
                let (s, o) = self.p.rels[rel];
                let (sn, on) = (self.nodes[s], self.nodes[o]);
                // scan the shorter adjacency of the two ends
                let (adj, out, want) = if g.adj(sn, true).len() <= g.adj(on, false).len() {
                    (g.adj(sn, true), true, on)
                } else {
                    (g.adj(on, false), false, sn)
                };
                for &e in adj {
                    if g.other(e, out) == want && self.edge_ok(rel, e, depth) {
                        self.edges[rel] = e;
                        self.step(depth + 1);
                    }
                }
                self.edges[rel] = u32::MAX;
            }
            Step::Leaf { rel, from, to, out } => {
                let pivot = self.nodes[from];
                let adj = g.adj(pivot, out);
                let mut i = 0;
                while i < adj.len() {
                    let e = adj[i];
                    let ty = g.edge_type[e as usize];
                    let label = g.label[g.other(e, out) as usize];
                    let mut j = i + 1;
                    while j < adj.len()
                        && g.edge_type[adj[j] as usize] == ty
                        && g.label[g.other(adj[j], out) as usize] == label
                    {
                        j += 1;
                    }
                    let class = Class {
                        pivot,
                        out,
                        ty,
                        label,
                        len: j - i,
                    };
                    if self.class_has_room(&class, depth) {
                        self.classes[rel] = Some(class);
                        self.labels[to] = label;
                        self.step(depth + 1);
                        self.classes[rel] = None;
                    }
                    i = j;
                }
            }
        }
    }

    /// Whether `class` still has a relationship not bound by the concrete relationships and
    /// the leaf classes chosen before `depth`.
    fn class_has_room(&self, class: &Class, depth: usize) -> bool {
        let g = self.g;
        let in_class = |e: u32| -> bool {
            let (end, other) = if class.out {
                (g.edge_src[e as usize], g.edge_dst[e as usize])
            } else {
                (g.edge_dst[e as usize], g.edge_src[e as usize])
            };
            end == class.pivot
                && g.edge_type[e as usize] == class.ty
                && g.label[other as usize] == class.label
        };
        let mut used = 0usize;
        for s in &self.plan.steps[..depth] {
            match *s {
                Step::Expand { rel, .. } | Step::Close { rel } if in_class(self.edges[rel]) => {
                    used += 1
                }
                Step::Leaf { rel, .. } => {
                    if let Some(c) = self.classes[rel] {
                        if c.pivot == class.pivot
                            && c.out == class.out
                            && c.ty == class.ty
                            && c.label == class.label
                        {
                            used += 1;
                        }
                    }
                }
                _ => {}
            }
        }
        class.len > used
    }

    fn emit(&mut self) {
        let g = self.g;
        self.row.clear();
        for pr in &self.p.projection {
            let v = if pr.is_rel {
                g.edge_val(self.edges[pr.var], pr.slot)
            } else {
                g.node_val(self.nodes[pr.var], pr.slot)
            };
            self.row.push(v);
        }
        self.assignment.clear();
        self.assignment.extend_from_slice(&self.labels);
        for r in 0..self.p.rels.len() {
            let ty = match self.classes[r] {
                Some(c) => c.ty,
                None => g.edge_type[self.edges[r] as usize],
            };
            self.assignment.push(ty);
        }
        let mut h = Md5::new();
        for &v in &self.row {
            h.update(&g.value_text[v as usize]);
        }
        let nn = self.p.n_nodes;
        for (i, &a) in self.assignment.iter().enumerate() {
            let text = if i < nn {
                &g.label_text[a as usize]
            } else {
                &g.type_text[a as usize]
            };
            h.update(text);
        }
        h.update(self.suffix);
        let hash: [u8; 16] = h.finalize().into();
        match self.out.get_mut(&self.assignment) {
            Some(top) => insert_top(top, self.k, hash, &self.row),
            None => {
                let mut top = Vec::with_capacity(self.k);
                insert_top(&mut top, self.k, hash, &self.row);
                self.out.insert(self.assignment.clone(), top);
            }
        }
    }
}

/// Instantiate `pattern` on `graph` (see the module documentation): per assignment of labels
/// and types, the `k` distinct projected rows with the largest MD5 of `text(row) ++ names of
/// the assignment ++ suffix`. `pivot_cap` bounds the relationships expanded per class (`None`:
/// exact). Runs on the rayon pool, split over the first variable's nodes; the result does not
/// depend on the thread count. Output sorted by assignment.
///
/// Errors: [`SampleError::Pattern`] for a variable or slot out of range;
/// [`SampleError::Interrupted`] once [`crate::cancel::request`] was called (polled every
/// [`POLL_STEPS`] search steps).
pub fn instantiate(
    graph: &Graph,
    pattern: &Pattern,
    suffix: &[u8],
    k: usize,
    pivot_cap: Option<usize>,
) -> Result<Vec<Instantiation>, SampleError> {
    let plan = plan(pattern, graph)?;
    if k == 0 {
        return Ok(Vec::new());
    }
    let Some(Step::Start { var: first }) = plan.steps.first().copied() else {
        return Err(SampleError::Pattern("no first variable".into()));
    };
    let n = graph.node_count();
    let chunk = (n / (rayon::current_num_threads() * 8)).clamp(256, 65_536);
    let starts: Vec<u32> = (0..n as u32).step_by(chunk).collect();
    let merged = starts
        .par_iter()
        .map(|&lo| {
            let hi = (lo as usize + chunk).min(n) as u32;
            let mut s = Search {
                g: graph,
                p: pattern,
                plan: &plan,
                k,
                cap: pivot_cap,
                suffix,
                nodes: vec![u32::MAX; pattern.n_nodes],
                edges: vec![u32::MAX; pattern.rels.len()],
                classes: vec![None; pattern.rels.len()],
                labels: vec![0; pattern.n_nodes],
                row: Vec::new(),
                assignment: Vec::new(),
                out: HashMap::new(),
                ticks: 0,
                stopped: crate::cancel::requested(),
            };
            for node in lo..hi {
                if s.stopped {
                    break;
                }
                if s.node_ok(first, node) {
                    s.nodes[first] = node;
                    s.labels[first] = graph.label[node as usize];
                    s.step(1);
                }
            }
            s.out
        })
        .reduce(HashMap::new, |mut a, b| {
            for (key, top) in b {
                match a.get_mut(&key) {
                    Some(t) => {
                        for (h, row) in top {
                            insert_top(t, k, h, &row);
                        }
                    }
                    None => {
                        a.insert(key, top);
                    }
                }
            }
            a
        });
    if crate::cancel::requested() {
        return Err(SampleError::Interrupted);
    }
    let mut out: Vec<Instantiation> = merged
        .into_iter()
        .map(|(assignment, top)| Instantiation {
            assignment,
            rows: top.into_iter().map(|(_, r)| r).collect(),
        })
        .collect();
    out.sort_by(|a, b| a.assignment.cmp(&b.assignment));
    Ok(out)
}

#[cfg(test)]
mod tests;
