//! The Cypher front end: the one function through which kgbench parses
//! Cypher text ([`with_front`]).
//!
//! Every consumer (the read-only gate [`super::write_clauses`], the PSJS
//! provenance builder [`super::provenance_queries`], PIPE-Cypher's analysis
//! [`super::analyze::analyze`] and, through them, redaction spans and the
//! generators' checks) parses here, so they agree on what is a query and what
//! it writes:
//!
//! 1. **Pre-pass.** `\uXXXX` escapes are decoded as Neo4j does before
//!    tokenizing ([`super::gate::decode_unicode_escapes`]); the byte offsets of
//!    the decoded text map back to the original ([`Source::original_offset`]),
//!    so spans reported to callers index the text they gave.
//! 2. **Parse** with every Neo4j 5 extension of [`super::parse`] and
//!    [`super::neo4j5`] (subqueries, type predicates, keyword-named names,
//!    label alternation, the deprecated relationship-type alternation `[:A|:B]`
//!    that Neo4j 5 still accepts).
//! 3. **Refusals.** Forms the `open-cypher` grammar accepts but Neo4j 5
//!    refuses are syntax errors: `!=` (use `<>`), `size(<pattern>)` (use
//!    `COUNT { }`), `|:` between relationship types with a variable,
//!    properties or a variable length (`[r:A|:B]`, `[:A|:B*]`), in both
//!    dialects (Neo4j 2026.08.1 with Cypher 25 still accepts `[:A|:B]`). All
//!    checked against Neo4j 5.26 with `EXPLAIN` (`exists(<pattern>)`,
//!    deprecated, is still accepted there). Where the dialects differ, the
//!    pass consults the dialect's rules ([`super::dialect::RULES`]): a leading
//!    `\uXXXX` escape and `RETURN ALL x` / `WITH ALL x` are refused under
//!    [`Dialect::Cypher5`], `[:A|:B]` is accepted by both; forms only Cypher 25
//!    accepts (`LET`, `FILTER`, match modes, `GROUP BY`, `WHEN ... THEN`;
//!    [`super::gql`]) are rewritten only where the rules accept them.
//! 4. **Errors.** One type, [`CypherError`]; its `Display` is the one line
//!    that ledgers and result files show: `Cypher syntax error at byte
//!    <offset>: <reason>` (whitespace runs of the reason collapsed), the
//!    offset in the caller's (undecoded) text.
//!
//! Write clauses are detected once ([`Front::write_clauses`]; for text the
//! front end cannot parse, [`super::gate::unparsed_write_clauses`]).

use open_cypher::ast::visit::{walk_clause, walk_expr, Visitor};
use open_cypher::ast::{Clause, ClauseKind, Expr, ExprKind, SetQuantifier};
use open_cypher::{lex, TokenKind};

pub use super::dialect::Dialect;
use super::dialect::Form;
use super::gate::{
    add_escaped_rounds, decode_unicode_escapes, unparsed_write_clauses, write_clauses_of,
};
use super::parse::{with_parsed_names, CypherError, Names, Parsed, Recovery};

/// A query's text after the pre-pass, with the map back to the original.
#[derive(Debug)]
pub struct Source<'q> {
    original: &'q str,
    /// The decoded text and, per decoded byte (plus one past the end), the
    /// original byte offset it came from; `None` without escapes.
    decoded: Option<(String, Vec<usize>)>,
}

impl<'q> Source<'q> {
    /// Decode the escapes of `query` (once, as Neo4j does).
    #[must_use]
    pub fn new(query: &'q str) -> Self {
        let decoded = decode_unicode_escapes(query).map(|text| {
            let map = offset_map(query, &text);
            (text, map)
        });
        Self {
            original: query,
            decoded,
        }
    }

