//! Language tags as Wikidata writes them.
//!
//! oxttl checks language tags against BCP 47 (oxilangtag), but Wikidata's dumps
//! use MediaWiki language codes, some of which are not BCP 47: `zh-classical`
//! (a 9-character subtag), `be-tarask`, `roa-tara`, `simple`, `nds-nl`,
//! `bat-smg`, `zh-min-nan`, `fiu-vro`, `map-bms`, `de-formal`, `mo`, ... (see
//! Wikidata's `Special:SiteMatrix` and `WikibaseRepo`'s language code map).
//! kgbench accepts any tag of the N-Triples / Turtle grammar
//! (`LANGTAG ::= '@' [a-zA-Z]+ ('-' [a-zA-Z0-9]+)*`, RDF 1.1 N-Triples §7 and
//! Turtle §6.5): a unit (an N-Triples line, a Turtle statement or triple) that
//! oxttl's strict parser rejects at a language tag of that grammar is parsed
//! again in oxttl's lenient mode, and kept when every IRI of its triples is a
//! valid absolute IRI (the check lenient mode leaves out). Tags are lowercased,
//! as the fast N-Triples path and rdflib do.

use oxrdf::{Literal, NamedNode, NamedOrBlankNode, Term, Triple};
use oxttl::TurtleSyntaxError;

