//! Guarded parsing with the `open-cypher` crate, extended with Neo4j's
//! `CALL { ... }` subqueries.
//!
//! # Neo4j syntax beyond the crate
//!
//! `open-cypher` 0.5 has AST types for `CALL { ... }` subqueries but its
//! grammar does not accept them (nor `FOREACH`, `LOAD CSV`, `USE`, `INSERT`).
//! kgbench therefore pre-processes the token stream: every
//! `[OPTIONAL] CALL [( ... )] { body } [IN ... TRANSACTIONS ...]` is cut out,
//! its body is parsed on its own (recursively, so nested subqueries and
//! `UNION` inside the body work), and the region is replaced in the outer
//! text by a placeholder procedure call `CALL k()` padded with spaces to the
//! same byte length, so every span of the outer parse still points into the
//! original text. The placeholders are listed in [`Parsed::subqueries`] by
//! their byte offset. Pattern-form subquery expressions with labels and (with
//! [`Names::Neutralize`]) pattern predicates are cut out the same way
//! ([`Parsed::expression_subqueries`]); type and normalization predicates and
//! keyword-named names are rewritten in place ([`neo4j5`]).
//!
//! # Guards
//!
//! [`with_parsed_names`] catches panics inside the parser or the closure
//! ([`CypherError::Internal`]); inputs longer than [`SMALL_INPUT_BYTES`] are
//! parsed on a scoped thread with a [`LARGE_STACK_BYTES`] stack, because the
//! tree (and its recursive traversal and drop) can be as deep as the input is
//! long. Inputs over [`MAX_INPUT_BYTES`] or nested deeper than
//! [`MAX_NESTING`] brackets are refused without parsing.

use std::panic::{catch_unwind, AssertUnwindSafe};

use open_cypher::{lex, parse, parse_recovering, Keyword, ParsedProgram, Token, TokenKind};

use super::dialect::Dialect;
use super::{gql, neo4j5};

/// Inputs up to this many bytes are parsed on the calling thread.
pub const SMALL_INPUT_BYTES: usize = 4096;
/// Stack reserved for parsing larger inputs (virtual memory, touched lazily).
pub const LARGE_STACK_BYTES: usize = 512 << 20;
/// Longest query kgbench parses (1 MiB); longer input is refused.
pub const MAX_INPUT_BYTES: usize = 1 << 20;
/// Deepest bracket nesting (`(`, `[`, `{` counted together) kgbench parses.
pub const MAX_NESTING: usize = 2000;

/// Placeholder written over a `CALL { ... }` region before parsing.
const PLACEHOLDER: &str = "CALL k()";

/// Why a Cypher query could not be analysed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CypherError {
    /// The text is not a (single) openCypher query.
    #[error("Cypher syntax error at byte {offset}: {message}")]
    Syntax {
        /// Byte offset of the first error in the query.
        offset: usize,
        /// The parser's message for the first error.
        message: String,
    },
    /// The query is empty or only whitespace and comments.
    #[error("empty Cypher query")]
    Empty,
    /// The query exceeds [`MAX_INPUT_BYTES`] or [`MAX_NESTING`].
    #[error("Cypher query too large to analyse: {0}")]
    TooLarge(String),
    /// The parser failed unexpectedly (a caught panic).
    #[error("internal Cypher parser failure")]
    Internal,
}

/// A parsed query: the syntax tree of the text with `CALL { ... }` regions
/// replaced by placeholders, and the parsed bodies of those regions.
#[derive(Debug)]
pub struct Parsed {
    /// The original text of this (sub)query; spans of `program` index into it.
    pub text: String,
    /// Syntax tree of the text with placeholders.
    pub program: ParsedProgram,
    /// The `CALL { ... }` subqueries, in source order.
    pub subqueries: Vec<Subquery>,
    /// Regions cut out of expressions and parsed on their own, in source order:
    /// pattern-form subquery expressions (`EXISTS { (a)-->(:B) }`, `COUNT {
    /// ... }`; their braces are replaced by `{(k)  }`, `clause_start` is the
    /// keyword, `body` the parse of `MATCH <pattern> [WHERE ...]`) and, with
    /// [`Names::Neutralize`], pattern predicates (`(n WHERE ...)`; blanked,
    /// `clause_start` is the `WHERE`, `body` the parse of `RETURN
    /// <predicate>`). Byte 0 of a body's text stands at `body_offset` of the
    /// enclosing text.
    pub expression_subqueries: Vec<Subquery>,
    /// With [`Recovery::Allow`]: the strict parser's error when the tree
    /// (of this text, not of its subqueries) comes from error recovery and may
    /// contain error nodes.
    pub recovered: Option<CypherError>,
    /// Clauses written in a form outside the crate's grammar and rewritten
    /// before parsing ([`super::gql`]): (span start of the clause in this
    /// text, the form as written: `"SHOW"`, `"INSERT"`, `"NODETACH DELETE"`,
    /// `"LOAD CSV"`, `"FOREACH"`, `"FINISH"`).
    pub clause_forms: Vec<(usize, &'static str)>,
}

/// Whether [`with_parsed_names`] may fall back to the parser's error recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Strict: any syntax error fails.
    Deny,
    /// On a syntax error, use `open_cypher::parse_recovering` (valid clauses
    /// around malformed regions are kept, error nodes mark the rest) when it
    /// yields a query; [`Parsed::recovered`] then holds the strict error.
    Allow,
}

