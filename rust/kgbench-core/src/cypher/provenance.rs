//! Provenance queries for PSJS (SPEC.md §4; seed cypherbench.txt §5.2).
//!
//! The *provenance subgraph* of a query is the set of nodes bound by its MATCH
//! part. [`provenance_queries`] rewrites a query into Cypher that returns the
//! element ids of those nodes, one query per UNION branch:
//!
//! 1. **Branches.** A top-level `UNION` / `UNION ALL` is split into its single
//!    queries. A single query whose *first* clause is a `CALL { ... }` subquery
//!    is replaced by the branches of that subquery (recursively); the clauses
//!    after that `CALL` are ignored, as in CypherBench.
//! 2. **MATCH part.** From the first clause on, clauses are kept while they are
//!    `MATCH`, `OPTIONAL MATCH` (each with its own `WHERE`) or a `WITH` without
//!    aliases — every item a bare variable or `*`, no `ORDER BY` / `SKIP` /
//!    `LIMIT`. Such a `WITH` is rewritten to `WITH *` (so every MATCH variable
//!    stays in scope) and keeps its `WHERE`; trailing `WITH *` without `WHERE`
//!    are dropped. A branch whose first clause is not a MATCH has no MATCH part
//!    and contributes no nodes. (CypherBench additionally requires the text to
//!    start with upper-case `MATCH`; kgbench accepts any case and a leading
//!    `OPTIONAL MATCH`.)
//! 3. **Nodes.** Every node pattern of the kept MATCH / OPTIONAL MATCH patterns
//!    contributes, named or anonymous; anonymous node patterns get fresh
//!    variables `__kgb_n<i>` (prefixed with more `_` if the query already
//!    contains `__kgb`). Nodes in WHERE pattern predicates do not contribute.
//!    Variables declared inside a quantified path pattern (`((a)-->(b)){1,3}`)
//!    are lists and contribute all their elements. Intermediate nodes of
//!    variable-length relationships (`-[*1..3]->`) are not node patterns and do
//!    not contribute.
//! 4. **Query.** `<MATCH part> UNWIND [v1, v2, ...] (+ coalesce(g, []) per
//!    group variable) AS __kgb_node WITH __kgb_node WHERE __kgb_node IS NOT NULL
//!    RETURN DISTINCT elementId(__kgb_node) AS element_id` (Neo4j 5
//!    `elementId`; nulls from OPTIONAL MATCH are skipped).
//!
//! The provenance subgraph of the whole query is the union of the element ids
//! returned by its branch queries.
//!
//! **Syntax beyond the parser.** When the strict parse fails, the parser's
//! error recovery is tried: a branch is used only when its MATCH part has no
//! error node and is followed by a sound clause or by an error region that
//! starts with a clause keyword after the MATCH part (`RETURN`, `UNWIND`,
//! `ORDER`, ...). So `... RETURN n ORDER BY n.x NULLS LAST` still yields its
//! MATCH part (the MATCH part is all PSJS needs, as in CypherBench), while any
//! doubt gives the strict syntax error. A leading `USE` clause is not
//! supported.

use open_cypher::ast::{
    ClauseKind, ExprKind, MatchClause, NodePattern, PathFactorKind, PathPattern,
    ProjectionItemKind, QueryKind, SingleQuery, StatementKind, WithClause,
};
use open_cypher::Span;

use open_cypher::ast::visit::{walk_clause, Visitor};
use open_cypher::ast::Clause;

use super::gate::decode_unicode_escapes;
use super::parse::{with_parsed_names, CypherError, Names, Parsed, Recovery};

/// Name of the single result column of every provenance query.
pub const ELEMENT_ID_COLUMN: &str = "element_id";

/// The provenance query of one branch of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProvenanceQuery {
    /// Cypher returning the distinct element ids (column [`ELEMENT_ID_COLUMN`])
    /// of the nodes matched by this branch's MATCH part.
    pub cypher: String,
    /// The MATCH part alone, with fresh variables on anonymous nodes.
    pub match_cypher: String,
    /// Variables whose nodes are collected, as written in `cypher` (backtick
    /// quoted when needed), single-node variables first, then list variables
    /// of quantified path patterns.
    pub node_variables: Vec<String>,
}

