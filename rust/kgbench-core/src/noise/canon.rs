//! Items already in kgbench's output form, copied as they are.
//!
//! [`is_canonical`] tells whether an item's text is exactly what [`super::json::write_val`]
//! writes for it at a nesting level (Python's `json.dumps(indent=2, ensure_ascii=True)`:
//! newline-and-indent layout, `": "`, escapes only where Python puts them, numbers as Python
//! prints them, no repeated key). Such an item is written by copying its bytes, with
//! [`splice_top`] replacing some top-level string values (output ids, a changed type) — the
//! same text the tree would give, without parsing it; a node the noise changed is written by
//! [`splice_values`] (its new scalar values, top-level or in `properties`, written into the
//! text). Anything else goes through the tree.

use std::borrow::Cow;

use crate::convert::values::py_float_repr;
use crate::neo4j::value::Val;

use super::json::{plain_prefix, write_str, write_val};

/// Where an attribute of a node item is: a top-level key, or a key of `properties` (positions
/// in the item's members).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// Member `.0` of the item.
    Top(usize),
    /// Member `.1` of the object that is member `.0` (`properties`).
    Prop(usize, usize),
}

/// Byte equality of two short strings without a library call.
#[inline]
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

struct Scan<'b> {
    b: &'b [u8],
    i: usize,
}

impl<'b> Scan<'b> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, s: &[u8]) -> bool {
        if self.b[self.i..].starts_with(s) {
            self.i += s.len();
            true
        } else {
            false
        }
    }

    fn indent(&mut self, level: usize) -> bool {
        if self.peek() != Some(b'\n') {
            return false;
        }
        let end = self.i + 1 + 2 * level;
        if end > self.b.len() || self.b[self.i + 1..end].iter().any(|&c| c != b' ') {
            return false;
        }
        self.i = end;
        self.peek() != Some(b' ')
    }

    fn value(&mut self, level: usize) -> bool {
        match self.peek() {
            Some(b'{') => self.object(level),
            Some(b'[') => self.array(level),
            Some(b'"') => self.string(),
            Some(b't') => self.eat(b"true"),
            Some(b'f') => self.eat(b"false"),
            Some(b'n') => self.eat(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => false,
        }
    }

    fn object(&mut self, level: usize) -> bool {
        self.object_with(level, &mut |_, _, _| {})
    }

    /// An object at `level`; `member(key text without quotes, value start, value end)` for
    /// each member once its value is scanned.
    fn object_with(
        &mut self,
        level: usize,
        member: &mut dyn FnMut(&'b [u8], usize, usize),
    ) -> bool {
        self.i += 1;
        if self.eat(b"}") {
            return true;
        }
        let mut keys: [&'b [u8]; 12] = [&[]; 12];
        let mut more: Vec<&'b [u8]> = Vec::new();
        let mut n = 0;
        loop {
            if !self.indent(level + 1) {
                return false;
            }
            let start = self.i;
            if !self.string() {
                return false;
            }
            let key = &self.b[start..self.i];
            let same = |k: &&[u8]| {
                k.len() == key.len() && k[k.len() - 2] == key[key.len() - 2] && *k == key
            };
            if keys[..n.min(12)].iter().any(same) || more.iter().any(same) {
                return false;
            }
            if n < 12 {
                keys[n] = key;
            } else {
                more.push(key);
            }
            n += 1;
            if !self.eat(b": ") {
                return false;
            }
            let v0 = self.i;
            if !self.value(level + 1) {
                return false;
            }
            member(&key[1..key.len() - 1], v0, self.i);
            if !self.eat(b",") {
                break;
            }
        }
        self.indent(level) && self.eat(b"}")
    }

    fn array(&mut self, level: usize) -> bool {
        self.i += 1;
        if self.eat(b"]") {
            return true;
        }
        loop {
            if !self.indent(level + 1) || !self.value(level + 1) {
                return false;
            }
            if !self.eat(b",") {
                break;
            }
        }
        self.indent(level) && self.eat(b"]")
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.b.get(self.i..self.i + 4)?;
        let mut v = 0;
        for &c in h {
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                _ => return None, // Python writes lower-case hex
            };
            v = v * 16 + u32::from(d);
        }
        self.i += 4;
        Some(v)
    }

    fn string(&mut self) -> bool {
        self.i += 1;
        loop {
            self.i += plain_prefix(&self.b[self.i..]);
            match self.peek() {
                Some(b'"') => {
                    self.i += 1;
                    return true;
                }
                Some(b'\\') => {
                    self.i += 1;
                    match self.peek() {
                        Some(b'"' | b'\\' | b'n' | b'r' | b't' | b'b' | b'f') => self.i += 1,
                        Some(b'u') => {
                            self.i += 1;
                            let Some(u) = self.hex4() else { return false };
                            let short = matches!(u, 0x08 | 0x09 | 0x0a | 0x0c | 0x0d);
                            if (0x20..0x7f).contains(&u) || short || (0xdc00..0xe000).contains(&u) {
                                return false;
                            }
                            if (0xd800..0xdc00).contains(&u) {
                                if !self.eat(b"\\u") {
                                    return false;
                                }
                                match self.hex4() {
                                    Some(l) if (0xdc00..0xe000).contains(&l) => {}
                                    _ => return false,
                                }
                            }
                        }
                        _ => return false,
                    }
                }
                _ => return false,
            }
        }
    }

    fn number(&mut self) -> bool {
        let start = self.i;
        while let Some(c) = self.peek() {
            if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.i += 1;
            } else {
                break;
            }
        }
        let Ok(text) = std::str::from_utf8(&self.b[start..self.i]) else {
            return false;
        };
        if text.bytes().all(|c| c.is_ascii_digit() || c == b'-') {
            // an integer the tree keeps as an integer, written back the same way
            let digits = text.strip_prefix('-').unwrap_or(text);
            if digits.is_empty() || digits.contains('-') || text == "-0" {
                return false;
            }
            if digits.len() > 1 && digits.starts_with('0') {
                return false;
            }
            return match text.parse::<i128>() {
                Ok(v) => i64::try_from(v).is_ok() || u64::try_from(v).is_ok(),
                Err(_) => false,
            };
        }
        match text.parse::<f64>() {
            Ok(f) => f.is_finite() && py_float_repr(f) == text,
            Err(_) => false,
        }
    }
}

