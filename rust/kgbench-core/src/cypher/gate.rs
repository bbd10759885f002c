//! Read-only gate: find the clauses of a Cypher query that could write.
//!
//! kgbench runs untrusted predicted queries against benchmark databases; before a
//! query is sent, [`write_clauses`] lists the clauses in it that may modify the
//! database (or read files). An empty list means the query is read-only.
//!
//! # Method
//!
//! 1. The query is parsed with the `open-cypher` crate (openCypher 2024.3). Every
//!    clause, including those nested in `CALL { ... }` subqueries, `FOREACH`
//!    bodies and subquery expressions (`EXISTS { ... }`, `COUNT { ... }`,
//!    `COLLECT { ... }`), is inspected:
//!    `CREATE`, `INSERT`, `MERGE`, `SET`, `DELETE`, `DETACH DELETE`, `REMOVE`,
//!    `FOREACH`, `LOAD CSV` are write clauses, and so is `CALL <procedure>` for
//!    every procedure not in [`READ_ONLY_PROCEDURES`] (reported as
//!    `"CALL <qualified.name>"`). Functions are never reported: Neo4j functions
//!    cannot write.
//! 2. When the query does not parse (Neo4j syntax beyond openCypher, several
//!    statements, administration commands such as `CREATE INDEX` or `DROP
//!    DATABASE`, or plain garbage), a conservative lexical scan is used instead
//!    (see [`lexical_write_clauses`]): the `open-cypher` lexer splits the text
//!    into tokens, so keywords inside string literals, comments and backtick
//!    identifiers are ignored, and every remaining word that begins a writing
//!    clause or an administration command is reported. The scan may report a
//!    clause where Neo4j would see none (e.g. a variable named `create`); it
//!    never misses a write keyword that is outside strings and comments.
//!
//! The function never panics on any input: parser panics are caught and deeply
//! nested or very long input is parsed on a thread with a large stack.

use std::panic::catch_unwind;

use open_cypher::ast::visit::{walk_clause, Visitor};
use open_cypher::ast::{CallTarget, Clause, ClauseKind, DeleteMode, QualifiedName};
use open_cypher::{lex, Token, TokenKind};

use super::parse::{with_parsed, Parsed, Recovery};

/// Procedures that only read, so `CALL` of one of them is not a write clause.
///
/// Names are compared exactly (case-sensitive, as Neo4j resolves procedure
/// names). Everything else (including `apoc.cypher.*`, `apoc.periodic.*`,
/// `apoc.create.*`, `gds.*`, `dbms.*` other than those below) counts as writing
/// or of unknown mode.
pub const READ_ONLY_PROCEDURES: &[&str] = &[
    "db.labels",
    "db.relationshipTypes",
    "db.propertyKeys",
    "db.schema.visualization",
    "db.schema.nodeTypeProperties",
    "db.schema.relTypeProperties",
    "db.info",
    "db.ping",
    "db.indexes",
    "db.constraints",
    "db.index.fulltext.queryNodes",
    "db.index.fulltext.queryRelationships",
    "db.index.vector.queryNodes",
    "db.index.vector.queryRelationships",
    "dbms.components",
    "dbms.procedures",
    "dbms.functions",
    "apoc.help",
    "apoc.meta.data",
    "apoc.meta.schema",
    "apoc.meta.stats",
    "apoc.meta.graph",
    "apoc.meta.nodeTypeProperties",
    "apoc.meta.relTypeProperties",
];

/// Words that start a writing clause or an administration command, as reported
/// by the lexical fallback scan (upper case). `DELETE`, `LOAD`, `CALL`, `START`
/// and `STOP` are handled separately (they look at their neighbours).
const FALLBACK_WRITE_WORDS: &[&str] = &[
    "CREATE",
    "INSERT",
    "MERGE",
    "SET",
    "REMOVE",
    "FOREACH",
    "DROP",
    "ALTER",
    "RENAME",
    "GRANT",
    "DENY",
    "REVOKE",
    "TERMINATE",
];

/// Whether `name` (dotted, e.g. `db.labels`) is in [`READ_ONLY_PROCEDURES`].
#[must_use]
pub fn is_read_only_procedure(name: &str) -> bool {
    READ_ONLY_PROCEDURES.contains(&name)
}