/// Whether [`with_parsed_names`] renames clause keywords used as names (see
/// [`neo4j5::neutralize_names`]). Renamed names appear in the parse tree;
/// their original spelling is at the same span of the original text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// Parse names as written (keyword-named variables may fail to parse).
    Keep,
    /// Rename clause keywords in name positions before parsing.
    Neutralize,
}

/// One `CALL { ... }` subquery cut out of a query.
#[derive(Debug)]
pub struct Subquery {
    /// Byte offset (in the enclosing text) of the placeholder `CALL` clause,
    /// which equals the span start of that clause in the enclosing tree.
    pub clause_start: usize,
    /// Byte offset (in the enclosing text) where the body starts.
    pub body_offset: usize,
    /// The parsed body.
    pub body: Parsed,
}

impl Parsed {
    /// The subquery whose placeholder clause starts at `start`, if any.
    #[must_use]
    pub fn subquery_at(&self, start: usize) -> Option<&Subquery> {
        self.subqueries.iter().find(|s| s.clause_start == start)
    }

    /// The form the clause starting at `start` was written in, when it was
    /// rewritten before parsing (see [`Parsed::clause_forms`]).
    #[must_use]
    pub fn clause_form_at(&self, start: usize) -> Option<&'static str> {
        self.clause_forms
            .iter()
            .find(|(at, _)| *at == start)
            .map(|(_, form)| *form)
    }
}

/// Parse `query` and apply `f` to the result, with the guards described in
/// the module documentation and the choice of [`Names`] (the front end,
/// [`super::frontend::with_front`], always neutralizes). Never panics.
///
/// # Errors
///
/// [`CypherError`] when the query is empty, too large, or does not parse.
pub fn with_parsed_names<T, F>(
    query: &str,
    recovery: Recovery,
    names: Names,
    dialect: Dialect,
    f: F,
) -> Result<T, CypherError>
where
    T: Send,
    F: FnOnce(&Parsed) -> T + Send,
{
    if query.len() > MAX_INPUT_BYTES {
        return Err(CypherError::TooLarge(format!(
            "{} bytes > {MAX_INPUT_BYTES}",
            query.len()
        )));
    }
    let depth = max_nesting(query);
    if depth > MAX_NESTING {
        return Err(CypherError::TooLarge(format!(
            "bracket nesting {depth} > {MAX_NESTING}"
        )));
    }
    let run = move || -> Result<T, CypherError> {
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            let parsed = parse_neo4j(query, 0, recovery, names, dialect)?;
            if parsed.program.program.is_empty() {
                return Err(CypherError::Empty);
            }
            Ok(f(&parsed))
        }));
        outcome.unwrap_or(Err(CypherError::Internal))
    };
    if query.len() <= SMALL_INPUT_BYTES {
        return run();
    }
    std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .stack_size(LARGE_STACK_BYTES)
            .spawn_scoped(scope, run)
        {
            Ok(handle) => handle.join().unwrap_or(Err(CypherError::Internal)),
            Err(_) => Err(CypherError::Internal),
        }
    })
}

