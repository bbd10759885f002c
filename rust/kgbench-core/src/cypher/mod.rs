//! Cypher analysis: the read-only gate, PSJS provenance queries and
//! PIPE-Cypher's static analysis, all through one front end.
//!
//! # One front end
//!
//! Every consumer of Cypher text parses through [`frontend::with_front`]:
//! the gate ([`write_clauses`]), the provenance builder
//! ([`provenance_queries`], [`gate_and_provenance`]), the analysis
//! ([`analyze::analyze`], behind PIPE-Cypher's gates and features, the
//! redaction spans of string literals and the generators' checks). One
//! pre-pass (`\uXXXX` escapes decoded as Neo4j does, offsets mapped back to
//! the text as given), one grammar path (the `open-cypher` crate with the
//! Neo4j 5 additions below), one list of refusals (`!=`, `size()` of a
//! pattern, `[r:A|:B]`), one
//! write-clause detection ([`frontend::Front::write_clauses`]; for text that
//! does not parse, [`unparsed_write_clauses`], a lexical scan) and one error
//! type, [`CypherError`], whose one-line `Display` (`Cypher syntax error at
//! byte N: reason`) is the text every ledger and result file shows. A query
//! that does not parse never passes G1 in the analysis.
//!
//! Queries are parsed with the `open-cypher` crate (openCypher 2024.3
//! grammar plus `COUNT {}` / `EXISTS {}` / `COLLECT {}`, quantified path
//! patterns, list/map literals, `date()` and other functions), guarded by
//! [`parse::with_parsed_names`].
//!
//! # Gaps of open-cypher 0.5 against Neo4j 5, and what kgbench does
//!
//! Every workaround rewrites the text to openCypher of the same byte length
//! (or cuts a region out and parses it separately), so spans of the parse
//! tree still index the (decoded) text, which the gate and the provenance
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
//! - Keywords used as names (`MATCH (set:Set) RETURN set AS delete`,
//!   `count(p) AS count ORDER BY count DESC`, `WITH n.x AS limit`), label
//!   alternation `(n:A|B)`, the relationship-type alternation with colons
//!   `[:A|:B]` (deprecated, accepted by Neo4j 5 without a variable, properties
//!   or a variable length) and `WHERE` inside node
//!   patterns confuse the crate's contextual tokenizer; the names are renamed
//!   (consumers read names from the text at their spans), `|` becomes `&`
//!   (and the colon after it a space), and the pattern predicates are cut out
//!   and parsed as `RETURN <predicate>` ([`neo4j5::neutralize_names`],
//!   [`parse::Names::Neutralize`]). `case`, `is`, `not` and `then` are names
//!   where no expression can continue (`WITH case WHERE`, `AS not ORDER BY not
//!   LIMIT 2`); `null`, `true` and `false` only as a list variable (`[null IN
//!   l | ...]`), literals elsewhere.
//! - `\uXXXX` escapes, which Neo4j decodes before tokenizing (even in strings
//!   and comments): decoded first ([`frontend::Source`]).
//! - `SHOW` commands, `INSERT`, `NODETACH DELETE`, `LOAD CSV`, `FOREACH`,
//!   dynamic labels `$(...)`, `trim(BOTH ... FROM ...)`, `CASE x WHEN > 1`,
//!   `FINISH` and the Cypher 25 forms `LET`, `FILTER` and match modes:
//!   rewritten to openCypher of the same length before parsing, the form
//!   recorded for the gate ([`gql`]).
//! - Where the dialects differ (`RETURN ALL x`, a leading `\uXXXX` escape,
//!   Cypher 25's clause forms), the front end consults the dialect's rules
//!   ([`dialect::RULES`], [`Dialect::accepts`]), one row per form.
//! - `ORDER BY ... NULLS FIRST/LAST`, administration
//!   commands (`CREATE INDEX`): do not parse. The gate then uses its lexical scan (all of the writing ones are
//!   reported); provenance queries take the MATCH part when the error lies
//!   after it, else raise [`CypherError::Syntax`] (PSJS 0, error class
//!   `parse`); the analysis fails G1 and G2.
//! - Several statements separated by `;`: not parsed (the gate scans all).
//!
//! # Modules
//!
//! - [`frontend`]: [`with_front`], the [`Dialect`], the pre-pass and refusals.
//! - [`gql`]: same-length rewrites of the clause forms above.
//! - [`analyze`]: [`analyze::analyze`] derives PIPE-Cypher's static gate
//!   verdicts, structural features, signature and difficulty from the parse
//!   tree; [`analyze::check`] applies the schema gates G3-G6.
//! - [`gate`]: [`write_clauses`] lists the clauses of a query that may write;
//!   it never fails (a lexical scan replaces the parser on unparseable input).
//! - [`provenance`]: [`provenance_queries`] builds, from the MATCH part of a
//!   query, the Cypher that returns the element ids of its provenance subgraph
//!   (SPEC.md §4, seed cypherbench.txt §5.2).

pub mod analyze;
pub mod dialect;
pub mod frontend;
pub mod gate;
pub mod gql;
pub mod neighbours;
pub mod neo4j5;
pub mod parse;
pub mod provenance;

pub use frontend::{with_front, write_clauses, write_clauses_in, Dialect, Front, Source};
pub use gate::{lexical_write_clauses, unparsed_write_clauses, READ_ONLY_PROCEDURES};
pub use parse::CypherError;
pub use provenance::{
    gate_and_provenance, provenance_queries, provenance_queries_in, ProvenanceQuery,
};