/// Whether `b` (one JSON value) is exactly its own canonical text at nesting `level`.
pub fn is_canonical(b: &[u8], level: usize) -> bool {
    let mut s = Scan { b, i: 0 };
    s.value(level) && s.i == b.len()
}

/// When `b` (one JSON object) is exactly its own canonical text at nesting `level`
/// ([`is_canonical`]), the string values of its top-level keys `keys` (decoded; `None` for a
/// missing key or a value that is not a string) — [`top_strings`] in the same pass.
pub fn canonical_top_strings<'b, const N: usize>(
    b: &'b [u8],
    level: usize,
    keys: [&str; N],
) -> Option<[Option<Cow<'b, str>>; N]> {
    let mut s = Scan { b, i: 0 };
    if s.peek() != Some(b'{') {
        return None;
    }
    let mut out: [Option<Cow<'b, str>>; N] = std::array::from_fn(|_| None);
    let ok = s.object_with(level, &mut |key, v0, v1| {
        if b[v0] != b'"' {
            return;
        }
        if let Some(slot) = keys.iter().position(|k| same(k.as_bytes(), key)) {
            out[slot] = json_str(b, v0, v1);
        }
    });
    (ok && s.i == b.len()).then_some(out)
}

/// The end of the JSON string starting at `b[i]` (after its closing quote).
fn string_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len() {
        match b[i] {
            b'"' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    b.len()
}

/// The top-level members of a canonical object at `level`, in order: `f(key text, value
/// range)` for each (the key without quotes, as written; keys with escapes are skipped; the
/// range is empty when the value is not a string). A top-level key is the only text that
/// follows a newline and exactly `level + 1` indentation steps with a quote.
fn top_members<'b>(b: &'b [u8], level: usize, mut f: impl FnMut(&'b [u8], (usize, usize))) {
    let width = 2 * (level + 1);
    let mut at = 0;
    while let Some(nl) = memchr::memchr(b'\n', &b[at..]) {
        let line = at + nl + 1;
        at = line;
        let k0 = line + width;
        if k0 >= b.len() || b[k0] != b'"' || b[line..k0].iter().any(|&c| c != b' ') {
            continue;
        }
        let k1 = string_end(b, k0);
        let key = &b[k0 + 1..k1 - 1];
        let v0 = k1 + 2; // after ": "
        let v1 = if b.get(v0) == Some(&b'"') {
            string_end(b, v0)
        } else {
            v0
        };
        if !key.contains(&b'\\') {
            f(key, (v0, v1));
        }
        at = v1.max(k1);
    }
}

/// The JSON string `b[v0..v1]` (quotes included) as text: borrowed when it has no escape
/// (canonical text is ASCII: every other byte is escaped), decoded otherwise; None when it is
/// not a valid JSON string.
fn json_str(b: &[u8], v0: usize, v1: usize) -> Option<Cow<'_, str>> {
    let inner = &b[v0 + 1..v1 - 1];
    if inner.contains(&b'\\') {
        serde_json::from_slice::<String>(&b[v0..v1])
            .ok()
            .map(Cow::Owned)
    } else {
        std::str::from_utf8(inner).ok().map(Cow::Borrowed)
    }
}

/// The string values of the top-level keys `keys` of a canonical object (decoded; `None`
/// for a missing key or a value that is not a string).
pub fn top_strings<'b, const N: usize>(
    b: &'b [u8],
    level: usize,
    keys: [&str; N],
) -> [Option<Cow<'b, str>>; N] {
    let mut out: [Option<Cow<'b, str>>; N] = std::array::from_fn(|_| None);
    top_members(b, level, |key, (v0, v1)| {
        if v1 <= v0 {
            return;
        }
        if let Some(slot) = keys.iter().position(|k| same(k.as_bytes(), key)) {
            out[slot] = json_str(b, v0, v1);
        }
    });
    out
}

/// The string value of top-level key `key` of a canonical object (decoded), if it is one.
pub fn top_string<'b>(b: &'b [u8], level: usize, key: &str) -> Option<Cow<'b, str>> {
    let [v] = top_strings(b, level, [key]);
    v
}

