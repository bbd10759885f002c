//! Neo4j clause forms outside the `open-cypher` grammar, rewritten to
//! openCypher of the same byte length before parsing (issue 29).
//!
//! [`rewrite`] runs first on every (sub)query text [`super::parse`] parses.
//! Each rewrite keeps the byte length (so spans of the parse tree still index
//! the text as given) and, where the clause it stands for matters to a
//! consumer (a write for the gate, a `SHOW` command that is no procedure
//! call), records the clause's start and its form in [`Rewritten::forms`]
//! (carried as [`super::parse::Parsed::clause_forms`]). The forms, checked
//! against Neo4j 5.26.30 and 2026.08.1 (Cypher 25) with `EXPLAIN` in the
//! differential corpus (`tests/data/cypher/neo4j`):
//!
//! - `SHOW ...` commands (`SHOW FUNCTIONS`, `SHOW INDEXES YIELD name ...`;
//!   Neo4j 5 Cypher manual, "SHOW" commands): the words after `SHOW` up to
//!   `YIELD` / `WHERE` / `RETURN` become a `CALL k()` placeholder (form
//!   `SHOW`: a read of metadata, no procedure call, no provenance).
//! - `INSERT` (GQL's `CREATE`) becomes `CREATE` (form `INSERT`).
//! - `NODETACH DELETE` becomes `DELETE` (form `NODETACH DELETE`).
//! - `LOAD CSV [WITH HEADERS] FROM url AS row [FIELDTERMINATOR s]` becomes
//!   `UNWIND url AS row` (form `LOAD CSV`).
//! - `FOREACH (x IN list | updates)` becomes a `CALL k()` placeholder whose
//!   body (`updates`) is parsed as a subquery (form `FOREACH`).
//! - Dynamic labels and types `:$(expr)`, `:$any(expr)`, `:$all(expr)` in
//!   patterns, `SET` and `REMOVE` become an escaped name of the same length.
//! - `trim(BOTH|LEADING|TRAILING [chars] FROM s)` becomes `trim(chars, s)`.
//! - The extended simple `CASE x WHEN > 1 THEN ...` (comparison operator
//!   after `WHEN`): the operator is blanked.
//! - `... FINISH` (a query that returns nothing): `FINISH` is blanked (the
//!   crate accepts a query that ends with a reading clause).
//! - A standalone `ORDER BY ... [SKIP ..] [LIMIT ..]` after `MATCH` (GQL;
//!   Neo4j 5.26 accepts `MATCH (n) ORDER BY n.x RETURN n`): blanked (the
//!   order does not change what the query reads or writes).
//! - Cypher 25 only (the dialect's rules, [`Dialect::accepts`]): match modes
//!   `MATCH REPEATABLE ELEMENTS` / `MATCH DIFFERENT RELATIONSHIPS` (blanked),
//!   `LET x = e, ...` (becomes `SET x = e, ...`, form `LET`: no write for the
//!   gate, the analysis declares each `x`), `FILTER [WHERE] cond` (after a `MATCH` pattern or
//!   after a `WITH` without a `WHERE`: becomes that clause's `WHERE`; anywhere else, after
//!   `UNWIND`, `CALL { }`, `LET`, another `FILTER` or a `WITH ... WHERE`, it becomes `WITH *`,
//!   and a condition without `WHERE` is blanked and parsed on its own as `RETURN cond`,
//!   [`Rewritten::filters`]), `RETURN ... GROUP BY keys`
//!   (blanked: Cypher groups implicitly) and the conditional query `WHEN cond
//!   THEN query [WHEN ...] [ELSE query]` (one placeholder, form `WHEN`, each
//!   branch parsed as a subquery, each condition as `RETURN cond`). Neo4j 5.26
//!   refuses all of them.
//!
//! [`rewrite`] is skipped when a cheap byte scan finds none of its trigger
//! words (`load` and `foreach` count only as `LOAD CSV` and `FOREACH (`, as
//! both are common names).

use open_cypher::{lex, Token, TokenKind};

use super::dialect::{Dialect, Form};

