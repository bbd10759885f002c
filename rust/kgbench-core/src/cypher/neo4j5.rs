//! Neo4j 5 expression syntax beyond the `open-cypher` grammar, rewritten to
//! same-length openCypher before parsing.
//!
//! The `open-cypher` 0.5 grammar (openCypher 2024.3) has no type predicates
//! and no normalization predicates. Neo4j 5.26 accepts both in read queries
//! (Cypher manual, "Type predicate expressions" and "String operators"):
//!
//! - `expr IS :: TYPE`, `expr IS NOT :: TYPE`, `expr :: TYPE` (and `IS [NOT]
//!   TYPED TYPE`), where `TYPE` is a
//!   Cypher value type (`STRING`, `INTEGER NOT NULL`, `LIST<INTEGER>`,
//!   `ANY<STRING | INTEGER>`, `STRING | INTEGER`, `LOCAL DATETIME`, ...);
//! - `expr IS [NOT] [NFC|NFD|NFKC|NFKD] NORMALIZED`.
//!
//! [`rewrite`] replaces each such predicate suffix by the comparison suffix
//! `=0` (`<>0` when negated), right-aligned in spaces to the byte length of
//! the original, so every span of the parse of the rewritten text (including
//! that of the enclosing expression) points at the same place in the original
//! text, which callers keep for output. (`IS NULL` would be closer in
//! precedence, but open-cypher 0.5 fails on `[x IN l WHERE x IS NULL | x]`.)
//! Only type names, `<`, `>`, `|`, `!` and `NOT NULL` are covered by a
//! replacement, never a clause keyword, so the rewrite cannot hide a write
//! clause from the gate. A suffix whose type does not follow the grammar below
//! is left alone (the parse then fails as Neo4j's would).
//!
//! Type grammar (Neo4j 5 Cypher manual, "Values and types / Types and their
//! synonyms"): `type := member ('|' member)*`, `member := base [NOT NULL | !]`,
//! `base := ANY '<' type '>' | (LIST | ARRAY) '<' type '>' | ANY [NODE | VERTEX |
//! RELATIONSHIP | EDGE | MAP | VALUE | PROPERTY VALUE] | PROPERTY VALUE |
//! (LOCAL | ZONED) (TIME | DATETIME) | (TIME | TIMESTAMP) (WITH | WITHOUT)
//! (TIMEZONE | TIME ZONE) | SIGNED INTEGER | one of BOOL BOOLEAN STRING VARCHAR
//! INT INTEGER FLOAT DATE DURATION POINT NODE VERTEX RELATIONSHIP EDGE MAP PATH
//! NOTHING NULL` (checked against Neo4j 5.26, which refuses a bare `TIME`,
//! `TIMESTAMP`, `DATETIME`, `INT64` and `FLOAT64`).

use open_cypher::{Keyword, Token, TokenKind};

/// Replacement of a predicate suffix (`IS :: T`, `:: T`, `IS NORMALIZED`).
const EQUAL_SUFFIX: &str = "=0";
/// Replacement of a negated predicate suffix (`IS NOT :: T`, `IS NOT NORMALIZED`).
const NOT_EQUAL_SUFFIX: &str = "<>0";

/// One-word type names.
const SIMPLE_TYPES: &[&str] = &[
    "BOOL",
    "BOOLEAN",
    "STRING",
    "VARCHAR",
    "INT",
    "INTEGER",
    "FLOAT",
    "DATE",
    "DURATION",
    "POINT",
    "NODE",
    "VERTEX",
    "RELATIONSHIP",
    "EDGE",
    "MAP",
    "PATH",
    "NOTHING",
    "NULL",
];

