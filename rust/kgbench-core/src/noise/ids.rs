//! Output ids (spec ngdbench.md §7, `--opaque-ids`).
//!
//! kgbench's eids embed the clean label (`Person#Q42`), so a relabelled node would show its
//! clean label in its id, and an added relation's rid would follow the largest clean rid. With
//! opaque ids every eid and rid is replaced, identically in the clean and the noisy graph and
//! in the log, by 16 hex digits of `SHA-256(key ‖ kind ‖ id)`, where
//! `key = SHA-256("kgbench-noise-opaque-ids\0<seed>\0<clean sha256>")` — a key that depends on
//! the clean file, so ids cannot be guessed from a QID and a label without it.

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::graph::Graph;
use super::NoiseError;

/// The opaque ids of a graph's nodes and edges (16 ASCII hex digits each).
pub struct Opaque {
    key: [u8; 32],
    /// By node index.
    pub nodes: Vec<[u8; 16]>,
    /// By edge index (added edges appended as they are added).
    pub edges: Vec<[u8; 16]>,
    /// The document edges' ids, sorted (collision checks of added edges).
    sorted_edges: Vec<[u8; 16]>,
    /// The added edges' ids.
    added: rustc_hash::FxHashSet<[u8; 16]>,
}

fn hex16(digest: &[u8]) -> [u8; 16] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = [0u8; 16];
    for (i, b) in digest[..8].iter().enumerate() {
        out[2 * i] = HEX[(b >> 4) as usize];
        out[2 * i + 1] = HEX[(b & 15) as usize];
    }
    out
}

impl Opaque {
    /// The opaque ids of `g`'s nodes and edges. Errors: two ids with the same hash (a 64-bit
    /// collision; never seen in practice).
    pub fn new(g: &Graph<'_>, seed: u64, clean_sha256: &str) -> Result<Opaque, NoiseError> {
        let key: [u8; 32] =
            Sha256::digest(format!("kgbench-noise-opaque-ids\0{seed}\0{clean_sha256}").as_bytes())
                .into();
        let nodes: Vec<[u8; 16]> = (0..g.node_ids.len())
            .into_par_iter()
            .with_min_len(4096)
            .map(|i| Self::hash(&key, b'e', g.node_ids.get(i)))
            .collect();
        let edges: Vec<[u8; 16]> = (0..g.edge_rids.len())
            .into_par_iter()
            .with_min_len(4096)
            .map(|e| Self::hash(&key, b'r', g.edge_rids.get(e)))
            .collect();
        let mut sorted_edges = Vec::new();
        for (what, ids) in [("eid", &nodes), ("rid", &edges)] {
            let mut sorted = ids.clone();
            sorted.par_sort_unstable();
            if sorted.windows(2).any(|w| w[0] == w[1]) {
                return Err(NoiseError::Graph(format!(
                    "two {what}s have the same opaque id; run without --opaque-ids"
                )));
            }
            sorted_edges = sorted;
        }
        Ok(Opaque {
            key,
            nodes,
            edges,
            sorted_edges,
            added: Default::default(),
        })
    }

    fn hash(key: &[u8; 32], kind: u8, id: &str) -> [u8; 16] {
        let mut h = Sha256::new();
        h.update(key);
        h.update([kind, 0]);
        h.update(id.as_bytes());
        hex16(&h.finalize())
    }

    /// Register the opaque id of an added edge's rid. Errors: it equals another rid's.
    pub fn push_edge(&mut self, rid: &str) -> Result<(), NoiseError> {
        let id = Self::hash(&self.key, b'r', rid);
        if self.sorted_edges.binary_search(&id).is_ok() || !self.added.insert(id) {
            return Err(NoiseError::Graph(
                "an added relation's opaque id equals another's; run without --opaque-ids".into(),
            ));
        }
        self.edges.push(id);
        Ok(())
    }
}

/// The text of a 16-digit hex id.
pub fn as_str(id: &[u8; 16]) -> &str {
    std::str::from_utf8(id).unwrap_or("")
}
