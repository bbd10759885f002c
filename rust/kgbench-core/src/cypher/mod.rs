//! Cypher analysis: the read-only gate and PSJS provenance queries.
//!
//! Queries are parsed with the `open-cypher` crate (openCypher 2024.3 grammar
//! plus `COUNT {}` / `EXISTS {}` / `COLLECT {}`, `!=`, quantified path
//! patterns, list/map literals, `date()` and other functions), guarded by
//! [`parse::with_parsed`].
//!
//! # Gaps of open-cypher 0.5 against Neo4j 5, and what kgbench does
//!
//! - `CALL { ... }` / `CALL (x) { ... }` / `OPTIONAL CALL { ... }` subqueries
//!   (including `UNION` inside): not in the crate's grammar; kgbench cuts them
//!   out and parses the bodies separately ([`parse`]).
//! - `CALL { ... } IN TRANSACTIONS`, `FOREACH`, `LOAD CSV`, `USE`, `INSERT`,
//!   `ORDER BY ... NULLS FIRST/LAST`, administration commands (`CREATE INDEX`,
//!   `SHOW ...`): do not parse. The gate then uses its lexical scan (all of
//!   the writing ones are reported); provenance queries use the parser's error
//!   recovery when the problem lies after the MATCH part, else raise
//!   [`CypherError::Syntax`] (PSJS 0, error class `parse`).
//! - Several statements separated by `;`: not parsed (the gate scans all).
//!
//! - [`analyze`]: [`analyze::analyze`] derives PIPE-Cypher's static gate
//!   verdicts, structural features, signature and difficulty from the parse
//!   tree; [`analyze::check`] applies the schema gates G3-G6.
//! - [`gate`]: [`write_clauses`] lists the clauses of a query that may write;
//!   it never fails (a lexical scan replaces the parser on unparseable input).
//! - [`provenance`]: [`provenance_queries`] builds, from the MATCH part of a
//!   query, the Cypher that returns the element ids of its provenance subgraph
//!   (SPEC.md §4, seed cypherbench.txt §5.2).

pub mod analyze;
pub mod gate;
pub mod parse;
pub mod provenance;

pub use gate::{lexical_write_clauses, write_clauses, READ_ONLY_PROCEDURES};
pub use parse::CypherError;
pub use provenance::{provenance_queries, ProvenanceQuery};