/// The write clauses of `query`, in order of first appearance, without
/// duplicates; empty when the query is read-only.
///
/// Clause names are upper case: `"CREATE"`, `"INSERT"`, `"MERGE"`, `"SET"`,
/// `"DELETE"`, `"DETACH DELETE"`, `"REMOVE"`, `"FOREACH"`, `"LOAD CSV"`,
/// `"CALL <procedure>"` (procedure name as written); the lexical fallback can
/// also report administration words (`"DROP"`, `"ALTER"`, `"RENAME"`,
/// `"GRANT"`, `"DENY"`, `"REVOKE"`, `"TERMINATE"`, `"START DATABASE"`,
/// `"STOP DATABASE"`). See the module documentation for the method. Never
/// panics.
#[must_use]
pub fn write_clauses(query: &str) -> Vec<String> {
    let from_ast = with_parsed(query, Recovery::Deny, write_clauses_of);
    match from_ast {
        Ok(found) => found,
        // Parse failure (or a caught parser panic): conservative lexical scan.
        Err(_) => match catch_unwind(|| lexical_write_clauses(query)) {
            Ok(found) => found,
            Err(_) => vec!["UNPARSEABLE".to_string()],
        },
    }
}

/// [`write_clauses`] of an already parsed query (in order, without duplicates).
pub(crate) fn write_clauses_of(parsed: &Parsed) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    collect_writes(parsed, 0, &mut found);
    found.sort_by_key(|(at, _)| *at);
    let mut out: Vec<String> = Vec::new();
    for (_, clause) in found {
        if !out.contains(&clause) {
            out.push(clause);
        }
    }
    out
}

/// Write clauses of `parsed` and its `CALL { }` bodies as (absolute offset, name).
fn collect_writes(parsed: &Parsed, base: usize, found: &mut Vec<(usize, String)>) {
    let mut finder = WriteFinder {
        parsed,
        base,
        found: Vec::new(),
    };
    finder.visit_program(&parsed.program.program);
    found.append(&mut finder.found);
    for sub in &parsed.subqueries {
        collect_writes(&sub.body, base + sub.body_offset, found);
    }
}

/// Conservative lexical scan used when [`write_clauses`] cannot parse a query.
///
/// Tokens come from the `open-cypher` lexer (string literals, comments and
/// backtick identifiers are single tokens and are ignored). A word is reported
/// when, case-insensitively, it is one of `CREATE INSERT MERGE SET REMOVE
/// FOREACH DROP ALTER RENAME GRANT DENY REVOKE TERMINATE`, `DELETE` (reported as
/// `DETACH DELETE` after `DETACH`), `LOAD` followed by `CSV`, `START`/`STOP`
/// followed by `DATABASE`, or `CALL` followed by a procedure name that is not in
/// [`READ_ONLY_PROCEDURES`] (`CALL {` and `CALL (` start subqueries, whose
/// bodies are scanned like the rest). Words directly after `.` or `:` are
/// property keys, labels or types and are skipped.
#[must_use]
pub fn lexical_write_clauses(query: &str) -> Vec<String> {
    let tokens: Vec<Token> = lex(query)
        .tokens
        .into_iter()
        .filter(|t| !t.is_trivia())
        .collect();
    let word = |i: usize| -> Option<String> {
        let t = tokens.get(i)?;
        match t.kind {
            TokenKind::Keyword(_) | TokenKind::Identifier => {
                t.text(query).map(str::to_ascii_uppercase)
            }
            _ => None,
        }
    };
    let mut found: Vec<String> = Vec::new();
    let mut push = |clause: String| {
        if !found.contains(&clause) {
            found.push(clause);
        }
    };
    for i in 0..tokens.len() {
        let Some(w) = word(i) else { continue };
        if i > 0 && matches!(tokens[i - 1].kind, TokenKind::Dot | TokenKind::Colon) {
            continue;
        }
        let next = word(i + 1);
        match w.as_str() {
            "DELETE" => {
                if i > 0 && word(i - 1).as_deref() == Some("DETACH") {
                    push("DETACH DELETE".to_string());
                } else {
                    push("DELETE".to_string());
                }
            }
            "LOAD" if next.as_deref() == Some("CSV") => push("LOAD CSV".to_string()),
            "START" | "STOP" if next.as_deref() == Some("DATABASE") => {
                push(format!("{w} DATABASE"));
            }
            "CALL" => {
                if let Some(name) = lexical_procedure_name(query, &tokens, i + 1) {
                    if !is_read_only_procedure(&name) {
                        push(format!("CALL {name}"));
                    }
                }
            }
            _ if FALLBACK_WRITE_WORDS.contains(&w.as_str()) => push(w),
            _ => {}
        }
    }
    found
}

