//! Cypher analysis: the read-only gate and PSJS provenance queries.
//!
//! Queries are parsed with the `open-cypher` crate (openCypher 2024.3 grammar
//! plus `COUNT {}` / `EXISTS {}` / `COLLECT {}`, `!=`, quantified path
//! patterns, list/map literals, `date()` and other functions), guarded by
//! [`parse::with_parsed`].
//!
//! # Gaps of open-cypher 0.5 against Neo4j 5, and what kgbench does
//!
//! Every workaround rewrites the text to openCypher of the same byte length
//! (or cuts a region out and parses it separately), so spans of the parse
//! tree still index the original text, which the gate and the provenance
//! builder report and copy.
//!
//! - `CALL { ... }` / `CALL (x) { ... }` / `CALL () { ... }` / `OPTIONAL CALL
//!   { ... }` subqueries (including `UNION` inside), with an optional `IN [n
//!   CONCURRENT] TRANSACTIONS [OF m ROWS] [ON ERROR ...] [REPORT STATUS AS
//!   s]` suffix: not in the crate's grammar; cut out and the bodies parsed
//!   separately ([`parse`]).
//! - Type predicates (`IS :: T`, `IS NOT :: T`, `:: T`) and `IS [NOT]
//!   [NFC|...] NORMALIZED`: rewritten to comparisons ([`neo4j5::rewrite`]).
//! - Pattern-form `EXISTS { (a)-->(:B) }` / `COUNT { ... }` with labels: the
//!   crate fails on them; cut out and parsed as `MATCH ...` ([`parse`]).
//! - For the gate and the provenance builder (not [`analyze`]): clause
//!   keywords used as names (`MATCH (set:Set) RETURN set AS delete`), label
//!   alternation `(n:A|B)` and `WHERE` inside node patterns confuse the crate's
//!   contextual tokenizer; the names are renamed, `|` becomes `&`, and the
//!   pattern predicates are cut out and parsed as `RETURN <predicate>`
//!   ([`parse::Names::Neutralize`]).
//! - `\uXXXX` escapes, which Neo4j decodes before tokenizing (even in strings
//!   and comments): the gate and the provenance builder decode them first
//!   ([`gate::decode_unicode_escapes`]).
//! - `FOREACH`, `LOAD CSV`, `USE`, `INSERT`, `FINISH`, `ORDER BY ... NULLS
//!   FIRST/LAST`, administration commands (`CREATE INDEX`, `SHOW ...`): do not
//!   parse. The gate then uses its lexical scan (all of the writing ones are
//!   reported); provenance queries use the parser's error recovery when the
//!   problem lies after the MATCH part, else raise [`CypherError::Syntax`]
//!   (PSJS 0, error class `parse`).
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
pub mod neo4j5;
pub mod parse;
pub mod provenance;

pub use gate::{lexical_write_clauses, write_clauses, READ_ONLY_PROCEDURES};
pub use parse::CypherError;
pub use provenance::{provenance_queries, ProvenanceQuery};
