//! Specialised N-Triples fast path: a zero-copy line parser that yields
//! `oxrdf::TripleRef`s without allocating (except to unescape `\u` escapes).
//!
//! It sits beside oxttl (the reference parser): each line is parsed with this
//! fast path first and, if it is rejected, parsed again with oxttl, so that
//! errors, their positions and `--skip-invalid` behave exactly as oxttl's.
//! Language tags follow the N-Triples grammar (`[a-zA-Z]+('-'[a-zA-Z0-9]+)*`,
//! lowercased), not BCP 47: Wikidata writes `zh-classical`, `be-tarask`, ...
//! (the reference path accepts them too, [`super::langtag`]). Agreement with
//! oxttl (and rdflib) on every test file is checked by the differential tests.

use oxrdf::{BlankNodeRef, LiteralRef, NamedNodeRef, NamedOrBlankNodeRef, TermRef, TripleRef};
use std::borrow::Cow;

/// The line could not be parsed by the fast path (the caller falls back to oxttl).
#[derive(Debug)]
pub struct Reject;

enum Tm<'a> {
    Iri(Cow<'a, str>),
    Blank(&'a str),
    Lit {
        value: Cow<'a, str>,
        lang: Option<Cow<'a, str>>,
        dt: Option<Cow<'a, str>>,
    },
}

fn is_ws(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

fn skip_ws(l: &[u8], mut i: usize) -> usize {
    while i < l.len() && is_ws(l[i]) {
        i += 1;
    }
    i
}

fn hex(b: u8) -> Option<u32> {
    (b as char).to_digit(16)
}

/// Read `\uXXXX` / `\UXXXXXXXX` at `l[i]` (pointing at `u`/`U`); returns (char, next index).
fn uchar(l: &[u8], i: usize) -> Result<(char, usize), Reject> {
    let n = match l.get(i) {
        Some(b'u') => 4,
        Some(b'U') => 8,
        _ => return Err(Reject),
    };
    if i + 1 + n > l.len() {
        return Err(Reject);
    }
    let mut v = 0u32;
    for &b in &l[i + 1..i + 1 + n] {
        v = v * 16 + hex(b).ok_or(Reject)?;
    }
    Ok((char::from_u32(v).ok_or(Reject)?, i + 1 + n))
}

/// Byte classes inside an IRI (N-Triples IRIREF): 0 allowed, 1 `>`, 2 `\\`,
/// 3 `%`, 4 `:`, 5 not allowed unescaped, 6 allowed only in some places of an
/// IRI (`[` `]` of an IP literal host, `#` once, non-ASCII outside some ranges).
static IRI_CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b <= 0x20 {
        t[b] = 5;
        b += 1;
    }
    t[0x7f] = 5;
    let mut b = 0x80;
    while b <= 0xff {
        t[b] = 6;
        b += 1;
    }
    t[b'[' as usize] = 6;
    t[b']' as usize] = 6;
    t[b'#' as usize] = 6;
    t[b'<' as usize] = 5;
    t[b'"' as usize] = 5;
    t[b'{' as usize] = 5;
    t[b'}' as usize] = 5;
    t[b'|' as usize] = 5;
    t[b'^' as usize] = 5;
    t[b'`' as usize] = 5;
    t[b'>' as usize] = 1;
    t[b'\\' as usize] = 2;
    t[b'%' as usize] = 3;
    t[b':' as usize] = 4;
    t
};

/// Namespaces most IRIs of a Wikidata dump start with, each with the offset of
/// its scheme's ':' and whether it ends in the fragment (`#`).
const KNOWN_PREFIXES: [(&str, usize, bool); 7] = [
    ("http://www.wikidata.org/", 4, false),
    ("http://wikiba.se/ontology#", 4, true),
    ("http://www.w3.org/", 4, false),
    ("http://schema.org/", 4, false),
    ("https://en.wikipedia.org/", 5, false),
    ("https://www.wikidata.org/", 5, false),
    ("http://commons.wikimedia.org/", 4, false),
];

/// Length of `https://<lang>.wikipedia.org/` (`<lang>`: lowercase letters and
/// `-`, Wikipedia's sitelink hosts) at the start of `b`, if there.
fn wikipedia_prefix(b: &[u8]) -> Option<usize> {
    let rest = b.strip_prefix(b"https://")?;
    let host = rest
        .iter()
        .position(|&c| !(c.is_ascii_lowercase() || c == b'-'))?;
    (host > 0 && rest[host..].starts_with(b".wikipedia.org/")).then_some(8 + host + 15)
}

fn iri<'a>(s: &'a str, l: &'a [u8], mut i: usize) -> Result<(Cow<'a, str>, usize), Reject> {
    // l[i] == b'<'
    i += 1;
    let start = i;
    // Common case, one pass: no escape before the closing '>'. The scheme (up to
    // the first ':') and percent escapes are checked only when present.
    let mut colon = usize::MAX;
    let mut pct = false;
    let mut j = start;
    // Namespaces most IRIs of a Wikidata dump start with: valid IRI text, no
    // escape, no '%', scheme ends at the first ':', authority complete;
    // scanning resumes after them. After one, the rest is path, query and
    // fragment, checked here: no '[' ']', '#' at most once in all. Any other
    // IRI, and one with non-ASCII text, is checked by oxiri, as oxttl checks it.
    let mut known_prefix = false;
    let mut in_fragment = false;
    let mut other = false;
    for (known, known_colon, fragment) in KNOWN_PREFIXES {
        if l[start..].starts_with(known.as_bytes()) {
            colon = start + known_colon;
            j = start + known.len();
            known_prefix = true;
            in_fragment = fragment;
            break;
        }
    }
    if !known_prefix {
        if let Some(n) = wikipedia_prefix(&l[start..]) {
            colon = start + 5;
            j = start + n;
            known_prefix = true;
        }
    }
    loop {
        while j < l.len() && IRI_CLASS[l[j] as usize] == 0 {
            j += 1;
        }
        let Some(&b) = l.get(j) else {
            return Err(Reject);
        };
        match IRI_CLASS[b as usize] {
            1 => {
                let iri = &s[start..j];
                if other || !known_prefix {
                    check_iri(iri)?;
                    return Ok((Cow::Borrowed(iri), j + 1));
                }
                if colon == usize::MAX {
                    return Err(Reject);
                }
                check_scheme(&iri.as_bytes()[..colon - start])?;
                if pct {
                    check_pct(iri.as_bytes(), colon - start)?;
                }
                return Ok((Cow::Borrowed(iri), j + 1));
            }
            2 => break,
            3 => pct = true,
            4 => colon = colon.min(j),
            6 => {
                if b == b'#' && known_prefix && !in_fragment {
                    in_fragment = true;
                } else if b >= 0x80 || !known_prefix {
                    // non-ASCII text (an unencoded sitelink title, say) or another
                    // IRI: oxiri judges the whole IRI, without leaving the fast path
                    other = true;
                } else {
                    return Err(Reject);
                }
            }
            _ => return Err(Reject),
        }
        j += 1;
    }
    let mut owned: Option<String> = None;
    while i < l.len() {
        let b = l[i];
        match b {
            b'>' => {
                let iri: Cow<'a, str> = match owned {
                    Some(o) => Cow::Owned(o),
                    None => Cow::Borrowed(&s[start..i]),
                };
                check_iri(&iri)?;
                return Ok((iri, i + 1));
            }
            b'\\' => {
                let (c, next) = uchar(l, i + 1)?;
                let o = owned.get_or_insert_with(|| s[start..i].to_string());
                if matches!(
                    c,
                    '\0'..=' ' | '<' | '>' | '"' | '{' | '}' | '|' | '^' | '`' | '\\'
                ) {
                    return Err(Reject);
                }
                o.push(c);
                i = next;
            }
            0..=0x20 | b'<' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`' => return Err(Reject),
            _ => {
                if let Some(o) = owned.as_mut() {
                    // copy one UTF-8 character
                    let ch_len = utf8_len(b);
                    o.push_str(&s[i..i + ch_len]);
                    i += ch_len;
                    continue;
                }
                i += 1;
            }
        }
    }
    Err(Reject)
}

fn utf8_len(b: u8) -> usize {
    match b {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    }
}

/// A valid absolute IRI, as oxttl's strict mode checks it (oxiri).
fn check_iri(iri: &str) -> Result<(), Reject> {
    NamedNodeRef::new(iri).map(|_| ()).map_err(|_| Reject)
}

/// A scheme: a letter, then letters, digits, `+`, `-`, `.`.
fn check_scheme(b: &[u8]) -> Result<(), Reject> {
    if b.is_empty() || !b[0].is_ascii_alphabetic() {
        return Err(Reject);
    }
    if !b[1..]
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    {
        return Err(Reject);
    }
    Ok(())
}

/// Every `%` from `b[from..]` on is followed by two hex digits.
fn check_pct(b: &[u8], from: usize) -> Result<(), Reject> {
    let mut i = from;
    while let Some(p) = memchr::memchr(b'%', &b[i..]) {
        let k = i + p;
        if k + 2 >= b.len() {
            return Err(Reject);
        }
        if !b[k + 1].is_ascii_hexdigit() || !b[k + 2].is_ascii_hexdigit() {
            return Err(Reject);
        }
        i = k + 3;
    }
    Ok(())
}

fn blank<'a>(s: &'a str, l: &'a [u8], i: usize) -> Result<(&'a str, usize), Reject> {
    // l[i..] starts with "_:"; the label runs to whitespace, a trailing '.' ends the statement.
    let start = i + 2;
    let mut j = start;
    while j < l.len() && !is_ws(l[j]) && !matches!(l[j], b'<' | b'"' | b'#' | b'\r') {
        let c = l[j];
        if c.is_ascii() && !(c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.') {
            return Err(Reject);
        }
        j += 1;
    }
    while j > start && l[j - 1] == b'.' {
        j -= 1;
    }
    if j == start || l[start] == b'-' || l[start] == b'.' {
        return Err(Reject);
    }
    Ok((&s[start..j], j))
}

fn literal<'a>(s: &'a str, l: &'a [u8], mut i: usize) -> Result<(Tm<'a>, usize), Reject> {
    i += 1;
    let start = i;
    let mut owned: Option<String> = None;
    let value: Cow<'a, str>;
    loop {
        let Some(p) = memchr::memchr3(b'"', b'\\', b'\r', &l[i..]) else {
            return Err(Reject);
        };
        let k = i + p;
        if let Some(o) = owned.as_mut() {
            o.push_str(&s[i..k]);
        }
        match l[k] {
            b'"' => {
                value = match owned {
                    Some(o) => Cow::Owned(o),
                    None => Cow::Borrowed(&s[start..k]),
                };
                i = k + 1;
                break;
            }
            b'\\' => {
                let o = owned.get_or_insert_with(|| s[start..k].to_string());
                let (c, next) = match l.get(k + 1) {
                    Some(b't') => ('\t', k + 2),
                    Some(b'b') => ('\u{8}', k + 2),
                    Some(b'n') => ('\n', k + 2),
                    Some(b'r') => ('\r', k + 2),
                    Some(b'f') => ('\u{c}', k + 2),
                    Some(b'"') => ('"', k + 2),
                    Some(b'\'') => ('\'', k + 2),
                    Some(b'\\') => ('\\', k + 2),
                    Some(b'u') | Some(b'U') => uchar(l, k + 1)?,
                    _ => return Err(Reject),
                };
                o.push(c);
                i = next;
            }
            _ => return Err(Reject),
        }
    }
    if l.get(i) == Some(&b'@') {
        let ls = i + 1;
        let mut j = ls;
        while j < l.len() && l[j].is_ascii_alphabetic() {
            j += 1;
        }
        if j == ls {
            return Err(Reject);
        }
        while j < l.len() && l[j] == b'-' {
            let ss = j + 1;
            j = ss;
            while j < l.len() && l[j].is_ascii_alphanumeric() {
                j += 1;
            }
            if j == ss {
                return Err(Reject);
            }
        }
        let tag = &s[ls..j];
        let lang = if tag.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(tag.to_ascii_lowercase())
        } else {
            Cow::Borrowed(tag)
        };
        return Ok((
            Tm::Lit {
                value,
                lang: Some(lang),
                dt: None,
            },
            j,
        ));
    }
    if l.get(i) == Some(&b'^') {
        if l.get(i + 1) != Some(&b'^') || l.get(i + 2) != Some(&b'<') {
            return Err(Reject);
        }
        let (dt, j) = iri(s, l, i + 2)?;
        return Ok((
            Tm::Lit {
                value,
                lang: None,
                dt: Some(dt),
            },
            j,
        ));
    }
    Ok((
        Tm::Lit {
            value,
            lang: None,
            dt: None,
        },
        i,
    ))
}

/// Parse one line (without its `\n`). `Ok(None)` for blank / comment lines.
/// `s` is the line as text (already checked to be UTF-8).
pub fn parse_line<R>(s: &str, f: impl FnOnce(TripleRef<'_>) -> R) -> Result<Option<R>, Reject> {
    let l = s.as_bytes();
    let mut i = skip_ws(l, 0);
    if i == l.len() || l[i] == b'#' || (l[i] == b'\r' && i + 1 == l.len()) {
        return Ok(None);
    }
    let subj = match l[i] {
        b'<' => {
            let (x, j) = iri(s, l, i)?;
            i = j;
            Tm::Iri(x)
        }
        b'_' if l.get(i + 1) == Some(&b':') => {
            let (x, j) = blank(s, l, i)?;
            i = j;
            Tm::Blank(x)
        }
        _ => return Err(Reject),
    };
    i = skip_ws(l, i);
    if l.get(i) != Some(&b'<') {
        return Err(Reject);
    }
    let (pred, j) = iri(s, l, i)?;
    i = skip_ws(l, j);
    let obj = match l.get(i) {
        Some(b'<') => {
            let (x, j) = iri(s, l, i)?;
            i = j;
            Tm::Iri(x)
        }
        Some(b'_') if l.get(i + 1) == Some(&b':') => {
            let (x, j) = blank(s, l, i)?;
            i = j;
            Tm::Blank(x)
        }
        Some(b'"') => {
            let (x, j) = literal(s, l, i)?;
            i = j;
            x
        }
        _ => return Err(Reject),
    };
    i = skip_ws(l, i);
    if l.get(i) != Some(&b'.') {
        return Err(Reject);
    }
    i = skip_ws(l, i + 1);
    if i < l.len() && l[i] != b'#' && !(l[i] == b'\r' && i + 1 == l.len()) {
        return Err(Reject);
    }
    let subject = match &subj {
        Tm::Iri(x) => NamedOrBlankNodeRef::NamedNode(NamedNodeRef::new_unchecked(x)),
        Tm::Blank(b) => NamedOrBlankNodeRef::BlankNode(BlankNodeRef::new_unchecked(b)),
        Tm::Lit { .. } => return Err(Reject),
    };
    let object = match &obj {
        Tm::Iri(x) => TermRef::NamedNode(NamedNodeRef::new_unchecked(x)),
        Tm::Blank(b) => TermRef::BlankNode(BlankNodeRef::new_unchecked(b)),
        Tm::Lit {
            value,
            lang: Some(lang),
            ..
        } => TermRef::Literal(LiteralRef::new_language_tagged_literal_unchecked(
            value, lang,
        )),
        Tm::Lit {
            value,
            lang: None,
            dt: Some(dt),
        } => TermRef::Literal(LiteralRef::new_typed_literal(
            value,
            NamedNodeRef::new_unchecked(dt),
        )),
        Tm::Lit {
            value,
            lang: None,
            dt: None,
        } => TermRef::Literal(LiteralRef::new_simple_literal(value)),
    };
    Ok(Some(f(TripleRef {
        subject,
        predicate: NamedNodeRef::new_unchecked(&pred),
        object,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(line: &str) -> Option<String> {
        parse_line(line, |t| t.to_string()).ok().flatten()
    }

    #[test]
    fn parses_wikidata_lines() {
        assert_eq!(
            one(r#"<http://x/Q1> <http://x/p> "a\u00e9\"b"@EN ."#).unwrap(),
            r#"<http://x/Q1> <http://x/p> "aé\"b"@en"#
        );
        assert!(
            one(r#"_:b1 <http://x/p> "1"^^<http://www.w3.org/2001/XMLSchema#decimal> . # c"#)
                .is_some()
        );
        assert!(parse_line("  # comment", |_| ()).unwrap().is_none());
        assert!(parse_line("<http://x/a> <http://x/p> <b> .", |_| ()).is_err());
        assert!(parse_line("<http://x/a> <http://x/p> \"x .", |_| ()).is_err());
        assert!(parse_line("<http://x/a b> <http://x/p> \"x\" .", |_| ()).is_err());
        assert!(parse_line("<http://x/a> <http://x/p> \"x\"", |_| ()).is_err());
        // Wikidata's non-BCP 47 codes (a 9-character subtag, 3 subtags, ...)
        for tag in ["zh-classical", "be-tarask", "zh-min-nan", "simple", "mo"] {
            let line = format!("<http://x/a> <http://x/p> \"x\"@{tag} .");
            assert_eq!(
                one(&line).unwrap(),
                format!("<http://x/a> <http://x/p> \"x\"@{tag}")
            );
        }
        assert!(parse_line("<http://x/a> <http://x/p> \"x\"@zh- .", |_| ()).is_err());
    }

    #[test]
    fn iris_oxttl_refuses_are_left_to_it() {
        // Found by the fuzz target (convert::fuzz): the fast path accepted these.
        for iri in [
            "http:[//acme.test/statement/x",
            "http://www.wikidata.org/entity/Q1#a#b",
            "http://www.wikidata.org/entity/Q1[x]",
            "http://acme.test:port/",
            "http://acme.test/\u{7f}",
            "https://zh.wikipedia.org/wiki/a#b#c",
            "https://zh.wikipedia.org/wiki/[x]",
        ] {
            let line = format!("<{iri}> <http://x/p> <http://x/o> .");
            assert!(parse_line(&line, |_| ()).is_err(), "{iri}");
            assert!(oxrdf::NamedNodeRef::new(iri).is_err(), "{iri}");
        }
        // still taken by the fast path: a fragment, a port, an IPv6 host, sitelinks,
        // non-ASCII (checked by oxiri; after a known prefix, non-ASCII is left to oxttl)
        for iri in [
            "http://www.w3.org/2001/XMLSchema#decimal",
            "http://acme.test:8080/a?b#c",
            "http://[::1]/x",
            "https://zh.wikipedia.org/wiki/%E9%81%93",
            "https://zh-min-nan.wikipedia.org/wiki/Douglas_Adams",
            "http://acme.test/道格拉斯",
        ] {
            let line = format!("<{iri}> <http://x/p> <http://x/o> .");
            assert!(parse_line(&line, |_| ()).is_ok(), "{iri}");
        }
    }
}