/// `tokens` (trivia removed) of `text` with the Neo4j 5 predicates described in
/// the module documentation rewritten; `None` when there is nothing to rewrite.
/// The result has the byte length of `text`.
#[must_use]
pub fn rewrite(text: &str, tokens: &[Token]) -> Option<String> {
    let mut out: Option<String> = None;
    let mut i = 0;
    while i < tokens.len() {
        let Some((start, end, replacement)) = predicate_at(text, tokens, i) else {
            i += 1;
            continue;
        };
        let (from, to) = (tokens[start].span.start, tokens[end - 1].span.end);
        let buf = out.get_or_insert_with(|| text.to_string());
        // Right-aligned, so spans of enclosing expressions end where the
        // original predicate ends.
        let mut piece = " ".repeat((to - from).saturating_sub(replacement.len()));
        piece.push_str(replacement);
        if piece.len() == to - from {
            buf.replace_range(from..to, &piece);
        }
        i = end;
    }
    out
}

/// A predicate suffix starting at token `i`: (first token, end token
/// (exclusive), replacement).
fn predicate_at(text: &str, tokens: &[Token], i: usize) -> Option<(usize, usize, &'static str)> {
    let kind = |k: usize| tokens.get(k).map(|t| t.kind);
    match kind(i)? {
        TokenKind::Keyword(Keyword::Is) => {
            let negated = kind(i + 1) == Some(TokenKind::Keyword(Keyword::Not));
            let at = if negated { i + 2 } else { i + 1 };
            let end = if kind(at) == Some(TokenKind::DoubleColon) {
                parse_type(text, tokens, at + 1)?
            } else if word(text, tokens, at).as_deref() == Some("TYPED") {
                // `IS [NOT] TYPED T`, the long form of `IS [NOT] :: T`.
                parse_type(text, tokens, at + 1)?
            } else {
                let form = usize::from(
                    word(text, tokens, at)
                        .is_some_and(|w| matches!(w.as_str(), "NFC" | "NFD" | "NFKC" | "NFKD")),
                );
                if word(text, tokens, at + form).as_deref() != Some("NORMALIZED") {
                    return None;
                }
                at + form + 1
            };
            Some((
                i,
                end,
                if negated {
                    NOT_EQUAL_SUFFIX
                } else {
                    EQUAL_SUFFIX
                },
            ))
        }
        TokenKind::DoubleColon => {
            // `expr :: TYPE`; `IS [NOT] ::` was handled at the `IS`.
            let end = parse_type(text, tokens, i + 1)?;
            Some((i, end, EQUAL_SUFFIX))
        }
        _ => None,
    }
}

/// Upper-cased text of token `k` when it is a word (keyword or identifier).
fn word(text: &str, tokens: &[Token], k: usize) -> Option<String> {
    let t = tokens.get(k)?;
    match t.kind {
        TokenKind::Keyword(_) | TokenKind::Identifier => t.text(text).map(str::to_ascii_uppercase),
        _ => None,
    }
}

/// Parse a type at token `k`; the index after it.
fn parse_type(text: &str, tokens: &[Token], k: usize) -> Option<usize> {
    parse_type_depth(text, tokens, k, 0)
}

fn parse_type_depth(text: &str, tokens: &[Token], mut k: usize, depth: usize) -> Option<usize> {
    if depth > 32 {
        return None;
    }
    k = parse_member(text, tokens, k, depth)?;
    while tokens.get(k).map(|t| t.kind) == Some(TokenKind::Pipe) {
        // Greedy only when a type follows (`[x IN l WHERE x :: INT | x]`).
        match parse_member(text, tokens, k + 1, depth) {
            Some(next) => k = next,
            None => break,
        }
    }
    Some(k)
}

fn parse_member(text: &str, tokens: &[Token], k: usize, depth: usize) -> Option<usize> {
    let mut k = parse_base(text, tokens, k, depth)?;
    if word(text, tokens, k).as_deref() == Some("NOT")
        && word(text, tokens, k + 1).as_deref() == Some("NULL")
    {
        k += 2;
    } else if tokens.get(k).map(|t| t.kind) == Some(TokenKind::Bang) {
        k += 1;
    }
    Some(k)
}

