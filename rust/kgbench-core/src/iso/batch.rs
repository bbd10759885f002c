//! Parallel classification of many answer subgraphs (rayon).

use rayon::prelude::*;

use rustc_hash::FxHashMap;

use super::graph::{AnswerSubgraph, Workspace};
use super::identify::identify_into;
use super::small::shape_key;

/// Many answer subgraphs in flat arrays (item `i` uses
/// `edges[edge_offsets[i]..edge_offsets[i + 1]]` and likewise for seeds; node
/// ids are local to the item, `0..n_nodes[i]`).
#[derive(Debug, Clone, Default)]
pub struct SubgraphBatch {
    /// Nodes per item.
    pub n_nodes: Vec<u32>,
    /// `len() + 1` offsets into `edges`, starting at 0.
    pub edge_offsets: Vec<usize>,
    /// Undirected edges of all items.
    pub edges: Vec<[u32; 2]>,
    /// Answer node per item.
    pub answers: Vec<u32>,
    /// `len() + 1` offsets into `seeds`, starting at 0.
    pub seed_offsets: Vec<usize>,
    /// Seed entities of all items.
    pub seeds: Vec<u32>,
}

impl SubgraphBatch {
    /// An empty batch (offsets initialised).
    pub fn new() -> Self {
        SubgraphBatch {
            edge_offsets: vec![0],
            seed_offsets: vec![0],
            ..Default::default()
        }
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    /// Whether the batch has no items.
    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }

    /// Item `i` as an [`AnswerSubgraph`].
    pub fn get(&self, i: usize) -> AnswerSubgraph<'_> {
        AnswerSubgraph {
            n_nodes: self.n_nodes[i],
            edges: &self.edges[self.edge_offsets[i]..self.edge_offsets[i + 1]],
            answer: self.answers[i],
            seeds: &self.seeds[self.seed_offsets[i]..self.seed_offsets[i + 1]],
        }
    }
}

/// Identifiers of a batch as small integers: `ids[i]` indexes `types`, or is
/// [`TypeIds::INVALID`] for an invalid answer subgraph.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TypeIds {
    /// Distinct identifiers, in order of first appearance.
    pub types: Vec<String>,
    /// One entry per item.
    pub ids: Vec<u32>,
}

impl TypeIds {
    /// Marks an item that is not a valid answer tree.
    pub const INVALID: u32 = u32::MAX;

    /// The identifier of item `i`, if valid.
    pub fn get(&self, i: usize) -> Option<&str> {
        match self.ids[i] {
            Self::INVALID => None,
            id => Some(&self.types[id as usize]),
        }
    }
}

const CHUNK: usize = 2048;

/// Identify items `range` with chunk-local interning (no allocation per item).
pub(crate) fn identify_chunk(batch: &SubgraphBatch, range: std::ops::Range<usize>) -> TypeIds {
    let mut ws = Workspace::default();
    let mut local: FxHashMap<String, u32> = FxHashMap::default();
    let mut out = TypeIds {
        types: Vec::new(),
        ids: Vec::with_capacity(range.len()),
    };
    // Valid small trees: identifier memoised by rooted shape.
    let mut shapes: FxHashMap<u64, u32> = FxHashMap::default();
    let mut buf = String::new();
    for i in range {
        let g = batch.get(i);
        let shape = shape_key(&g);
        if let Some(&id) = shape.and_then(|k| shapes.get(&k)) {
            out.ids.push(id);
            continue;
        }
        buf.clear();
        if identify_into(&mut ws, &g, &mut buf) {
            let id = match local.get(buf.as_str()) {
                Some(&id) => id,
                None => {
                    let id = out.types.len() as u32;
                    out.types.push(buf.clone());
                    local.insert(buf.clone(), id);
                    id
                }
            };
            if let Some(k) = shape {
                shapes.insert(k, id);
            }
            out.ids.push(id);
        } else {
            out.ids.push(TypeIds::INVALID);
        }
    }
    out
}

/// Identifiers of all items as [`TypeIds`] on the calling thread (for callers
/// that run their own threads). Same results as [`isomorphism_type_ids`].
pub fn isomorphism_type_ids_local(batch: &SubgraphBatch) -> TypeIds {
    identify_chunk(batch, 0..batch.len())
}