/// Append the canonical object `b` at `level` with the string values of the top-level keys
/// in `repl` replaced.
pub fn splice_top(out: &mut Vec<u8>, b: &[u8], level: usize, repl: &[(&str, &str)]) {
    let mut pos = 0;
    top_members(b, level, |key, (v0, v1)| {
        if v1 <= v0 {
            return;
        }
        if let Some((_, new)) = repl.iter().find(|(k, _)| same(k.as_bytes(), key)) {
            out.extend_from_slice(&b[pos..v0]);
            write_str(out, new);
            pos = v1;
        }
    });
    out.extend_from_slice(&b[pos..]);
}

/// Most members [`splice_values`] handles in an object (more: the caller writes the tree).
const MAX_MEMBERS: usize = 32;

/// The members of the canonical object `b` at `level`, in order, into `out`: (key as
/// written, without quotes, as a range; value range); their number, or `None` beyond
/// [`MAX_MEMBERS`]. A member starts on the only lines indented by exactly `level + 1` steps
/// with a quote next (a newline is never inside a string), and its value ends before the `,`
/// ending its lines, or before the object's closing line.
fn members(b: &[u8], level: usize, out: &mut [[usize; 4]; MAX_MEMBERS]) -> Option<usize> {
    let width = 2 * (level + 1);
    let mut n = 0;
    let mut at = 0;
    while let Some(nl) = memchr::memchr(b'\n', &b[at..]) {
        let line = at + nl + 1;
        at = line;
        let k0 = line + width;
        if k0 >= b.len() || b[k0] != b'"' || b[line..k0].iter().any(|&c| c != b' ') {
            continue;
        }
        let k1 = string_end(b, k0);
        if n > 0 {
            out[n - 1][3] = line - 2; // before ",\n"
        }
        if n == MAX_MEMBERS {
            return None;
        }
        out[n] = [k0 + 1, k1.saturating_sub(1).max(k0 + 1), k1 + 2, 0];
        n += 1;
        at = k1;
    }
    if n > 0 {
        out[n - 1][3] = b.len().saturating_sub(2 * level + 2); // "\n", indentation, "}"
    }
    Some(n)
}