    /// The text as given.
    #[must_use]
    pub fn original(&self) -> &'q str {
        self.original
    }

    /// The text the parser reads (escapes decoded).
    #[must_use]
    pub fn text(&self) -> &str {
        self.decoded.as_ref().map_or(self.original, |(t, _)| t)
    }

    /// The byte offset in the original text of byte `at` of [`Self::text`].
    #[must_use]
    pub fn original_offset(&self, at: usize) -> usize {
        match &self.decoded {
            None => at,
            Some((_, map)) => map.get(at).copied().unwrap_or(self.original.len()),
        }
    }

    /// Whether the original text had escapes.
    #[must_use]
    pub fn has_escapes(&self) -> bool {
        self.decoded.is_some()
    }
}

/// Per byte of `decoded` (and one past its end), the offset in `original` of
/// the character or escape it was decoded from. Both texts are walked in the
/// decoder's order: an escape `\u+XXXX` (or a surrogate pair of escapes)
/// yields one character.
fn offset_map(original: &str, decoded: &str) -> Vec<usize> {
    let mut map = Vec::with_capacity(decoded.len() + 1);
    let o = original.as_bytes();
    let mut i = 0usize;
    let mut backslashes = 0usize;

    // Length of the escape starting at `i`, if any (as the decoder reads it).
    let escape_at = |i: usize, backslashes: usize| -> Option<usize> {
        if o.get(i) != Some(&b'\\') || backslashes % 2 == 1 {
            return None;
        }
        let mut j = i + 1;
        while o.get(j) == Some(&b'u') {
            j += 1;
        }
        (j > i + 1
            && o.get(j..j + 4)
                .is_some_and(|h| h.iter().all(u8::is_ascii_hexdigit)))
        .then_some(j + 4 - i)
    };
    for c in decoded.chars() {
        let start = i;
        if let Some(len) = escape_at(i, backslashes) {
            i += len;
            backslashes = 0;
            // A supplementary character came from two escapes.
            if c as u32 > 0xFFFF {
                if let Some(len2) = escape_at(i, 0) {
                    i += len2;
                }
            }
        } else {
            let n = original[i..].chars().next().map_or(1, char::len_utf8);
            backslashes = if o.get(i) == Some(&b'\\') {
                backslashes + 1
            } else {
                0
            };
            i += n;
        }
        for _ in 0..c.len_utf8() {
            map.push(start.min(original.len()));
        }
    }
    map.push(original.len());
    map
}

/// A parsed query as every consumer sees it.
pub struct Front<'a> {
    /// The parse of [`Source::text`] (its spans index the decoded text).
    pub parsed: &'a Parsed,
    /// The text and its map to the original.
    pub source: &'a Source<'a>,
    /// The dialect it was parsed for.
    pub dialect: Dialect,
}

impl Front<'_> {
    /// The write clauses of the query (see [`super::write_clauses`]), in
    /// order, without duplicates.
    #[must_use]
    pub fn write_clauses(&self) -> Vec<String> {
        let mut found = write_clauses_of(self.parsed);
        add_escaped_rounds(self.source.text(), &mut found);
        found
    }
}

