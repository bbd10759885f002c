//! kgbench core: the heavy work behind the `kgbench` Python package.
//!
//! Pure Rust, no Python: the binding crate `kgbench-py` wraps these modules
//! into `kgbench._core`.
//!
//! One module per concern, in the order of the pipeline:
//!
//! - [`convert`]: streaming Wikidata RDF / entity JSON → CypherBench property graph
//!   (`graph.json`, the Parquet rows and `report.json`; SPEC.md §1–§2, seed cypherbench.txt
//!   §3.2), with its own parallel gzip / bzip2 decoder.
//! - [`neo4j`]: SimpleKG graph validation for both loaders and Neo4j import-tool CSV files
//!   (SPEC.md §2).
//! - [`rdb`]: SQLite databases → N-Triples and SimpleKG graphs for `kgbench rdb` (spec
//!   `spider4sparql.md` §3): the SQL the Python side plans, run in parallel, rows named and
//!   written atomically.
//! - [`noise`]: NGDBench noise injection on a SimpleKG graph, the noisy graph and its
//!   replayable log (spec ngdbench.md §1–§3).
//! - [`sample`]: an in-memory graph snapshot and the ranked instantiation of small graph
//!   patterns, shared by the benchmark generators (CypherBench §4.2).
//! - [`synth`]: SynthKGQA's seed-graph sampling and the embedding of an isomorphism type
//!   into a seed graph (spec `synthkgqa.md` §3.1, §4).
//! - [`select`]: PIPE-Cypher's diversity selection (MMR-style greedy scoring, spec §4).
//! - [`cypher`]: one Cypher front end for the read-only gate, PSJS provenance queries and
//!   PIPE-Cypher's static analysis.
//! - [`iso`]: AHU canonical forms of answer subgraphs and the GTSQA isomorphism notation,
//!   also over JSON Lines files (seed synthkgqa-gtsqa.txt, Appendix A.2; SPEC.md §5).
//! - [`evaluate`]: result values, execution accuracy, `kgbench score` and the metric
//!   families (SPEC.md §4).
//! - [`cancel`]: the process-wide flag long loops poll to stop on Ctrl-C.

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