/// The provenance queries of `query`, one per branch with a MATCH part, in
/// source order (see the module documentation for the rules).
///
/// An empty vector means that no branch has a MATCH part (the provenance
/// subgraph is empty).
///
/// # Errors
///
/// [`CypherError`] when the query does not parse as a single openCypher query,
/// is empty, or is too large.
pub fn provenance_queries(query: &str) -> Result<Vec<ProvenanceQuery>, CypherError> {
    // Neo4j decodes `\uXXXX` escapes before tokenizing; so does kgbench.
    let decoded = decode_unicode_escapes(query);
    let query = decoded.as_deref().unwrap_or(query);
    let fresh = fresh_prefix(query);
    with_parsed_names(query, Recovery::Allow, Names::Neutralize, |parsed| {
        let mut out = Vec::new();
        let mut first_error = None;
        let complete = collect_program(parsed, &fresh, &mut out, &mut first_error);
        match first_error {
            // Recovered parse: usable only when every branch was judged sound
            // and at least one gave a MATCH part.
            Some(error) if !complete || out.is_empty() => Err(error),
            _ => Ok(out),
        }
    })?
}

/// `__kgb`, with extra leading underscores until it does not occur in `query`.
fn fresh_prefix(query: &str) -> String {
    let mut prefix = "__kgb".to_string();
    while query.contains(&prefix) {
        prefix.insert(0, '_');
    }
    prefix
}

/// Collect the provenance queries of a parsed (sub)query. Returns `false`
/// when a recovered tree has an error that could affect a MATCH part;
/// `first_error` receives the strict parser's error of a recovered tree.
fn collect_program(
    parsed: &Parsed,
    fresh: &str,
    out: &mut Vec<ProvenanceQuery>,
    first_error: &mut Option<CypherError>,
) -> bool {
    if let Some(error) = &parsed.recovered {
        first_error.get_or_insert_with(|| error.clone());
    }
    let mut ok = true;
    for statement in &parsed.program.program.statements {
        match &statement.kind {
            StatementKind::Query(qs) => match &qs.query.kind {
                QueryKind::Regular(regular) => {
                    ok &= collect_single(&regular.head, parsed, fresh, out, first_error);
                    for branch in &regular.unions {
                        ok &= collect_single(&branch.query, parsed, fresh, out, first_error);
                    }
                }
                _ => ok = false,
            },
            _ => ok = false,
        }
    }
    ok
}

fn collect_single(
    single: &SingleQuery,
    parsed: &Parsed,
    fresh: &str,
    out: &mut Vec<ProvenanceQuery>,
    first_error: &mut Option<CypherError>,
) -> bool {
    let src = parsed.text.as_str();
    let recovered = parsed.recovered.is_some();
    let clauses = &single.kind.clauses;
    if let Some(first) = clauses.first() {
        if matches!(first.kind, ClauseKind::Call(_)) {
            if let Some(sub) = parsed.subquery_at(first.span.start) {
                return collect_program(&sub.body, fresh, out, first_error);
            }
        }
    }
    let mut nodes = NodeVars::new(fresh);
    // (text, is a bare `WITH *` that may be dropped when trailing)
    let mut pieces: Vec<(String, bool)> = Vec::new();
    for (i, clause) in clauses.iter().enumerate() {
        let in_match_part = match &clause.kind {
            ClauseKind::Match(_) => true,
            ClauseKind::With(w) => i > 0 && is_bare_with(w),
            _ => false,
        };
        // Recovered parse: an error inside the MATCH part, or an error region
        // where it ends (the MATCH part might continue into it), is not sound;
        // errors inside the clause after the MATCH part do not matter.
        if recovered {
            let unsound = match clause.kind {
                ClauseKind::Error(_) => !ends_match_part(span_text(src, clause.span)),
                _ => in_match_part && has_error(clause),
            };
            if unsound {
                return false;
            }
        }
        match &clause.kind {
            ClauseKind::Match(m) => {
                pieces.push((match_text(clause.span, m, src, &mut nodes), false));
            }
            ClauseKind::With(w) if in_match_part => match &w.where_clause {
                Some(predicate) => pieces.push((
                    format!("WITH * WHERE {}", span_text(src, predicate.span)),
                    false,
                )),
                None => pieces.push(("WITH *".to_string(), true)),
            },
            _ => break,
        }
    }
    while pieces.last().is_some_and(|(_, bare)| *bare) {
        pieces.pop();
    }
    if pieces.is_empty() {
        return true;
    }
    let match_cypher = pieces
        .into_iter()
        .map(|(text, _)| text)
        .collect::<Vec<_>>()
        .join(" ");
    let row = format!("{fresh}_node");
    let mut list = format!("[{}]", nodes.singles.join(", "));
    for group in &nodes.groups {
        list.push_str(&format!(" + coalesce({group}, [])"));
    }
    let cypher = format!(
        "{match_cypher} UNWIND {list} AS {row} WITH {row} WHERE {row} IS NOT NULL \
         RETURN DISTINCT elementId({row}) AS {ELEMENT_ID_COLUMN}"
    );
    let mut node_variables = nodes.singles;
    node_variables.extend(nodes.groups);
    out.push(ProvenanceQuery {
        cypher,
        match_cypher,
        node_variables,
    });
    true
}

