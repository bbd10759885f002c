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
//! **A syntax error after the MATCH part.** PSJS depends only on the MATCH
//! part (seed cypherbench.txt §5.2), so a query whose first syntax error (as
//! the front end reports it, [`super::frontend`]) lies after its MATCH part
//! still has provenance queries: the clause holding the error is found (the
//! last clause keyword at bracket depth 0 before the error) and
//! - when it is `MATCH` / `OPTIONAL MATCH`, or a `WHERE` of one of them or of a
//!   `WITH` without aliases, the error lies inside the MATCH part: the
//!   syntax error is returned (PSJS 0);
//! - otherwise (`RETURN`, `WITH`, `UNWIND`, `ORDER BY`, ...) the text before
//!   that clause (with `RETURN *` appended when it does not end a query) is
//!   parsed, strictly, and its MATCH part used. A `WITH` holding the error is
//!   dropped as CypherBench drops a trailing `WITH` without aliases
//!   (`MATCH (n:P)-[:r]->(m) WITH DISTINCT n RETRUN n.name` has the MATCH part
//!   `MATCH (n:P)-[:r]->(m)`).
//!
//! Anything else gives the syntax error. (A leading `USE`, `CYPHER` or
//! `EXPLAIN` prefix is blanked by the front end.)

use open_cypher::ast::{
    ClauseKind, ExprKind, MatchClause, Name, PathFactorKind, PathPattern, ProjectionItemKind,
    QueryKind, SingleQuery, StatementKind, WithClause,
};
use open_cypher::{lex, Keyword, Span, Token, TokenKind};

use super::frontend::{with_front, Dialect};
use super::gate::unparsed_write_clauses;
use super::neo4j5::is_name_position;
use super::parse::{CypherError, Parsed};

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
    /// Cypher returning the distinct element ids (column [`ELEMENT_ID_COLUMN`])
    /// of the relationships matched by this branch's MATCH part: the MATCH part
    /// with fresh variables `__kgb_r<i>` on anonymous relationship patterns too
    /// (an abbreviated `-->` becomes `-[__kgb_r<i>]->`); variable-length and
    /// quantified relationship variables are lists and contribute every element.
    /// Not used by PSJS (which counts nodes only).
    pub relationship_cypher: String,
}

/// The provenance queries of `query` for a Cypher 5 server
/// ([`provenance_queries_in`]).
///
/// # Errors
///
/// As [`provenance_queries_in`].
pub fn provenance_queries(query: &str) -> Result<Vec<ProvenanceQuery>, CypherError> {
    provenance_queries_in(query, Dialect::default())
}

/// The provenance queries of `query`, one per branch with a MATCH part, in
/// source order (see the module documentation for the rules), parsed by the
/// front end for `dialect`.
///
/// An empty vector means that no branch has a MATCH part (the provenance
/// subgraph is empty).
///
/// # Errors
///
/// [`CypherError`] when the query does not parse as a single query (unless
/// the error lies after the MATCH part), is empty, or is too large.
pub fn provenance_queries_in(
    query: &str,
    dialect: Dialect,
) -> Result<Vec<ProvenanceQuery>, CypherError> {
    match build(query, dialect) {
        Err(error) => after_error(query, error, dialect),
        ok => ok,
    }
}

/// The read-only gate's write clauses ([`super::write_clauses_in`]) and the
/// provenance queries ([`provenance_queries_in`]) of `query` from one parse
/// of the front end (what evaluation needs of every prediction).
pub fn gate_and_provenance(
    query: &str,
    dialect: Dialect,
) -> (Vec<String>, Result<Vec<ProvenanceQuery>, CypherError>) {
    let both = with_front(query, dialect, |front| {
        let fresh = fresh_prefix(front.source.text());
        let mut out = Vec::new();
        collect_program(front.parsed, &fresh, &mut out);
        (front.write_clauses(), out)
    });
    match both {
        Ok((writes, found)) => (writes, Ok(found)),
        Err(error) => (
            unparsed_write_clauses(query),
            after_error(query, error, dialect),
        ),
    }
}

/// Provenance queries of a query the front end refused with `error`: the
/// MATCH part when the error lies after it (module documentation), else the
/// error.
fn after_error(
    query: &str,
    error: CypherError,
    dialect: Dialect,
) -> Result<Vec<ProvenanceQuery>, CypherError> {
    let CypherError::Syntax { offset, .. } = error else {
        return Err(error);
    };
    let branches = union_branches(query);
    if branches.len() > 1 {
        // The parser may place the error of a later branch at a `UNION`:
        // each branch is recovered on its own.
        let mut out = Vec::new();
        for branch in branches {
            out.extend(provenance_queries_in(branch, dialect).map_err(|_| error.clone())?);
        }
        return Ok(out);
    }
    recover(query, offset, dialect).ok_or(error)
}