/// Parse `src` (whose first byte is at `base` in the top-level query, for
/// error offsets), cutting out `CALL { ... }` subqueries.
fn parse_neo4j(
    src: &str,
    base: usize,
    recovery: Recovery,
    names: Names,
    dialect: Dialect,
) -> Result<Parsed, CypherError> {
    // Clause forms outside the crate's grammar, rewritten (same length);
    // cut-out bodies are taken from the text as given and rewritten again.
    let orig = src;
    let gql = gql::rewrite(orig, dialect);
    let src: &str = gql.as_ref().map_or(orig, |g| g.text.as_str());
    // Without the letters of `CALL` (any case), `::` or `NORMALIZED` there is
    // no subquery to cut out and no Neo4j 5 predicate to rewrite: skip lexing.
    let bytes = src.as_bytes();
    let may_rewrite = bytes.windows(4).any(|w| w.eq_ignore_ascii_case(b"call"))
        || bytes.contains(&b'{')
        || bytes.windows(2).any(|w| w == b"::")
        || bytes
            .windows(10)
            .any(|w| w.eq_ignore_ascii_case(b"normalized"));
    let tokens: Vec<Token> = if may_rewrite || names == Names::Neutralize {
        lex(src)
            .tokens
            .into_iter()
            .filter(|t| !t.is_trivia())
            .collect()
    } else {
        Vec::new()
    };
    // Same byte length as `src` (see [`neo4j5`]), so `tokens` still apply.
    let mut text = neo4j5::rewrite(src, &tokens).unwrap_or_else(|| src.to_string());
    let mut expression_subqueries = Vec::new();
    if names == Names::Neutralize {
        if let Some(renamed) = neo4j5::neutralize_names(&text, &tokens) {
            text = renamed;
        }
        for (where_at, close) in pattern_wheres(src, &tokens) {
            let (from, to) = (tokens[where_at].span.start, tokens[close].span.start);
            let (pred_start, pred_end) = (tokens[where_at].span.end, to);
            let body_text = format!("{RETURN_PREFIX}{}", &orig[pred_start..pred_end]);
            let offset = (base + pred_start).saturating_sub(RETURN_PREFIX.len());
            let body = parse_neo4j(&body_text, offset, recovery, names, dialect)?;
            text.replace_range(from..to, &" ".repeat(to - from));
            expression_subqueries.push(Subquery {
                clause_start: from,
                body_offset: pred_start.saturating_sub(RETURN_PREFIX.len()),
                body,
            });
        }
    }
    let mut subqueries = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if let Some((close, body)) =
            pattern_subquery(orig, &tokens, i, base, recovery, names, dialect)?
        {
            let (open, end) = (tokens[i + 1].span.start, tokens[close].span.end);
            let mut placeholder = PATTERN_PLACEHOLDER.to_string();
            placeholder.push_str(&" ".repeat(end - open - PATTERN_PLACEHOLDER.len() - 1));
            placeholder.push('}');
            text.replace_range(open..end, &placeholder);
            expression_subqueries.push(Subquery {
                clause_start: tokens[i].span.start,
                body_offset: tokens[i + 1].span.end - MATCH_PREFIX.len(),
                body,
            });
            i = close + 1;
            continue;
        }
        if tokens[i].kind != TokenKind::Keyword(Keyword::Call) {
            i += 1;
            continue;
        }
        let start = if i > 0 && tokens[i - 1].kind == TokenKind::Keyword(Keyword::Optional) {
            tokens[i - 1].span.start
        } else {
            tokens[i].span.start
        };
        let mut j = i + 1;
        if tokens.get(j).map(|t| t.kind) == Some(TokenKind::LeftParen) {
            match matching(&tokens, j, TokenKind::LeftParen, TokenKind::RightParen) {
                Some(close) => j = close + 1,
                None => {
                    i += 1;
                    continue;
                }
            }
        }
        if tokens.get(j).map(|t| t.kind) != Some(TokenKind::LeftBrace) {
            i += 1;
            continue;
        }
        let Some(close) = matching(&tokens, j, TokenKind::LeftBrace, TokenKind::RightBrace) else {
            return Err(CypherError::Syntax {
                offset: base + tokens[j].span.start,
                message: "unclosed `{` of CALL subquery".to_string(),
            });
        };
        let body_start = tokens[j].span.end;
        let body_end = tokens[close].span.start;
        let after = transactions_suffix(src, &tokens, close + 1).unwrap_or(close + 1);
        let end = tokens[after - 1].span.end;
        if end - start < PLACEHOLDER.len() {
            return Err(CypherError::Syntax {
                offset: base + start,
                message: "empty CALL subquery".to_string(),
            });
        }
        let body = parse_neo4j(
            &orig[body_start..body_end],
            base + body_start,
            recovery,
            names,
            dialect,
        )?;
        if body.program.program.is_empty() {
            return Err(CypherError::Syntax {
                offset: base + body_start,
                message: "empty CALL subquery".to_string(),
            });
        }
        let mut placeholder = PLACEHOLDER.to_string();
        placeholder.push_str(&" ".repeat(end - start - PLACEHOLDER.len()));
        text.replace_range(start..end, &placeholder);
        subqueries.push(Subquery {
            clause_start: start,
            body_offset: body_start,
            body,
        });
        i = after;
    }
    let mut clause_forms = Vec::new();
    if let Some(g) = &gql {
        clause_forms.clone_from(&g.forms);
        for &(start, body_start, body_end) in &g.foreach {
            let body = parse_neo4j(
                &orig[body_start..body_end],
                base + body_start,
                recovery,
                names,
                dialect,
            )?;
            subqueries.push(Subquery {
                clause_start: start,
                body_offset: body_start,
                body,
            });
        }
        subqueries.sort_by_key(|s| s.clause_start);
        // A `FILTER` condition blanked behind `WITH *` or a `WHEN` query's condition:
        // parsed as `RETURN cond`.
        for &(start, from, to) in &g.filters {
            let body_text = format!("{RETURN_PREFIX}{}", &orig[from..to]);
            let offset = (base + from).saturating_sub(RETURN_PREFIX.len());
            let body = parse_neo4j(&body_text, offset, recovery, names, dialect)?;
            expression_subqueries.push(Subquery {
                clause_start: start,
                body_offset: from.saturating_sub(RETURN_PREFIX.len()),
                body,
            });
        }
        expression_subqueries.sort_by_key(|s| s.clause_start);
    }
    let (program, recovered) = match parse(&text) {
        Ok(program) => (program, None),
        Err(errors) => {
            let first = errors.diagnostics().first();
            let error = CypherError::Syntax {
                offset: base + first.map_or(0, |d| d.primary_span.start),
                // One line: ledgers and result files show it as is.
                message: first.map_or_else(
                    || "invalid query".to_string(),
                    |d| d.message.split_whitespace().collect::<Vec<_>>().join(" "),
                ),
            };
            match (recovery, parse_recovering(&text).value) {
                (Recovery::Allow, Some(program)) => (program, Some(error)),
                _ => return Err(error),
            }
        }
    };
    Ok(Parsed {
        text: orig.to_string(),
        program,
        subqueries,
        expression_subqueries,
        recovered,
        clause_forms,
    })
}

