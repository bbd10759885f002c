//! Read-only gate: find the clauses of a Cypher query that could write.
//!
//! kgbench runs untrusted predicted queries against benchmark databases; before a
//! query is sent, [`super::write_clauses`] lists the clauses in it that may modify the
//! database (or read files). An empty list means the query is read-only.
//!
//! # Method
//!
//! 0. Java-style `\uXXXX` escapes are decoded first, as Neo4j does before
//!    tokenizing ([`decode_unicode_escapes`]): `\u0043REATE` is `CREATE`.
//! 1. The query is parsed with the `open-cypher` crate (openCypher 2024.3,
//!    with kgbench's Neo4j 5 extensions: type predicates, `CALL () { }`,
//!    `IN TRANSACTIONS`, keyword-named variables; see [`super`]). Every
//!    clause, including those nested in `CALL { ... }` subqueries, `FOREACH`
//!    bodies and subquery expressions (`EXISTS { ... }`, `COUNT { ... }`,
//!    `COLLECT { ... }`), is inspected:
//!    `CREATE`, `INSERT`, `MERGE`, `SET`, `DELETE`, `DETACH DELETE`, `REMOVE`,
//!    `FOREACH`, `LOAD CSV` are write clauses, and so is `CALL <procedure>` for
//!    every procedure not in [`READ_ONLY_PROCEDURES`] (reported as
//!    `"CALL <qualified.name>"`). Functions are never reported: Neo4j functions
//!    cannot write.
//! 2. When the query does not parse (Neo4j syntax beyond that, several
//!    statements, administration commands such as `CREATE INDEX` or `DROP
//!    DATABASE`, or plain garbage), a conservative lexical scan is used instead
//!    (see [`lexical_write_clauses`]): the `open-cypher` lexer splits the text
//!    into tokens, so keywords inside string literals, comments and backtick
//!    identifiers are ignored; words in positions that only a name can take
//!    (property keys, labels, types, map keys, aliases after `AS`, variables
//!    after `(`, `,`, an operator or `RETURN`, or before `.`, `)`, `,`, ...)
//!    are skipped; every remaining word that begins a writing clause or an
//!    administration command is reported. The scan may still report a clause
//!    where Neo4j would see none (a variable named `create` in an ambiguous
//!    position of an unparseable query); it never misses a write clause of a
//!    query Neo4j can run (a writing clause keyword never stands in those
//!    positions).
//!
//! The function never panics on any input: parser panics are caught and deeply
//! nested or very long input is parsed on a thread with a large stack.

use std::panic::catch_unwind;

use open_cypher::ast::visit::{walk_clause, Visitor};
use open_cypher::ast::{CallTarget, Clause, ClauseKind, DeleteMode, QualifiedName};
use open_cypher::{lex, Token, TokenKind};

use super::neo4j5::is_name_position;
use super::parse::Parsed;

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

/// The write clauses of a query the front end cannot parse: the lexical scan
/// ([`lexical_write_clauses`]) of its escape-decoded text (and of escapes of
/// escapes). Never panics.
#[must_use]
pub fn unparsed_write_clauses(query: &str) -> Vec<String> {
    let decoded = decode_unicode_escapes(query);
    let text = decoded.as_deref().unwrap_or(query);
    let mut found = match catch_unwind(|| lexical_write_clauses(text)) {
        Ok(found) => found,
        Err(_) => vec!["UNPARSEABLE".to_string()],
    };
    if decoded.is_some() {
        add_escaped_rounds(text, &mut found);
    }
    found
}

/// How many times [`Front::write_clauses`] decodes escapes of escapes.
const MAX_ESCAPE_ROUNDS: usize = 4;

