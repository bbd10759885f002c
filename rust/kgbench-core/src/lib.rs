//! kgbench core: the heavy work behind the `kgbench` Python package.
//!
//! Pure Rust, no Python: the binding crate `kgbench-py` wraps these modules
//! into `kgbench._core`.
//!
//! - [`iso`]: AHU canonical forms of answer subgraphs and the GTSQA isomorphism
//!   notation (seed synthkgqa-gtsqa.txt, Appendix A.2; SPEC.md §5).
//! - [`convert`]: streaming Wikidata RDF → CypherBench property graph
//!   (SPEC.md §1–§2, seed cypherbench.txt §3.2).
//! - [`evaluate`]: result values, execution accuracy and metric families
//!   (SPEC.md §4).
//! - [`cypher`]: Cypher parsing for PSJS provenance queries and the read-only gate.
//! - [`neo4j`]: SimpleKG graph validation and Neo4j import-tool CSV files (SPEC.md §2).
//! - [`sample`]: an in-memory graph snapshot and the ranked instantiation of small graph
//!   patterns, shared by the benchmark generators (CypherBench §4.2).

pub mod cancel;
pub mod convert;
pub mod cypher;
pub mod evaluate;
pub mod iso;
pub mod neo4j;
pub mod noise;
pub mod rdb;
pub mod sample;
pub mod select;
pub mod synth;

/// Helpers shared by the unit tests.
#[cfg(test)]
pub(crate) mod testing {
    /// A deterministic xorshift64 generator from `seed`: `rnd(m)` is uniform-ish in `0..m`
    /// (for any unsigned integer type).
    pub fn xorshift<T: TryInto<u64> + TryFrom<u64>>(mut x: u64) -> impl FnMut(T) -> T {
        move |m: T| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m: u64 = m.try_into().ok().unwrap_or(u64::MAX);
            T::try_from(x % m).ok().unwrap()
        }
    }
}