/// Prefix that makes a pattern predicate (the `WHERE` of a node or path
/// pattern) a query.
const RETURN_PREFIX: &str = "RETURN ";

/// The `WHERE` predicates inside node patterns `(n:L WHERE ...)` and
/// parenthesized path patterns `((a)-->(b) WHERE ...)`: (index of `WHERE`,
/// index of the closing `)`), in source order, outermost only.
///
/// open-cypher 0.5 decides whether a later `(` starts a pattern expression by
/// looking back for keywords such as `WHERE` without skipping completed `( )`
/// groups, so a node pattern after `(n WHERE n.x > 1)` fails to parse. In
/// [`Names::Neutralize`] mode these predicates are blanked out of the parsed
/// text and parsed on their own (as `RETURN <predicate>`, listed in
/// [`Parsed::expression_subqueries`], so the gate still sees any clause in
/// them). `any(x IN l WHERE ...)` and the other list predicates (a word
/// before the `(`) are expressions and are left alone.
fn pattern_wheres(src: &str, tokens: &[Token]) -> Vec<(usize, usize)> {
    use TokenKind as K;
    // One pass: the innermost open bracket before each token, and the closing
    // token of each opening one (linear, so a long query stays cheap).
    let mut enclosing: Vec<Option<usize>> = Vec::with_capacity(tokens.len());
    let mut closing: Vec<Option<usize>> = vec![None; tokens.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (k, t) in tokens.iter().enumerate() {
        enclosing.push(stack.last().copied());
        match t.kind {
            K::LeftParen | K::LeftBracket | K::LeftBrace => stack.push(k),
            K::RightParen | K::RightBracket | K::RightBrace => {
                if let Some(open) = stack.pop() {
                    closing[open] = Some(k);
                }
            }
            _ => {}
        }
    }
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (w, t) in tokens.iter().enumerate() {
        if t.kind != K::Keyword(Keyword::Where)
            || out.last().is_some_and(|&(_, c)| w < c)
            // `(where:L)`: a variable named `where`.
            || neo4j5::is_name_position(src, tokens, w)
        {
            continue;
        }
        let Some(open) = enclosing[w] else { continue };
        if tokens[open].kind != K::LeftParen {
            continue;
        }
        let path = tokens.get(open + 1).map(|t| t.kind) == Some(K::LeftParen);
        let node_head =
            !path && w - open <= MAX_NODE_HEAD_TOKENS && is_node_head(&tokens[open + 1..w]);
        let after_word = open > 0
            && matches!(
                tokens[open - 1].kind,
                K::Identifier | K::EscapedIdentifier | K::Keyword(_)
            )
            && !matches!(
                tokens[open - 1].kind,
                K::Keyword(Keyword::Match | Keyword::Optional | Keyword::Merge | Keyword::Create)
            );
        if !(node_head || path) || after_word {
            continue;
        }
        if let Some(close) = closing[open] {
            if close > w + 1 {
                out.push((w, close));
            }
        }
    }
    out
}

/// Longest node-pattern head (tokens between `(` and `WHERE`) [`pattern_wheres`] looks at.
const MAX_NODE_HEAD_TOKENS: usize = 512;

/// Whether `head` can stand between `(` and `WHERE` in a node pattern: a
/// variable, a label expression and a property map (`n:A|B {k: 1}`).
fn is_node_head(head: &[Token]) -> bool {
    use TokenKind as K;
    let mut braces = 0usize;
    for t in head {
        match t.kind {
            K::LeftBrace => braces += 1,
            K::RightBrace if braces > 0 => braces -= 1,
            _ if braces > 0 => {}
            K::Identifier
            | K::EscapedIdentifier
            | K::Keyword(_)
            | K::Colon
            | K::Pipe
            | K::Ampersand
            | K::Bang
            | K::Percent
            | K::Parameter => {}
            _ => return false,
        }
    }
    braces == 0
}

/// Prefix that makes the body of a pattern-form subquery expression a query.
const MATCH_PREFIX: &str = "MATCH ";
/// Placeholder body (without the closing brace) written over the braces of a
/// pattern-form subquery expression.
const PATTERN_PLACEHOLDER: &str = "{(k)";

/// A pattern-form subquery expression `EXISTS { pattern [WHERE ...] }` or
/// `COUNT { ... }` whose keyword is token `i`: the index of its closing brace
/// and its body parsed as `MATCH pattern [WHERE ...]`.
///
/// open-cypher 0.5 fails on labelled nodes in this form (`EXISTS { (n)-->(:Q)
/// }`), so the braces are cut out like `CALL { }` subqueries when the body
/// has a `:` (or `::`) token; other bodies are left to the crate.
fn pattern_subquery(
    src: &str,
    tokens: &[Token],
    i: usize,
    base: usize,
    recovery: Recovery,
    names: Names,
    dialect: Dialect,
) -> Result<Option<(usize, Parsed)>, CypherError> {
    let kind = |k: usize| tokens.get(k).map(|t| t.kind);
    let keyword = matches!(
        kind(i),
        Some(TokenKind::Keyword(Keyword::Exists | Keyword::Count))
    ) && (i == 0 || kind(i - 1) != Some(TokenKind::Dot));
    if !keyword || kind(i + 1) != Some(TokenKind::LeftBrace) {
        return Ok(None);
    }
    let pattern = match kind(i + 2) {
        Some(TokenKind::LeftParen) => true,
        Some(TokenKind::Identifier | TokenKind::EscapedIdentifier | TokenKind::Keyword(_)) => {
            kind(i + 3) == Some(TokenKind::Equal)
        }
        _ => false,
    };
    if !pattern {
        return Ok(None);
    }
    let Some(close) = matching(tokens, i + 1, TokenKind::LeftBrace, TokenKind::RightBrace) else {
        return Ok(None);
    };
    // Only labelled forms fail in the crate; the others keep their native parse.
    let labelled = tokens[i + 2..close]
        .iter()
        .any(|t| matches!(t.kind, TokenKind::Colon | TokenKind::DoubleColon));
    if !labelled {
        return Ok(None);
    }
    let (body_start, body_end) = (tokens[i + 1].span.end, tokens[close].span.start);
    if tokens[close].span.end - tokens[i + 1].span.start <= PATTERN_PLACEHOLDER.len() {
        return Ok(None);
    }
    let body_text = format!("{MATCH_PREFIX}{}", &src[body_start..body_end]);
    let body = parse_neo4j(
        &body_text,
        (base + body_start).saturating_sub(MATCH_PREFIX.len()),
        recovery,
        names,
        dialect,
    )?;
    Ok(Some((close, body)))
}

/// The `IN [n CONCURRENT] TRANSACTIONS [OF m ROW[S]] [ON ERROR ...] [REPORT
/// STATUS AS s]` suffix of a `CALL { ... }` subquery starting at token `k`
/// (Neo4j 5.26 Cypher manual, "CALL subqueries in transactions"): the index of
/// the token after it, or `None` when there is no such suffix. The counts `n`
/// and `m` may be expressions without brackets or clause keywords; at most
/// [`SUFFIX_EXPRESSION_TOKENS`] tokens each.
fn transactions_suffix(src: &str, tokens: &[Token], k: usize) -> Option<usize> {
    let word = |i: usize| -> Option<String> {
        let t = tokens.get(i)?;
        match t.kind {
            TokenKind::Keyword(_) | TokenKind::Identifier => {
                t.text(src).map(str::to_ascii_uppercase)
            }
            _ => None,
        }
    };
    // Tokens of a count expression, up to (not including) the word `stop`.
    let until = |from: usize, stop: &[&str]| -> Option<usize> {
        (from..tokens.len().min(from + SUFFIX_EXPRESSION_TOKENS + 1)).find_map(|i| {
            let w = word(i);
            if w.as_deref().is_some_and(|w| stop.contains(&w)) {
                return Some(Some(i));
            }
            let plain = match tokens[i].kind {
                TokenKind::Integer
                | TokenKind::Parameter
                | TokenKind::Identifier
                | TokenKind::Dot
                | TokenKind::Plus
                | TokenKind::Minus
                | TokenKind::Star
                | TokenKind::Slash => true,
                // `CONCURRENT` is no keyword of the crate; other keywords end the scan.
                _ => false,
            };
            (!plain).then_some(None)
        })?
    };
    if word(k).as_deref() != Some("IN") {
        return None;
    }
    let mut i = until(k + 1, &["TRANSACTIONS"])?;
    if i > k + 1 && word(i - 1).as_deref() != Some("CONCURRENT") {
        // `IN n TRANSACTIONS` without CONCURRENT is not Neo4j syntax.
        return None;
    }
    i += 1;
    if word(i).as_deref() == Some("OF") {
        i = until(i + 1, &["ROW", "ROWS"])? + 1;
    }
    if word(i).as_deref() == Some("ON") && word(i + 1).as_deref() == Some("ERROR") {
        i += 2;
        match word(i).as_deref() {
            Some("CONTINUE" | "BREAK" | "FAIL") => i += 1,
            Some("RETRY") => {
                i += 1;
                if word(i).as_deref() == Some("FOR") {
                    i = until(i + 1, &["SECOND", "SECONDS"])? + 1;
                }
                if word(i).as_deref() == Some("THEN") {
                    match word(i + 1).as_deref() {
                        Some("CONTINUE" | "BREAK" | "FAIL") => i += 2,
                        _ => return None,
                    }
                }
            }
            _ => return None,
        }
    }
    if word(i).as_deref() == Some("REPORT") {
        if word(i + 1).as_deref() != Some("STATUS") || word(i + 2).as_deref() != Some("AS") {
            return None;
        }
        match tokens.get(i + 3).map(|t| t.kind) {
            Some(TokenKind::Identifier | TokenKind::EscapedIdentifier | TokenKind::Keyword(_)) => {
                i += 4;
            }
            _ => return None,
        }
    }
    Some(i)
}

/// Most tokens of a count expression in a `IN TRANSACTIONS` suffix.
const SUFFIX_EXPRESSION_TOKENS: usize = 16;

/// Index of the token closing the bracket opened at `open`.
fn matching(tokens: &[Token], open: usize, left: TokenKind, right: TokenKind) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        if t.kind == left {
            depth += 1;
        } else if t.kind == right {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// Maximum nesting of `(`, `[` and `{` over the raw bytes (strings included,
/// which only over-estimates).
fn max_nesting(query: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for b in query.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}
