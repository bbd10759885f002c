//! Guarded parsing with the `open-cypher` crate, extended with Neo4j's
//! `CALL { ... }` subqueries.
//!
//! # Neo4j syntax beyond the crate
//!
//! `open-cypher` 0.5 has AST types for `CALL { ... }` subqueries but its
//! grammar does not accept them (nor `FOREACH`, `LOAD CSV`, `USE`, `INSERT`).
//! kgbench therefore pre-processes the token stream: every
//! `[OPTIONAL] CALL [( ... )] { body }` is cut out, its body is parsed on its
//! own (recursively, so nested subqueries and `UNION` inside the body work),
//! and the region is replaced in the outer text by a placeholder procedure
//! call `CALL k()` padded with spaces to the same byte length, so every span of
//! the outer parse still points into the original text. The placeholders are
//! listed in [`Parsed::subqueries`] by their byte offset. `CALL { ... } IN
//! TRANSACTIONS ...` is not rewritten beyond the braces, so the outer query
//! then fails to parse (callers fall back or report a syntax error).
//!
//! # Guards
//!
//! [`with_parsed`] catches panics inside the parser or the closure
//! ([`CypherError::Internal`]); inputs longer than [`SMALL_INPUT_BYTES`] are
//! parsed on a scoped thread with a [`LARGE_STACK_BYTES`] stack, because the
//! tree (and its recursive traversal and drop) can be as deep as the input is
//! long. Inputs over [`MAX_INPUT_BYTES`] or nested deeper than
//! [`MAX_NESTING`] brackets are refused without parsing.

use std::panic::{catch_unwind, AssertUnwindSafe};

use open_cypher::{lex, parse, parse_recovering, Keyword, ParsedProgram, Token, TokenKind};

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
    /// With [`Recovery::Allow`]: the strict parser's error when the tree
    /// (of this text, not of its subqueries) comes from error recovery and may
    /// contain error nodes.
    pub recovered: Option<CypherError>,
}

/// Whether [`with_parsed`] may fall back to the parser's error recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Strict: any syntax error fails.
    Deny,
    /// On a syntax error, use `open_cypher::parse_recovering` (valid clauses
    /// around malformed regions are kept, error nodes mark the rest) when it
    /// yields a query; [`Parsed::recovered`] then holds the strict error.
    Allow,
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
}

/// Parse `query` and apply `f` to the result, with the guards described in
/// the module documentation. Never panics.
///
/// # Errors
///
/// [`CypherError`] when the query is empty, too large, or does not parse.
pub fn with_parsed<T, F>(query: &str, recovery: Recovery, f: F) -> Result<T, CypherError>
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
            let parsed = parse_neo4j(query, 0, recovery)?;
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
fn parse_neo4j(src: &str, base: usize, recovery: Recovery) -> Result<Parsed, CypherError> {
    // Without the letters of `CALL` (any case) there is no subquery to cut out: skip lexing.
    let may_call = src
        .as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"call"));
    let tokens: Vec<Token> = if may_call {
        lex(src)
            .tokens
            .into_iter()
            .filter(|t| !t.is_trivia())
            .collect()
    } else {
        Vec::new()
    };
    let mut text = src.to_string();
    let mut subqueries = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
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
        let end = tokens[close].span.end;
        if end - start < PLACEHOLDER.len() {
            return Err(CypherError::Syntax {
                offset: base + start,
                message: "empty CALL subquery".to_string(),
            });
        }
        let body = parse_neo4j(&src[body_start..body_end], base + body_start, recovery)?;
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
        i = close + 1;
    }
    let (program, recovered) = match parse(&text) {
        Ok(program) => (program, None),
        Err(errors) => {
            let first = errors.diagnostics().first();
            let error = CypherError::Syntax {
                offset: base + first.map_or(0, |d| d.primary_span.start),
                message: first.map_or_else(|| "invalid query".to_string(), |d| d.message.clone()),
            };
            match (recovery, parse_recovering(&text).value) {
                (Recovery::Allow, Some(program)) => (program, Some(error)),
                _ => return Err(error),
            }
        }
    };
    Ok(Parsed {
        text: src.to_string(),
        program,
        subqueries,
        recovered,
    })
}

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