/// Identifiers of all items as [`TypeIds`], in parallel on the rayon pool
/// (chunks of 2048 items). Same results as [`analyze`](crate::iso::analyze) item by item.
pub fn isomorphism_type_ids(batch: &SubgraphBatch) -> TypeIds {
    let n = batch.len();
    let chunks: Vec<TypeIds> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| identify_chunk(batch, c * CHUNK..((c + 1) * CHUNK).min(n)))
        .collect();
    let mut builder = TypeIdsBuilder::default();
    builder.merged.ids.reserve(n);
    for chunk in chunks {
        builder.push(chunk);
    }
    builder.finish()
}

/// Concatenates [`TypeIds`] of consecutive chunks, merging their identifier tables.
#[derive(Debug, Default)]
pub struct TypeIdsBuilder {
    merged: TypeIds,
    index: FxHashMap<String, u32>,
}

impl TypeIdsBuilder {
    /// Append the items of `chunk`.
    pub fn push(&mut self, chunk: TypeIds) {
        let remap: Vec<u32> = chunk
            .types
            .into_iter()
            .map(|t| match self.index.get(&t) {
                Some(&id) => id,
                None => {
                    let id = self.merged.types.len() as u32;
                    self.merged.types.push(t.clone());
                    self.index.insert(t, id);
                    id
                }
            })
            .collect();
        self.merged.ids.extend(chunk.ids.iter().map(|&id| {
            if id == TypeIds::INVALID {
                id
            } else {
                remap[id as usize]
            }
        }));
    }

    /// Overwrite the entries at `positions` (which must be `< len`) with the
    /// items of `other`, in order: item `k` of `other` goes to `positions[k]`.
    ///
    /// # Panics
    /// If `positions.len() != other.ids.len()` or a position is out of range.
    pub fn patch(&mut self, positions: &[usize], other: TypeIds) {
        assert_eq!(positions.len(), other.ids.len(), "one position per item");
        let start = self.merged.ids.len();
        self.push(other);
        let patched = self.merged.ids.split_off(start);
        for (&p, id) in positions.iter().zip(patched) {
            self.merged.ids[p] = id;
        }
    }

    /// Number of items pushed so far.
    pub fn len(&self) -> usize {
        self.merged.ids.len()
    }

    /// Whether no item was pushed.
    pub fn is_empty(&self) -> bool {
        self.merged.ids.is_empty()
    }

    /// All items pushed so far.
    pub fn finish(self) -> TypeIds {
        self.merged
    }
}

/// GTSQA identifier of every item (`None` for an invalid answer subgraph), in
/// parallel on the rayon pool. Same results as [`analyze`](crate::iso::analyze) item by item.
pub fn isomorphism_types(batch: &SubgraphBatch) -> Vec<Option<String>> {
    let ids = isomorphism_type_ids(batch);
    (0..batch.len())
        .map(|i| ids.get(i).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patch_merges_type_tables() {
        let mut b = TypeIdsBuilder::default();
        b.push(TypeIds {
            types: vec!["(1)".into(), "(2)".into()],
            ids: vec![0, TypeIds::INVALID, 1, TypeIds::INVALID],
        });
        b.patch(
            &[1, 3],
            TypeIds {
                types: vec!["(2)".into(), "(3)".into()],
                ids: vec![1, 0],
            },
        );
        let t = b.finish();
        let got: Vec<Option<&str>> = (0..4).map(|i| t.get(i)).collect();
        assert_eq!(got, [Some("(1)"), Some("(3)"), Some("(2)"), Some("(2)")]);
        assert_eq!(t.types, ["(1)", "(2)", "(3)"]);
    }

    #[test]
    fn batch_matches_single() {
        let mut b = SubgraphBatch::new();
        for i in 0..1000u32 {
            // A path answer - ... - seed of length 1 + i % 5, plus a cycle every 7th.
            let len = 1 + i % 5;
            for v in 0..len {
                b.edges.push([v, v + 1]);
            }
            if i % 7 == 0 {
                b.edges.push([len, 0]);
            }
            b.edge_offsets.push(b.edges.len());
            b.n_nodes.push(len + 1);
            b.answers.push(0);
            b.seeds.push(len);
            b.seed_offsets.push(b.seeds.len());
        }
        let out = isomorphism_types(&b);
        for (i, id) in out.iter().enumerate() {
            let expected = if i % 7 == 0 {
                None
            } else {
                Some(format!("({})", 1 + i % 5))
            };
            assert_eq!(id, &expected);
        }
    }
}