fn parse_base(text: &str, tokens: &[Token], k: usize, depth: usize) -> Option<usize> {
    let w = word(text, tokens, k)?;
    let next = word(text, tokens, k + 1);
    let angle = || -> Option<usize> {
        if tokens.get(k + 1).map(|t| t.kind) != Some(TokenKind::Less) {
            return None;
        }
        let inner = parse_type_depth(text, tokens, k + 2, depth + 1)?;
        (tokens.get(inner).map(|t| t.kind) == Some(TokenKind::Greater)).then_some(inner + 1)
    };
    match w.as_str() {
        "LIST" | "ARRAY" => angle(),
        "ANY" => {
            if let Some(end) = angle() {
                return Some(end);
            }
            match next.as_deref() {
                Some("NODE" | "VERTEX" | "RELATIONSHIP" | "EDGE" | "MAP" | "VALUE") => Some(k + 2),
                Some("PROPERTY") if word(text, tokens, k + 2).as_deref() == Some("VALUE") => {
                    Some(k + 3)
                }
                _ => Some(k + 1),
            }
        }
        "PROPERTY" => (next.as_deref() == Some("VALUE")).then_some(k + 2),
        "SIGNED" => (next.as_deref() == Some("INTEGER")).then_some(k + 2),
        "LOCAL" | "ZONED" => matches!(next.as_deref(), Some("TIME" | "DATETIME")).then_some(k + 2),
        "TIME" | "TIMESTAMP" if matches!(next.as_deref(), Some("WITH" | "WITHOUT")) => {
            match word(text, tokens, k + 2).as_deref() {
                Some("TIMEZONE") => Some(k + 3),
                Some("TIME") if word(text, tokens, k + 3).as_deref() == Some("ZONE") => Some(k + 4),
                _ => None,
            }
        }
        _ if SIMPLE_TYPES.contains(&w.as_str()) => Some(k + 1),
        _ => None,
    }
}

/// Keywords of the crate that [`neutralize_names`] renames when they stand in a
/// name position (upper case).
const NAME_KEYWORDS: &[Keyword] = &[
    Keyword::Create,
    Keyword::Delete,
    Keyword::Detach,
    Keyword::Merge,
    Keyword::Set,
    Keyword::Remove,
    Keyword::Match,
    Keyword::Optional,
    Keyword::Return,
    Keyword::Unwind,
    Keyword::Where,
    Keyword::Union,
    Keyword::Call,
    Keyword::Yield,
    Keyword::Limit,
    Keyword::Skip,
    Keyword::Order,
    Keyword::Offset,
];

/// Keywords of the crate that start an expression when a `(` or `{` follows
/// (`count(x)`, `COUNT { }`, `exists(...)`, `collect(x)`, `any(x IN l ...)`)
/// and are names otherwise (`count(p) AS count ORDER BY count DESC`):
/// [`neutralize_names`] renames them in a name position without that bracket.
const FUNCTION_KEYWORDS: &[Keyword] = &[
    Keyword::Count,
    Keyword::Exists,
    Keyword::Collect,
    Keyword::Any,
    Keyword::None,
    Keyword::Single,
    Keyword::Reduce,
    Keyword::Trim,
    Keyword::ShortestPath,
    Keyword::AllShortestPaths,
];

/// Whether the keyword at `tokens[i]` is a name that [`neutralize_names`]
/// renames (see the keyword lists); `chain` bounds the look-back over
/// keyword-named names before it.
fn keyword_is_name(query: &str, tokens: &[Token], i: usize, chain: usize) -> bool {
    let TokenKind::Keyword(k) = tokens[i].kind else {
        return false;
    };
    let loose = NAME_KEYWORDS.contains(&k)
        || (FUNCTION_KEYWORDS.contains(&k)
            && !matches!(
                tokens.get(i + 1).map(|n| n.kind),
                // `count(x)`, `COUNT { }`, `ANY SHORTEST`, `ANY 2 PATHS`
                Some(
                    TokenKind::LeftParen
                        | TokenKind::LeftBrace
                        | TokenKind::Integer
                        | TokenKind::Keyword(Keyword::Shortest)
                )
            ));
    (loose && name_position(query, tokens, i, chain))
        || (STRICT_NAME_KEYWORDS.contains(&k) && is_strict_name_position(query, tokens, i))
}