/// Whether an error region starting with `text` certainly lies after the
/// MATCH part: its first word is a clause keyword other than `MATCH`,
/// `OPTIONAL`, `WITH` and `WHERE` (e.g. `RETURN`, `UNWIND`, `ORDER`).
fn ends_match_part(text: &str) -> bool {
    const AFTER: &[&str] = &[
        "RETURN", "UNWIND", "ORDER", "SKIP", "LIMIT", "UNION", "CREATE", "MERGE", "SET", "DELETE",
        "DETACH", "REMOVE", "FOREACH", "LOAD", "FINISH",
    ];
    let word: String = text
        .trim_start()
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect();
    AFTER.iter().any(|k| k.eq_ignore_ascii_case(&word))
}

/// Whether a clause is, or contains, an error node of a recovered parse.
fn has_error(clause: &Clause) -> bool {
    struct Finder(bool);
    impl<'ast> Visitor<'ast> for Finder {
        fn visit_error(&mut self, _span: Span) {
            self.0 = true;
        }
    }
    if matches!(clause.kind, ClauseKind::Error(_)) {
        return true;
    }
    let mut finder = Finder(false);
    walk_clause(&mut finder, clause);
    finder.0
}

/// A WITH that only passes variables on: items are `*` or bare variables
/// without alias, and there is no ORDER BY / SKIP / OFFSET / LIMIT.
fn is_bare_with(with: &WithClause) -> bool {
    let p = &with.projection;
    p.order_by.is_none()
        && p.skip.is_none()
        && p.offset.is_none()
        && p.limit.is_none()
        && p.items.iter().all(|item| match &item.kind {
            ProjectionItemKind::Wildcard => true,
            ProjectionItemKind::Expression { expression, alias } => {
                alias.is_none() && matches!(expression.kind, ExprKind::Variable(_))
            }
            _ => false,
        })
}

fn span_text(src: &str, span: Span) -> &str {
    src.get(span.start..span.end).unwrap_or("")
}

/// The source text of a MATCH clause with fresh variables inserted into its
/// anonymous node patterns; records the node variables in `nodes`.
fn match_text(span: Span, clause: &MatchClause, src: &str, nodes: &mut NodeVars) -> String {
    let mut inserts: Vec<(usize, String)> = Vec::new();
    for part in &clause.pattern.parts {
        walk_path(&part.kind.path, false, src, nodes, &mut inserts);
    }
    inserts.sort_by_key(|(at, _)| *at);
    let mut text = String::new();
    let mut pos = span.start;
    for (at, name) in inserts {
        if at < pos || at > span.end {
            continue;
        }
        text.push_str(src.get(pos..at).unwrap_or(""));
        text.push_str(&name);
        pos = at;
    }
    text.push_str(src.get(pos..span.end).unwrap_or(""));
    text
}

