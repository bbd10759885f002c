//! Turtle input, read statement by statement so that a bad statement costs no
//! more than itself.
//!
//! The input is cut into statements (`@prefix …​ .`, `PREFIX …​ <iri>`,
//! `subject predicate-object-list .`) by a small scanner that knows Turtle's
//! strings, IRIs, comments and brackets ([`Splitter`]). Groups of whole
//! statements (about 4 MiB) are parsed with oxttl (strict), carrying the
//! prefixes and base IRI from one group to the next. When a group has an error,
//! it is parsed again one statement at a time:
//!
//! - a statement that the strict parser rejects only at a language tag of the
//!   Turtle grammar is taken from oxttl's lenient mode ([`super::langtag`]);
//! - otherwise, without `skip_invalid`, the error is returned with the file,
//!   line, byte offset and an excerpt of the line;
//! - with `skip_invalid`, the statement is cut into its triples
//!   (`subject predicate object .`, one per object of its
//!   predicate-object list) and each is parsed on its own: only the triples
//!   that fail are skipped, each counted once. A statement that cannot be cut
//!   (a directive, or no subject / predicate to be found) is skipped as one unit.

use oxrdf::Triple;
use oxttl::{TurtleParser, TurtleSyntaxError};
use std::io::{self, BufRead};

use super::input::{excerpt, Extract, ReadStats};
use super::langtag;
use super::ConvertError;

/// Bytes of statements parsed together, 4 MiB.
const GROUP_BYTES: usize = 4 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum St {
    #[default]
    Normal,
    Iri,
    Short(u8),
    Long(u8),
    Comment,
}

/// Incremental statement boundary scanner over a growing buffer.
#[derive(Debug, Default)]
pub struct Splitter {
    pos: usize,
    st: St,
    depth: u32,
    prev_name: bool,
    started: bool,
    sparql: bool,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':' | b'%' | b'\\') || b >= 0x80
}

impl Splitter {
    fn end_statement(&mut self, at: usize, ends: &mut Vec<usize>) {
        ends.push(at);
        self.depth = 0;
        self.prev_name = false;
        self.started = false;
        self.sparql = false;
        self.st = St::Normal;
    }

    /// Scan `buf` from where the last call stopped, pushing the end offset
    /// (exclusive) of every complete statement to `ends`. Without `eof`, stops
    /// before a byte whose meaning depends on bytes not read yet.
    pub fn scan(&mut self, buf: &[u8], eof: bool, ends: &mut Vec<usize>) {
        let n = buf.len();
        let mut i = self.pos;
        // `need(k)`: k bytes after i are available (or the input ended).
        macro_rules! need {
            ($k:expr) => {
                if i + $k >= n && !eof {
                    break;
                }
            };
        }
        while i < n {
            let b = buf[i];
            match self.st {
                St::Comment => {
                    if b == b'\n' || b == b'\r' {
                        self.st = St::Normal;
                    }
                    i += 1;
                }
                St::Iri => {
                    match b {
                        b'>' => {
                            self.st = St::Normal;
                            self.prev_name = false;
                            if self.sparql {
                                self.end_statement(i + 1, ends);
                            }
                        }
                        b'\n' | b'\r' => self.st = St::Normal,
                        b'\\' => {
                            need!(1);
                            i += 1;
                        }
                        _ => {}
                    }
                    i += 1;
                }
                St::Short(q) => {
                    if b == b'\\' {
                        need!(1);
                        i += 2;
                        continue;
                    }
                    if b == q || b == b'\n' || b == b'\r' {
                        self.st = St::Normal;
                        self.prev_name = false;
                    }
                    i += 1;
                }
                St::Long(q) => {
                    if b == b'\\' {
                        need!(1);
                        i += 2;
                        continue;
                    }
                    if b == q {
                        need!(2);
                        if buf.get(i + 1) == Some(&q) && buf.get(i + 2) == Some(&q) {
                            self.st = St::Normal;
                            self.prev_name = false;
                            i += 3;
                            continue;
                        }
                    }
                    i += 1;
                }
                St::Normal => match b {
                    b' ' | b'\t' | b'\n' | b'\r' => {
                        self.prev_name = false;
                        i += 1;
                    }
                    b'#' => {
                        self.st = St::Comment;
                        i += 1;
                    }
                    b'<' => {
                        self.started = true;
                        self.st = St::Iri;
                        i += 1;
                    }
                    b'"' | b'\'' => {
                        need!(2);
                        self.started = true;
                        if buf.get(i + 1) == Some(&b) && buf.get(i + 2) == Some(&b) {
                            self.st = St::Long(b);
                            i += 3;
                        } else {
                            self.st = St::Short(b);
                            i += 1;
                        }
                    }
                    b'[' | b'(' => {
                        self.started = true;
                        self.depth += 1;
                        self.prev_name = false;
                        i += 1;
                    }
                    b']' | b')' => {
                        self.depth = self.depth.saturating_sub(1);
                        self.prev_name = false;
                        i += 1;
                    }
                    b'.' => {
                        need!(1);
                        let next = buf.get(i + 1).copied();
                        let in_token =
                            self.prev_name && next.is_some_and(|c| is_name_byte(c) || c == b'.');
                        if in_token {
                            i += 1;
                            continue;
                        }
                        if self.depth == 0 || matches!(next, Some(b'\n' | b'\r')) {
                            self.end_statement(i + 1, ends);
                        }
                        i += 1;
                    }
                    _ => {
                        if !self.started {
                            if matches!(b, b'P' | b'p' | b'B' | b'b') {
                                need!(7);
                                let rest = &buf[i..n.min(i + 7)];
                                let word = |w: &[u8]| {
                                    rest.len() > w.len()
                                        && rest[..w.len()].eq_ignore_ascii_case(w)
                                        && matches!(rest[w.len()], b' ' | b'\t' | b'\n' | b'\r')
                                };
                                self.sparql = word(b"prefix") || word(b"base");
                            }
                            self.started = true;
                        }
                        self.prev_name = is_name_byte(b);
                        i += 1;
                    }
                },
            }
        }
        self.pos = i.min(n);
    }