/// A text rewritten by [`rewrite`].
#[derive(Debug)]
pub(crate) struct Rewritten {
    /// The rewritten text (same byte length as the input).
    pub text: String,
    /// (byte offset of a clause in the text, the form it was written in).
    pub forms: Vec<(usize, &'static str)>,
    /// `FOREACH` regions: (placeholder start, body start, body end).
    pub foreach: Vec<(usize, usize, usize)>,
    /// Conditions parsed on their own as `RETURN cond` (a `FILTER` condition blanked behind
    /// `WITH *`, the conditions of a `WHEN` query): (clause start, condition start, end).
    pub filters: Vec<(usize, usize, usize)>,
}

/// Whether `src` may hold a form [`rewrite`] handles (a cheap byte scan;
/// `ORDER` counts only before any `RETURN` / `WITH`, where a standalone
/// `ORDER BY` stands).
fn may_apply(src: &str) -> bool {
    let b = src.as_bytes();
    if b.contains(&b'$') {
        return true;
    }
    let mut projected = false;
    // A conditional query starts with `WHEN`.
    let start = b.iter().position(|c| !c.is_ascii_whitespace());
    b.windows(4).enumerate().any(|(i, w)| {
        let mut l = [0u8; 4];
        for (d, s) in l.iter_mut().zip(w) {
            *d = s.to_ascii_lowercase();
        }
        match &l {
            b"retu" | b"with" => {
                projected = true;
                false
            }
            b"orde" => !projected,
            // `CASE x WHEN > 1`: an operator after WHEN.
            b"when" if Some(i) == start => true,
            b"when" => b[i + 4..]
                .iter()
                .find(|c| !c.is_ascii_whitespace())
                .is_some_and(|c| matches!(c, b'<' | b'>' | b'=')),
            // `LOAD CSV`, `FOREACH (`: `load` and `foreach` are common names.
            b"load" => next_word_is(b, i + 4, b"csv"),
            b"fore" => {
                b.get(i + 4..i + 7)
                    .is_some_and(|r| r.eq_ignore_ascii_case(b"ach"))
                    && next_word_is(b, i + 7, b"(")
            }
            b"show" | b"inse" | b"odet" | b"trim" | b"fini" | b"filt" | b"repe" | b"diff"
            | b"let " | b"grou" => true,
            _ => false,
        }
    })
}

/// Whether the first non-space bytes of `b` from `at` are `word` (ASCII, any case).
fn next_word_is(b: &[u8], at: usize, word: &[u8]) -> bool {
    let rest = b.get(at..).unwrap_or_default();
    let skip = rest.iter().take_while(|c| c.is_ascii_whitespace()).count();
    // A comment in between: let the rewrite decide.
    if rest.get(skip) == Some(&b'/') {
        return true;
    }
    rest.get(skip..skip + word.len())
        .is_some_and(|w| w.eq_ignore_ascii_case(word))
}

/// `src` with the forms of the module documentation rewritten for
/// `dialect`, or `None` when there are none.
pub(crate) fn rewrite(src: &str, dialect: Dialect) -> Option<Rewritten> {
    if !may_apply(src) {
        return None;
    }
    let mut text = dynamic_labels(src).unwrap_or_else(|| src.to_string());
    let tokens: Vec<Token> = lex(&text)
        .tokens
        .into_iter()
        .filter(|t| !t.is_trivia())
        .collect();
    let mut forms = Vec::new();
    let mut foreach = Vec::new();
    let mut filters = Vec::new();
    let snapshot = text.clone();
    let word = |k: usize| -> Option<String> {
        let t = tokens.get(k)?;
        matches!(t.kind, TokenKind::Identifier | TokenKind::Keyword(_))
            .then(|| t.text(&snapshot).map(str::to_ascii_uppercase))
            .flatten()
    };
    let kind = |k: usize| tokens.get(k).map(|t| t.kind);
    // Not a property key, label or alias (`n.insert`, `:Filter`, `AS let`);
    // each form below also needs the token after it to be what the clause
    // takes.
    let clause_position = |k: usize| -> bool {
        let before = k.checked_sub(1);
        !matches!(
            before.and_then(|p| tokens.get(p)).map(|t| t.kind),
            Some(TokenKind::Dot | TokenKind::Colon | TokenKind::DoubleColon)
        ) && before.and_then(word).as_deref() != Some("AS")
    };
    let blank = |text: &mut String, from: usize, to: usize| {
        text.replace_range(from..to, &" ".repeat(to - from));
    };
    let mut k = 0;
    while k < tokens.len() {
        let Some(w) = word(k) else {
            k += 1;
            continue;
        };
        let t = &tokens[k];
        match w.as_str() {
            "SHOW" if k == 0 => {
                // Words (and string or list arguments) up to YIELD / WHERE / RETURN.
                let mut j = k + 1;
                while j < tokens.len()
                    && !matches!(word(j).as_deref(), Some("YIELD" | "WHERE" | "RETURN"))
                {
                    j += 1;
                }
                let end = tokens[j - 1].span.end;
                let words: Vec<String> = (k + 1..j).filter_map(word).collect();
                let command = words.iter().any(|w| SHOW_NOUNS.contains(&w.as_str()))
                    && !words.iter().any(|w| w == "SHOW");
                if command && end - t.span.start >= PLACEHOLDER.len() {
                    put_placeholder(&mut text, t.span.start, end);
                    forms.push((t.span.start, "SHOW"));
                }
                k = j;
                continue;
            }
            "INSERT" if kind(k + 1) == Some(TokenKind::LeftParen) && clause_position(k) => {
                text.replace_range(t.span.start..t.span.end, "CREATE");
                forms.push((t.span.start, "INSERT"));
            }
            "NODETACH" if word(k + 1).as_deref() == Some("DELETE") && clause_position(k) => {
                blank(&mut text, t.span.start, t.span.end);
                forms.push((tokens[k + 1].span.start, "NODETACH DELETE"));
            }
            "LOAD" if word(k + 1).as_deref() == Some("CSV") && clause_position(k) => {
                let mut j = k + 2;
                if word(j).as_deref() == Some("WITH") && word(j + 1).as_deref() == Some("HEADERS") {
                    j += 2;
                }
                if word(j).as_deref() == Some("FROM") {
                    let (from, to) = (t.span.start, tokens[j].span.end);
                    let mut piece = String::from("UNWIND");
                    piece.push_str(&" ".repeat(to - from - piece.len()));
                    text.replace_range(from..to, &piece);
                    forms.push((from, "LOAD CSV"));
                    // `AS row FIELDTERMINATOR ';'`
                    if let Some(f) = (j + 1..tokens.len()).find(|&i| {
                        word(i).as_deref() == Some("FIELDTERMINATOR")
                            && kind(i + 1) == Some(TokenKind::String)
                    }) {
                        blank(&mut text, tokens[f].span.start, tokens[f + 1].span.end);
                    }
                    k = j + 1;
                    continue;
                }
            }
            "FOREACH" if kind(k + 1) == Some(TokenKind::LeftParen) && clause_position(k) => {
                if let Some(close) = matching(&tokens, k + 1) {
                    // `FOREACH (x IN list | body)`: the first top-level `|`.
                    let mut depth = 0usize;
                    let bar = (k + 2..close).find(|&i| {
                        match tokens[i].kind {
                            TokenKind::LeftParen
                            | TokenKind::LeftBracket
                            | TokenKind::LeftBrace => depth += 1,
                            TokenKind::RightParen
                            | TokenKind::RightBracket
                            | TokenKind::RightBrace => depth = depth.saturating_sub(1),
                            TokenKind::Pipe if depth == 0 => return true,
                            _ => {}
                        }
                        false
                    });
                    if let Some(bar) = bar {
                        let (from, to) = (t.span.start, tokens[close].span.end);
                        foreach.push((from, tokens[bar].span.end, tokens[close].span.start));
                        put_placeholder(&mut text, from, to);
                        forms.push((from, "FOREACH"));
                        k = close + 1;
                        continue;
                    }
                }
            }
            "TRIM" if kind(k + 1) == Some(TokenKind::LeftParen) => {
                if let Some(close) = matching(&tokens, k + 1) {
                    trim_from(&mut text, &tokens, &snapshot, k + 1, close);
                }
            }
            "WHEN"
                if matches!(
                    kind(k + 1),
                    Some(
                        TokenKind::Greater
                            | TokenKind::Less
                            | TokenKind::GreaterEqual
                            | TokenKind::LessEqual
                            | TokenKind::NotEqual
                            | TokenKind::Equal
                    )
                ) =>
            {
                let op = &tokens[k + 1];
                blank(&mut text, op.span.start, op.span.end);
            }
            "FINISH"
                if k + 1 == tokens.len()
                    && k > 0
                    // After a complete clause (`MATCH (n) FINISH`, `... n.x
                    // FINISH`), not an expression's start (`RETURN finish`).
                    && matches!(
                        kind(k - 1),
                        Some(
                            TokenKind::RightParen
                                | TokenKind::RightBracket
                                | TokenKind::RightBrace
                                | TokenKind::Identifier
                                | TokenKind::EscapedIdentifier
                                | TokenKind::Integer
                                | TokenKind::String
                        )
                    ) =>
            {
                // The crate parses a query that ends with a reading clause.
                blank(&mut text, t.span.start, t.span.end);
            }
            "ORDER" if word(k + 1).as_deref() == Some("BY") && clause_position(k) => {
                if let Some(end) = standalone_order_by(&tokens, &word, k) {
                    blank(&mut text, t.span.start, tokens[end - 1].span.end);
                    k = end;
                    continue;
                }
            }
            "WHEN" if k == 0 && dialect.accepts(Form::ConditionalQuery) => {
                // `WHEN cond THEN query [WHEN cond THEN query]* [ELSE query]`: one
                // placeholder, each branch parsed as a subquery.
                if let Some((bodies, conditions)) = conditional_bodies(&tokens, &word) {
                    let end = tokens[tokens.len() - 1].span.end;
                    if end - t.span.start >= PLACEHOLDER.len() {
                        put_placeholder(&mut text, t.span.start, end);
                        forms.push((t.span.start, "WHEN"));
                        for (from, to) in bodies {
                            foreach.push((t.span.start, from, to));
                        }
                        // Each condition parsed on its own, as a `FILTER` condition is.
                        for (from, to) in conditions {
                            filters.push((t.span.start, from, to));
                        }
                        break;
                    }
                }
            }
            "GROUP"
                if word(k + 1).as_deref() == Some("BY")
                    && dialect.accepts(Form::GroupBy)
                    && clause_position(k) =>
            {
                // `RETURN ... GROUP BY keys`: the grouping is implicit in Cypher.
                let end = clause_end(&tokens, &word, k + 2, GROUP_BY_END);
                blank(&mut text, t.span.start, tokens[end - 1].span.end);
                k = end;
                continue;
            }
            "MATCH" if dialect.accepts(Form::MatchMode) => {
                if matches!(
                    (word(k + 1).as_deref(), word(k + 2).as_deref()),
                    (Some("REPEATABLE"), Some("ELEMENTS" | "ELEMENT"))
                        | (Some("DIFFERENT"), Some("RELATIONSHIPS" | "RELATIONSHIP"))
                ) {
                    blank(&mut text, tokens[k + 1].span.start, tokens[k + 2].span.end);
                    k += 3;
                    continue;
                }
            }
            "LET"
                if dialect.accepts(Form::Let)
                    && clause_position(k)
                    && matches!(
                        kind(k + 1),
                        Some(TokenKind::Identifier | TokenKind::EscapedIdentifier)
                    )
                    && kind(k + 2) == Some(TokenKind::Equal) =>
            {
                // `LET x = e, y = f` becomes `SET x = e, y = f` (same length; the
                // form tells the gate it writes nothing, the analysis declares
                // each variable).
                text.replace_range(t.span.start..t.span.end, "SET");
                forms.push((t.span.start, "LET"));
            }
            "FILTER" if dialect.accepts(Form::Filter) && clause_position(k) => {
                let after_pattern = k > 0
                    && matches!(
                        kind(k - 1),
                        Some(TokenKind::RightParen | TokenKind::RightBracket)
                    );
                let where_follows = word(k + 1).as_deref() == Some("WHERE");
                if after_pattern || ends_a_with(&tokens, &word, k) {
                    if where_follows {
                        blank(&mut text, t.span.start, t.span.end);
                    } else {
                        text.replace_range(t.span.start..t.span.end, "WHERE ");
                    }
                } else if !(k == 0 || ends_expression(&tokens, &word, k - 1))
                    || matches!(clause_before(&tokens, &word, k, &[]), Before::Bracket)
                {
                    // `filter` as a name (`BY filter`, `{filter: 1}`, `[filter IN l ..]`).
                } else if where_follows {
                    // `FILTER WHERE cond` elsewhere: `WITH * WHERE cond`.
                    text.replace_range(t.span.start..t.span.end, "WITH *");
                } else {
                    // `FILTER cond` elsewhere: `WITH *`, the condition parsed on its own.
                    let end = clause_end(&tokens, &word, k + 1, FILTER_END);
                    if end > k + 1 {
                        let (from, to) = (tokens[k + 1].span.start, tokens[end - 1].span.end);
                        text.replace_range(t.span.start..t.span.end, "WITH *");
                        blank(&mut text, from, to);
                        filters.push((t.span.start, from, to));
                    }
                    k = end.max(k + 1);
                    continue;
                }
            }
            _ => {}
        }
        k += 1;
    }
    (text != src || !forms.is_empty()).then_some(Rewritten {
        text,
        forms,
        foreach,
        filters,
    })
}

/// Words that end a `FILTER` condition (besides [`CLAUSE_WORDS`]).
const FILTER_END: &[&str] = &["FILTER", "LET", "ORDER", "SKIP", "OFFSET", "LIMIT", "NEXT"];

/// Words that end a `GROUP BY` list (besides [`CLAUSE_WORDS`]).
const GROUP_BY_END: &[&str] = &["ORDER", "SKIP", "OFFSET", "LIMIT"];

/// The index of the first token from `from` on that is, outside brackets, one of
/// [`CLAUSE_WORDS`] or `extra` (not after `.` or `:`), or that closes a bracket opened
/// before `from`; the number of tokens when none.
fn clause_end(
    tokens: &[Token],
    word: &dyn Fn(usize) -> Option<String>,
    from: usize,
    extra: &[&str],
) -> usize {
    let mut depth = 0i32;
    let mut j = from;
    while j < tokens.len() {
        match tokens[j].kind {
            TokenKind::LeftParen | TokenKind::LeftBracket | TokenKind::LeftBrace => depth += 1,
            TokenKind::RightParen | TokenKind::RightBracket | TokenKind::RightBrace => {
                depth -= 1;
                if depth < 0 {
                    break;
                }
            }
            _ if depth == 0
                && word(j).is_some_and(|w| {
                    CLAUSE_WORDS.contains(&w.as_str()) || extra.contains(&w.as_str())
                })
                && !matches!(tokens[j - 1].kind, TokenKind::Dot | TokenKind::Colon) =>
            {
                break;
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// Whether token `p` can end an expression (a name, literal, parameter, closing bracket,
/// `TRUE` / `FALSE` / `NULL` or a `CASE`'s `END`), so that a `FILTER` after it starts a
/// clause rather than being a name.
fn ends_expression(tokens: &[Token], word: &dyn Fn(usize) -> Option<String>, p: usize) -> bool {
    use TokenKind as K;
    match tokens[p].kind {
        K::Identifier
        | K::EscapedIdentifier
        | K::Parameter
        | K::Integer
        | K::HexInteger
        | K::OctalInteger
        | K::Float
        | K::String
        | K::RightParen
        | K::RightBracket
        | K::RightBrace => true,
        K::Keyword(_) => matches!(
            word(p).as_deref(),
            Some("TRUE" | "FALSE" | "NULL" | "END" | "NAN" | "INF" | "INFINITY")
        ),
        _ => false,
    }
}

/// What the backward scan of [`clause_before`] met first.
enum Before {
    /// The word at this token, one of the words looked for.
    Word(String),
    /// A bracket opened before the start token: the enclosing text decides.
    Bracket,
    /// The start of the text.
    Start,
}

/// Scanning back from token `k` (excluded), the first word outside brackets that is one
/// of `stops` (not after `.` or `:`), a bracket opened before `k`, or the start: the
/// backward twin of [`clause_end`].
fn clause_before(
    tokens: &[Token],
    word: &dyn Fn(usize) -> Option<String>,
    k: usize,
    stops: &[&str],
) -> Before {
    let mut depth = 0i32;
    for p in (0..k).rev() {
        match tokens[p].kind {
            TokenKind::RightParen | TokenKind::RightBracket | TokenKind::RightBrace => depth += 1,
            TokenKind::LeftParen | TokenKind::LeftBracket | TokenKind::LeftBrace => {
                depth -= 1;
                if depth < 0 {
                    return Before::Bracket;
                }
            }
            _ if depth == 0
                && p > 0
                && matches!(tokens[p - 1].kind, TokenKind::Dot | TokenKind::Colon) => {}
            _ if depth == 0 => {
                if let Some(w) = word(p).filter(|w| stops.contains(&w.as_str())) {
                    return Before::Word(w);
                }
            }
            _ => {}
        }
    }
    Before::Start
}

/// Whether the `FILTER` at token `k` follows the projection of a `WITH` (without a `WHERE`
/// of its own), so that it can stand as that `WITH`'s `WHERE`.
fn ends_a_with(tokens: &[Token], word: &dyn Fn(usize) -> Option<String>, k: usize) -> bool {
    let stops: Vec<&str> = CLAUSE_WORDS
        .iter()
        .copied()
        .chain(["WHERE", "FILTER"])
        .collect();
    matches!(clause_before(tokens, word, k, &stops), Before::Word(w) if w == "WITH")
}

/// Byte ranges of a conditional query's parts: each branch's query, each condition.
type Branches = (Vec<(usize, usize)>, Vec<(usize, usize)>);

/// The branches of a conditional query starting at token 0 (`WHEN cond THEN query [WHEN
/// cond THEN query]* [ELSE query]`, Cypher 25): the byte ranges of each branch's query and
/// of each condition, or `None` when the text is not of that shape (an empty condition or
/// branch included). `WHEN` / `THEN` / `ELSE` of `CASE` expressions and inside brackets are
/// not branch words.
fn conditional_bodies(
    tokens: &[Token],
    word: &dyn Fn(usize) -> Option<String>,
) -> Option<Branches> {
    let mut bodies = Vec::new();
    let mut conditions = Vec::new();
    // The token after the current condition's WHEN.
    let mut condition = 1;
    let (mut depth, mut cases) = (0i32, 0usize);
    // The token after the current branch's THEN / ELSE, and whether an ELSE was seen.
    let mut body: Option<usize> = None;
    let mut in_condition = true;
    let mut seen_else = false;
    for j in 1..tokens.len() {
        match tokens[j].kind {
            TokenKind::LeftParen | TokenKind::LeftBracket | TokenKind::LeftBrace => depth += 1,
            TokenKind::RightParen | TokenKind::RightBracket | TokenKind::RightBrace => {
                depth -= 1;
                if depth < 0 {
                    return None;
                }
            }
            _ if depth == 0 => {
                let after_dot = matches!(tokens[j - 1].kind, TokenKind::Dot | TokenKind::Colon);
                match word(j).as_deref() {
                    _ if after_dot => {}
                    Some("CASE") => cases += 1,
                    Some("END") if cases > 0 => cases -= 1,
                    Some("THEN") if cases == 0 && in_condition => {
                        if condition >= j {
                            return None;
                        }
                        conditions.push((tokens[condition].span.start, tokens[j - 1].span.end));
                        in_condition = false;
                        body = Some(j + 1);
                    }
                    Some(w @ ("WHEN" | "ELSE")) if cases == 0 && !in_condition && !seen_else => {
                        let from = body.take()?;
                        if from >= j {
                            return None;
                        }
                        bodies.push((tokens[from].span.start, tokens[j - 1].span.end));
                        if w == "ELSE" {
                            seen_else = true;
                            body = Some(j + 1);
                        } else {
                            in_condition = true;
                            condition = j + 1;
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    let from = body?;
    if in_condition || from >= tokens.len() {
        return None;
    }
    bodies.push((tokens[from].span.start, tokens[tokens.len() - 1].span.end));
    Some((bodies, conditions))
}

/// Clause keywords that end a standalone `ORDER BY ... [SKIP ..] [LIMIT ..]`.
const CLAUSE_WORDS: &[&str] = &[
    "RETURN", "WITH", "MATCH", "OPTIONAL", "UNWIND", "CALL", "CREATE", "MERGE", "SET", "DELETE",
    "DETACH", "REMOVE", "UNION", "FINISH", "FOREACH", "LOAD", "INSERT",
];

/// For an `ORDER BY` at token `k` that is a clause of its own (GQL's
/// standalone `ORDER BY`, accepted by Neo4j 5.26: `MATCH (n) ORDER BY n.x
/// RETURN n`), the index of the token after it and its `SKIP` / `LIMIT`;
/// `None` when it belongs to a `WITH` or `RETURN`.
fn standalone_order_by(
    tokens: &[Token],
    word: &dyn Fn(usize) -> Option<String>,
    k: usize,
) -> Option<usize> {
    let stops = ["WITH", "RETURN", "MATCH", "UNWIND", "CALL"];
    match clause_before(tokens, word, k, &stops) {
        // Inside brackets (`COUNT { ... }`, a subquery body) the enclosing text decides.
        Before::Bracket => None,
        Before::Word(w) if w == "WITH" || w == "RETURN" => None,
        Before::Word(_) | Before::Start => Some(clause_end(tokens, word, k + 2, &[])),
    }
}

/// What a `SHOW` command shows (Neo4j 5 Cypher manual and Operations
/// manual: `SHOW FUNCTIONS`, `SHOW INDEXES`, `SHOW DATABASES`, ...).
const SHOW_NOUNS: &[&str] = &[
    "FUNCTION",
    "FUNCTIONS",
    "PROCEDURE",
    "PROCEDURES",
    "INDEX",
    "INDEXES",
    "CONSTRAINT",
    "CONSTRAINTS",
    "TRANSACTION",
    "TRANSACTIONS",
    "DATABASE",
    "DATABASES",
    "SETTING",
    "SETTINGS",
    "USER",
    "USERS",
    "ROLE",
    "ROLES",
    "PRIVILEGE",
    "PRIVILEGES",
    "ALIAS",
    "ALIASES",
    "SERVER",
    "SERVERS",
];

/// The placeholder written over a `SHOW` command or a `FOREACH` clause.
const PLACEHOLDER: &str = "CALL k()";

/// Write [`PLACEHOLDER`] padded with spaces over `text[from..to]`.
fn put_placeholder(text: &mut String, from: usize, to: usize) {
    let mut piece = PLACEHOLDER.to_string();
    piece.push_str(&" ".repeat(to - from - PLACEHOLDER.len()));
    text.replace_range(from..to, &piece);
}

/// Index of the token closing the bracket opened at `open`.
fn matching(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.kind {
            TokenKind::LeftParen | TokenKind::LeftBracket | TokenKind::LeftBrace => depth += 1,
            TokenKind::RightParen | TokenKind::RightBracket | TokenKind::RightBrace => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// `trim([BOTH|LEADING|TRAILING] [chars] FROM s)` between the parentheses
/// at `open` and `close`: the specification word blanked, `FROM` made a
/// comma (or blanked when no characters are given).
fn trim_from(text: &mut String, tokens: &[Token], src: &str, open: usize, close: usize) {
    let upper = |k: usize| -> Option<String> {
        let t = tokens.get(k)?;
        matches!(t.kind, TokenKind::Identifier | TokenKind::Keyword(_))
            .then(|| t.text(src).map(str::to_ascii_uppercase))
            .flatten()
    };
    let mut depth = 0usize;
    let Some(from) = (open + 1..close).find(|&i| {
        match tokens[i].kind {
            TokenKind::LeftParen | TokenKind::LeftBracket | TokenKind::LeftBrace => depth += 1,
            TokenKind::RightParen | TokenKind::RightBracket | TokenKind::RightBrace => {
                depth = depth.saturating_sub(1);
            }
            _ if depth == 0 && upper(i).as_deref() == Some("FROM") => return true,
            _ => {}
        }
        false
    }) else {
        return;
    };
    let mut first = open + 1;
    if matches!(
        upper(first).as_deref(),
        Some("BOTH" | "LEADING" | "TRAILING")
    ) {
        let t = &tokens[first];
        text.replace_range(t.span.start..t.span.end, &" ".repeat(t.span.len()));
        first += 1;
    }
    let f = &tokens[from];
    let piece = if first < from {
        let mut p = String::from(",");
        p.push_str(&" ".repeat(f.span.len() - 1));
        p
    } else {
        " ".repeat(f.span.len())
    };
    text.replace_range(f.span.start..f.span.end, &piece);
}

/// `src` with every dynamic label or type (`:$(expr)`, `:$any(expr)`,
/// `:$all(expr)`, also after `|`, `&` or `!`) replaced by an escaped name of
/// the same length (`` `___` ``), or `None` without any.
fn dynamic_labels(src: &str) -> Option<String> {
    let b = src.as_bytes();
    let mut out: Option<String> = None;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        let mut p = i;
        while p > 0 && b[p - 1].is_ascii_whitespace() {
            p -= 1;
        }
        let after_label_sign = p > 0 && matches!(b[p - 1], b':' | b'|' | b'&' | b'!');
        let mut j = i + 1;
        for kw in [b"any".as_slice(), b"all".as_slice()] {
            if b.get(j..j + 3).is_some_and(|w| w.eq_ignore_ascii_case(kw)) {
                j += 3;
                break;
            }
        }
        if !after_label_sign || b.get(j) != Some(&b'(') {
            i += 1;
            continue;
        }
        // The matching `)`, skipping quoted strings.
        let mut depth = 0usize;
        let mut k = j;
        let mut end = None;
        while k < b.len() {
            match b[k] {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(k + 1);
                        break;
                    }
                }
                q @ (b'\'' | b'"' | b'`') => {
                    k += 1;
                    while k < b.len() && b[k] != q {
                        if b[k] == b'\\' {
                            k += 1;
                        }
                        k += 1;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        let Some(end) = end else { return out };
        let buf = out.get_or_insert_with(|| src.to_string());
        let mut piece = String::from("`");
        piece.push_str(&"_".repeat(end - i - 2));
        piece.push('`');
        if buf.is_char_boundary(i) && buf.is_char_boundary(end) {
            buf.replace_range(i..end, &piece);
        }
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::frontend::{with_front, write_clauses_in, Dialect};
    use super::super::provenance_queries_in;

    fn parses(q: &str, d: Dialect) -> bool {
        with_front(q, d, |_| ()).is_ok()
    }

    fn analysis(q: &str, d: Dialect) -> super::super::analyze::Analysis {
        super::super::analyze::analyze_in(q, d)
    }

    #[test]
    fn show_commands_are_reads_without_provenance() {
        for q in [
            "SHOW FUNCTIONS YIELD name RETURN count(name)",
            "SHOW PROCEDURES YIELD name WHERE name STARTS WITH 'db.' RETURN name",
            "SHOW INDEXES",
            "SHOW CONSTRAINTS YIELD name RETURN name",
            "SHOW TRANSACTIONS",
        ] {
            assert!(!parses(&format!("SHOW {q}"), Dialect::Cypher5), "SHOW {q}");
            for d in [Dialect::Cypher5, Dialect::Cypher25] {
                let a = analysis(q, d);
                assert!(a.syntax_valid, "{q}: {:?}", a.syntax_error);
                assert!(a.read_only(&[]), "{q}: {:?}", a.write_clauses);
                assert!(write_clauses_in(q, d).is_empty(), "{q}");
                assert!(provenance_queries_in(q, d).unwrap().is_empty(), "{q}");
            }
        }
    }

    #[test]
    fn writes_outside_the_grammar_parse_and_are_named() {
        for (q, clause) in [
            ("MATCH (n:Player) INSERT (m:Thing)", "INSERT"),
            ("INSERT (m:Player {name: 'x'})", "INSERT"),
            ("MATCH (n:Player) NODETACH DELETE n", "NODETACH DELETE"),
            (
                "LOAD CSV FROM 'file:///players.csv' AS row CREATE (:Player {name: row[0]})",
                "LOAD CSV",
            ),
            (
                "LOAD CSV WITH HEADERS FROM 'https://e.com/x.csv' AS row FIELDTERMINATOR ';' MERGE (:T {name: row.name})",
                "LOAD CSV",
            ),
            (
                "MATCH (n:Player) WITH collect(n) AS ns FOREACH (x IN ns | SET x.flag = 1)",
                "FOREACH",
            ),
            (
                "FOREACH (i IN range(1, 3) | CREATE (:Player {name: toString(i)}))",
                "FOREACH",
            ),
            ("MATCH (n:Player) SET n:$('Extra')", "SET"),
            ("MATCH (n:Player) REMOVE n:$any(['A', 'B'])", "REMOVE"),
        ] {
            let a = analysis(q, Dialect::Cypher5);
            assert!(a.syntax_valid, "{q}: {:?}", a.syntax_error);
            assert!(a.write_clauses.contains(&clause.to_string()), "{q}: {:?}", a.write_clauses);
            assert!(!a.read_only(&[]), "{q}");
            assert!(write_clauses_in(q, Dialect::Cypher5).contains(&clause.to_string()), "{q}");
        }
        // Body writes of FOREACH are found too.
        let w = write_clauses_in("FOREACH (i IN [1] | CREATE (:P))", Dialect::Cypher5);
        assert_eq!(w, ["FOREACH", "CREATE"]);
        // LOAD CSV that only reads is still refused (it reads files).
        let a = analysis(
            "LOAD CSV FROM 'file:///p.csv' AS row RETURN row",
            Dialect::Cypher5,
        );
        assert!(a.syntax_valid && a.write_clauses == ["LOAD CSV"], "{a:?}");
    }

    #[test]
    fn cypher5_expression_forms() {
        for q in [
            "MATCH (n:Player) RETURN trim(BOTH 'A' FROM n.name)",
            "MATCH (n:Team) RETURN trim(LEADING ' ' FROM n.name)",
            "RETURN trim(TRAILING FROM '  x  ') AS t",
            "MATCH (n:$('Player')) RETURN n",
            "MATCH (n:$any(['Player', 'Team'])) RETURN n.name",
            "MATCH (n)-[r:$all(['playsFor'])]->() RETURN r",
            "MATCH (n:Player) RETURN CASE n.height_cm WHEN > 200 THEN 'tall' ELSE 'short' END AS h",
            "MATCH (n:Player) FINISH",
            "UNWIND [1, 2] AS finish RETURN finish",
            "MATCH (n:Player) ORDER BY n.name RETURN n.name",
            "MATCH (n:Player) ORDER BY n.name SKIP 1 LIMIT 2 RETURN n.name",
        ] {
            let a = analysis(q, Dialect::Cypher5);
            assert!(a.syntax_valid, "{q}: {:?}", a.syntax_error);
            assert!(a.read_only(&[]), "{q}: {:?}", a.write_clauses);
        }
        let p = provenance_queries_in("MATCH (n:$('Player')) RETURN n", Dialect::Cypher5).unwrap();
        assert_eq!(p[0].match_cypher, "MATCH (n:$('Player'))");
        let p = provenance_queries_in("MATCH (n:Player) FINISH", Dialect::Cypher5).unwrap();
        assert_eq!(p[0].match_cypher, "MATCH (n:Player)");
        // A `$` parameter is no dynamic label.
        assert!(parses("MATCH (n {name: $x}) RETURN n", Dialect::Cypher5));
    }

    #[test]
    fn conditional_queries_and_group_by_follow_the_dialect() {
        // 2026.08.1 (Cypher 25) accepts both; 5.26.30 refuses both (the differential corpus).
        for q in [
            "WHEN true THEN RETURN 1 AS x ELSE RETURN 2 AS x",
            "WHEN CASE WHEN 1 > 2 THEN true END THEN MATCH (n:Player) RETURN n.name AS x \
             WHEN false THEN RETURN 'a' AS x",
            "MATCH (p:Player) RETURN p.name GROUP BY p.name",
            "MATCH (p:Player) RETURN p.name, count(*) AS c GROUP BY p.name ORDER BY c LIMIT 2",
            "MATCH (n:Player) WITH n FILTER n.name = 'x' RETURN n.name",
        ] {
            assert!(parses(q, Dialect::Cypher25), "{q}");
            assert!(!parses(q, Dialect::Cypher5), "{q}");
        }
        // `FILTER` wherever 2026.08.1 accepts it (EXPLAIN on that server), `WHERE` optional.
        for q in [
            "UNWIND [1, 2, 3] AS x FILTER x > 1 RETURN x",
            "MATCH (n) WITH n WHERE n.a > 1 FILTER n.b < 2 RETURN n",
            "LET x = 1 FILTER x > 0 RETURN x",
            "MATCH (n) CALL (n) { RETURN 1 AS y } FILTER y > 0 RETURN n",
            "MATCH (n) FILTER n.a > 1 FILTER n.b > 2 RETURN n",
            "FILTER true RETURN 1 AS x",
            "UNWIND [1, 2] AS x FILTER WHERE x > 1 RETURN x",
            "MATCH (n) FILTER WHERE n.a > 1 RETURN n",
            "UNWIND [1] AS x FILTER CASE WHEN x > 0 THEN true ELSE false END RETURN x",
        ] {
            let a = analysis(q, Dialect::Cypher25);
            assert!(a.syntax_valid, "{q}: {:?}", a.syntax_error);
            assert!(a.read_only(&[]), "{q}: {:?}", a.write_clauses);
            assert!(!parses(q, Dialect::Cypher5), "{q}");
        }
        // A condition's own syntax error is found, at its byte in the query (here the end
        // of the condition, where it is cut off).
        let a = analysis("UNWIND [1] AS x FILTER x > RETURN x", Dialect::Cypher25);
        assert!(!a.syntax_valid);
        let error = a.syntax_error.unwrap_or_default();
        assert!(error.contains("at byte 26"), "{error}");
        assert!(!parses(
            "UNWIND [1] AS x FILTER RETURN x",
            Dialect::Cypher25
        ));
        // The string literals of a blanked condition stay in the analysis, at their bytes.
        let q = "UNWIND ['a'] AS x FILTER x <> 'Zed' RETURN x";
        let a = analysis(q, Dialect::Cypher25);
        let zed = a.string_literals.iter().find(|l| l.value == "Zed");
        assert_eq!(
            zed.map(|l| &q[l.start..l.end]),
            Some("'Zed'"),
            "{:?}",
            a.string_literals
        );
        // A `LET` variable is declared: later references are variables.
        let a = analysis(
            "MATCH (n:Player) LET x = n.name, y = 1 RETURN x, y",
            Dialect::Cypher25,
        );
        assert!(a.syntax_valid, "{:?}", a.syntax_error);
        assert!(
            a.signature
                .ends_with("let <var> = <var> . name , <var> = <num> return <var> , <var>"),
            "{}",
            a.signature
        );
        // A write in a branch is found.
        assert_eq!(
            write_clauses_in(
                "WHEN true THEN MATCH (n) RETURN n ELSE CREATE (m:P) RETURN m",
                Dialect::Cypher25
            ),
            ["CREATE"]
        );
        assert!(!parses("WHEN true THEN ELSE RETURN 1", Dialect::Cypher25));
        // The conditions are parsed: a broken or empty one is a syntax error.
        assert!(!parses(
            "WHEN 1 = THEN RETURN 1 AS x ELSE RETURN 2 AS x",
            Dialect::Cypher25
        ));
        assert!(!parses("WHEN THEN RETURN 1 AS x", Dialect::Cypher25));
        assert!(!parses(
            "WHEN true THEN RETURN 1 AS x WHEN (1 THEN RETURN 2 AS x",
            Dialect::Cypher25
        ));
        let a = analysis(
            "WHEN EXISTS { MATCH (n:Player {name: 'Zed'}) } THEN RETURN 1 AS x ELSE RETURN 2 AS x",
            Dialect::Cypher25,
        );
        assert!(a.syntax_valid, "{:?}", a.syntax_error);
        assert!(a.string_literals.iter().any(|l| l.value == "Zed"));
        assert!(!parses("WHEN true RETURN 1", Dialect::Cypher25));
        // `load` and `foreach` as names need no rewrite.
        assert!(!super::may_apply(
            "MATCH (load:Create)-[foreach]->(m) RETURN load.foreach"
        ));
        assert!(super::may_apply("LOAD  csv FROM 'x' AS r RETURN r"));
        assert!(super::may_apply(
            "MATCH (n) FOREACH (x IN [1] | SET n.x = x)"
        ));
    }

    #[test]
    fn cypher25_forms_follow_the_dialect() {
        for q in [
            "MATCH (n:Player) LET x = n.name RETURN x",
            "MATCH (n:Player) FILTER n.name = 'Alice Archer' RETURN n.name",
            "MATCH REPEATABLE ELEMENTS (a:Player)-[:playsFor]->{1,2}(b) RETURN b.name",
            "MATCH DIFFERENT RELATIONSHIPS (a:Player)-[:playsFor]->(b) RETURN b.name",
        ] {
            assert!(parses(q, Dialect::Cypher25), "{q}");
            assert!(!parses(q, Dialect::Cypher5), "{q}");
            let p = provenance_queries_in(q, Dialect::Cypher25).unwrap();
            assert!(!p.is_empty(), "{q}");
        }
    }
}