/// Escapes of escapes (`\u005Cu0043REATE`): decoded again (up to
/// [`MAX_ESCAPE_ROUNDS`]) and scanned lexically, the findings added to `found`
/// (conservative: Neo4j decodes once).
pub(crate) fn add_escaped_rounds(text: &str, found: &mut Vec<String>) {
    let mut text = text.to_string();
    for _ in 1..MAX_ESCAPE_ROUNDS {
        let Some(decoded) = decode_unicode_escapes(&text) else {
            break;
        };
        for clause in lexical_write_clauses(&decoded) {
            if !found.contains(&clause) {
                found.push(clause);
            }
        }
        text = decoded;
    }
}

/// `query` with Java-style Unicode escapes decoded, or `None` when it has none.
///
/// Neo4j's Cypher front end reads its input like a Java source file (JavaCC's
/// `JAVA_UNICODE_ESCAPE`; Java Language Specification §3.3): before
/// tokenizing, every `\` followed by one or more `u` and four hex digits, and
/// not itself preceded by an odd number of `\`, is replaced by that UTF-16
/// code unit — inside string literals, comments and identifiers alike. A
/// surrogate pair of escapes becomes one character; a lone surrogate becomes
/// U+FFFD. (Checked against Neo4j 5.26: `RETURN 1 AS x \u002F\u002F CREATE
/// (n)` is read-only, `MATCH (n) \u0053ET n.x = 1` writes, `RETURN '\u0027'`
/// is a syntax error.)
#[must_use]
pub fn decode_unicode_escapes(query: &str) -> Option<String> {
    if !query.contains("\\u") {
        return None;
    }
    let chars: Vec<char> = query.chars().collect();
    let mut out = String::with_capacity(query.len());
    let mut pending_high: Option<u16> = None;
    let mut backslashes = 0usize;
    let mut changed = false;
    let mut i = 0;
    let flush = |out: &mut String, pending: &mut Option<u16>| {
        if pending.take().is_some() {
            out.push(char::REPLACEMENT_CHARACTER);
        }
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && backslashes.is_multiple_of(2) {
            let mut j = i + 1;
            while chars.get(j) == Some(&'u') {
                j += 1;
            }
            if j > i + 1 {
                let hex: String = chars.iter().skip(j).take(4).collect();
                if hex.len() == 4 && hex.chars().all(|h| h.is_ascii_hexdigit()) {
                    let unit = u16::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
                    changed = true;
                    backslashes = 0;
                    i = j + 4;
                    if (0xD800..0xDC00).contains(&unit) {
                        flush(&mut out, &mut pending_high);
                        pending_high = Some(unit);
                    } else if (0xDC00..0xE000).contains(&unit) {
                        match pending_high.take() {
                            Some(high) => out.push(
                                char::decode_utf16([high, unit])
                                    .next()
                                    .and_then(Result::ok)
                                    .unwrap_or(char::REPLACEMENT_CHARACTER),
                            ),
                            None => out.push(char::REPLACEMENT_CHARACTER),
                        }
                    } else {
                        flush(&mut out, &mut pending_high);
                        out.push(
                            char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER),
                        );
                    }
                    continue;
                }
            }
        }
        flush(&mut out, &mut pending_high);
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
        out.push(c);
        i += 1;
    }
    flush(&mut out, &mut pending_high);
    changed.then_some(out)
}

/// [`super::write_clauses`] of an already parsed query (in order, without duplicates).
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
    for sub in parsed
        .subqueries
        .iter()
        .chain(&parsed.expression_subqueries)
    {
        collect_writes(&sub.body, base + sub.body_offset, found);
    }
}