/// Whether the keyword at `tokens[p]` (before a word being judged) is itself
/// a name: as [`keyword_is_name`] decides for the keywords it renames, by
/// [`is_name_position`]'s rules for the others (`AS contains ORDER BY`).
fn previous_is_name(query: &str, tokens: &[Token], p: usize, chain: usize) -> bool {
    match tokens[p].kind {
        TokenKind::Keyword(k)
            if NAME_KEYWORDS.contains(&k)
                || FUNCTION_KEYWORDS.contains(&k)
                || STRICT_NAME_KEYWORDS.contains(&k) =>
        {
            keyword_is_name(query, tokens, p, chain)
        }
        _ => name_position(query, tokens, p, chain),
    }
}

/// Keywords that also stand inside expressions and clauses where
/// [`is_name_position`]'s looser rules would take them for names (`RETURN
/// CASE WHEN`, `count(DISTINCT x)`, `WITH *`): renamed only in
/// [`is_strict_name_position`]s (`MATCH (case:X) RETURN x AS distinct`).
const STRICT_NAME_KEYWORDS: &[Keyword] = &[
    Keyword::With,
    Keyword::Case,
    Keyword::Distinct,
    Keyword::Unwind,
    Keyword::Yield,
    Keyword::All,
    Keyword::By,
    Keyword::In,
    Keyword::Is,
    Keyword::As,
    Keyword::Not,
    Keyword::Then,
    Keyword::Null,
    Keyword::True,
    Keyword::False,
];

/// Literal keywords (`null`, `true`, `false`) are names only where they declare a list
/// variable (`[null IN l | ...]`, `all(true IN l WHERE ...)`; Neo4j 5.26 and 2026.08.1
/// accept them, the differential corpus); elsewhere they stay literals.
const LITERAL_KEYWORDS: &[Keyword] = &[Keyword::Null, Keyword::True, Keyword::False];

/// Keywords that cannot start an expression nor continue one after `CASE`, `IS` or `NOT`: a
/// `CASE`, `IS` or `NOT` before one of them is a name (`WITH case WHERE case > 1`, `AS not
/// ORDER BY not LIMIT 2`; Neo4j 5.26 accepts them, the differential corpus).
const CLAUSE_AFTER_NAME: &[Keyword] = &[
    Keyword::Where,
    Keyword::Return,
    Keyword::With,
    Keyword::Order,
    Keyword::Skip,
    Keyword::Limit,
    Keyword::Offset,
    Keyword::As,
    Keyword::And,
    Keyword::Or,
    Keyword::Xor,
    Keyword::Desc,
    Keyword::Asc,
    Keyword::Descending,
    Keyword::Ascending,
    Keyword::Union,
    Keyword::Match,
    Keyword::Optional,
    Keyword::Unwind,
    Keyword::Create,
    Keyword::Merge,
    Keyword::Set,
    Keyword::Delete,
    Keyword::Detach,
    Keyword::Remove,
];