/// `s` matches `[a-zA-Z]+ ('-' [a-zA-Z0-9]+)*` (the grammar's LANGTAG without `@`).
pub fn is_langtag(s: &str) -> bool {
    let mut parts = s.split('-');
    let first = parts.next().unwrap_or("");
    !first.is_empty()
        && first.bytes().all(|b| b.is_ascii_alphabetic())
        && parts.all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

/// The byte range of `@tag` when the strict parser's error `e` on `text` is at
/// a language tag of the grammar glued to a string literal (the only strict
/// error the lenient re-parse may overrule); `None` otherwise.
pub fn langtag_error_range(text: &[u8], e: &TurtleSyntaxError) -> Option<(usize, usize)> {
    let tag_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'-';
    let a = (e.location().start.offset as usize).min(text.len());
    let mut p = a;
    if text.get(p) != Some(&b'@') {
        while p > 0 && a - p < 64 && tag_byte(text[p - 1]) {
            p -= 1;
        }
        p = p.checked_sub(1)?;
    }
    if text[p] != b'@' || p == 0 || !matches!(text[p - 1], b'"' | b'\'') {
        return None;
    }
    let mut end = p + 1;
    while end < text.len() && tag_byte(text[end]) {
        end += 1;
    }
    let tag = std::str::from_utf8(&text[p + 1..end]).ok()?;
    (is_langtag(tag) && a <= end).then_some((p, end))
}

/// `text` with the language tag that `e` points at blanked out (`@tag` → as
/// many spaces: the literal becomes a simple one and offsets stay those of
/// `text`); `None` if `e` is not at a language tag of the grammar.
pub fn with_tag_replaced(text: &[u8], e: &TurtleSyntaxError) -> Option<Vec<u8>> {
    let (a, b) = langtag_error_range(text, e)?;
    let mut out = text.to_vec();
    out[a..b].fill(b' ');
    Some(out)
}

/// Parses one unit's text into its triples, or gives the first error.
pub type UnitParser<'a> = dyn FnMut(&[u8]) -> Result<Vec<Triple>, TurtleSyntaxError> + 'a;

/// Parse one unit (an N-Triples line, a Turtle statement or triple) with
/// `strict`, accepting language tags of the grammar: when the strict parser
/// stops at such a tag, the tag is blanked out (same length) and the unit
/// parsed strictly again (once per tag, each further on), so the unit is
/// accepted exactly when it is valid but for its language tags, and any other
/// error is reported at its own place. The triples of an accepted unit come from
/// `lenient` (oxttl's lenient mode, which keeps the tags), re-checked by
/// [`checked`]. `strict` and `lenient` return the unit's triples or the first
/// error.
pub fn parse_with_wikidata_tags(
    text: &[u8],
    strict: &mut UnitParser<'_>,
    lenient: &mut UnitParser<'_>,
) -> Result<Vec<Triple>, TurtleSyntaxError> {
    let mut e = match strict(text) {
        Ok(ts) => return Ok(ts),
        Err(e) => e,
    };
    let mut cur = text.to_vec();
    let mut n_ok = None;
    // Each round replaces one tag further on: at most one round per '@'.
    let mut rounds = memchr::memchr_iter(b'@', text).count();
    let mut last_at = None;
    while rounds > 0 {
        rounds -= 1;
        let at = e.location().start.offset;
        if last_at.is_some_and(|l| at <= l) {
            // The replaced tag is refused too: not a language tag problem.
            return Err(e);
        }
        last_at = Some(at);
        let Some(next) = with_tag_replaced(&cur, &e) else {
            return Err(e);
        };
        cur = next;
        match strict(&cur) {
            Ok(ts) => {
                n_ok = Some(ts.len());
                break;
            }
            Err(e2) => e = e2,
        }
    }
    let Some(n) = n_ok else {
        return Err(e);
    };
    let mut out = Vec::with_capacity(n);
    for t in lenient(text)? {
        match checked(t) {
            Some(t) => out.push(t),
            None => return Err(e),
        }
    }
    if out.len() != n {
        return Err(e);
    }
    Ok(out)
}

/// A triple from oxttl's lenient mode, checked as the strict mode would except
/// for language tags: every IRI is absolute and valid, language tags match the
/// grammar (and are lowercased). `None` when a check fails.
pub fn checked(t: Triple) -> Option<Triple> {
    let subject = match t.subject {
        NamedOrBlankNode::NamedNode(n) => {
            NamedOrBlankNode::NamedNode(NamedNode::new(n.into_string()).ok()?)
        }
        other => other,
    };
    let predicate = NamedNode::new(t.predicate.into_string()).ok()?;
    let object = match t.object {
        Term::NamedNode(n) => Term::NamedNode(NamedNode::new(n.into_string()).ok()?),
        Term::Literal(l) => {
            let (value, dt, lang) = l.destruct();
            match (lang, dt) {
                (Some(lang), _) => {
                    if !is_langtag(&lang) {
                        return None;
                    }
                    Term::Literal(Literal::new_language_tagged_literal_unchecked(
                        value,
                        lang.to_ascii_lowercase(),
                    ))
                }
                (None, Some(dt)) => Term::Literal(Literal::new_typed_literal(
                    value,
                    NamedNode::new(dt.into_string()).ok()?,
                )),
                (None, None) => Term::Literal(Literal::new_simple_literal(value)),
            }
        }
        other => other,
    };
    Some(Triple {
        subject,
        predicate,
        object,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wikidata_codes_match_the_grammar() {
        for t in [
            "zh-classical",
            "be-tarask",
            "roa-tara",
            "simple",
            "nds-nl",
            "bat-smg",
            "zh-min-nan",
            "fiu-vro",
            "map-bms",
            "de-formal",
            "mo",
            "EN",
            "x-1abc",
        ] {
            assert!(is_langtag(t), "{t}");
        }
        for t in ["", "-en", "en-", "1en", "en--x", "en_gb", "zh-é"] {
            assert!(!is_langtag(t), "{t}");
        }
    }

    #[test]
    fn any_grammar_tag_is_accepted_and_other_errors_stay() {
        let parse = |text: &[u8]| {
            let run = |t: &[u8], lenient: bool| {
                let p = if lenient {
                    oxttl::TurtleParser::new().lenient()
                } else {
                    oxttl::TurtleParser::new()
                };
                p.for_slice(t).collect::<Result<Vec<_>, _>>()
            };
            parse_with_wikidata_tags(text, &mut |t| run(t, false), &mut |t| run(t, true))
        };
        // one letter (found by the fuzz target), nine-letter subtag, several tags
        let ok = br#"<http://x/a> <http://x/p> "x"@e, "y"@zh-classical, "z"@EN-Simple ."#;
        let ts = parse(ok).unwrap();
        let tags: Vec<String> = ts.iter().map(|t| t.object.to_string()).collect();
        assert_eq!(
            tags,
            [r#""x"@e"#, r#""y"@zh-classical"#, r#""z"@en-simple"#]
        );
        // a tag where no literal is: refused, not blanked
        assert!(parse(br#"<http://x/a> <http://x/p> @zh-classical ."#).is_err());
        // another error after the tag is reported at its own place
        let e = parse(br#"<http://x/a> <http://x/p> "y"@zh-classical <bad iri> ."#).unwrap_err();
        assert!(
            e.location().start.offset >= 43 && e.message().contains("IRI"),
            "{e}"
        );
    }
}