/// Append the node item `item` — whose document text `b` is canonical at `level`, and which
/// differs from that text's tree at most in the values of `slots`, each a scalar — with `eid`
/// replaced by `id` when given, by copying `b` with those values written anew; `compacted`
/// as [`write_copy`]. `false` (nothing appended) when the item's shape does not match the
/// text (then the caller writes the tree).
pub fn splice_values(
    out: &mut Vec<u8>,
    b: &[u8],
    level: usize,
    item: &Val<'_>,
    slots: &[Slot],
    id: Option<&str>,
    compacted: bool,
) -> bool {
    /// A value to write in place of the text range.
    enum New<'v, 'a> {
        Val(&'v Val<'a>),
        Id(&'v str),
    }
    let Val::Obj(pairs) = item else { return false };
    let mut top = [[0usize; 4]; MAX_MEMBERS];
    match members(b, level, &mut top) {
        Some(n) if n == pairs.len() => {}
        _ => return false,
    }
    let key_is = |m: &[usize; 4], text: &[u8], k: &str| same(&text[m[0]..m[1]], k.as_bytes());
    let mut edits: Vec<(usize, usize, New<'_, '_>)> = Vec::with_capacity(slots.len() + 1);
    let mut inner = [[0usize; 4]; MAX_MEMBERS];
    let mut inner_of: Option<usize> = None;
    for &slot in slots {
        let (v0, v1, v) = match slot {
            Slot::Top(k) => match pairs.get(k) {
                Some((pk, v)) if key_is(&top[k], b, pk) => (top[k][2], top[k][3], v),
                _ => return false,
            },
            Slot::Prop(k, j) => {
                let Some((pk, Val::Obj(pp))) = pairs.get(k) else {
                    return false;
                };
                if !key_is(&top[k], b, pk) {
                    return false;
                }
                let (p0, p1) = (top[k][2], top[k][3]);
                if inner_of != Some(k) {
                    match members(&b[p0..p1], level + 1, &mut inner) {
                        Some(n) if n == pp.len() => inner_of = Some(k),
                        _ => return false,
                    }
                }
                match pp.get(j) {
                    Some((qk, v)) if key_is(&inner[j], &b[p0..p1], qk) => {
                        (p0 + inner[j][2], p0 + inner[j][3], v)
                    }
                    _ => return false,
                }
            }
        };
        if !matches!(
            v,
            Val::Null | Val::Bool(_) | Val::Int(_) | Val::Float(_) | Val::Str(_)
        ) {
            return false;
        }
        edits.push((v0, v1, New::Val(v)));
    }
    if let Some(id) = id {
        let Some(k) = pairs.iter().position(|(k, _)| k == "eid") else {
            return false;
        };
        if !matches!(pairs[k].1, Val::Str(_)) || !key_is(&top[k], b, "eid") {
            return false;
        }
        edits.push((top[k][2], top[k][3], New::Id(id)));
    }
    edits.sort_unstable_by_key(|e| e.0);
    if edits.windows(2).any(|w| w[1].0 < w[0].1) {
        return false;
    }
    let start = out.len();
    let mut pos = 0;
    for (v0, v1, new) in &edits {
        out.extend_from_slice(&b[pos..*v0]);
        match new {
            New::Val(v) => write_val(out, v, None),
            New::Id(id) => write_str(out, id),
        }
        pos = *v1;
    }
    out.extend_from_slice(&b[pos..]);
    if compacted {
        compact_in_place(out, start);
    }
    true
}

/// [`compact`] of `out[start..]`, in place (the compact text is never longer).
fn compact_in_place(out: &mut Vec<u8>, start: usize) {
    let mut w = start;
    let mut r = start;
    let n = out.len();
    while r < n {
        let Some(nl) = memchr::memchr(b'\n', &out[r..]) else {
            out.copy_within(r..n, w);
            w += n - r;
            break;
        };
        let at = r + nl;
        out.copy_within(r..at, w);
        w += at - r;
        if at > start && out[at - 1] == b',' {
            out[w] = b' ';
            w += 1;
        }
        r = at + 1;
        while r < n && out[r] == b' ' {
            r += 1;
        }
    }
    out.truncate(w);
}

/// Append the compact (one-line, `json.dumps` separators) text of the canonical text `b`:
/// a newline and its indentation disappear, or become one space after a comma.
pub fn compact(out: &mut Vec<u8>, b: &[u8]) {
    let mut pos = 0;
    while let Some(nl) = memchr::memchr(b'\n', &b[pos..]) {
        let at = pos + nl;
        out.extend_from_slice(&b[pos..at]);
        if at > 0 && b[at - 1] == b',' {
            out.push(b' ');
        }
        pos = at + 1;
        while pos < b.len() && b[pos] == b' ' {
            pos += 1;
        }
    }
    out.extend_from_slice(&b[pos..]);
}

/// Append the canonical item `b` (level 2) with `repl` spliced in, as it is or `compacted`.
pub fn write_copy(out: &mut Vec<u8>, b: &[u8], repl: &[(&str, &str)], compacted: bool) {
    match (repl.is_empty(), compacted) {
        (true, false) => out.extend_from_slice(b),
        (true, true) => compact(out, b),
        (false, false) => splice_top(out, b, 2, repl),
        (false, true) => {
            let mut tmp = Vec::with_capacity(b.len() + 64);
            splice_top(&mut tmp, b, 2, repl);
            compact(out, &tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::neo4j::value::parse;
    use crate::noise::json::{write_item, write_val};

    fn canon(text: &str, level: usize) -> Vec<u8> {
        let v = parse(text.as_bytes()).unwrap();
        let mut out = Vec::new();
        write_val(&mut out, &v, Some(level));
        out
    }

    #[test]
    fn canonical_text_is_recognised_and_nothing_else() {
        for text in [
            r#"{"eid": "P#Q1", "n": [1, -2, 2.5, 1e-07, 1e+16, true, null, {}], "s": "a\"\\\u00e9\ud83d\ude00\n", "o": {"x": []}}"#,
            r#"[]"#,
            r#""x""#,
            r#"-12"#,
        ] {
            for level in [0, 2] {
                let c = canon(text, level);
                assert!(is_canonical(&c, level), "{}", String::from_utf8_lossy(&c));
                assert_eq!(is_canonical(&c, level + 1), !text.starts_with('{'));
            }
        }
        for (bad, level) in [
            ("{\"a\": 1.50}", 0),
            ("{\"a\":1}", 0),
            ("{\n  \"a\": 1\n}", 2),
            ("{\n  \"a\": \"\\u0041\"\n}", 0),
            ("{\n  \"a\": \"\\/\"\n}", 0),
            ("{\n  \"a\": \"\\u00E9\"\n}", 0),
            ("{\n  \"a\": 1,\n  \"a\": 2\n}", 0),
            ("{\n  \"a\": -0\n}", 0),
            ("{\n  \"a\": 1.50\n}", 0),
            ("{\n  \"a\": 100000000000000000000\n}", 0),
            ("{\n  \"a\": \"\u{e9}\"\n}", 0),
        ] {
            assert!(!is_canonical(bad.as_bytes(), level), "{bad}");
        }
        assert!(is_canonical(b"{\n  \"a\": 1\n}", 0));
    }

    #[test]
    fn splicing_values_equals_the_tree() {
        use crate::noise::canon::Slot;
        let text = r#"{"eid": "P#\u00e9", "label": "Person", "name": "Ann Lee", "aliases": ["a", "b"], "description": null, "properties": {"age": 41, "height": 1.5, "tags": [1, {"x": 2}], "nick": "al"}, "provenance": []}"#;
        let raw = canon(text, 2);
        fn set<'a>(item: &mut Val<'a>, slot: Slot, v: Val<'a>) {
            if let Val::Obj(pairs) = item {
                match slot {
                    Slot::Top(i) => pairs[i].1 = v,
                    Slot::Prop(i, j) => {
                        if let Val::Obj(p) = &mut pairs[i].1 {
                            p[j].1 = v;
                        }
                    }
                }
            }
        }
        let mut item = parse(text.as_bytes()).unwrap();
        let slots = [
            Slot::Prop(5, 3),
            Slot::Top(2),
            Slot::Prop(5, 0),
            Slot::Top(1),
            Slot::Prop(5, 1),
        ];
        set(&mut item, slots[0], Val::Str("a\"l\u{e9}".into()));
        set(&mut item, slots[1], Val::Str("Ann Lea".into()));
        set(&mut item, slots[2], Val::Int(4100));
        set(&mut item, slots[3], Val::Str("City".into()));
        set(&mut item, slots[4], Val::Float(0.015));
        for id in [None, Some("0123abcd")] {
            for compacted in [false, true] {
                let mut got = b"x".to_vec();
                assert!(splice_values(
                    &mut got, &raw, 2, &item, &slots, id, compacted
                ));
                let mut want = b"x".to_vec();
                let ov = id.map(|i| [("eid", i)]);
                write_item(
                    &mut want,
                    &item,
                    (!compacted).then_some(2),
                    ov.as_ref().map_or(&[][..], |o| &o[..]),
                );
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    String::from_utf8(want).unwrap()
                );
            }
        }
        // a slot beyond the text's members, or an item of another shape: not spliced
        let mut out = Vec::new();
        assert!(!splice_values(
            &mut out,
            &raw,
            2,
            &item,
            &[Slot::Top(9)],
            None,
            false
        ));
        assert!(!splice_values(
            &mut out,
            &raw,
            2,
            &Val::Null,
            &[],
            None,
            false
        ));
        assert!(out.is_empty());
    }

    #[test]
    fn splicing_equals_the_tree_with_overrides() {
        let text = r#"{"rid": "7", "label": "knows", "subj_id": "P#\u00e9", "obj_id": "P#2", "properties": {"label": "x", "rid": "y"}, "provenance": []}"#;
        let c = canon(text, 2);
        let repl = [("rid", "abc"), ("label", "likes"), ("subj_id", "q\"")];
        let mut spliced = Vec::new();
        splice_top(&mut spliced, &c, 2, &repl);
        let mut want = Vec::new();
        write_item(&mut want, &parse(text.as_bytes()).unwrap(), Some(2), &repl);
        assert_eq!(
            String::from_utf8(spliced).unwrap(),
            String::from_utf8(want).unwrap()
        );
        let mut compacted = Vec::new();
        write_copy(&mut compacted, &c, &repl, true);
        let mut want = Vec::new();
        write_item(&mut want, &parse(text.as_bytes()).unwrap(), None, &repl);
        assert_eq!(
            String::from_utf8(compacted).unwrap(),
            String::from_utf8(want).unwrap()
        );
        assert_eq!(top_string(&c, 2, "subj_id").as_deref(), Some("P#\u{e9}"));
        assert_eq!(top_string(&c, 2, "obj_id").as_deref(), Some("P#2"));
        assert_eq!(top_string(&c, 2, "properties"), None);
    }
}