/// A name position judged only from a `.`, `:` or `::` before, an `AS`
/// (itself no name) before, or a token after that no keyword takes.
fn is_strict_name_position(query: &str, tokens: &[Token], i: usize) -> bool {
    use TokenKind as K;
    let next = tokens.get(i + 1).map(|t| t.kind);
    let this = tokens[i].kind;
    if let K::Keyword(k) = this {
        if LITERAL_KEYWORDS.contains(&k) {
            // `[null IN l | ...]`: a list variable; any other `null` is the literal.
            return next == Some(K::Keyword(Keyword::In))
                && matches!(
                    i.checked_sub(1).map(|p| tokens[p].kind),
                    Some(K::LeftBracket | K::LeftParen)
                );
        }
    }
    let previous = i.checked_sub(1).map(|p| tokens[p].kind);
    // `IS NOT NULL`, `IS NOT :: T`: the operator.
    if this == K::Keyword(Keyword::Not) && previous == Some(K::Keyword(Keyword::Is)) {
        return false;
    }
    if matches!(this, K::Keyword(Keyword::Case | Keyword::Is | Keyword::Not))
        && matches!(next, Some(K::Keyword(k)) if CLAUSE_AFTER_NAME.contains(&k))
        // The keyword after is no name itself (`NOT detach.set`, `NOT set = 1`); at the
        // end only a sort direction (`ORDER BY case DESC`).
        && match tokens.get(i + 2) {
            None => matches!(
                next,
                Some(K::Keyword(
                    Keyword::Desc | Keyword::Asc | Keyword::Descending | Keyword::Ascending
                ))
            ),
            Some(_) => !followed_like_a_name(query, tokens, i + 1),
        }
    {
        return true;
    }
    if let Some(p) = i.checked_sub(1).and_then(|p| tokens.get(p)) {
        match p.kind {
            K::Dot | K::Colon | K::DoubleColon => return true,
            K::Keyword(Keyword::As) if !is_name_position(query, tokens, i - 1) => return true,
            // `WITH in WHERE in > 1`, `RETURN by`: `IN` and `BY` never start
            // an expression.
            K::Keyword(
                Keyword::With
                | Keyword::Return
                | Keyword::Distinct
                | Keyword::Where
                | Keyword::And
                | Keyword::Or
                | Keyword::Xor,
            )
            | K::Comma
                if matches!(
                    tokens[i].kind,
                    K::Keyword(Keyword::In | Keyword::By | Keyword::Is)
                ) && !previous_is_name(query, tokens, i - 1, MAX_NAME_CHAIN) =>
            {
                return true;
            }
            // `[all IN l | ...]`, `all(is IN l WHERE ...)`: a list variable.
            K::LeftBracket | K::LeftParen if next == Some(K::Keyword(Keyword::In)) => {
                return true;
            }
            // `ORDER BY all DESC`, `BY is,`: a sort key (not `BY case WHEN`,
            // not a call `BY all(...)`).
            K::Keyword(Keyword::By)
                if !matches!(tokens[i].kind, K::Keyword(Keyword::Case | Keyword::Not))
                    && !is_name_position(query, tokens, i - 1)
                    && !matches!(next, Some(K::LeftParen | K::LeftBrace)) =>
            {
                return true;
            }
            _ => {}
        }
    }
    followed_like_a_name(query, tokens, i)
}