/// Parse `query` for `dialect` through the front end (module documentation)
/// and apply `f`. Never panics.
///
/// # Errors
///
/// [`CypherError`] when the query is empty, too large, does not parse, or
/// uses a form Neo4j refuses; a syntax error's offset is a byte offset of
/// `query` as given.
pub fn with_front<T, F>(query: &str, dialect: Dialect, f: F) -> Result<T, CypherError>
where
    T: Send,
    F: FnOnce(&Front<'_>) -> T + Send,
{
    let source = Source::new(query);
    // Neo4j 5.26 refuses a query whose first character is an escape
    // (`\u004dERGE ...`: "Invalid input 'dERGE'"; the differential corpus),
    // while it decodes escapes anywhere else; 2026.08.1 (Cypher 25) accepts it.
    if !dialect.accepts(Form::LeadingEscape)
        && source.has_escapes()
        && source.text().chars().next() != query.chars().next()
    {
        return Err(CypherError::Syntax {
            offset: 0,
            message: "a query cannot start with a `\\u` escape (Neo4j refuses it)".to_string(),
        });
    }
    let result = parse_source(&source, dialect, f);
    result.map_err(|e| relocate(e, &source))
}

/// [`with_front`] on a [`Source`] (offsets of errors in its decoded text).
fn parse_source<T, F>(source: &Source<'_>, dialect: Dialect, f: F) -> Result<T, CypherError>
where
    T: Send,
    F: FnOnce(&Front<'_>) -> T + Send,
{
    let text = source.text();
    if let Some(error) = refused_tokens(text, dialect) {
        return Err(error);
    }
    let blanked = blank_prefixes(text);
    let text = blanked.as_deref().unwrap_or(text);
    with_parsed_names(text, Recovery::Deny, Names::Neutralize, dialect, |parsed| {
        if let Some(error) = refused_in_tree(parsed, 0, dialect) {
            return Err(error);
        }
        Ok(f(&Front {
            parsed,
            source,
            dialect,
        }))
    })?
}

/// `text` with its leading `EXPLAIN` / `PROFILE`, `CYPHER [version]
/// [option=value ...]` and `USE <graph>` prefixes (Neo4j 5 Cypher manual,
/// "Query tuning" and "USE") replaced by spaces, or `None` without any. They
/// select how or where the query runs, not what it reads or writes.
fn blank_prefixes(text: &str) -> Option<String> {
    let start = text.trim_start();
    let first: String = start
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect::<String>()
        .to_ascii_uppercase();
    if !matches!(first.as_str(), "EXPLAIN" | "PROFILE" | "CYPHER" | "USE") {
        return None;
    }
    let tokens: Vec<_> = lex(text)
        .tokens
        .into_iter()
        .filter(|t| !t.is_trivia())
        .collect();
    let word = |k: usize| -> Option<String> {
        let t = tokens.get(k)?;
        matches!(t.kind, TokenKind::Identifier | TokenKind::Keyword(_))
            .then(|| t.text(text).map(str::to_ascii_uppercase))
            .flatten()
    };
    let mut k = 0;
    loop {
        match word(k).as_deref() {
            Some("EXPLAIN" | "PROFILE") => k += 1,
            Some("CYPHER") => {
                k += 1;
                if tokens.get(k).map(|t| t.kind) == Some(TokenKind::Integer) {
                    k += 1;
                }
                // option=value pairs
                while tokens.get(k + 1).map(|t| t.kind) == Some(TokenKind::Equal)
                    && word(k).is_some()
                    && tokens.get(k + 2).is_some()
                {
                    k += 3;
                }
            }
            Some("USE") => {
                k += 1;
                match tokens.get(k).map(|t| t.kind) {
                    Some(TokenKind::Identifier | TokenKind::EscapedIdentifier) => k += 1,
                    _ => return None,
                }
                while tokens.get(k).map(|t| t.kind) == Some(TokenKind::Dot)
                    && matches!(
                        tokens.get(k + 1).map(|t| t.kind),
                        Some(TokenKind::Identifier | TokenKind::EscapedIdentifier)
                    )
                {
                    k += 2;
                }
            }
            _ => break,
        }
    }
    let end = tokens.get(k).map_or(text.len(), |t| t.span.start);
    if k == 0 || end == 0 {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    out.extend(
        text[..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' }),
    );
    // Multi-byte characters in the prefix: keep the byte length.
    while out.len() < end {
        out.push(' ');
    }
    out.truncate(end);
    out.push_str(&text[end..]);
    Some(out)
}

/// A syntax error's offset moved from the decoded text to the original.
fn relocate(error: CypherError, source: &Source<'_>) -> CypherError {
    match error {
        CypherError::Syntax { offset, message } => CypherError::Syntax {
            offset: source.original_offset(offset),
            message,
        },
        other => other,
    }
}

/// Whether `text` has a `|` followed (after spaces) by a single `:`.
fn has_pipe_colon(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        if c != b'|' {
            return false;
        }
        let mut j = i + 1;
        while b.get(j).is_some_and(u8::is_ascii_whitespace) {
            j += 1;
        }
        b.get(j) == Some(&b':') && b.get(j + 1) != Some(&b':')
    })
}

/// Whether the relationship pattern whose types hold the `|` at `p` binds a
/// variable, has a property map or a variable length (`[r:A|:B]`,
/// `[:A|:B {x: 1}]`, `[:A|:B*]`): Neo4j 5 refuses `|:` there.
fn legacy_alternation_not_allowed(tokens: &[open_cypher::Token], p: usize) -> bool {
    let Some(open) = tokens[..p]
        .iter()
        .rposition(|t| t.kind == TokenKind::LeftBracket)
    else {
        return false;
    };
    let variable = tokens.get(open + 1).map(|t| t.kind) != Some(TokenKind::Colon);
    variable
        || tokens[p..]
            .iter()
            .take_while(|t| t.kind != TokenKind::RightBracket)
            .any(|t| matches!(t.kind, TokenKind::Star | TokenKind::LeftBrace))
}

/// `!=`; `|:` in a relationship-type expression with a variable, properties
/// or a variable length (Neo4j 5 refuses it: "The semantics of using colon in
/// the separation of alternative relationship types ... is no longer
/// supported"; Neo4j 2026.08.1 with Cypher 25 says the same).
fn refused_tokens(text: &str, dialect: Dialect) -> Option<CypherError> {
    let bang = text.contains("!=");
    let legacy = has_pipe_colon(text);
    if !bang && !legacy {
        return None;
    }
    let tokens: Vec<_> = lex(text)
        .tokens
        .into_iter()
        .filter(|t| !t.is_trivia())
        .collect();
    for (i, t) in tokens.iter().enumerate() {
        if bang && t.kind == TokenKind::NotEqual && t.text(text) == Some("!=") {
            return Some(CypherError::Syntax {
                offset: t.span.start,
                message: "`!=` is not Cypher (Neo4j refuses it); use `<>`".to_string(),
            });
        }
        if legacy
            && t.kind == TokenKind::Pipe
            && tokens.get(i + 1).map(|n| n.kind) == Some(TokenKind::Colon)
            && super::neo4j5::in_relationship_types(&tokens, i)
        {
            if legacy_alternation_not_allowed(&tokens, i) {
                return Some(CypherError::Syntax {
                    offset: t.span.start,
                    message: "`|:` between relationship types is not allowed with a variable, \
                          properties or a variable length; write `[r:A|B]`"
                        .to_string(),
                });
            }
            if !dialect.accepts(Form::ColonTypeAlternation) {
                return Some(CypherError::Syntax {
                    offset: t.span.start,
                    message: "`|:` between relationship types is not Cypher ".to_string()
                        + dialect.name()
                        + "; write `[:A|B]`",
                });
            }
        }
    }
    None
}

/// `size(<pattern>)` anywhere in `parsed` (offsets in the top-level text;
/// `base` is that of `parsed`). (`exists(<pattern>)` is deprecated, but Neo4j
/// 5.26 accepts it: checked with `EXPLAIN`.)
fn refused_in_tree(parsed: &Parsed, base: usize, dialect: Dialect) -> Option<CypherError> {
    struct Find(Option<(usize, String)>, Dialect);
    impl<'ast> Visitor<'ast> for Find {
        fn visit_clause(&mut self, node: &'ast Clause) {
            if self.0.is_some() {
                return;
            }
            let projection = match &node.kind {
                ClauseKind::Return(r) => Some(&r.projection),
                ClauseKind::With(w) => Some(&w.projection),
                _ => None,
            };
            if let Some(q) = projection.and_then(|p| p.quantifier.as_ref()) {
                if q.kind == SetQuantifier::All && !self.1.accepts(Form::ProjectionAll) {
                    self.0 = Some((
                        q.span.start,
                        format!(
                            "`ALL` after RETURN / WITH is not Cypher {} (Neo4j 5 refuses it)",
                            self.1.name()
                        ),
                    ));
                    return;
                }
            }
            walk_clause(self, node);
        }

        fn visit_expr(&mut self, node: &'ast Expr) {
            if self.0.is_some() {
                return;
            }
            if let ExprKind::Function(f) = &node.kind {
                let name = super::gate::dotted(&f.name).to_ascii_lowercase();
                if name == "size"
                    && f.arguments
                        .first()
                        .is_some_and(|a| matches!(a.kind, ExprKind::Pattern(_)))
                {
                    self.0 = Some((
                        node.span.start,
                        "`size()` of a pattern is not allowed in Neo4j 5; use COUNT { pattern }"
                            .to_string(),
                    ));
                    return;
                }
            }
            walk_expr(self, node);
        }
    }
    let mut find = Find(None, dialect);
    find.visit_program(&parsed.program.program);
    if let Some((at, message)) = find.0 {
        return Some(CypherError::Syntax {
            offset: base + at,
            message,
        });
    }
    parsed
        .subqueries
        .iter()
        .chain(&parsed.expression_subqueries)
        .find_map(|s| refused_in_tree(&s.body, base + s.body_offset, dialect))
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
    write_clauses_in(query, Dialect::default())
}

/// [`write_clauses`] for a server speaking `dialect`. Never panics.
#[must_use]
pub fn write_clauses_in(query: &str, dialect: Dialect) -> Vec<String> {
    match with_front(query, dialect, |front| front.write_clauses()) {
        Ok(found) => found,
        Err(_) => unparsed_write_clauses(query),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parses(q: &str) -> Result<(), CypherError> {
        with_front(q, Dialect::Cypher5, |_| ())
    }

    #[test]
    fn offsets_map_back_through_escapes() {
        let q = r"MATCH (n {name: 'caf\u00e9'}) \u0043REATE (m) RETURN n";
        let s = Source::new(q);
        let text = s.text();
        assert_eq!(text, "MATCH (n {name: 'café'}) CREATE (m) RETURN n");
        let create = text.find("CREATE").unwrap();
        assert_eq!(&q[s.original_offset(create)..][..6], r"\u0043");
        let ret = text.find("RETURN").unwrap();
        assert_eq!(&q[s.original_offset(ret)..][..6], "RETURN");
        assert_eq!(s.original_offset(text.len()), q.len());
        let pair = Source::new(r"RETURN '\ud83d\ude00' AS x");
        let x = pair.text().find("AS").unwrap();
        assert_eq!(&pair.original()[pair.original_offset(x)..][..2], "AS");
    }

    #[test]
    fn neo4j_refusals_are_syntax_errors() {
        for (q, at) in [
            ("MATCH (n) WHERE n.x != 1 RETURN n", 20),
            ("MATCH (n) WHERE size((n)-->()) > 1 RETURN n", 16),
            ("MATCH (a)-[r:A|:B]->(b) RETURN b", 14),
            ("MATCH (a)-[:A|:B*1..2]->(b) RETURN b", 13),
            (
                "MATCH (n) RETURN n, EXISTS { MATCH (n) WHERE size((n)--()) > 2 } AS x",
                45,
            ),
        ] {
            match parses(q) {
                Err(CypherError::Syntax { offset, .. }) => assert_eq!(offset, at, "{q}"),
                other => panic!("{q}: {other:?}"),
            }
        }
        // `size()` of a list, `exists()` of a property or a pattern are fine.
        parses("MATCH (n) WHERE size(n.tags) > 1 AND exists(n.x) RETURN n").unwrap();
        parses("MATCH (n) WHERE exists((n)-->()) RETURN n").unwrap();
        // The escape's offset is reported in the text as given.
        match parses(r"MATCH (n) WHERE n.x \u0021= 1 RETURN n") {
            Err(CypherError::Syntax { offset, .. }) => assert_eq!(offset, 20),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn prefixes_and_typed_predicates() {
        for q in [
            "USE neo4j MATCH (n:Player) RETURN n.name",
            "CYPHER 5 MATCH (n) RETURN n",
            "CYPHER runtime=slotted MATCH (n) RETURN n",
            "EXPLAIN MATCH (n) RETURN n",
            "PROFILE CYPHER 5 USE neo4j MATCH (n) RETURN n",
            "MATCH (n:Player) WHERE n.height_cm IS TYPED INTEGER RETURN n",
            "MATCH (n) WHERE n.x IS NOT TYPED STRING RETURN n",
            "MATCH (t:Team)<-[:playsFor]-(p) RETURN t.name, count(p) AS all ORDER BY all DESC",
            "MATCH (p) WITH p, size(p.n) AS as ORDER BY as DESC LIMIT 2 RETURN p.name, as",
            "UNWIND [1, 2, 3] AS is RETURN is + 1 AS x",
            "RETURN [all IN range(1, 3) WHERE all > 1] AS l",
            "RETURN all(is IN [1, 2] WHERE is > 0) AS ok",
            "MATCH (n) WHERE n.is IS NOT NULL RETURN n.name ORDER BY n.is",
            "MATCH p = ANY SHORTEST (a:Player)-[:playsFor]-+(b:Team) RETURN length(p)",
            "MATCH (p:Player) WITH count(p) AS any RETURN  + 1 AS total",
            "MATCH (n) WITH DISTINCT set MATCH (v2:Team) RETURN v2",
            "UNWIND [1, 2, 3] AS in WITH in WHERE in > 1 RETURN in",
            "UNWIND [1, 2, 3] AS by WITH by WHERE by > 1 RETURN by",
            "RETURN [return IN range(1, 3) | return * 2] AS l",
            "RETURN [and IN range(1, 3) WHERE and > 1] AS l",
            "MATCH (n) WITH n.x AS where WHERE where > 1 RETURN where",
        ] {
            parses(q).unwrap_or_else(|e| panic!("{q}: {e}"));
        }
        assert_eq!(
            crate::cypher::write_clauses("USE neo4j MATCH (n) DETACH DELETE n"),
            ["DETACH DELETE"]
        );
        let p = crate::cypher::provenance_queries("USE neo4j MATCH (n:P) RETURN n").unwrap();
        assert_eq!(p[0].match_cypher, "MATCH (n:P)");
    }

    #[test]
    fn leading_escape_is_accepted_by_cypher_25() {
        let q = r"\u004dERGE (n:Player {name: 'x'})";
        with_front(q, Dialect::Cypher25, |_| ()).unwrap();
        assert_eq!(write_clauses_in(q, Dialect::Cypher25), ["MERGE"]);
    }

    #[test]
    fn leading_escape_is_refused_but_still_a_write() {
        assert!(matches!(
            parses(r"\u004dERGE (n:Player {name: 'x'})"),
            Err(CypherError::Syntax { offset: 0, .. })
        ));
        assert_eq!(
            crate::cypher::write_clauses(r"\u004dERGE (n:Player {name: 'x'})"),
            ["MERGE"]
        );
        parses(r"MATCH (n:Player) C\u0052EATE (m:Thing) RETURN n").unwrap();
    }

    #[test]
    fn dialects() {
        // Neo4j 2026.08.1 (Cypher 25) accepts `[:A|:B]` as 5.26 does (the
        // differential corpus), and refuses `[r:A|:B]` as 5.26 does.
        let q = "MATCH (a)-[:A|:B]->(b) RETURN b";
        parses(q).unwrap();
        with_front(q, Dialect::Cypher25, |_| ()).unwrap();
        assert!(matches!(
            with_front(
                "MATCH (a)-[r:A|:B]->(b) RETURN b",
                Dialect::Cypher25,
                |_| ()
            ),
            Err(CypherError::Syntax { offset: 14, .. })
        ));
        with_front("MATCH (a)-[:A|B]->(b) RETURN b", Dialect::Cypher25, |_| ()).unwrap();
        assert_eq!(Dialect::from_name("25"), Ok(Dialect::Cypher25));
        assert_eq!(Dialect::from_name("CYPHER 5"), Ok(Dialect::Cypher5));
        assert!(Dialect::from_name("4").is_err());
    }

    #[test]
    fn literal_and_operator_keywords_as_names() {
        // Neo4j 5.26.30 and 2026.08.1 accept all of these (the differential corpus).
        for q in [
            "UNWIND [1, 2, 3] AS is WITH is WHERE is > 1 RETURN is",
            "UNWIND [1, 2, 3] AS case WITH case WHERE case > 1 RETURN case",
            "UNWIND [1, 2, 3] AS not WITH not WHERE not > 1 RETURN not",
            "RETURN [null IN range(1, 3) | null * 2] AS l",
            "RETURN [null IN range(1, 3) WHERE null > 1] AS l",
            "RETURN [true IN range(1, 3) WHERE true > 1] AS l",
            "MATCH (then:Team) WHERE EXISTS { MATCH (:Player)-[:playsFor]->(then) } RETURN then.name",
            "MATCH (t:Team) WITH t.name AS not ORDER BY not LIMIT 2 RETURN not",
            "MATCH (t:Team) WITH t.name AS case ORDER BY case DESC RETURN case",
            // The keywords themselves still work.
            "MATCH (n) WHERE NOT n.x IS NULL AND n.y IS NOT NULL RETURN n",
            "MATCH (n) RETURN CASE WHEN n.x > 1 THEN +1 ELSE -1 END AS s ORDER BY NOT n.y",
            "MATCH (n) WHERE n.x IS NOT :: INTEGER RETURN [x IN [null, true] | x] AS l",
            // A keyword-named variable after NOT (the fuzz target's `detach`).
            "MATCH (detach) WHERE NOT detach.set IS NULL AND NOT set.x RETURN detach",
            "MATCH (n) WHERE NOT delete = 1 RETURN n",
        ] {
            parses(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert!(crate::cypher::write_clauses(q).is_empty(), "{q}");
            assert!(crate::cypher::analyze::analyze(q).syntax_valid, "{q}");
        }
    }

    #[test]
    fn projection_all_follows_the_dialect() {
        // 5.26.30 refuses `RETURN all all(...)`; 2026.08.1 (Cypher 25) accepts it.
        let q = "RETURN all all(null IN [1, 2] WHERE null > 0) AS ok";
        assert!(matches!(
            parses(q),
            Err(CypherError::Syntax { offset: 7, .. })
        ));
        with_front(q, Dialect::Cypher25, |_| ()).unwrap();
        parses("RETURN all(x IN [1, 2] WHERE x > 0) AS ok").unwrap();
        assert!(!Dialect::Cypher5.accepts(Form::ProjectionAll));
        assert!(Dialect::Cypher5.accepts(Form::ColonTypeAlternation));
    }

    /// Words models use as names, in every kind of name position (issue 29).
    const NAME_WORDS: &[&str] = &[
        "count", "Count", "exists", "collect", "size", "type", "labels", "keys", "contains",
        "order", "limit", "set", "COUNT", "any", "none", "single", "reduce", "skip", "where",
        "return", "match", "with", "merge", "create", "delete", "remove", "union", "starts",
        "ends", "desc", "asc", "by", "on", "in", "end", "distinct", "optional", "unwind", "yield",
        "call", "path", "shortest", "trim", "offset",
    ];

    fn name_queries(w: &str) -> Vec<String> {
        vec![
            format!(
                "MATCH (t:Team)<-[:playsFor]-(p) RETURN t.name, count(p) AS {w} ORDER BY {w} DESC"
            ),
            format!("MATCH ({w}:Team) RETURN {w}.name"),
            format!("MATCH (n:{w}) RETURN n.{w} AS x"),
            format!("MATCH (n)-[{w}:R]->(m) RETURN type({w})"),
            format!("MATCH (n)-[:{w}]->(m) RETURN m"),
            format!("MATCH (n {{{w}: 1}}) RETURN {{{w}: n.{w}}} AS m"),
            format!("MATCH (n) WITH n.x AS {w} WHERE {w} > 1 RETURN {w}"),
            format!("UNWIND [1, 2] AS {w} RETURN {w}"),
            format!("MATCH (n) WHERE n.{w} = 'a' RETURN n.name ORDER BY n.{w}"),
            format!("MATCH (n) WITH collect(n) AS {w} RETURN size({w}) AS total"),
        ]
    }

    #[test]
    fn keywords_and_functions_as_names_parse_on_every_path() {
        let mut failures = Vec::new();
        for w in NAME_WORDS {
            for q in name_queries(w) {
                if let Err(e) = parses(&q) {
                    failures.push(format!("{q}  -> {e}"));
                    continue;
                }
                if !crate::cypher::write_clauses(&q).is_empty() {
                    failures.push(format!("{q}  -> not read-only"));
                }
                let a = crate::cypher::analyze::analyze(&q);
                if !a.parsed || !a.write_clauses.is_empty() {
                    failures.push(format!("{q}  -> analyze {:?}", a.syntax_error));
                }
                if q.starts_with("MATCH") && crate::cypher::provenance_queries(&q).is_err() {
                    failures.push(format!("{q}  -> provenance"));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn count_alias_keeps_its_features() {
        let a = crate::cypher::analyze::analyze(
            "MATCH (t:Team)<-[:playsFor]-(p:Player) RETURN t.name, count(p) AS count ORDER BY count DESC",
        );
        assert!(a.syntax_valid, "{:?}", a.syntax_error);
        assert_eq!(a.features.aggregates, ["COUNT"]);
        assert!(a.features.ordering);
        assert_eq!(a.features.labels, ["Player", "Team"]);
        assert!(
            a.signature.contains("as <var> order by <var> desc"),
            "{}",
            a.signature
        );
    }

    #[test]
    fn relationship_type_alternation_with_colons() {
        for q in [
            "MATCH (a:A)-[:X|:Y]->(b) RETURN b",
            "MATCH (a:A)-[r:X|Y*1..2]->(b) RETURN b",
            "MATCH (a:A)-[:X|Y]->(b) RETURN b",
            "MATCH (a:A)<-[:X|:Y|:Z]-(b) WITH DISTINCT a RETURN a.name",
        ] {
            parses(q).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert!(crate::cypher::write_clauses(q).is_empty(), "{q}");
            let p = crate::cypher::provenance_queries(q).unwrap();
            assert_eq!(p[0].node_variables, ["a", "b"], "{q}");
            assert!(q.contains(&p[0].match_cypher), "{q}");
            let a = crate::cypher::analyze::analyze(q);
            assert!(a.syntax_valid, "{q}: {:?}", a.syntax_error);
            assert!(
                a.features.relationship_types.contains(&"Y".to_string()),
                "{q}"
            );
        }
    }

    #[test]
    fn escaped_write_and_unparseable_queries_are_never_read_only() {
        let a = crate::cypher::analyze::analyze(r"MATCH (n:Team) \u0043REATE (m:Thing) RETURN n");
        assert_eq!(a.write_clauses, ["CREATE"]);
        assert!(!a.read_only(&[]));
        let a = crate::cypher::analyze::analyze("MATCH (n:Team RETURN n");
        assert!(!a.syntax_valid && !a.read_only(&[]));
        let a = crate::cypher::analyze::analyze("MATCH (n) WHERE n.x != 1 RETURN n");
        assert!(!a.read_only(&[]));
        assert_eq!(
            a.syntax_error.as_deref(),
            Some("Cypher syntax error at byte 20: `!=` is not Cypher (Neo4j refuses it); use `<>`")
        );
        // The same one-line text on every path.
        let q = "MATCH (n:Team RETURN n";
        let from_provenance = crate::cypher::provenance_queries(q)
            .unwrap_err()
            .to_string();
        assert_eq!(
            Some(from_provenance.as_str()),
            crate::cypher::analyze::analyze(q).syntax_error.as_deref()
        );
        assert!(!from_provenance.contains('\n'));
        // Literal spans index the text as given.
        let q = r"MATCH (n {name: 'caf\u00e9'}) WHERE n.x = 'b' RETURN n";
        let a = crate::cypher::analyze::analyze(q);
        let b = &a.string_literals[1];
        assert_eq!(&q[b.start..b.end], "'b'");
        let first = &a.string_literals[0];
        assert_eq!(&q[first.start..first.end], r"'caf\u00e9'");
        assert_eq!(first.value, "café");
    }
}