/// The dotted procedure name starting at token `start`, or `None` when the
/// `CALL` starts a subquery (`{` or `(` follows) or nothing name-like follows.
fn lexical_procedure_name(query: &str, tokens: &[Token], start: usize) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut i = start;
    loop {
        let t = tokens.get(i)?;
        let part = match t.kind {
            TokenKind::Keyword(_) | TokenKind::Identifier => t.text(query)?.to_string(),
            TokenKind::EscapedIdentifier => t.text(query)?.trim_matches('`').replace("``", "`"),
            _ if parts.is_empty() => return None,
            _ => break,
        };
        parts.push(part);
        match tokens.get(i + 1) {
            Some(t) if t.kind == TokenKind::Dot => i += 2,
            _ => break,
        }
    }
    Some(parts.join("."))
}

/// The dotted form of a qualified procedure name, e.g. `db.schema.visualization`.
pub(crate) fn dotted(name: &QualifiedName) -> String {
    name.parts
        .iter()
        .map(|p| p.kind.text.as_str())
        .collect::<Vec<_>>()
        .join(".")
}

/// AST visitor collecting write clauses (see [`write_clauses`]).
struct WriteFinder<'p> {
    parsed: &'p Parsed,
    base: usize,
    found: Vec<(usize, String)>,
}

