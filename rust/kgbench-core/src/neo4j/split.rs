//! Parallel parsing of a graph document: the top-level object is scanned for its members, the
//! items of its `entities` and `relations` arrays are located by a structural scan (strings,
//! brackets, commas) and parsed by `serde_json` in parallel (rayon), each on its own slice.
//!
//! The scan is only a splitter: every slice is parsed (and so checked) by `serde_json`, and the
//! separators between slices are checked by the scan. Anything unusual (an escaped top-level
//! key, a repeated top-level key, a malformed separator, a slice `serde_json` rejects) makes
//! [`parse_fast`] return `None`; the caller then parses the whole text sequentially, which
//! gives the result or the error with its line and column.

use std::borrow::Cow;

use rayon::prelude::*;

use super::value::Val;

/// The members whose array items are parsed in parallel.
const SPLIT_KEYS: [&str; 2] = ["entities", "relations"];

struct Scan<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while let Some(c) = self.b.get(self.pos) {
            if matches!(c, b' ' | b'\n' | b'\r' | b'\t') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.pos += 1)
    }

    /// Skip a string starting at its opening quote.
    fn string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            let i = memchr::memchr2(b'"', b'\\', &self.b[self.pos..])?;
            self.pos += i;
            if self.b[self.pos] == b'"' {
                self.pos += 1;
                return Some(());
            }
            self.pos += 2; // a backslash and the escaped byte
        }
    }

    /// A string without escapes, as a borrowed `&str`.
    fn plain_string(&mut self) -> Option<&'a str> {
        let start = self.pos + 1;
        self.eat(b'"')?;
        let i = memchr::memchr2(b'"', b'\\', &self.b[self.pos..])?;
        if self.b[self.pos + i] != b'"' {
            return None;
        }
        self.pos += i + 1;
        std::str::from_utf8(&self.b[start..self.pos - 1]).ok()
    }

    /// Skip one value loosely (its content is checked by `serde_json` later).
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string(),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                return Some(());
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
            _ => {
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') {
                        break;
                    }
                    self.pos += 1;
                }
                Some(())
            }
        }
    }

    /// The byte ranges of the items of the array starting here.
    fn array_items(&mut self) -> Option<Vec<(usize, usize)>> {
        self.eat(b'[')?;
        let mut items = Vec::new();
        self.ws();
        if self.eat(b']').is_some() {
            return Some(items);
        }
        loop {
            self.ws();
            let start = self.pos;
            self.value()?;
            items.push((start, self.pos));
            self.ws();
            match self.peek()? {
                b',' => self.pos += 1,
                b']' => {
                    self.pos += 1;
                    return Some(items);
                }
                _ => return None,
            }
        }
    }
}

fn parse_slice(b: &[u8]) -> Option<Val<'_>> {
    serde_json::from_slice(b).ok()
}

/// Parse a graph document with its `entities` / `relations` items in parallel; `None` when
/// the document is not a plain top-level object this splitter handles, or not valid JSON.
pub fn parse_fast(b: &[u8]) -> Option<Val<'_>> {
    let mut s = Scan { b, pos: 0 };
    s.ws();
    s.eat(b'{')?;
    let mut pairs: Vec<(Cow<'_, str>, Val<'_>)> = Vec::new();
    s.ws();
    if s.eat(b'}').is_none() {
        loop {
            s.ws();
            let key = s.plain_string()?;
            if pairs.iter().any(|(k, _)| k == key) {
                return None;
            }
            s.ws();
            s.eat(b':')?;
            s.ws();
            let value = if SPLIT_KEYS.contains(&key) && s.peek() == Some(b'[') {
                let ranges = s.array_items()?;
                let items: Option<Vec<Val<'_>>> = ranges
                    .par_iter()
                    .with_min_len(256)
                    .map(|&(a, z)| parse_slice(&b[a..z]))
                    .collect();
                Val::List(items?)
            } else {
                let start = s.pos;
                s.value()?;
                parse_slice(&b[start..s.pos])?
            };
            pairs.push((Cow::Borrowed(key), value));
            s.ws();
            match s.peek()? {
                b',' => s.pos += 1,
                b'}' => {
                    s.pos += 1;
                    break;
                }
                _ => return None,
            }
        }
    }
    s.ws();
    (s.pos == b.len()).then_some(Val::Obj(pairs))
}

#[cfg(test)]
mod tests {
    use super::super::value::parse;
    use super::*;

    #[test]
    fn same_tree_as_the_sequential_parse() {
        for text in [
            r#"{"schema": {"a": [1, 2]}, "entities": [{"eid": "x\"]}", "n": [1, {"a": null}]}, 3, "s", [], {}], "relations": []}"#,
            "  {\n\"entities\" : [ 1 , 2.5e3 ,true,null , \"\\u00e9\\\\\" ] ,\"relations\":{}}\n ",
            "{}",
            r#"{"entities": []}"#,
        ] {
            assert_eq!(parse_fast(text.as_bytes()), Some(parse(text.as_bytes()).unwrap()), "{text}");
        }
    }

    #[test]
    fn unusual_or_invalid_documents_fall_back() {
        for text in [
            r#"{"entities": [1 2]}"#,
            r#"{"entities": [1,]}"#,
            r#"{"entities": [{"a": }]}"#,
            r#"{"entities": [], "entities": [1]}"#,
            r#"{"ent\u0069ties": [1]}"#,
            r#"{"entities": [1]} x"#,
            r#"{"entities": [1]"#,
            r#"[1]"#,
            r#"{"entities": ["abc]}"#,
        ] {
            assert_eq!(parse_fast(text.as_bytes()), None, "{text}");
        }
    }
}