/// `text` with clause keywords that are used as names (variables, aliases,
/// labels, relationship types, property and map keys: `MATCH (delete:Set)
/// -[:SET]->(x {set: 1}) RETURN delete AS merge`) replaced by identifiers of
/// the same byte length (`_` + the rest of the word: `_elete`, `_ET`), or
/// `None` when there are none. Neo4j 5 accepts such names; open-cypher 0.5
/// takes them for clause keywords when it decides, from the tokens before a
/// `(` or `:`, whether a pattern or label predicate starts, and then fails.
///
/// The `|` of label expressions in node patterns (`(n:A|B)`) becomes `&`:
/// the crate takes a `|` before a later `(` for a list comprehension's and
/// fails (provenance copies the original text, so no label changes).
///
/// A word is renamed only where [`is_name_position`] proves it is no clause
/// keyword, so a writing clause is never renamed away; the same word is
/// always renamed the same way, so references still match their
/// declarations. Callers that need a name take it from the original text at
/// the parse tree's span.
#[must_use]
pub fn neutralize_names(text: &str, tokens: &[Token]) -> Option<String> {
    let mut out: Option<String> = None;
    for (i, t) in tokens.iter().enumerate() {
        let word = match t.kind {
            // `|` of a label expression: `&` (same length); any label will do.
            TokenKind::Pipe if label_alternation(tokens, i) => "|",
            TokenKind::Keyword(_) if keyword_is_name(text, tokens, i, MAX_NAME_CHAIN) => {
                let Some(word) = t.text(text) else { continue };
                word
            }
            _ => continue,
        };
        // A word inside a region [`rewrite`] replaced (`:: ANY<STRING>`) is gone.
        if t.kind != TokenKind::Pipe
            && (!word.is_ascii()
                || word.len() < 2
                || !word.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        {
            continue;
        }
        let buf = out.get_or_insert_with(|| text.to_string());
        if t.kind == TokenKind::Pipe {
            buf.replace_range(t.span.start..t.span.end, "&");
            // `[:A|:B]`, the relationship-type alternation Neo4j 5 still
            // accepts (deprecated): the second colon becomes a space.
            if let Some(colon) = tokens.get(i + 1) {
                if colon.kind == TokenKind::Colon && in_relationship_types(tokens, i) {
                    buf.replace_range(colon.span.start..colon.span.end, " ");
                }
            }
            continue;
        }
        let mut renamed = String::with_capacity(word.len());
        renamed.push('_');
        renamed.push_str(&word[1..]);
        buf.replace_range(t.span.start..t.span.end, &renamed);
    }
    out
}

/// Whether the `|` at `p` separates the types of a relationship pattern
/// (`[r:A|B]`, `[:A|:B*1..2]`): a label alternation whose innermost enclosing
/// bracket is a `[`.
pub(crate) fn in_relationship_types(tokens: &[Token], p: usize) -> bool {
    use TokenKind as K;
    if !label_alternation(tokens, p) {
        return false;
    }
    let mut depth = 0usize;
    for t in tokens[..p].iter().rev().take(256) {
        match t.kind {
            K::RightParen | K::RightBracket | K::RightBrace => depth += 1,
            K::LeftParen | K::LeftBrace if depth == 0 => return false,
            K::LeftBracket if depth == 0 => return true,
            K::LeftParen | K::LeftBracket | K::LeftBrace => depth -= 1,
            _ => {}
        }
    }
    false
}

/// Clause keywords an expression with a unary `+` may follow.
const SIGNED_AFTER: &[&str] = &[
    "RETURN", "WITH", "WHERE", "LIMIT", "SKIP", "OFFSET", "UNWIND", "YIELD", "THEN", "ELSE", "NOT",
];

/// Keywords after which a word is an expression (a variable), never a clause.
const EXPRESSION_BEFORE: &[&str] = &[
    "RETURN", "WITH", "WHERE", "DISTINCT", "AND", "OR", "XOR", "NOT", "UNWIND", "IN", "BY", "CASE",
    "WHEN", "THEN", "ELSE", "SKIP", "LIMIT", "OFFSET", "YIELD", "AS", "IS", "CONTAINS",
];

/// Whether the word at `tokens[i]` certainly is a name (variable, alias,
/// property key, label, type, map key) rather than a clause keyword, judged
/// from its neighbours (for the gate's lexical scan and [`neutralize_names`]):
///
/// - after `.` (property key), `:` (label, type, map key) or `::` (value
///   type);
/// - after a token that must be followed by an expression: `(`, `[`, `,`, a
///   comparison or arithmetic operator other than `*`, `+` and `>` (`WITH *
///   SET ...` is a clause, and so is `RETURN` in `MATCH (a) ((b)-->(c))+
///   RETURN a` and `MERGE` in `WHERE x :: LIST<INTEGER> MERGE ...`), or one of
///   [`EXPRESSION_BEFORE`] (`RETURN set`, `AS set`);
/// - inside a label expression: `:A|Set`, `:A&!Merge` (a strict alternation of
///   words and `|`, `&`, `!`, `%` back to a `:`);
/// - before a token no clause keyword can be followed by: `)`, `]`, `}`, `,`,
///   `.`, `:`, `::`, `=`, `<>`, `<`, `<=`, `>`, `>=`, `+`, `+=`, `/`, `%`, `^`,
///   `=~`, `..`, `|`, `;`, or the end of the query.
pub(crate) fn is_name_position(query: &str, tokens: &[Token], i: usize) -> bool {
    name_position(query, tokens, i, MAX_NAME_CHAIN)
}

/// How many keyword-named names in a row [`is_name_position`] looks back over
/// (`AS where WHERE where > 1`: the second `WHERE` follows a name, not the
/// keyword).
const MAX_NAME_CHAIN: usize = 8;

fn name_position(query: &str, tokens: &[Token], i: usize, chain: usize) -> bool {
    use TokenKind as K;
    let previous = i.checked_sub(1).and_then(|p| tokens.get(p));
    if let Some(p) = previous {
        let expression_before = match p.kind {
            K::Dot
            | K::Colon
            | K::DoubleColon
            | K::LeftParen
            | K::LeftBracket
            | K::Comma
            | K::Equal
            | K::NotEqual
            | K::Less
            | K::LessEqual
            | K::GreaterEqual
            | K::Minus
            | K::Slash
            | K::Percent
            | K::Caret
            | K::RegexMatch
            | K::DotDot => true,
            K::Keyword(_) | K::Identifier => {
                p.text(query)
                    .is_some_and(|t| EXPRESSION_BEFORE.iter().any(|k| k.eq_ignore_ascii_case(t)))
                    // The word before is itself a name (`AS limit RETURN`).
                    && !(matches!(p.kind, K::Keyword(_))
                        && chain > 0
                        && previous_is_name(query, tokens, i - 1, chain - 1))
            }
            _ => false,
        };
        if expression_before || in_label_expression(tokens, i) {
            return true;
        }
    }
    followed_like_a_name(query, tokens, i)
}

/// Whether the token after `tokens[i]` is one no keyword can be followed by
/// (see [`is_name_position`]), or there is none.
fn followed_like_a_name(query: &str, tokens: &[Token], i: usize) -> bool {
    use TokenKind as K;
    // `RETURN +1`, `LIMIT +2`: a unary sign after a clause keyword.
    if tokens.get(i + 1).map(|t| t.kind) == Some(K::Plus)
        && tokens[i]
            .text(query)
            .is_some_and(|w| SIGNED_AFTER.iter().any(|k| k.eq_ignore_ascii_case(w)))
    {
        return false;
    }
    match tokens.get(i + 1).map(|t| t.kind) {
        None => true,
        Some(next) => matches!(
            next,
            K::RightParen
                | K::RightBracket
                | K::RightBrace
                | K::Comma
                | K::Dot
                | K::Colon
                | K::DoubleColon
                | K::Equal
                | K::NotEqual
                | K::Less
                | K::LessEqual
                | K::Greater
                | K::GreaterEqual
                | K::Plus
                | K::PlusEqual
                | K::Slash
                | K::Percent
                | K::Caret
                | K::RegexMatch
                | K::DotDot
                | K::Pipe
                | K::Semicolon
        ),
    }
}

/// Whether word `i` continues a label expression `:A|B&!C` (words and the
/// operators `|`, `&`, `!`, `%` strictly alternating back to a `:` or `::`).
/// `FOREACH (x IN l | SET ...)` is no label expression: `IN` breaks the
/// alternation.
fn in_label_expression(tokens: &[Token], i: usize) -> bool {
    use TokenKind as K;
    let mut k = i;
    let mut expect_operator = true;
    for _ in 0..64 {
        let Some(prev) = k.checked_sub(1) else {
            return false;
        };
        let kind = tokens[prev].kind;
        if expect_operator {
            match kind {
                K::Pipe | K::Ampersand => expect_operator = false,
                K::Bang => {}
                K::Colon | K::DoubleColon => return k != i,
                _ => return false,
            }
        } else {
            match kind {
                K::Bang => {}
                K::Identifier | K::EscapedIdentifier | K::Keyword(_) | K::Percent => {
                    expect_operator = true;
                }
                _ => return false,
            }
        }
        k = prev;
    }
    false
}

/// Whether the `|` at `p` separates labels after a `:` (`:A|B|C`, `:A&B|C`;
/// not after `::`, where it separates value types).
fn label_alternation(tokens: &[Token], p: usize) -> bool {
    use TokenKind as K;
    let mut k = p;
    let mut expect_word = true;
    for _ in 0..64 {
        let Some(prev) = k.checked_sub(1) else {
            return false;
        };
        match (expect_word, tokens[prev].kind) {
            (_, K::Bang) => {}
            (true, K::Identifier | K::EscapedIdentifier | K::Keyword(_) | K::Percent) => {
                expect_word = false;
            }
            (false, K::Pipe | K::Ampersand) => expect_word = true,
            (false, K::Colon) => return true,
            _ => return false,
        }
        k = prev;
    }
    false
}
