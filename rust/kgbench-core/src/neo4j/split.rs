//! Splitting a graph document for parallel work: the top-level object is scanned for its
//! members, and the items of its `entities` and `relations` arrays are located by a structural
//! scan (strings, brackets, commas), to be parsed by `serde_json` one by one, in parallel.
//!
//! The scan is only a splitter: every slice is parsed (and so checked) by `serde_json`, and the
//! separators between slices are checked by the scan. Anything unusual (an escaped top-level
//! key, a repeated top-level key, a malformed separator) makes [`split`] return `None`, and a
//! slice `serde_json` rejects makes [`parse_item`] return `None`; the caller then parses the
//! whole text sequentially, which gives the result or the error with its line and column.

use super::value::Val;

/// The members whose array items are parsed in parallel.
const SPLIT_KEYS: [&str; 2] = ["entities", "relations"];

/// The bytes [`Scan::value`] stops at inside an object or array.
static STRUCTURAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'}' as usize] = true;
    t[b'[' as usize] = true;
    t[b']' as usize] = true;
    t
};

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
                    // the next string or bracket (bytes in between need no look)
                    let off = self.b[self.pos..]
                        .iter()
                        .position(|&c| STRUCTURAL[c as usize])?;
                    self.pos += off;
                    match self.b[self.pos] {
                        b'"' => {
                            self.string()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        _ => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                return Some(());
                            }
                        }
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
            if items.len().is_multiple_of(4096) && crate::cancel::requested() {
                return None; // the caller checks for the stop before falling back
            }
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

/// A member of the top-level object.
pub enum Member<'a> {
    /// Parsed whole.
    Value(Val<'a>),
    /// An `entities` / `relations` array: the byte ranges of its items, not parsed yet.
    Items(Vec<(usize, usize)>),
}

/// Split a graph document: its top-level members in order, the `entities` / `relations`
/// arrays as item ranges. `None` when the document is not a plain top-level object this
/// splitter handles, or not valid JSON around the items (the items themselves are checked
/// when they are parsed), or once [`crate::cancel::request`] was called (polled every 4096
/// items).
pub fn split(b: &[u8]) -> Option<Vec<(&str, Member<'_>)>> {
    let mut s = Scan { b, pos: 0 };
    s.ws();
    s.eat(b'{')?;
    let mut members: Vec<(&str, Member<'_>)> = Vec::new();
    s.ws();
    if s.eat(b'}').is_none() {
        loop {
            s.ws();
            let key = s.plain_string()?;
            if members.iter().any(|(k, _)| *k == key) {
                return None;
            }
            s.ws();
            s.eat(b':')?;
            s.ws();
            let member = if SPLIT_KEYS.contains(&key) && s.peek() == Some(b'[') {
                Member::Items(s.array_items()?)
            } else {
                let start = s.pos;
                s.value()?;
                Member::Value(serde_json::from_slice(&b[start..s.pos]).ok()?)
            };
            members.push((key, member));
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
    (s.pos == b.len()).then_some(members)
}

/// Parse one item of [`Member::Items`].
pub fn parse_item(b: &[u8], range: (usize, usize)) -> Option<Val<'_>> {
    serde_json::from_slice(&b[range.0..range.1]).ok()
}

#[cfg(test)]
mod tests {
    use super::super::value::parse;
    use super::*;
    use std::borrow::Cow;

    /// The document rebuilt from the split (items parsed one by one).
    fn parse_fast(b: &[u8]) -> Option<Val<'_>> {
        let members = split(b)?;
        let mut pairs = Vec::new();
        for (k, m) in members {
            let v = match m {
                Member::Value(v) => v,
                Member::Items(r) => Val::List(
                    r.iter()
                        .map(|&x| parse_item(b, x))
                        .collect::<Option<Vec<_>>>()?,
                ),
            };
            pairs.push((Cow::Borrowed(k), v));
        }
        Some(Val::Obj(pairs))
    }

    #[test]
    fn same_tree_as_the_sequential_parse() {
        for text in [
            r#"{"schema": {"a": [1, 2]}, "entities": [{"eid": "x\"]}", "n": [1, {"a": null}]}, 3, "s", [], {}], "relations": []}"#,
            "  {\n\"entities\" : [ 1 , 2.5e3 ,true,null , \"\\u00e9\\\\\" ] ,\"relations\":{}}\n ",
            "{}",
            r#"{"entities": []}"#,
        ] {
            assert_eq!(
                parse_fast(text.as_bytes()),
                Some(parse(text.as_bytes()).unwrap()),
                "{text}"
            );
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
