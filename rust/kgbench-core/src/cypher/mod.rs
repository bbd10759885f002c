//! Cypher analysis: the read-only gate and PSJS provenance queries.
//!
//! Queries are parsed with the `open-cypher` crate (openCypher 2024.3 grammar
//! plus common Neo4j extensions such as `CALL { ... }` subqueries, `COUNT {}` /
//! `EXISTS {}` / `COLLECT {}`, `!=`), guarded by [`parse::with_parsed`].
//!
//! - [`gate`]: [`write_clauses`] lists the clauses of a query that may write;
//!   it never fails (a lexical scan replaces the parser on unparseable input).
//! - [`provenance`]: [`provenance_queries`] builds, from the MATCH part of a
//!   query, the Cypher that returns the element ids of its provenance subgraph
//!   (SPEC.md §4, seed cypherbench.txt §5.2).

pub mod gate;
pub mod parse;
pub mod provenance;

pub use gate::{lexical_write_clauses, write_clauses, READ_ONLY_PROCEDURES};
pub use parse::CypherError;
pub use provenance::{provenance_queries, ProvenanceQuery};