fn walk_path(
    path: &PathPattern,
    in_group: bool,
    src: &str,
    nodes: &mut NodeVars,
    inserts: &mut Vec<(usize, String)>,
) {
    for factor in &path.kind.factors {
        match &factor.kind {
            PathFactorKind::Node(pattern) => {
                nodes.add(pattern, factor.span, in_group, src, inserts);
            }
            PathFactorKind::QuantifiedNode { pattern, .. } => {
                nodes.add(pattern, factor.span, true, src, inserts);
            }
            PathFactorKind::Parenthesized {
                pattern,
                quantifier,
                ..
            }
            | PathFactorKind::Subpath {
                pattern,
                quantifier,
                ..
            } => walk_path(
                pattern,
                in_group || quantifier.is_some(),
                src,
                nodes,
                inserts,
            ),
            PathFactorKind::LegacyShortest { pattern, .. } => {
                walk_path(pattern, in_group, src, nodes, inserts);
            }
            _ => {}
        }
    }
}

/// Node variables of one branch: single nodes and lists (quantified groups).
struct NodeVars {
    fresh: String,
    counter: usize,
    singles: Vec<String>,
    groups: Vec<String>,
}

impl NodeVars {
    fn new(fresh: &str) -> Self {
        Self {
            fresh: fresh.to_string(),
            counter: 0,
            singles: Vec::new(),
            groups: Vec::new(),
        }
    }

    fn add(
        &mut self,
        pattern: &NodePattern,
        span: Span,
        group: bool,
        src: &str,
        inserts: &mut Vec<(usize, String)>,
    ) {
        let name = match &pattern.variable {
            // As written: the tree may hold a renamed keyword (`Names::Neutralize`).
            Some(variable) => match src.get(variable.span.start..variable.span.end) {
                Some(text) if !text.starts_with('`') => render_identifier(text),
                _ => render_identifier(&variable.kind.text),
            },
            None => {
                let name = format!("{}_n{}", self.fresh, self.counter);
                self.counter += 1;
                // Insert right after the node pattern's opening parenthesis.
                let open = src
                    .get(span.start..span.end)
                    .and_then(|t| t.find('('))
                    .map(|i| span.start + i + 1);
                let Some(at) = open else { return };
                inserts.push((at, name.clone()));
                name
            }
        };
        let list = if group {
            &mut self.groups
        } else {
            &mut self.singles
        };
        if !list.contains(&name) {
            list.push(name);
        }
    }
}