    /// The caller removed the first `k` bytes of the buffer (all scanned).
    pub fn shift(&mut self, k: usize) {
        self.pos -= k;
    }
}

/// Statement ends (exclusive) of a whole text.
pub fn statements(text: &[u8]) -> Vec<usize> {
    let mut sp = Splitter::default();
    let mut ends = Vec::new();
    sp.scan(text, true, &mut ends);
    if ends.last() != Some(&text.len()) && !text[ends.last().copied().unwrap_or(0)..].is_empty() {
        ends.push(text.len());
    }
    ends
}

fn skip_ws_comments(s: &[u8], mut i: usize) -> usize {
    while i < s.len() {
        match s[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'#' => {
                while i < s.len() && s[i] != b'\n' && s[i] != b'\r' {
                    i += 1;
                }
            }
            _ => break,
        }
    }
    i
}

/// End (exclusive) of the term starting at `s[i]` (not whitespace), or `None`.
fn term_end(s: &[u8], i: usize) -> Option<usize> {
    let n = s.len();
    match *s.get(i)? {
        b'<' => {
            let mut j = i + 1;
            while j < n && s[j] != b'>' {
                if matches!(s[j], b'\n' | b'\r') {
                    return None;
                }
                j += if s[j] == b'\\' { 2 } else { 1 };
            }
            (j < n).then_some(j + 1)
        }
        q @ (b'"' | b'\'') => {
            let long = s.get(i + 1) == Some(&q) && s.get(i + 2) == Some(&q);
            let mut j = if long { i + 3 } else { i + 1 };
            loop {
                let c = *s.get(j)?;
                if c == b'\\' {
                    j += 2;
                    continue;
                }
                if c == q {
                    if !long {
                        j += 1;
                        break;
                    }
                    if s.get(j + 1) == Some(&q) && s.get(j + 2) == Some(&q) {
                        j += 3;
                        break;
                    }
                }
                if !long && matches!(c, b'\n' | b'\r') {
                    return None;
                }
                j += 1;
            }
            // language tag or datatype
            if s.get(j) == Some(&b'@') {
                j += 1;
                while j < n && (s[j].is_ascii_alphanumeric() || s[j] == b'-') {
                    j += 1;
                }
            } else if s.get(j) == Some(&b'^') && s.get(j + 1) == Some(&b'^') {
                // an IRI or a prefixed name (never a literal: no recursion on input)
                let d = *s.get(j + 2)?;
                if d != b'<' && !is_name_byte(d) {
                    return None;
                }
                j = term_end(s, j + 2)?;
            }
            Some(j)
        }
        b'[' | b'(' => {
            // to the matching bracket, strings and IRIs skipped as terms
            let mut depth = 0u32;
            let mut j = i;
            while j < n {
                match s[j] {
                    b'[' | b'(' => {
                        depth += 1;
                        j += 1;
                    }
                    b']' | b')' => {
                        depth -= 1;
                        j += 1;
                        if depth == 0 {
                            return Some(j);
                        }
                    }
                    b'<' | b'"' | b'\'' => j = term_end(s, j)?,
                    b'#' => j = skip_ws_comments(s, j),
                    _ => j += 1,
                }
            }
            None
        }
        _ => {
            let mut j = i;
            while j < n {
                let c = s[j];
                if matches!(
                    c,
                    b' ' | b'\t'
                        | b'\n'
                        | b'\r'
                        | b';'
                        | b','
                        | b'<'
                        | b'"'
                        | b'\''
                        | b'['
                        | b']'
                        | b'('
                        | b')'
                        | b'#'
                ) {
                    break;
                }
                if c == b'.' && !s.get(j + 1).is_some_and(|&c| is_name_byte(c) || c == b'.') {
                    break;
                }
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// A triple statement cut into its triples: (subject, predicate, object) byte
/// ranges, one per object. `None` for directives and statements whose shape
/// cannot be followed.
pub fn split_triples(s: &[u8]) -> Option<Vec<[(usize, usize); 3]>> {
    let i = skip_ws_comments(s, 0);
    let first = s.get(i)?;
    if *first == b'@' {
        return None;
    }
    let subj = (i, term_end(s, i)?);
    if s[subj.0..subj.1].eq_ignore_ascii_case(b"prefix")
        || s[subj.0..subj.1].eq_ignore_ascii_case(b"base")
    {
        return None;
    }
    let mut out = Vec::new();
    let mut j = skip_ws_comments(s, subj.1);
    loop {
        // predicate
        if j >= s.len() || s[j] == b'.' {
            break;
        }
        let pred = (j, term_end(s, j)?);
        j = skip_ws_comments(s, pred.1);
        loop {
            let obj = (j, term_end(s, j)?);
            out.push([subj, pred, obj]);
            j = skip_ws_comments(s, obj.1);
            if s.get(j) == Some(&b',') {
                j = skip_ws_comments(s, j + 1);
                continue;
            }
            break;
        }
        let mut semis = false;
        while s.get(j) == Some(&b';') {
            semis = true;
            j = skip_ws_comments(s, j + 1);
        }
        if !semis {
            break;
        }
    }
    // The statement must end here: '.', then nothing but blanks and comments.
    if s.get(j) != Some(&b'.') {
        return None;
    }
    j = skip_ws_comments(s, j + 1);
    (!out.is_empty() && j == s.len()).then_some(out)
}

/// Prefixes and base IRI in force, with the parsers made from them (strict,
/// lenient; built once per change, cloned for each unit).
#[derive(Default, Clone)]
struct Context {
    prefixes: Vec<(String, String)>,
    base: Option<String>,
    parsers: std::cell::OnceCell<(TurtleParser, TurtleParser)>,
}

impl Context {
    fn parser(&self, lenient: bool) -> TurtleParser {
        let (strict, lax) = self.parsers.get_or_init(|| {
            let mut p = TurtleParser::new();
            if let Some(b) = &self.base {
                if let Ok(q) = p.clone().with_base_iri(b.clone()) {
                    p = q;
                }
            }
            for (k, v) in &self.prefixes {
                if let Ok(q) = p.clone().with_prefix(k.clone(), v.clone()) {
                    p = q;
                }
            }
            (p.clone(), p.lenient())
        });
        if lenient {
            lax.clone()
        } else {
            strict.clone()
        }
    }
}

/// Parse one unit (statement or triple) with `ctx`, updating it; language tags
/// of the Turtle grammar are accepted ([`langtag::parse_with_wikidata_tags`]).
fn parse_unit(ctx: &mut Context, text: &[u8]) -> Result<Vec<Triple>, TurtleSyntaxError> {
    let after: std::cell::RefCell<Option<Context>> = std::cell::RefCell::new(None);
    let res = {
        let start = &*ctx;
        let run = |t: &[u8], lenient: bool| -> Result<Vec<Triple>, TurtleSyntaxError> {
            let mut p = start.parser(lenient).for_slice(t);
            let mut out = Vec::new();
            for r in &mut p {
                out.push(r?);
            }
            let mut c = Context::default();
            update(&mut c, p.prefixes(), p.base_iri());
            *after.borrow_mut() = Some(c);
            Ok(out)
        };
        langtag::parse_with_wikidata_tags(text, &mut |t| run(t, false), &mut |t| run(t, true))
    };
    if res.is_ok() {
        if let Some(c) = after.into_inner() {
            if c.prefixes != ctx.prefixes || c.base != ctx.base {
                *ctx = c;
            }
        }
    }
    res
}

fn update<'a>(
    ctx: &mut Context,
    prefixes: impl Iterator<Item = (&'a str, &'a str)>,
    base: Option<&str>,
) {
    let mut new: Vec<(String, String)> = prefixes
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    new.sort();
    let base = base.map(str::to_string);
    if new != ctx.prefixes || base != ctx.base {
        ctx.prefixes = new;
        ctx.base = base;
        ctx.parsers = std::cell::OnceCell::new();
    }
}

fn count_lines(b: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', b).count() as u64
}

struct Reader<'a, 'e, T> {
    path: &'a str,
    extract: &'a Extract<'e, T>,
    skip_invalid: bool,
    ctx: Context,
}

impl<T> Reader<'_, '_, T> {
    fn skip(&self, stats: &mut ReadStats, line: u64, msg: &str) {
        stats.skipped_invalid += 1;
        if stats.skipped_examples.len() < 10 {
            stats
                .skipped_examples
                .push(format!("{}:{}: {}", self.path, line + 1, msg));
        }
    }

    /// A group of whole statements starting at 0-based `line` / byte `offset`.
    fn group(
        &mut self,
        text: &[u8],
        line: u64,
        offset: u64,
        stats: &mut ReadStats,
        facts: &mut Vec<T>,
    ) -> Result<(), ConvertError> {
        {
            let mut p = self.ctx.parser(false).for_slice(text);
            let mut kept = Vec::new();
            let mut triples = 0u64;
            let mut ok = true;
            for r in &mut p {
                match r {
                    Ok(t) => {
                        triples += 1;
                        if let Some(f) = (self.extract)(t.as_ref()) {
                            kept.push(f);
                        }
                    }
                    Err(_) => {
                        ok = false;
                        break;
                    }
                }
            }
            if ok {
                update(&mut self.ctx, p.prefixes(), p.base_iri());
                stats.triples += triples;
                facts.append(&mut kept);
                return Ok(());
            }
        }
        let mut start = 0usize;
        let mut line_at = line;
        for end in statements(text) {
            let stmt = &text[start..end];
            self.statement(stmt, line_at, offset + start as u64, stats, facts)?;
            line_at += count_lines(stmt);
            start = end;
        }
        Ok(())
    }

    fn emit(&self, triples: Vec<Triple>, stats: &mut ReadStats, facts: &mut Vec<T>) {
        for t in triples {
            stats.triples += 1;
            if let Some(f) = (self.extract)(t.as_ref()) {
                facts.push(f);
            }
        }
    }

    fn statement(
        &mut self,
        stmt: &[u8],
        line: u64,
        offset: u64,
        stats: &mut ReadStats,
        facts: &mut Vec<T>,
    ) -> Result<(), ConvertError> {
        let e = match parse_unit(&mut self.ctx, stmt) {
            Ok(ts) => {
                self.emit(ts, stats, facts);
                return Ok(());
            }
            Err(e) => e,
        };
        let loc = e.location();
        // Lines counted by '\n' (oxttl also counts a lone '\r'), as everywhere else.
        let at = (loc.start.offset as usize).min(stmt.len());
        let err_line = line + count_lines(&stmt[..at]);
        if !self.skip_invalid {
            return Err(ConvertError::Syntax {
                file: self.path.to_string(),
                line: err_line + 1,
                offset: offset + loc.start.offset,
                message: e.message().to_string(),
                excerpt: excerpt(stmt, loc.start.offset),
            });
        }
        let Some(parts) = split_triples(stmt) else {
            self.skip(stats, err_line, e.message());
            return Ok(());
        };
        for [s, p, o] in parts {
            let mut unit = Vec::with_capacity(s.1 - s.0 + p.1 - p.0 + o.1 - o.0 + 4);
            unit.extend_from_slice(&stmt[s.0..s.1]);
            unit.push(b' ');
            unit.extend_from_slice(&stmt[p.0..p.1]);
            unit.push(b' ');
            unit.extend_from_slice(&stmt[o.0..o.1]);
            unit.extend_from_slice(b" .");
            match parse_unit(&mut self.ctx, &unit) {
                Ok(ts) => self.emit(ts, stats, facts),
                Err(e) => self.skip(stats, line + count_lines(&stmt[..o.0]), e.message()),
            }
        }
        Ok(())
    }
}

/// Read one Turtle input (after any byte-order mark: `offset0` bytes), sending
/// batches of extracted values to `sink` in input order.
pub fn read<T>(
    reader: &mut (dyn BufRead + Send),
    path: &str,
    offset0: u64,
    extract: &Extract<'_, T>,
    skip_invalid: bool,
    stats: &mut ReadStats,
    sink: &mut dyn FnMut(Vec<T>),
) -> Result<(), ConvertError> {
    let io_err = |e: io::Error| ConvertError::Io {
        file: path.to_string(),
        message: if e.kind() == io::ErrorKind::UnexpectedEof {
            format!("truncated or corrupt compressed input: {e}")
        } else {
            e.to_string()
        },
    };
    let mut rd = Reader {
        path,
        extract,
        skip_invalid,
        ctx: Context::default(),
    };
    let mut buf: Vec<u8> = Vec::with_capacity(GROUP_BYTES + (1 << 16));
    let mut sp = Splitter::default();
    let mut ends = Vec::new();
    let mut eof = false;
    let mut line = 0u64;
    let mut offset = offset0;
    while !eof || !buf.is_empty() {
        super::check_cancel()?;
        // Fill to at least GROUP_BYTES unscanned-or-pending bytes.
        while !eof && buf.len() < GROUP_BYTES {
            let chunk = reader.fill_buf().map_err(io_err)?;
            if chunk.is_empty() {
                eof = true;
                break;
            }
            let k = chunk.len().min(GROUP_BYTES + (1 << 16) - buf.len()).max(1);
            buf.extend_from_slice(&chunk[..k]);
            reader.consume(k);
        }
        ends.clear();
        sp.scan(&buf, eof, &mut ends);
        let cut = if eof {
            buf.len()
        } else {
            match ends.last() {
                Some(&c) => c,
                // One statement longer than a group: read on.
                None => {
                    let chunk = reader.fill_buf().map_err(io_err)?;
                    if chunk.is_empty() {
                        eof = true;
                    } else {
                        let k = chunk.len();
                        buf.extend_from_slice(chunk);
                        reader.consume(k);
                    }
                    continue;
                }
            }
        };
        let mut facts = Vec::new();
        rd.group(&buf[..cut], line, offset, stats, &mut facts)?;
        line += count_lines(&buf[..cut]);
        offset += cut as u64;
        stats.bytes += cut as u64;
        buf.drain(..cut);
        sp.shift(cut.min(sp.pos));
        sink(facts);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pieces(t: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut s = 0;
        for e in statements(t.as_bytes()) {
            out.push(t[s..e].trim());
            s = e;
        }
        out
    }

    #[test]
    fn statements_are_cut_outside_strings_iris_and_names() {
        let t = "@prefix wd: <http://www.wikidata.org/entity/> .\nPREFIX ex: <http://e/x.y>\n\
                 wd:Q1 ex:p \"a . b\" , 1.5 ; ex:q wd:Q2.x, \"\"\"x .\n y\"\"\"@en .\n\
                 # c . d\n<a> <b> [ <c> \"d\" ] .";
        assert_eq!(
            pieces(t),
            vec![
                "@prefix wd: <http://www.wikidata.org/entity/> .",
                "PREFIX ex: <http://e/x.y>",
                "wd:Q1 ex:p \"a . b\" , 1.5 ; ex:q wd:Q2.x, \"\"\"x .\n y\"\"\"@en .",
                "# c . d\n<a> <b> [ <c> \"d\" ] .",
            ]
        );
        // The same cut when the bytes arrive one at a time.
        let mut sp = Splitter::default();
        let mut ends = Vec::new();
        for k in 1..=t.len() {
            sp.scan(&t.as_bytes()[..k], k == t.len(), &mut ends);
        }
        assert_eq!(ends, statements(t.as_bytes()));
    }

    #[test]
    fn a_statement_is_cut_into_triples() {
        let s = b"wd:Q1 ex:p \"a ; b\"@zh-classical , 1.5 ;\n ex:q [ ex:r 1 ] ; .";
        let parts = split_triples(s).unwrap();
        let text: Vec<String> = parts
            .iter()
            .map(|r| {
                r.iter()
                    .map(|&(a, b)| String::from_utf8_lossy(&s[a..b]).into_owned())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        assert_eq!(
            text,
            vec![
                "wd:Q1 ex:p \"a ; b\"@zh-classical",
                "wd:Q1 ex:p 1.5",
                "wd:Q1 ex:q [ ex:r 1 ]"
            ]
        );
        assert!(split_triples(b"@prefix a: <x> .").is_none());
    }
}
