//! Parallel classification of many answer subgraphs (rayon).

use rayon::prelude::*;

use super::graph::{analyze, AnswerSubgraph, Workspace};

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

/// GTSQA identifier of every item (`None` for an invalid answer subgraph), in
/// parallel on the rayon pool. Same results as [`analyze`] item by item.
pub fn isomorphism_types(batch: &SubgraphBatch) -> Vec<Option<String>> {
    (0..batch.len())
        .into_par_iter()
        .with_min_len(256)
        .map_init(Workspace::default, |ws, i| {
            analyze(ws, &batch.get(i)).identifier
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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

#[cfg(test)]
mod timing {
    use super::*;

    /// `cargo test --release -p kgbench-core iso::batch::timing -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn per_item_cost() {
        let mut b = SubgraphBatch::new();
        let mut x = 12345u64;
        let mut rnd = |m: u32| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % m as u64) as u32
        };
        for _ in 0..1_000_000 {
            let e = 1 + rnd(6);
            let mut deg = vec![0u32; e as usize + 1];
            for c in 1..=e {
                let p = rnd(c);
                b.edges.push([p, c]);
                deg[p as usize] += 1;
                deg[c as usize] += 1;
            }
            let answer = rnd(e + 1);
            for v in 0..=e {
                if deg[v as usize] == 1 && v != answer {
                    b.seeds.push(v);
                }
            }
            b.answers.push(answer);
            b.n_nodes.push(e + 1);
            b.edge_offsets.push(b.edges.len());
            b.seed_offsets.push(b.seeds.len());
        }
        let mut ws = Workspace::default();
        let t = std::time::Instant::now();
        let mut valid = 0;
        for i in 0..b.len() {
            valid += usize::from(analyze(&mut ws, &b.get(i)).identifier.is_some());
        }
        let single = t.elapsed();
        let t = std::time::Instant::now();
        let out = isomorphism_types(&b);
        let par = t.elapsed();
        assert_eq!(out.iter().filter(|x| x.is_some()).count(), valid);
        eprintln!("1M items: single thread {single:?}, rayon {par:?}");
    }
}