/// Conservative lexical scan used when [`super::write_clauses`] cannot parse a query.
///
/// Tokens come from the `open-cypher` lexer (string literals, comments and
/// backtick identifiers are single tokens and are ignored). Words in name
/// positions (see `neo4j5::is_name_position`: property keys, labels, aliases,
/// variables) are skipped. A word is reported when, case-insensitively, it is
/// one of `CREATE INSERT MERGE SET REMOVE
/// FOREACH DROP ALTER RENAME GRANT DENY REVOKE TERMINATE`, `DELETE` (reported as
/// `DETACH DELETE` after `DETACH`), `LOAD` followed by `CSV`, `START`/`STOP`
/// followed by `DATABASE`, or `CALL` followed by a procedure name that is not in
/// [`READ_ONLY_PROCEDURES`] (`CALL {` and `CALL (` start subqueries, whose
/// bodies are scanned like the rest).
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
        if is_name_position(query, &tokens, i) {
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

/// [`dotted`], with each part spelled as in `src` (the tree of a
/// [`Names::Neutralize`] parse holds renamed keywords: `apoc._reate.node`).
pub(crate) fn dotted_as_written(name: &QualifiedName, src: &str) -> String {
    name.parts
        .iter()
        .map(|p| match src.get(p.span.start..p.span.end) {
            Some(text) if !text.starts_with('`') => text,
            _ => p.kind.text.as_str(),
        })
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
        let form = self.parsed.clause_form_at(node.span.start);
        let name: Option<String> = match &node.kind {
            // Rewritten forms (`super::gql`): writes named as written; `SHOW`
            // and `FINISH` placeholders read nothing and write nothing.
            _ if form.is_some() => match form {
                Some(f @ ("INSERT" | "NODETACH DELETE" | "LOAD CSV" | "FOREACH")) => {
                    Some(f.to_string())
                }
                _ => None,
            },
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
                    let name = dotted_as_written(name, &self.parsed.text);
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
    use crate::cypher::frontend::write_clauses;

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
        // Keyword parts of procedure names are reported as written.
        assert_eq!(
            w("CALL apoc.create.node(['X'], {}) YIELD node RETURN node"),
            ["CALL apoc.create.node"]
        );
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
        assert_eq!(w("MATCH (n RETURN n CREATE (m)"), ["CREATE"]);
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
    fn neo4j5_read_syntax_is_read_only() {
        // Issue 18, defect 4: the type predicate made the parse fail, and the
        // lexical scan took the alias `set` for a SET clause.
        let q = "MATCH (n:Person) WHERE n.name IS :: STRING RETURN n.name AS set";
        assert!(w(q).is_empty(), "{:?}", w(q));
        for q in [
            "MATCH (n) WHERE n.x IS NOT :: INTEGER NOT NULL RETURN n.x AS create",
            "MATCH (n) RETURN n.x :: LIST<STRING | INTEGER> AS merge",
            "MATCH (n) RETURN n.x::INT AS delete",
            "MATCH (n) WHERE n.name IS NFC NORMALIZED RETURN n AS remove",
            "CALL () { MATCH (set:X) RETURN set } RETURN set.name",
            "CALL { MATCH (n:X) RETURN n } IN TRANSACTIONS OF 10 ROWS RETURN n",
            "CALL { MATCH (n:X) RETURN n } IN 2 CONCURRENT TRANSACTIONS ON ERROR CONTINUE REPORT STATUS AS s RETURN n, s",
            "MATCH p = ((a)-[:R]->(b)){1,3} RETURN p AS set",
            "MATCH (n) WHERE COUNT { (n)-->(set) } > 1 RETURN COLLECT { MATCH (n)-->(m) RETURN m.x } AS create",
        ] {
            assert!(w(q).is_empty(), "{q}: {:?}", w(q));
        }
        assert_eq!(
            w("CALL { MATCH (n:X) CREATE (n)-[:R]->(:Y) } IN TRANSACTIONS OF 100 ROWS"),
            ["CREATE"]
        );
    }

    #[test]
    fn keyword_names_and_pattern_predicates() {
        for q in [
            "MATCH (v1 WHERE v1.x IS NOT NULL), (create:Team|Team)<-[v2:SET]-(v3:Person) RETURN v3",
            "MATCH (set:Set {delete: 1})-[merge:SET|DELETE]->(remove:Merge&!Create) RETURN set.create AS detach",
            "MATCH (a) ((b WHERE b.x > 1)-[:R]->(c)){1,3} (d) RETURN d",
            "MATCH (n) WITH n, [x IN [1, 'a'] WHERE x :: INTEGER | x * 2] AS create RETURN create",
        ] {
            assert!(w(q).is_empty(), "{q}: {:?}", w(q));
        }
        // A write clause right after a type (`>`) or a quantifier (`+`) is found.
        assert_eq!(
            w("MATCH (n) WHERE n.x :: LIST<INTEGER NOT NULL> MERGE (m:X)"),
            ["MERGE"]
        );
        assert_eq!(
            w(r"MATCH (a) ((b)-[:R]->(c))+ (d) \u0043REATE (e)"),
            ["CREATE"]
        );
        assert_eq!(
            w("MATCH (n WHERE n.x IS :: STRING) DETACH DELETE n"),
            ["DETACH DELETE"]
        );
        // A clause inside a pattern predicate is still seen.
        assert!(
            w("MATCH (n WHERE COUNT { MATCH (n) CREATE (m) RETURN m } > 0) RETURN n")
                .contains(&"CREATE".to_string())
        );
    }

    #[test]
    fn lexical_scan_skips_names() {
        // Unparseable (trailing `;;`), names that look like write keywords.
        for q in [
            "MATCH (n:Person) WHERE n.name IS :: STRING RETURN n.name AS set ;;",
            "MATCH (set:Set)-[:SET]->(create) RETURN set, create ;;",
            "MATCH (n) WHERE n.set = 1 AND merge > 2 RETURN [delete IN n.l | delete + 1] ;;",
            "RETURN {create: 1, remove: 2} AS foreach ;;",
            "MATCH (n) RETURN n // SET n.x = 1\n ;;",
        ] {
            assert!(
                lexical_write_clauses(q).is_empty(),
                "{q}: {:?}",
                lexical_write_clauses(q)
            );
        }
        assert_eq!(
            lexical_write_clauses("MATCH (n) WITH * SET n.x = 1 ;;"),
            ["SET"]
        );
        assert_eq!(
            lexical_write_clauses("LOAD CSV FROM 'f' AS create CREATE (n) ;;"),
            ["LOAD CSV", "CREATE"]
        );
        assert_eq!(
            lexical_write_clauses("MATCH (n) FOREACH (x IN [1] | SET n.x = x) ;;"),
            ["FOREACH", "SET"]
        );
    }

    #[test]
    fn unicode_escapes_are_decoded() {
        // Issue 18, defect 4: Neo4j reads `\u0043REATE` as `CREATE`.
        assert_eq!(w(r"\u0043REATE (n:X)"), ["CREATE"]);
        assert_eq!(w(r"MATCH (n) \u0053ET n.x = 1 RETURN n"), ["SET"]);
        assert_eq!(
            w(r"MATCH (n) \uuu0044ETACH \u0044ELETE n"),
            ["DETACH DELETE"]
        );
        assert_eq!(w(r"MATCH (n) \u005Cu0044ELETE n"), ["DELETE"]);
        assert!(w(r"RETURN 'caf\u00e9' AS x").is_empty());
        // Neo4j reads this as a comment after `RETURN 1 AS x`.
        assert!(w(r"RETURN 1 AS x \u002F\u002F CREATE (n)").is_empty());
        assert_eq!(w(r"RETURN 1 // \u000a CREATE (n)"), ["CREATE"]);
        assert!(w(r"RETURN '\\u0043REATE' AS x").is_empty());
        assert_eq!(
            decode_unicode_escapes(r"a\u0041\\u0041"),
            Some(r"aA\\u0041".into())
        );
        assert_eq!(
            decode_unicode_escapes(r"\ud83d\ude00\ud83d"),
            Some("\u{1F600}\u{FFFD}".into())
        );
        assert_eq!(decode_unicode_escapes("plain"), None);
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