/// The texts of the single queries of `query` split at `UNION [ALL]` outside
/// brackets (one piece without such a `UNION`).
fn union_branches(query: &str) -> Vec<&str> {
    let tokens: Vec<Token> = lex(query)
        .tokens
        .into_iter()
        .filter(|t| !t.is_trivia())
        .collect();
    let mut pieces = Vec::new();
    let (mut depth, mut from) = (0usize, 0usize);
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        match t.kind {
            TokenKind::LeftParen | TokenKind::LeftBracket | TokenKind::LeftBrace => depth += 1,
            TokenKind::RightParen | TokenKind::RightBracket | TokenKind::RightBrace => {
                depth = depth.saturating_sub(1);
            }
            TokenKind::Keyword(Keyword::Union)
                if depth == 0 && !is_name_position(query, &tokens, i) =>
            {
                pieces.push(&query[from..t.span.start]);
                let mut end = t.span.end;
                if tokens.get(i + 1).map(|n| n.kind) == Some(TokenKind::Keyword(Keyword::All)) {
                    i += 1;
                    end = tokens[i].span.end;
                }
                from = end;
            }
            _ => {}
        }
        i += 1;
    }
    pieces.push(&query[from..]);
    pieces
}

/// The provenance queries of a query that parses.
fn build(query: &str, dialect: Dialect) -> Result<Vec<ProvenanceQuery>, CypherError> {
    with_front(query, dialect, |front| {
        let fresh = fresh_prefix(front.source.text());
        let mut out = Vec::new();
        collect_program(front.parsed, &fresh, &mut out);
        out
    })
}

/// The provenance queries of the text before the clause holding a syntax
/// error at byte `error_at`, when that clause ends the MATCH part (module
/// documentation); `None` otherwise or when there is no MATCH part.
fn recover(query: &str, error_at: usize, dialect: Dialect) -> Option<Vec<ProvenanceQuery>> {
    let cut = match_part_end(query, error_at)?;
    let prefix = query.get(..cut)?.trim_end();
    if prefix.is_empty() {
        return None;
    }
    [prefix.to_string(), format!("{prefix} RETURN *")]
        .iter()
        .find_map(|candidate| build(candidate, dialect).ok())
        .filter(|found| !found.is_empty())
}

/// Clause keywords [`match_part_end`] looks for (upper case).
const CLAUSE_WORDS: &[&str] = &[
    "MATCH", "OPTIONAL", "WHERE", "WITH", "RETURN", "UNWIND", "ORDER", "SKIP", "OFFSET", "LIMIT",
    "UNION", "CALL", "CREATE", "INSERT", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "FOREACH",
    "LOAD", "USE", "FINISH", "YIELD",
];

/// The byte offset where the text before the clause holding `error_at` ends,
/// when that clause lies after the MATCH part (module documentation).
fn match_part_end(query: &str, error_at: usize) -> Option<usize> {
    let tokens: Vec<Token> = lex(query)
        .tokens
        .into_iter()
        .filter(|t| !t.is_trivia())
        .collect();
    let mut starts: Vec<(usize, String)> = Vec::new();
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate() {
        if t.span.start > error_at {
            break;
        }
        match t.kind {
            TokenKind::LeftParen | TokenKind::LeftBracket | TokenKind::LeftBrace => depth += 1,
            TokenKind::RightParen | TokenKind::RightBracket | TokenKind::RightBrace => {
                depth = depth.saturating_sub(1);
            }
            TokenKind::Keyword(_) | TokenKind::Identifier if depth == 0 => {
                let word = t.text(query).unwrap_or("").to_ascii_uppercase();
                if CLAUSE_WORDS.contains(&word.as_str()) && !is_name_position(query, &tokens, i) {
                    starts.push((i, word));
                }
            }
            _ => {}
        }
    }
    // Several statements: not one query.
    if tokens
        .iter()
        .any(|t| t.kind == TokenKind::Semicolon && t.span.start <= error_at)
    {
        return None;
    }
    let (last, word) = starts.last()?;
    let at = |k: usize| tokens[k].span.start;
    match word.as_str() {
        "MATCH" | "OPTIONAL" => None,
        "WHERE" => {
            let (owner, owner_word) = starts.iter().rev().nth(1)?;
            match owner_word.as_str() {
                "MATCH" | "OPTIONAL" => None,
                "WITH" if bare_projection(query, &tokens[owner + 1..*last]) => None,
                _ => Some(at(*owner)),
            }
        }
        _ => Some(at(*last)),
    }
}