impl<'ast> Visitor<'ast> for WriteFinder<'_> {
    fn visit_clause(&mut self, node: &'ast Clause) {
        let name: Option<String> = match &node.kind {
            ClauseKind::Create(_) => Some("CREATE".into()),
            ClauseKind::Insert(_) => Some("INSERT".into()),
            ClauseKind::Merge(_) => Some("MERGE".into()),
            ClauseKind::Set(_) => Some("SET".into()),
            ClauseKind::Remove(_) => Some("REMOVE".into()),
            ClauseKind::Foreach(_) => Some("FOREACH".into()),
            ClauseKind::LoadCsv(_) => Some("LOAD CSV".into()),
            ClauseKind::Delete(d) => match d.mode.kind {
                DeleteMode::Detach => Some("DETACH DELETE".into()),
                _ => Some("DELETE".into()),
            },
            ClauseKind::Call(c) => match &c.target {
                // Placeholders of `CALL { }` subqueries: their bodies are
                // checked separately.
                CallTarget::Procedure { .. }
                    if self.parsed.subquery_at(node.span.start).is_some() =>
                {
                    None
                }
                CallTarget::Procedure { name, .. } => {
                    let name = dotted(name);
                    (!is_read_only_procedure(&name)).then(|| format!("CALL {name}"))
                }
                _ => None,
            },
            // A recovered error region cannot occur after a strict parse; be
            // conservative if it ever does.
            ClauseKind::Error(_) => Some("UNPARSEABLE".into()),
            _ => None,
        };
        if let Some(name) = name {
            self.found.push((self.base + node.span.start, name));
        }
        walk_clause(self, node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(q: &str) -> Vec<String> {
        write_clauses(q)
    }

    #[test]
    fn read_queries_are_read_only() {
        for q in [
            "MATCH (n:Team) WITH DISTINCT n RETURN n.name",
            "MATCH (n:TerroristAttack) WITH DISTINCT n WHERE n.date < date('1997-03-13') RETURN n.name",
            "CALL { MATCH (n:Politician)<-[r0:headedBy]-(m0:PoliticalParty {name: 'Law and Justice'}) RETURN n, m0 AS m UNION MATCH (n:Politician)<-[r1:hasHeadOfState]-(m1:Country {name: 'Poland'}) RETURN n, m1 AS m } WITH DISTINCT n RETURN n.name",
            "MATCH (n {name: 'CREATE (x)'}) RETURN n // DELETE n",
            "MATCH (n) /* SET n.x = 1 */ RETURN n.`set`, n.create",
            "CALL db.labels() YIELD label RETURN label",
            "CALL db.schema.visualization()",
            "RETURN [1, 2, {a: 'MERGE'}] AS x",
            "MATCH (n) WHERE EXISTS { MATCH (n)-->(m) } RETURN count(*)",
            // Parsed (not scanned): a variable named `create` is no clause.
            "CALL { MATCH (create:X) RETURN create } RETURN create.name",
            "MATCH (n) CALL (n) { MATCH (n)-->(set) RETURN set } RETURN set",
        ] {
            assert!(w(q).is_empty(), "{q}: {:?}", w(q));
        }
    }

    #[test]
    fn write_clauses_are_found_in_order() {
        assert_eq!(w("CREATE (n:X)"), ["CREATE"]);
        assert_eq!(w("MATCH (n) SET n.x = 1 REMOVE n:Y"), ["SET", "REMOVE"]);
        assert_eq!(w("MATCH (n) DETACH DELETE n"), ["DETACH DELETE"]);
        assert_eq!(w("MATCH (n) DELETE n"), ["DELETE"]);
        assert_eq!(
            w("MERGE (n:X {id: 1}) ON CREATE SET n.c = 1"),
            ["MERGE"],
            "ON CREATE SET belongs to MERGE"
        );
        assert_eq!(
            w("MATCH (n) FOREACH (x IN [1] | CREATE (:Y))"),
            ["FOREACH", "CREATE"]
        );
        assert_eq!(
            w("LOAD CSV FROM 'file:///x.csv' AS row RETURN row"),
            ["LOAD CSV"]
        );
        assert_eq!(
            w("MATCH (n) CALL { WITH n CREATE (m) } RETURN n"),
            ["CREATE"]
        );
        assert_eq!(
            w("CALL apoc.periodic.iterate('MATCH (n) RETURN n', 'DELETE n', {})"),
            ["CALL apoc.periodic.iterate"]
        );
        assert_eq!(w("CALL dbms.killQuery('x')"), ["CALL dbms.killQuery"]);
        assert_eq!(
            w("MATCH (n) CALL { WITH n MATCH (n)-->(m) RETURN m UNION WITH n MERGE (n)-[:R]->(z:Z) RETURN z } SET n.x = 1 RETURN n"),
            ["MERGE", "SET"]
        );
    }

    #[test]
    fn unparseable_queries_use_the_lexical_scan() {
        // Neo4j administration commands are outside openCypher.
        assert_eq!(w("CREATE INDEX idx FOR (n:X) ON (n.name)"), ["CREATE"]);
        assert_eq!(w("DROP DATABASE foo"), ["DROP"]);
        assert_eq!(w("STOP DATABASE neo4j"), ["STOP DATABASE"]);
        // Two statements.
        assert_eq!(
            w("MATCH (n) RETURN n; MATCH (m) DETACH DELETE m"),
            ["DETACH DELETE"]
        );
        // Broken syntax with a write keyword outside strings.
        assert_eq!(w("MATCH (n RETURN n CREATE"), ["CREATE"]);
        // Broken syntax, keywords only in strings / comments / property keys.
        assert!(w("MATCH (n RETURN 'CREATE' // MERGE\n n.set").is_empty());
        assert_eq!(
            w("CALL apoc.create.node(['X'], {}) YIELD node RETURN node ;;"),
            ["CALL apoc.create.node"]
        );
        assert!(w("CALL db.labels() YIELD label RETURN label ;;").is_empty());
        // Not Cypher at all.
        assert!(w("What is the capital of France?").is_empty());
        assert!(w("").is_empty());
        assert_eq!(w("please delete everything"), ["DELETE"]);
    }

    #[test]
    fn never_panics_on_odd_input() {
        let deep = format!("RETURN {}1{}", "(".repeat(5000), ")".repeat(5000));
        assert!(w(&deep).is_empty());
        let chain = format!("RETURN 1{}", " + 1".repeat(20000));
        assert!(w(&chain).is_empty());
        let unterminated = "MATCH (n) WHERE n.name = 'abc RETURN n";
        let _ = w(unterminated);
        let _ = w("\u{0}\u{feff}CREATE");
        let _ = w("`unterminated");
    }
}