/// An identifier as Cypher source: bare when it is a plain ASCII name,
/// otherwise backtick-quoted with embedded backticks doubled.
fn render_identifier(text: &str) -> String {
    let plain = text
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        text.to_string()
    } else {
        format!("`{}`", text.replace('`', "``"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prov(q: &str) -> Vec<ProvenanceQuery> {
        provenance_queries(q).unwrap_or_else(|e| panic!("{q}: {e}"))
    }

    #[test]
    fn basic_pattern_with_distinct_and_where() {
        let p = prov(
            "MATCH (n:TerroristAttack) WITH DISTINCT n WHERE n.date < date('1997-03-13') RETURN n.name",
        );
        assert_eq!(p.len(), 1);
        assert_eq!(
            p[0].match_cypher,
            "MATCH (n:TerroristAttack) WITH * WHERE n.date < date('1997-03-13')"
        );
        assert_eq!(p[0].node_variables, ["n"]);
        assert_eq!(
            p[0].cypher,
            "MATCH (n:TerroristAttack) WITH * WHERE n.date < date('1997-03-13') \
             UNWIND [n] AS __kgb_node WITH __kgb_node WHERE __kgb_node IS NOT NULL \
             RETURN DISTINCT elementId(__kgb_node) AS element_id"
        );
    }

    #[test]
    fn trailing_with_is_dropped_and_aliases_stop() {
        let p = prov("MATCH (n:Team) WITH DISTINCT n RETURN n.name");
        assert_eq!(p[0].match_cypher, "MATCH (n:Team)");
        let p = prov(
            "MATCH (n:AircraftModel)-[r1:manufacturedBy]->(m1:AircraftManufacturer {name: 'ATR'}) \
             OPTIONAL MATCH (n:AircraftModel)<-[r0:involves]-(m0:FlightAccident) \
             WITH n, count(DISTINCT m0) AS num RETURN n.name, num",
        );
        assert_eq!(
            p[0].match_cypher,
            "MATCH (n:AircraftModel)-[r1:manufacturedBy]->(m1:AircraftManufacturer {name: 'ATR'}) \
             OPTIONAL MATCH (n:AircraftModel)<-[r0:involves]-(m0:FlightAccident)"
        );
        assert_eq!(p[0].node_variables, ["n", "m1", "m0"]);
        let p = prov("MATCH (n:Movie) WITH n ORDER BY n.x LIMIT 3 MATCH (n)-->(m) RETURN m");
        assert_eq!(p[0].match_cypher, "MATCH (n:Movie)");
    }

    #[test]
    fn anonymous_nodes_get_fresh_variables() {
        let p =
            prov("MATCH (c:Character)-[:hasFather]->(:Character), ( )<--() RETURN DISTINCT c.name");
        assert_eq!(
            p[0].match_cypher,
            "MATCH (c:Character)-[:hasFather]->(__kgb_n0:Character), (__kgb_n1 )<--(__kgb_n2)"
        );
        assert_eq!(
            p[0].node_variables,
            ["c", "__kgb_n0", "__kgb_n1", "__kgb_n2"]
        );
        // A query already using the prefix gets a longer one.
        let p = prov("MATCH (__kgb_x)-->() RETURN 1");
        assert_eq!(p[0].node_variables, ["__kgb_x", "___kgb_n0"]);
        assert!(p[0].cypher.contains("AS ___kgb_node"));
    }

    #[test]
    fn unions_top_level_and_in_call() {
        let q = "CALL { MATCH (n:Politician)<-[r0:headedBy]-(m0:PoliticalParty {name: 'Law and Justice'}) \
                 RETURN n, m0 AS m UNION MATCH (n:Politician)<-[r1:hasHeadOfState]-(m1:Country {name: 'Poland'}) \
                 RETURN n, m1 AS m } WITH DISTINCT n RETURN n.name";
        let p = prov(q);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].node_variables, ["n", "m0"]);
        assert_eq!(p[1].node_variables, ["n", "m1"]);
        let p = prov("MATCH (a:A) RETURN a.name UNION ALL MATCH (b:B)-->(:C) RETURN b.name");
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].match_cypher, "MATCH (b:B)-->(__kgb_n0:C)");
    }

    #[test]
    fn queries_without_match_have_no_provenance() {
        assert!(prov("RETURN 1").is_empty());
        assert!(prov("UNWIND [1, 2] AS x MATCH (n) RETURN n").is_empty());
        assert!(prov("WITH 1 AS x MATCH (n) RETURN n").is_empty());
    }

    #[test]
    fn quantified_and_escaped_variables() {
        let p = prov("MATCH (`my var`:X)((a)-[:R]->(b)){1,3}(c) RETURN c");
        assert_eq!(p[0].node_variables, ["`my var`", "c", "a", "b"]);
        assert!(p[0]
            .cypher
            .contains("[`my var`, c] + coalesce(a, []) + coalesce(b, [])"));
    }

    #[test]
    fn syntax_errors_are_reported() {
        assert!(matches!(
            provenance_queries("MATCH (n RETURN n"),
            Err(CypherError::Syntax { .. })
        ));
        assert_eq!(
            provenance_queries("  // nothing\n"),
            Err(CypherError::Empty)
        );
        assert!(provenance_queries("What is the capital of France?").is_err());
        assert!(provenance_queries("MATCH (n) RETURN n; MATCH (m) RETURN m").is_err());
    }

    #[test]
    fn neo4j5_syntax() {
        // Issue 18, defect 5: type predicates and `IN TRANSACTIONS` raised.
        let q = "MATCH (n:Person) WHERE n.name IS :: STRING RETURN n.name AS set";
        let p = prov(q);
        assert_eq!(
            p[0].match_cypher,
            "MATCH (n:Person) WHERE n.name IS :: STRING"
        );
        assert_eq!(p[0].node_variables, ["n"]);
        let p = prov(
            "MATCH (n:P)-->(m) WHERE m.x IS NOT :: LIST<INTEGER NOT NULL> AND n.y::INT RETURN m",
        );
        assert_eq!(
            p[0].match_cypher,
            "MATCH (n:P)-->(m) WHERE m.x IS NOT :: LIST<INTEGER NOT NULL> AND n.y::INT"
        );
        let p = prov("MATCH (n) WITH n WHERE n.s :: STRING | INTEGER RETURN n");
        assert_eq!(
            p[0].match_cypher,
            "MATCH (n) WITH * WHERE n.s :: STRING | INTEGER"
        );
        let p = prov(
            "CALL { MATCH (a:A)-[:R]->(b) RETURN a } IN TRANSACTIONS OF 50 ROWS ON ERROR CONTINUE RETURN a.name",
        );
        assert_eq!(p[0].match_cypher, "MATCH (a:A)-[:R]->(b)");
        assert_eq!(p[0].node_variables, ["a", "b"]);
        let p = prov("CALL () { MATCH (a:A) RETURN a UNION MATCH (a:B) RETURN a } RETURN a");
        assert_eq!(p.len(), 2);
        // Quantified path patterns: the group variables are lists.
        for (q, singles, groups) in [
            (
                "MATCH (x:X) ((a)-[:R]->(b)){1,3} (y) RETURN x",
                &["x", "y"][..],
                &["a", "b"][..],
            ),
            (
                "MATCH p = (x) ((a)-[:R]->(b))+ RETURN p",
                &["x"],
                &["a", "b"],
            ),
            (
                "MATCH (x) ((a)-[:R]->())* (y) RETURN y",
                &["x", "y"],
                &["a", "__kgb_n0"],
            ),
        ] {
            let p = prov(q);
            let vars: Vec<&str> = singles.iter().chain(groups).copied().collect();
            assert_eq!(p[0].node_variables, vars, "{q}");
            for g in groups {
                assert!(p[0].cypher.contains(&format!("coalesce({g}, [])")), "{q}");
            }
        }
        // Subquery expressions stay in the WHERE text; their nodes do not count.
        let p = prov(
            "MATCH (n:P) WHERE COUNT { (n)-->(m:Q) } > 1 AND EXISTS { MATCH (n)<--(:R) } \
             RETURN COLLECT { MATCH (n)-->(z) RETURN z.x } AS zs",
        );
        assert_eq!(
            p[0].match_cypher,
            "MATCH (n:P) WHERE COUNT { (n)-->(m:Q) } > 1 AND EXISTS { MATCH (n)<--(:R) }"
        );
        assert_eq!(p[0].node_variables, ["n"]);
        // Keyword-named variables keep their names; pattern predicates their text.
        let q =
            "MATCH (set:Set|Create WHERE set.x > 1)-[:SET]->(delete), (x {merge: 1}) RETURN delete";
        let p = prov(q);
        assert_eq!(
            p[0].match_cypher,
            "MATCH (set:Set|Create WHERE set.x > 1)-[:SET]->(delete), (x {merge: 1})"
        );
        assert_eq!(p[0].node_variables, ["set", "delete", "x"]);
        let p = prov("MATCH (where:W)-->(x WHERE x.where = 1) RETURN where");
        assert_eq!(p[0].node_variables, ["where", "x"]);
        assert_eq!(p[0].match_cypher, "MATCH (where:W)-->(x WHERE x.where = 1)");
        // Neo4j decodes `\u` escapes: so does the provenance builder.
        let p = prov(r"MATCH (\u0073et:Set) RETURN \u0073et");
        assert_eq!(p[0].node_variables, ["set"]);
    }

    #[test]
    fn recovery_keeps_sound_match_parts_only() {
        // Syntax beyond the parser after the MATCH part: provenance still found.
        let p = prov("MATCH (n:Player) RETURN n.name ORDER BY n.height DESC NULLS LAST");
        assert_eq!(p[0].match_cypher, "MATCH (n:Player)");
        let p = prov("MATCH (a:A) RETURN a UNION MATCH (b:B) RETURN b NULLS FIRST");
        assert_eq!(p.len(), 2);
        // Errors inside or right after the MATCH part: syntax error.
        for q in [
            "MATCH (n) WHERE n.x = RETURN n",
            "USE neo4j MATCH (n) RETURN n",
            "MATCH (n) WITH n WHERE RETURN n",
            "MATCH (n:Player RETURN n.name",
            "garbage",
            "MATCH (a:A) RETURN a UNION MATCH (b:B) WHERE RETURN b",
        ] {
            assert!(
                matches!(provenance_queries(q), Err(CypherError::Syntax { .. })),
                "{q}: {:?}",
                provenance_queries(q)
            );
        }
    }

    /// Gold queries of seed cypherbench.txt Tables 1, 10, 11 and 14 (with the
    /// PDF extraction's `)->[`/`]<-` arrow damage repaired to `)<-[`).
    #[test]
    fn reference_sample_queries() {
        let cases: &[(&str, &[&str])] = &[
            ("MATCH (n:River {name: 'Guamués River'}) WITH DISTINCT n RETURN n.discharge_m3_s", &["n"]),
            ("MATCH (n:Player)-[r0:receivesAward]->(m0:Award) WITH DISTINCT n RETURN n.name ORDER BY n.height_cm DESC", &["n", "m0"]),
            ("MATCH (n:Taxon)-[r0:feedsOn]->(m0:Taxon {name: 'Synsphyronus lathrius'}) WITH DISTINCT n RETURN n.name", &["n", "m0"]),
            ("MATCH (n:Company)-[r0:operatesIn]->(m0:Industry)<-[r1:operatesIn]-(m1:Company {name: 'Bardel Entertainment'}) WITH DISTINCT n RETURN n.name", &["n", "m0", "m1"]),
            ("MATCH (n:Player)-[r0:playsFor]->(m0:Team {name: 'Toronto Raptors'}),(n:Player)-[r1:playsPosition]->(m1:Position {name: 'point guard'}) WITH DISTINCT n RETURN n.name", &["n", "m0", "m1"]),
            ("MATCH (n:Person)<-[r0:wroteBy]-(m0:Movie), (n:Person)<-[r1:hasCastMember]-(m0:Movie) WITH DISTINCT n UNWIND n.country_of_citizenship AS prop RETURN DISTINCT prop", &["n", "m0"]),
            ("MATCH (n:Painting {name: 'Edward George Villiers Stanley, 17th Earl of Derby'}),(m0:Painting {name: 'Tulip Field in Holland'}) RETURN CASE WHEN n.creation_year > m0.creation_year THEN n.name ELSE m0.name END AS answer", &["n", "m0"]),
            ("MATCH (n:Character)<-[r0:hasMother]-(m0:Character)-[r1:killedBy]->(m1:Character {name: 'Cersei Lannister'}) WITH n, count(DISTINCT m0) AS num RETURN n.name, num", &["n", "m0", "m1"]),
            ("MATCH (n:Person)<-[r0:hasCEO]-(m0:Company {name: 'Mercedes-AMG'}) WHERE r0.start_year <= 1999 AND (r0.end_year >= 1999 OR r0.end_year IS NULL) WITH DISTINCT n RETURN n.name", &["n", "m0"]),
            ("MATCH (n:AircraftModel {name: 'Falcon 50'}) WITH DISTINCT n RETURN n.first_flight", &["n"]),
            ("MATCH (n:Mountain)-[r0:locatedIn]->(m0:Country {name: 'Nepal'}) WITH DISTINCT n RETURN n.name ORDER BY n.elevation_m ASC", &["n", "m0"]),
            ("MATCH (n:Movie)-[r0:partOfSeries]->(m0:FilmSeries {name: 'Spider-Verse'}) WITH DISTINCT n RETURN n.name ORDER BY n.global_box_office_usd DESC LIMIT 1", &["n", "m0"]),
            ("MATCH (n:Company)-[r0:operatesIn]->(m0:Industry {name: 'public relations'}) WITH DISTINCT n WHERE n.launch_year > 1927 RETURN n.name", &["n", "m0"]),
            ("MATCH (n:Taxon)-[r0:feedsOn]->(m0:Taxon {name: 'Leporidae'}) WITH DISTINCT n RETURN avg(n.longest_lifespan_years)", &["n", "m0"]),
            ("MATCH (n:Ocean {name: 'Atlantic Ocean'}), (m0:Ocean {name: 'Arctic Ocean'}) RETURN CASE WHEN n.max_vertical_depth_m > m0.max_vertical_depth_m THEN n.name ELSE m0.name END AS answer", &["n", "m0"]),
            ("MATCH (o:Ocean) WHERE o.name IN ['Atlantic', 'Arctic'] RETURN o.name ORDER BY o.max_vertical_depth_m DESC LIMIT 1", &["o"]),
            ("MATCH (t:Team)-[:hasHomeVenue {start_year: start, end_year: end}]->(v:Venue {name: 'Toyota Coliseum'}) RETURN DISTINCT t.name, t.head_coach", &["t", "v"]),
            ("MATCH (parent:Company {name: 'The Coca-Cola Company'})-[:subsidiaryOf]->(subsidiary:Company) RETURN subsidiary.name ORDER BY subsidiary.launch_year DESC LIMIT 1", &["parent", "subsidiary"]),
            ("MATCH (l:Lake)-[:partOf]->(d:DrainageBasin {name: 'Congo'}), (l)-[:locatedIn]->(c:Country) RETURN l.name AS lakeName, count(DISTINCT c) AS numberOfCountries", &["l", "d", "c"]),
            ("MATCH (r:River {name: 'Natara'})-[:flowsThrough]->(c:Country), (c)-[:locatedIn]->(co:Continent), (r)-[:flowsInto]->(l:Lake) WHERE c.area_km2 < 390000 RETURN DISTINCT l.name", &["r", "c", "co", "l"]),
            ("MATCH (n:Character)-[r0:hasFather]->(m0:Character) WITH DISTINCT n UNWIND n.country_of_citizenship AS prop RETURN DISTINCT prop", &["n", "m0"]),
            ("MATCH (c:Character)-[:hasFather]->(:Character) RETURN DISTINCT c.country_of_citizenship AS countries", &["c", "__kgb_n0"]),
            ("MATCH (m:Mountain)-[:partOf]->(mr:MountainRange {name: 'Andes'}) RETURN DISTINCT m.name", &["m", "mr"]),
            ("MATCH (n:Taxon)<-[r0:hasParent]-(m0:Taxon)-[r1:hasConservationStatus]->(m1:ConservationStatus {name: 'Near Threatened'}) WITH DISTINCT n RETURN n.name", &["n", "m0", "m1"]),
            ("MATCH (n:Continent) WITH DISTINCT n RETURN n.name", &["n"]),
        ];
        for (q, vars) in cases {
            let p = prov(q);
            assert_eq!(p.len(), 1, "{q}");
            assert_eq!(&p[0].node_variables, vars, "{q}");
        }
        // Union pattern of Table 14 (flight accident).
        let p = prov(
            "CALL { MATCH (n:FlightAccident)-[r0:departsFrom]->(m0:Airport {name: 'Aeroparque Jorge Newbery'}) \
             RETURN n, m0 as m UNION MATCH (n:FlightAccident)-[r1:destinedFor]->(m1:Airport \
             {name: 'Ingeniero Aeronáutico Ambrosio L.V. Taravella International Airport'}) RETURN n, m1 as m } \
             WITH DISTINCT n RETURN n.name",
        );
        assert_eq!(p.len(), 2);
        assert!(p[1].match_cypher.contains("Ambrosio L.V. Taravella"));
        // The broken predicted query of Table 14 ("Pattern Not Aligned") must fail.
        assert!(provenance_queries(
            "MATCH (fa:FlightAccident)-[:departsFrom]:destinedFor]->(a:Airport) RETURN DISTINCT fa.name"
        )
        .is_err());
        // Bidirectional arrows `<-[...]->`, as printed in the paper, parse too.
        let p = prov("MATCH (n:Person)<-[r0:wroteBy]->(m0:Movie) WITH DISTINCT n RETURN n.name");
        assert_eq!(p[0].node_variables, ["n", "m0"]);
    }
}