/// Whether the tokens of a `WITH` projection are only `DISTINCT`, `*`,
/// variables and commas (no alias, no expression).
fn bare_projection(query: &str, tokens: &[Token]) -> bool {
    tokens.iter().enumerate().all(|(i, t)| match t.kind {
        TokenKind::Star | TokenKind::Comma => true,
        TokenKind::Identifier | TokenKind::EscapedIdentifier => true,
        TokenKind::Keyword(_) => {
            (i == 0
                && t.text(query)
                    .is_some_and(|w| w.eq_ignore_ascii_case("DISTINCT")))
                || is_name_position(query, tokens, i)
        }
        _ => false,
    })
}

/// `__kgb`, with extra leading underscores until it does not occur in `query`.
fn fresh_prefix(query: &str) -> String {
    let mut prefix = "__kgb".to_string();
    while query.contains(&prefix) {
        prefix.insert(0, '_');
    }
    prefix
}

/// Collect the provenance queries of a parsed (sub)query.
fn collect_program(parsed: &Parsed, fresh: &str, out: &mut Vec<ProvenanceQuery>) {
    for statement in &parsed.program.program.statements {
        if let StatementKind::Query(qs) = &statement.kind {
            if let QueryKind::Regular(regular) = &qs.query.kind {
                collect_single(&regular.head, parsed, fresh, out);
                for branch in &regular.unions {
                    collect_single(&branch.query, parsed, fresh, out);
                }
            }
        }
    }
}

fn collect_single(
    single: &SingleQuery,
    parsed: &Parsed,
    fresh: &str,
    out: &mut Vec<ProvenanceQuery>,
) {
    let src = parsed.text.as_str();
    let clauses = &single.kind.clauses;
    if let Some(first) = clauses.first() {
        if matches!(first.kind, ClauseKind::Call(_)) {
            if let Some(sub) = parsed.subquery_at(first.span.start) {
                collect_program(&sub.body, fresh, out);
                return;
            }
        }
    }
    let mut nodes = NodeVars::new(fresh, "n");
    let mut rels = NodeVars::new(fresh, "r");
    // (text, text with relationship variables, is a bare `WITH *` that may be
    // dropped when trailing)
    let mut pieces: Vec<(String, String, bool)> = Vec::new();
    for (i, clause) in clauses.iter().enumerate() {
        let in_match_part = match &clause.kind {
            ClauseKind::Match(_) => true,
            ClauseKind::With(w) => i > 0 && is_bare_with(w),
            _ => false,
        };
        match &clause.kind {
            ClauseKind::Match(m) => {
                let (text, with_rels) = match_text(clause.span, m, src, &mut nodes, &mut rels);
                pieces.push((text, with_rels, false));
            }
            ClauseKind::With(w) if in_match_part => match &w.where_clause {
                Some(predicate) => {
                    let text = format!("WITH * WHERE {}", span_text(src, predicate.span));
                    pieces.push((text.clone(), text, false));
                }
                None => pieces.push(("WITH *".to_string(), "WITH *".to_string(), true)),
            },
            _ => break,
        }
    }
    while pieces.last().is_some_and(|(_, _, bare)| *bare) {
        pieces.pop();
    }
    if pieces.is_empty() {
        return;
    }
    let match_cypher = pieces
        .iter()
        .map(|(text, _, _)| text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let rel_match = pieces
        .iter()
        .map(|(_, text, _)| text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let cypher = element_id_query(&match_cypher, &nodes, &format!("{fresh}_node"));
    let relationship_cypher = element_id_query(&rel_match, &rels, &format!("{fresh}_rel"));
    let mut node_variables = nodes.singles;
    node_variables.extend(nodes.groups);
    out.push(ProvenanceQuery {
        cypher,
        match_cypher,
        node_variables,
        relationship_cypher,
    });
}

/// `<match part> UNWIND [singles] + coalesce(group, []) ... AS row WITH row
/// WHERE row IS NOT NULL RETURN DISTINCT elementId(row) AS element_id`.
fn element_id_query(match_part: &str, vars: &NodeVars, row: &str) -> String {
    let mut list = format!("[{}]", vars.singles.join(", "));
    for group in &vars.groups {
        list.push_str(&format!(" + coalesce({group}, [])"));
    }
    format!(
        "{match_part} UNWIND {list} AS {row} WITH {row} WHERE {row} IS NOT NULL \
         RETURN DISTINCT elementId({row}) AS {ELEMENT_ID_COLUMN}"
    )
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
/// anonymous node patterns, and the same with fresh variables in its anonymous
/// relationship patterns too; records the variables in `nodes` and `rels`.
fn match_text(
    span: Span,
    clause: &MatchClause,
    src: &str,
    nodes: &mut NodeVars,
    rels: &mut NodeVars,
) -> (String, String) {
    let mut inserts: Vec<(usize, String)> = Vec::new();
    let mut rel_inserts: Vec<(usize, String)> = Vec::new();
    for part in &clause.pattern.parts {
        let mut vars = Vars {
            nodes: &mut *nodes,
            rels: &mut *rels,
            inserts: &mut inserts,
            rel_inserts: &mut rel_inserts,
        };
        walk_path(&part.kind.path, false, src, &mut vars);
    }
    let text = splice(span, src, inserts.clone());
    inserts.extend(rel_inserts);
    (text, splice(span, src, inserts))
}

/// Variables and text insertions collected while walking a MATCH pattern.
struct Vars<'a> {
    nodes: &'a mut NodeVars,
    rels: &'a mut NodeVars,
    inserts: &'a mut Vec<(usize, String)>,
    rel_inserts: &'a mut Vec<(usize, String)>,
}

/// The source text of `span` with `inserts` (position, text) inserted.
fn splice(span: Span, src: &str, mut inserts: Vec<(usize, String)>) -> String {
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

fn walk_path(path: &PathPattern, in_group: bool, src: &str, vars: &mut Vars<'_>) {
    for factor in &path.kind.factors {
        match &factor.kind {
            PathFactorKind::Node(pattern) => {
                let open = open_after(src, factor.span, "(");
                vars.nodes
                    .add(pattern.variable.as_ref(), open, in_group, src, vars.inserts);
            }
            PathFactorKind::QuantifiedNode { pattern, .. } => {
                let open = open_after(src, factor.span, "(");
                vars.nodes
                    .add(pattern.variable.as_ref(), open, true, src, vars.inserts);
            }
            PathFactorKind::Relationship(pattern) => {
                let list = in_group
                    || pattern.legacy_quantifier.is_some()
                    || pattern.graph_quantifier.is_some();
                let text = src.get(factor.span.start..factor.span.end).unwrap_or("");
                if pattern.variable.is_some() || text.contains('[') {
                    let open = open_after(src, factor.span, "[");
                    vars.rels
                        .add(pattern.variable.as_ref(), open, list, src, vars.rel_inserts);
                } else {
                    // Abbreviated `-->`, `<--`, `--`: `[v]` after the first `-`.
                    let at = open_after(src, factor.span, "-");
                    let before = vars.rel_inserts.len();
                    vars.rels.add(None, at, list, src, vars.rel_inserts);
                    if let Some((_, name)) = vars.rel_inserts.get_mut(before) {
                        *name = format!("[{name}]");
                    }
                }
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
            } => walk_path(pattern, in_group || quantifier.is_some(), src, vars),
            PathFactorKind::LegacyShortest { pattern, .. } => {
                walk_path(pattern, in_group, src, vars);
            }
            _ => {}
        }
    }
}

/// The position right after the first `open` in the text of `span`.
fn open_after(src: &str, span: Span, open: &str) -> Option<usize> {
    src.get(span.start..span.end)
        .and_then(|t| t.find(open))
        .map(|i| span.start + i + open.len())
}

/// Node (or relationship) variables of one branch: single elements and lists
/// (quantified groups, variable-length relationships).
struct NodeVars {
    fresh: String,
    tag: &'static str,
    counter: usize,
    singles: Vec<String>,
    groups: Vec<String>,
}

impl NodeVars {
    fn new(fresh: &str, tag: &'static str) -> Self {
        Self {
            fresh: fresh.to_string(),
            tag,
            counter: 0,
            singles: Vec::new(),
            groups: Vec::new(),
        }
    }

    /// Record `variable`, or a fresh one inserted at `open` (the position
    /// after the pattern's opening bracket) when it is anonymous.
    fn add(
        &mut self,
        variable: Option<&Name>,
        open: Option<usize>,
        group: bool,
        src: &str,
        inserts: &mut Vec<(usize, String)>,
    ) {
        let name = match variable {
            // As written: the tree may hold a renamed keyword (`Names::Neutralize`).
            Some(variable) => match src.get(variable.span.start..variable.span.end) {
                Some(text) if !text.starts_with('`') => render_identifier(text),
                _ => render_identifier(&variable.kind.text),
            },
            None => {
                let name = format!("{}_{}{}", self.fresh, self.tag, self.counter);
                self.counter += 1;
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
    fn relationship_queries_name_anonymous_relationships() {
        let p = prov(
            "MATCH (c:Character)-[:hasFather]->(:Character), ( )<--()-[r]-(d), (x)-[*1..2]->(y) \
             WITH DISTINCT c WHERE c.x > 1 RETURN c.name",
        );
        assert_eq!(
            p[0].match_cypher,
            "MATCH (c:Character)-[:hasFather]->(__kgb_n0:Character), \
             (__kgb_n1 )<--(__kgb_n2)-[r]-(d), (x)-[*1..2]->(y) WITH * WHERE c.x > 1"
        );
        assert_eq!(
            p[0].relationship_cypher,
            "MATCH (c:Character)-[__kgb_r0:hasFather]->(__kgb_n0:Character), \
             (__kgb_n1 )<-[__kgb_r1]-(__kgb_n2)-[r]-(d), (x)-[__kgb_r2*1..2]->(y) WITH * WHERE c.x > 1 \
             UNWIND [__kgb_r0, __kgb_r1, r] + coalesce(__kgb_r2, []) AS __kgb_rel \
             WITH __kgb_rel WHERE __kgb_rel IS NOT NULL \
             RETURN DISTINCT elementId(__kgb_rel) AS element_id"
        );
        // PSJS's node query is unchanged by the relationship variables.
        assert!(!p[0].cypher.contains("__kgb_r"));
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
    fn gate_and_provenance_share_one_parse() {
        for q in [
            "MATCH (n:Team) WITH DISTINCT n RETURN n.name",
            "MATCH (n:Person)-[:r]->(m) WITH DISTINCT n RETRUN n.name",
            "MATCH (n) SET n.x = 1 RETURN n",
            r"MATCH (n:Team) \u0043REATE (m:Thing) RETURN n",
            "MATCH (n RETURN n",
            "MATCH (a)-[:A|:B]->(b) RETURN count(b) AS count ORDER BY count DESC",
        ] {
            let (writes, found) = gate_and_provenance(q, Dialect::Cypher5);
            assert_eq!(writes, crate::cypher::write_clauses(q), "{q}");
            assert_eq!(found, provenance_queries(q), "{q}");
        }
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
        let p = prov("MATCH (n)-->(m) WHERE m.x IS NOT :: ANY<STRING | INTEGER> RETURN m");
        assert_eq!(p[0].node_variables, ["n", "m"]);
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
        // Issue 29: the first error lies after the MATCH part (CypherBench
        // §5.2 gives PSJS from the MATCH part alone).
        for (q, part) in [
            (
                "MATCH (n:Person)-[:r]->(m) WITH DISTINCT n RETRUN n.name",
                "MATCH (n:Person)-[:r]->(m)",
            ),
            (
                "MATCH (n:Person)-[:r]->(m) WHERE m.x > 1 RETURN n.name ORDER BYY n.name",
                "MATCH (n:Person)-[:r]->(m) WHERE m.x > 1",
            ),
            (
                "MATCH (n:P) WITH n, count(*) AS c WHERE c > 1 ANDD c < 3 RETURN n",
                "MATCH (n:P)",
            ),
            ("MATCH (n:P) RETURN n.x != 1", "MATCH (n:P)"),
            ("MATCH (n:P) RETURN size((n)-->())", "MATCH (n:P)"),
        ] {
            let p = prov(q);
            assert_eq!(p[0].match_cypher, part, "{q}");
        }
        // Errors inside or right after the MATCH part: syntax error.
        for q in [
            "MATCH (n:Person)-[:r]->(m WITH DISTINCT n RETURN n.name",
            "MATCH (n:Person)-[:r]->(m) WHER m.x = 1 RETURN n.name",
            "MATCH (n:Person)-[:r]->(m) WHERE m.x = 1 ANDD m.y = 2 RETURN n",
            "MATCH (n) WITH n WHERE n.x > 1 RETRUN n",
            "MATCH (n) WHERE n.x != 1 RETURN n",
            "MATCH (n) RETRUN n.name",
            "MATCH (n) WHERE n.x = RETURN n",
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
