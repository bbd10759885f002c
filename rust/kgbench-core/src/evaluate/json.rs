//! A small JSON reader specialised for result lines: values go straight to canonical keys
//! (no tree, no allocation per value), strings are borrowed unless they hold escapes.
//! Behaves like `serde_json` on valid JSON (same numbers: integers as `i64`/`u64`, else
//! `f64` with correct rounding) and reports the byte column of the first syntax error.
//! The serde path (`table::CellSeed`) gives identical keys; a test checks both agree.

use std::borrow::Cow;

use super::table::{RecordCells, TableArena, TableBuilder, TableSpan};
use super::value::{self, ListKeys, MapKeys};

/// A syntax or shape error at a byte offset of the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// 1-based column (byte offset + 1).
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at column {}", self.message, self.column)
    }
}

type R<T> = Result<T, JsonError>;

/// Cursor over one JSON text (already valid UTF-8, so strings are sliced, not validated).
pub struct Reader<'a> {
    text: &'a str,
    buf: &'a [u8],
    pos: usize,
    scratch: String,
    /// Reused builders of nested lists and maps (a stack: one per open level).
    lists: Vec<ListKeys>,
    maps: Vec<MapKeys>,
    /// Reused sink of [`Reader::skip`].
    sink: Vec<u8>,
    /// Lists and maps open around the current position (see [`value::MAX_DEPTH`]).
    depth: usize,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Reader {
            text,
            buf: text.as_bytes(),
            pos: 0,
            scratch: String::new(),
            lists: Vec::new(),
            maps: Vec::new(),
            sink: Vec::new(),
            depth: 0,
        }
    }

    /// Start over on another text, keeping the buffers (no allocation per line).
    pub fn reset(&mut self, text: &'a str) {
        self.text = text;
        self.buf = text.as_bytes();
        self.pos = 0;
        self.depth = 0;
    }

    /// An error at the current position.
    #[cold]
    pub fn err<T>(&self, message: impl Into<String>) -> R<T> {
        Err(JsonError {
            column: self.pos + 1,
            message: message.into(),
        })
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(&c) = self.buf.get(self.pos) {
            if c == b' ' || c == b'\n' || c == b'\t' || c == b'\r' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// The next non-space byte (not consumed).
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.buf.get(self.pos).copied()
    }

    #[inline]
    fn expect(&mut self, c: u8) -> R<()> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            self.err(format!("expected '{}'", c as char))
        }
    }

    /// After the whole value: only whitespace may remain.
    pub fn end(&mut self) -> R<()> {
        if self.peek().is_some() {
            return self.err("trailing characters");
        }
        Ok(())
    }

    fn literal(&mut self, word: &[u8]) -> R<()> {
        if self.buf[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            self.err("invalid literal")
        }
    }

    /// Read a string (the opening quote is next).
    #[inline]
    pub fn string(&mut self) -> R<Cow<'a, str>> {
        self.expect(b'"')?;
        self.string_rest()
    }

    /// The rest of a string whose opening quote was consumed: a string without escapes is
    /// sliced here (inlined into the caller), anything else read by
    /// [`Reader::string_body`].
    #[inline(always)]
    fn string_rest(&mut self) -> R<Cow<'a, str>> {
        let start = self.pos;
        let e = special_byte(self.buf, start);
        if self.buf.get(e) == Some(&b'"') {
            self.pos = e + 1;
            // '"' is ASCII, so both ends are character boundaries
            return Ok(Cow::Borrowed(&self.text[start..e]));
        }
        self.string_body()
    }

    /// The rest of a string whose opening quote was consumed.
    #[inline(never)]
    fn string_body(&mut self) -> R<Cow<'a, str>> {
        let start = self.pos;
        let p = special_byte(self.buf, start);
        match self.buf.get(p) {
            Some(b'"') => {
                self.pos = p + 1;
                // '"' is ASCII, so both ends are character boundaries
                Ok(Cow::Borrowed(&self.text[start..p]))
            }
            Some(b'\\') => self.escaped_string(start).map(Cow::Owned),
            Some(_) => {
                self.pos = p;
                self.control_character()
            }
            None => self.unterminated(),
        }
    }

    #[cold]
    #[inline(never)]
    fn unterminated<T>(&self) -> R<T> {
        self.err("unterminated string")
    }

    #[cold]
    #[inline(never)]
    fn control_character<T>(&self) -> R<T> {
        self.err("control character in string")
    }

    #[cold]
    #[inline(never)]
    fn escaped_string(&mut self, start: usize) -> R<String> {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        self.pos = start;
        loop {
            let rest = &self.buf[self.pos..];
            let Some(off) = memchr::memchr2(b'"', b'\\', rest) else {
                return self.err("unterminated string");
            };
            let chunk = &rest[..off];
            if chunk.iter().any(|&b| b < 0x20) {
                return self.err("control character in string");
            }
            out.push_str(&self.text[self.pos..self.pos + off]);
            self.pos += off;
            if self.buf[self.pos] == b'"' {
                self.pos += 1;
                let s = out.clone();
                self.scratch = out;
                return Ok(s);
            }
            // backslash
            let Some(&e) = self.buf.get(self.pos + 1) else {
                return self.err("unterminated escape");
            };
            self.pos += 2;
            match e {
                b'"' => out.push('"'),
                b'\\' => out.push('\\'),
                b'/' => out.push('/'),
                b'b' => out.push('\u{8}'),
                b'f' => out.push('\u{c}'),
                b'n' => out.push('\n'),
                b'r' => out.push('\r'),
                b't' => out.push('\t'),
                b'u' => {
                    let hi = self.hex4()?;
                    let c = if (0xD800..0xDC00).contains(&hi) {
                        if self.buf[self.pos..].starts_with(b"\\u") {
                            self.pos += 2;
                            let lo = self.hex4()?;
                            if !(0xDC00..0xE000).contains(&lo) {
                                return self.err("invalid low surrogate");
                            }
                            char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
                        } else {
                            None
                        }
                    } else {
                        char::from_u32(hi)
                    };
                    match c {
                        Some(c) => out.push(c),
                        None => return self.err("lone surrogate in \\u escape"),
                    }
                }
                _ => return self.err("invalid escape"),
            }
        }
    }

    fn hex4(&mut self) -> R<u32> {
        let Some(h) = self.buf.get(self.pos..self.pos + 4) else {
            return self.err("truncated \\u escape");
        };
        let ok = h.iter().all(u8::is_ascii_hexdigit);
        match std::str::from_utf8(h)
            .ok()
            .and_then(|s| u32::from_str_radix(s, 16).ok())
        {
            Some(v) if ok => {
                self.pos += 4;
                Ok(v)
            }
            _ => self.err("invalid \\u escape"),
        }
    }

    /// Scan a number; returns (text, is_integer).
    fn number_text(&mut self) -> R<(&'a str, bool)> {
        let start = self.pos;
        let b = self.buf;
        let mut p = start;
        if b.get(p) == Some(&b'-') {
            p += 1;
        }
        let int_start = p;
        while p < b.len() && b[p].is_ascii_digit() {
            p += 1;
        }
        if p == int_start || (b[int_start] == b'0' && p - int_start > 1) {
            self.pos = int_start;
            return self.err("invalid number");
        }
        let mut integer = true;
        if b.get(p) == Some(&b'.') {
            integer = false;
            p += 1;
            let f = p;
            while p < b.len() && b[p].is_ascii_digit() {
                p += 1;
            }
            if p == f {
                self.pos = p;
                return self.err("invalid number");
            }
        }
        if matches!(b.get(p), Some(b'e' | b'E')) {
            integer = false;
            p += 1;
            if matches!(b.get(p), Some(b'+' | b'-')) {
                p += 1;
            }
            let e = p;
            while p < b.len() && b[p].is_ascii_digit() {
                p += 1;
            }
            if p == e {
                self.pos = p;
                return self.err("invalid number");
            }
        }
        self.pos = p;
        Ok((&self.text[start..p], integer))
    }

    /// Read a number (the next byte is `-` or a digit) and append its canonical key.
    #[inline]
    fn number_key(&mut self, out: &mut Vec<u8>) -> R<()> {
        match short_number_key(self.buf, self.pos, out) {
            Some(p) => {
                self.pos = p;
                Ok(())
            }
            None => self.number_key_slow(out),
        }
    }

    /// [`Reader::number_key`] for anything but a short integer (and for errors).
    #[inline(never)]
    fn number_key_slow(&mut self, out: &mut Vec<u8>) -> R<()> {
        let (text, integer) = self.number_text()?;
        if integer && text.len() <= 18 {
            let (neg, digits) = match text.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, text),
            };
            let mut v: i64 = 0;
            for &d in digits.as_bytes() {
                v = v * 10 + (d - b'0') as i64;
            }
            value::push_int(out, if neg { -v } else { v });
        } else if integer {
            value::push_int_text(out, text);
        } else if let Some(f) = fast_decimal(text) {
            value::push_float(out, f);
        } else {
            match text.parse::<f64>() {
                Ok(f) if f.is_finite() => value::push_float(out, f),
                _ => return self.err("number out of range"),
            }
        }
        Ok(())
    }

    /// Read a value and append its canonical key: strings and numbers inline, anything
    /// else through [`Reader::value_key`].
    #[inline]
    pub fn cell_key(&mut self, out: &mut Vec<u8>) -> R<()> {
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                let s = self.string_rest()?;
                value::push_str(out, &s);
                Ok(())
            }
            Some(b'-' | b'0'..=b'9') => self.number_key(out),
            _ => self.value_key(out),
        }
    }

    /// Read any value and append its canonical key to `out`.
    pub fn value_key(&mut self, out: &mut Vec<u8>) -> R<()> {
        match self.peek() {
            Some(b'"') => {
                self.pos += 1;
                let s = self.string_rest()?;
                value::push_str(out, &s);
            }
            Some(b'n') => {
                self.literal(b"null")?;
                value::push_null(out);
            }
            Some(b't') => {
                self.literal(b"true")?;
                value::push_bool(out, true);
            }
            Some(b'f') => {
                self.literal(b"false")?;
                value::push_bool(out, false);
            }
            Some(b'[') => {
                self.open()?;
                let mut list = self.lists.pop().unwrap_or_default();
                list.clear();
                self.elements(|r| {
                    r.cell_key(list.item_buf())?;
                    list.end_item();
                    Ok(())
                })?;
                list.finish_list_reuse(out);
                self.lists.push(list);
                self.depth -= 1;
            }
            Some(b'{') => {
                self.open()?;
                let mut map = self.maps.pop().unwrap_or_default();
                map.clear();
                self.members(|r, k| {
                    map.entry_buf(k);
                    r.cell_key(map.value_buf())?;
                    map.end_entry();
                    Ok(())
                })?;
                map.finish_reuse(out);
                self.maps.push(map);
                self.depth -= 1;
            }
            Some(b'-' | b'0'..=b'9') => self.number_key(out)?,
            Some(_) => return self.err("expected a value"),
            None => return self.err("unexpected end of input"),
        }
        Ok(())
    }

    /// Enter the list or map whose opening byte is next: an error (at that byte) when
    /// [`value::MAX_DEPTH`] levels are already open, so that nesting depth never exhausts
    /// the stack (values are read recursively).
    #[inline]
    fn open(&mut self) -> R<()> {
        if self.depth >= value::MAX_DEPTH {
            return self.err(format!(
                "value nested deeper than {} levels",
                value::MAX_DEPTH
            ));
        }
        self.depth += 1;
        self.pos += 1;
        Ok(())
    }

    /// Skip any value; returns its raw text.
    pub fn skip(&mut self) -> R<&'a str> {
        self.ws();
        let start = self.pos;
        match self.buf.get(start) {
            Some(b'n') => self.literal(b"null")?,
            Some(b't') => self.literal(b"true")?,
            Some(b'f') => self.literal(b"false")?,
            _ => {
                let mut sink = std::mem::take(&mut self.sink);
                sink.clear();
                let res = self.value_key(&mut sink);
                self.sink = sink;
                res?;
            }
        }
        Ok(&self.text[start..self.pos])
    }

    /// An array of strings (or `null`: `None`) into `out` (cleared); returns its length.
    /// Non-string elements are kept as their JSON text.
    pub fn string_array(&mut self, out: &mut Vec<String>) -> R<Option<usize>> {
        out.clear();
        match self.peek() {
            Some(b'n') => {
                self.literal(b"null")?;
                Ok(None)
            }
            Some(b'[') => {
                self.pos += 1;
                self.elements(|r| {
                    let item = if r.peek() == Some(b'"') {
                        r.string()?.into_owned()
                    } else {
                        r.skip()?.to_owned()
                    };
                    out.push(item);
                    Ok(())
                })?;
                Ok(Some(out.len()))
            }
            _ => self.err("expected an array or null"),
        }
    }

    /// Read a `rows` value (array of arrays or of objects, or `null`) into `arena`.
    pub fn rows(&mut self, arena: &mut TableArena, ncols: Option<usize>) -> R<Option<TableSpan>> {
        match self.peek() {
            Some(b'n') => {
                self.literal(b"null")?;
                return Ok(None);
            }
            Some(b'[') => self.pos += 1,
            _ => return self.err("\"rows\" must be an array of rows"),
        }
        let mut b = TableBuilder::new(arena, ncols);
        self.elements(|r| {
            let row_pos = r.pos;
            let shape = match r.peek() {
                Some(b'[') => {
                    r.pos += 1;
                    r.row_cells(&mut b)?;
                    b.end_row()
                }
                Some(b'{') => {
                    r.pos += 1;
                    r.record_cells(b.record())?;
                    b.end_record()
                }
                _ => return r.err("a row must be an array or an object"),
            };
            shape.or_else(|e| {
                r.pos = row_pos;
                r.err(e.to_string())
            })
        })?;
        Ok(Some(b.finish()))
    }

    /// The cells of an array row whose `[` was consumed, up to and including its `]`, into
    /// `b`. The same as `elements` + [`Reader::cell_key`] per cell, with plain strings,
    /// short numbers and literals read in one loop whose position stays in a register;
    /// anything else (escapes, long numbers, lists, maps, errors) goes through
    /// [`Reader::value_key`] from the cell's first byte.
    fn row_cells(&mut self, b: &mut TableBuilder<'_>) -> R<()> {
        let buf = self.buf;
        let mut p = skip_ws(buf, self.pos);
        if buf.get(p) == Some(&b']') {
            self.pos = p + 1;
            return Ok(());
        }
        loop {
            let out = b.cell_buf();
            let done = match buf.get(p) {
                Some(b'"') => {
                    let e = special_byte(buf, p + 1);
                    if buf.get(e) == Some(&b'"') {
                        value::push_str_within(out, buf, p + 1, e);
                        Some(e + 1)
                    } else {
                        None
                    }
                }
                Some(b'-' | b'0'..=b'9') => short_number_key(buf, p, out),
                Some(b'n') if buf[p..].starts_with(b"null") => {
                    value::push_null(out);
                    Some(p + 4)
                }
                Some(b't') if buf[p..].starts_with(b"true") => {
                    value::push_bool(out, true);
                    Some(p + 4)
                }
                Some(b'f') if buf[p..].starts_with(b"false") => {
                    value::push_bool(out, false);
                    Some(p + 5)
                }
                _ => None,
            };
            p = match done {
                Some(e) => e,
                None => {
                    self.pos = p;
                    self.value_key(out)?;
                    self.pos
                }
            };
            b.end_cell();
            p = skip_ws(buf, p);
            match buf.get(p) {
                Some(b',') => p = skip_ws(buf, p + 1),
                Some(b']') => {
                    self.pos = p + 1;
                    return Ok(());
                }
                _ => {
                    self.pos = p;
                    return self.err("expected ',' or ']'");
                }
            }
        }
    }

    /// Iterate the keys of an object: call `f(self, key)` for each, which must consume the
    /// value.
    pub fn object(&mut self, f: impl FnMut(&mut Self, &str) -> R<()>) -> R<()> {
        self.expect(b'{')?;
        self.members(f)
    }

    /// The elements of an array whose `[` was consumed, up to and including its `]`:
    /// `item(self)` reads each one.
    fn elements(&mut self, mut item: impl FnMut(&mut Self) -> R<()>) -> R<()> {
        self.sequence(b']', "expected ',' or ']'", |r| item(r))
    }

    /// The members of an object whose `{` was consumed, up to and including its `}`:
    /// `member(self, key)` reads each value.
    fn members(&mut self, mut member: impl FnMut(&mut Self, &str) -> R<()>) -> R<()> {
        self.sequence(b'}', "expected ',' or '}'", |r| {
            let k = r.string()?;
            r.expect(b':')?;
            member(r, &k)
        })
    }

    /// The cells of a record row (an object whose `{` was consumed, up to its `}`) into
    /// `record`: each column name with its cell's canonical key, in the record's key order.
    fn record_cells(&mut self, record: &mut RecordCells) -> R<()> {
        self.members(|r, k| {
            r.cell_key(record.cell(k))?;
            record.end_cell();
            Ok(())
        })
    }

    /// Comma-separated items up to the closing byte `close` (an empty sequence allowed).
    #[inline(always)]
    fn sequence(
        &mut self,
        close: u8,
        expected: &str,
        mut item: impl FnMut(&mut Self) -> R<()>,
    ) -> R<()> {
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(());
        }
        loop {
            item(self)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return self.err(expected),
            }
        }
    }
}

/// Position of the first `"`, `\\` or control character at or after `start` (`b.len()`
/// if none): eight bytes at a time (SWAR). The lowest flag of each test is exact (false
/// flags only follow a true one), so the first special byte is found without rescanning.
#[inline(always)]
fn special_byte(b: &[u8], start: usize) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut p = start;
    while let Some(w) = b.get(p..p + 8) {
        let v = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
        let q = v ^ (LO * b'"' as u64);
        let s = v ^ (LO * b'\\' as u64);
        let special = ((q.wrapping_sub(LO) & !q)
            | (s.wrapping_sub(LO) & !s)
            | (v.wrapping_sub(LO * 0x20) & !v))
            & HI;
        if special != 0 {
            return p + (special.trailing_zeros() / 8) as usize;
        }
        p += 8;
    }
    while p < b.len() && b[p] != b'"' && b[p] != b'\\' && b[p] >= 0x20 {
        p += 1;
    }
    p
}

/// One-pass key of the common numbers at `b[p..]` (the first byte is `-` or a digit): an
/// integer of at most 18 digits (always fits in `i64`) or a plain decimal of at most 15
/// digits (exact as in [`fast_decimal`]). Appends the key and returns the position after
/// the number; `None` (nothing appended) for anything else, including malformed numbers:
/// the full parser ([`Reader::number_key_slow`]) handles those and reports errors.
#[inline(always)]
fn short_number_key(b: &[u8], mut p: usize, out: &mut Vec<u8>) -> Option<usize> {
    let neg = b.get(p) == Some(&b'-');
    p += neg as usize;
    let digits = p;
    let mut v: i64 = 0;
    while p < b.len() && p - digits < 18 && b[p].is_ascii_digit() {
        v = v * 10 + (b[p] - b'0') as i64;
        p += 1;
    }
    let n = p - digits;
    if n == 0 || (n > 1 && b[digits] == b'0') {
        return None;
    }
    match b.get(p) {
        Some(b'0'..=b'9' | b'e' | b'E') => None,
        Some(b'.') if n <= 15 => {
            let mut m = v as u64;
            let mut q = p + 1;
            while q < b.len() && n + (q - p - 1) < 15 && b[q].is_ascii_digit() {
                m = m * 10 + (b[q] - b'0') as u64;
                q += 1;
            }
            let frac = q - p - 1;
            if frac > 0 && !matches!(b.get(q), Some(b'0'..=b'9' | b'e' | b'E')) {
                let f = m as f64 / POW10[frac];
                value::push_float(out, if neg { -f } else { f });
                Some(q)
            } else {
                None
            }
        }
        Some(b'.') => None,
        _ => {
            value::push_int(out, if neg { -v } else { v });
            Some(p)
        }
    }
}

/// Position of the first byte at or after `p` that is not JSON whitespace.
#[inline(always)]
pub(crate) fn skip_ws(b: &[u8], mut p: usize) -> usize {
    while let Some(&c) = b.get(p) {
        if c == b' ' || c == b'\n' || c == b'\t' || c == b'\r' {
            p += 1;
        } else {
            break;
        }
    }
    p
}

/// Exact powers of ten representable in `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Correctly rounded value of a plain decimal `-?d+.d+` (no exponent) with at most 15
/// digits: the digits form an integer below 2^53 and the divisor a power of ten below 1e23,
/// both exact in `f64`, so one IEEE division rounds correctly (Clinger's fast path).
/// `None` for anything else (the caller falls back to the full parser).
#[inline]
fn fast_decimal(text: &str) -> Option<f64> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(d) => (true, d.as_bytes()),
        None => (false, text.as_bytes()),
    };
    if body.len() > 16 {
        return None;
    }
    let mut m: u64 = 0;
    let mut frac = None;
    for (i, &c) in body.iter().enumerate() {
        match c {
            b'0'..=b'9' => m = m * 10 + (c - b'0') as u64,
            b'.' => frac = Some(body.len() - i - 1),
            _ => return None,
        }
    }
    let f = m as f64 / POW10[frac?];
    Some(if neg { -f } else { f })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::table::CellSeed;
    use serde::de::DeserializeSeed;

    fn fast(text: &str) -> Vec<u8> {
        let mut r = Reader::new(text);
        let mut out = Vec::new();
        r.value_key(&mut out).unwrap();
        r.end().unwrap();
        out
    }

    fn serde(text: &str) -> Vec<u8> {
        let mut d = serde_json::Deserializer::from_str(text);
        let mut out = Vec::new();
        CellSeed(&mut out).deserialize(&mut d).unwrap();
        out
    }

    #[test]
    fn agrees_with_serde() {
        for t in [
            "null",
            "true",
            "false",
            "0",
            "-0",
            "-0.0",
            "1.0",
            "1e2",
            "1.5E-3",
            "9223372036854775807",
            "9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "0.1",
            "2.5e300",
            "-4.5",
            "0.30000000000000004",
            "123456789.123456",
            "9007199254740.993",
            "-0.000000000000001",
            "1.79769313486231",
            r#""plain""#,
            r#""a longer plain string of many words""#,
            r#""twelve chars\u00e9 then an escape""#,
            r#""esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 é""#,
            r#"[3, 1.0, [2, "x"], {"b": null, "a": [true, false]}]"#,
            r#"{"k": 1, "k": 2}"#,
            "[]",
            "{}",
            " [ 1 , 2 ] ",
            "123456789012345678",
            "-123456789012345678",
            "1234567890123456789",
            "-1234567890123456789",
            "[0,-0,10,-7,0.0,1E0,-2.5]",
            r#"{"n": 12, "m": -3}"#,
            r#""exactly8""#,
            r#""sixteen chars ok""#,
            r#""seven\n""#,
        ] {
            assert_eq!(fast(t), serde(t), "{t}");
        }
    }

    /// The one-pass number path gives the same keys as the full number parser.
    #[test]
    fn number_paths_agree() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..100_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let digits = 1 + (x >> 58) as usize % 20;
            let m = (x >> 3) % 10u64.pow(digits.min(19) as u32);
            let s = format!("{m}");
            let point = (x as usize >> 12) % (s.len() + 1);
            let (a, b) = s.split_at(point);
            let a = if a.is_empty() { "0" } else { a };
            let t = match (x >> 20) % 3 {
                0 => format!("{}{s}", if x & 1 == 1 { "-" } else { "" }),
                1 if !b.is_empty() => format!("{}{a}.{b}", if x & 1 == 1 { "-" } else { "" }),
                _ => format!("{a}.{b}0e{}", (x >> 40) % 5),
            };
            let mut r = Reader::new(&t);
            let mut fast = Vec::new();
            r.number_key(&mut fast).unwrap();
            r.end().unwrap();
            let mut r = Reader::new(&t);
            let mut full = Vec::new();
            r.number_key_slow(&mut full).unwrap();
            r.end().unwrap();
            assert_eq!(fast, full, "{t}");
        }
    }

    #[test]
    fn fast_decimal_is_correctly_rounded() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..200_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let digits = 1 + (x >> 60) as usize % 15;
            let m = (x >> 8) % 10u64.pow(digits as u32);
            let s = format!("{m:0digits$}");
            let point = 1 + (x as usize >> 4) % digits.max(1);
            let (a, b) = s.split_at(point.min(digits));
            if b.is_empty() || (a.len() > 1 && a.starts_with('0')) {
                continue;
            }
            let t = format!("{}{a}.{b}", if x & 1 == 1 { "-" } else { "" });
            assert_eq!(fast_decimal(&t), Some(t.parse::<f64>().unwrap()), "{t}");
        }
    }

    /// `rows` through the general per-cell path (`elements` + `cell_key`): the reference
    /// for the register loop of [`Reader::row_cells`].
    fn rows_general(text: &str) -> R<Vec<Vec<Vec<u8>>>> {
        let mut r = Reader::new(text);
        let mut arena = TableArena::default();
        r.expect(b'[')?;
        let mut b = TableBuilder::new(&mut arena, None);
        r.elements(|r| {
            let row_pos = r.pos;
            let shape = match r.peek() {
                Some(b'[') => {
                    r.pos += 1;
                    r.elements(|r| {
                        r.cell_key(b.cell_buf())?;
                        b.end_cell();
                        Ok(())
                    })?;
                    b.end_row()
                }
                Some(b'{') => {
                    r.pos += 1;
                    r.record_cells(b.record())?;
                    b.end_record()
                }
                _ => return r.err("a row must be an array or an object"),
            };
            shape.or_else(|e| {
                r.pos = row_pos;
                r.err(e.to_string())
            })
        })?;
        let span = b.finish();
        r.end()?;
        let t = arena.get(span);
        Ok((0..t.nrows())
            .map(|i| (0..t.ncols()).map(|j| t.cell(i, j).to_vec()).collect())
            .collect())
    }

    fn rows_fast(text: &str) -> R<Vec<Vec<Vec<u8>>>> {
        let mut r = Reader::new(text);
        let mut arena = TableArena::default();
        let span = r.rows(&mut arena, None)?.unwrap_or_default();
        r.end()?;
        let t = arena.get(span);
        Ok((0..t.nrows())
            .map(|i| (0..t.ncols()).map(|j| t.cell(i, j).to_vec()).collect())
            .collect())
    }

    /// The row loop's fast cells (plain strings, short numbers, literals) give the same keys
    /// and the same errors (message and column) as the general path, and the same keys as
    /// serde, on random rows of hard cases with random whitespace.
    #[test]
    fn row_loop_agrees_with_general_path() {
        let cells = [
            "1",
            "1.0",
            "-0",
            "-0.0",
            "0.5",
            "-4.5",
            "1e2",
            "1.5E-3",
            "12.000",
            "0.1",
            "123456789012345678",
            "1234567890123456789",
            "12345678901234567890",
            "-9223372036854775808",
            "-9223372036854775809",
            "9007199254740993",
            "123456789.123456",
            "1234567890.1234567",
            "null",
            "true",
            "false",
            r#""a""#,
            r#""""#,
            r#""exactly8""#,
            r#""a string longer than sixteen bytes""#,
            r#""esc \" \\ \/ \n \u00e9""#,
            r#""é ü 日本""#,
            r#""\ud83d\ude00""#,
            r#""2020-01-31""#,
            "[]",
            "{}",
            r#"[1, 1.0, "x"]"#,
            r#"[3, [2, 1], null, null]"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"b": [2, 1], "a": {}}"#,
            r#"[[3, 1], {"k": null}]"#,
        ];
        let bad = [
            "01",
            "1.",
            "-",
            "tru",
            "nul",
            "falsy",
            r#""abc"#,
            "\"a\u{1}\"",
            r#""\x""#,
            "1e",
            "[1,]",
            r#"{"a" 1}"#,
            ",",
            "]",
            "nullx",
            "1.5.2",
        ];
        let spaces = ["", " ", "  ", "\n\t ", "\r\n"];
        let mut next = crate::testing::xorshift::<usize>(0x2545_F491_4F6C_DD1D);
        let (mut ok, mut failed) = (0, 0);
        for _ in 0..20_000 {
            let (n, k) = (1 + next(4), 1 + next(4));
            let mut text = String::from("[");
            for i in 0..n {
                if i > 0 {
                    text.push(',');
                }
                text.push_str(spaces[next(spaces.len())]);
                text.push('[');
                for j in 0..k {
                    if j > 0 {
                        text.push_str(spaces[next(spaces.len())]);
                        text.push(',');
                    }
                    text.push_str(spaces[next(spaces.len())]);
                    if next(60) == 0 {
                        text.push_str(bad[next(bad.len())]);
                    } else {
                        text.push_str(cells[next(cells.len())]);
                    }
                }
                text.push_str(spaces[next(spaces.len())]);
                text.push(']');
            }
            text.push(']');
            let (fast, general) = (rows_fast(&text), rows_general(&text));
            assert_eq!(fast, general, "{text}");
            match fast {
                // serde_json reads integers beyond 64 bits as floats (see
                // `big_integers_are_exact`): no serde reference for those
                Ok(_) if text.contains("-9223372036854775809") => ok += 1,
                Ok(t) => {
                    let via_serde = crate::evaluate::table::table_from_json(&text).unwrap();
                    let s = via_serde.as_ref();
                    for (i, row) in t.iter().enumerate() {
                        for (j, key) in row.iter().enumerate() {
                            assert_eq!(key.as_slice(), s.cell(i, j), "{text}");
                        }
                    }
                    ok += 1;
                }
                Err(_) => failed += 1,
            }
        }
        assert!(ok > 10_000 && failed > 1_000, "{ok} {failed}");
    }

    /// Integers beyond 64 bits compare exactly, as Python's `int` (issue 18, defect 13):
    /// not as the float they round to, but equal to a float of exactly their value.
    #[test]
    fn big_integers_are_exact() {
        let key = |t: &str| fast(t);
        // both round to the same float
        assert_ne!(
            key("123456789012345678901234567890"),
            key("123456789012345678901234567891")
        );
        assert_ne!(
            key("123456789012345678901234567890"),
            key("1.2345678901234568e29")
        );
        assert_ne!(key("-9223372036854775809"), key("-9223372036854775808"));
        assert_ne!(key("-9223372036854775809"), key("-9.223372036854775808e18"));
        assert_ne!(key("18446744073709551617"), key("18446744073709551616"));
        // exactly a float: equal to it (2^64, 2^100, -2^70)
        assert_eq!(key("18446744073709551616"), key("1.8446744073709552e19"));
        assert_eq!(
            key("1267650600228229401496703205376"),
            key("1.2676506002282294e30")
        );
        assert_eq!(
            key("-1180591620717411303424"),
            key("-1.1805916207174113e21")
        );
        // beyond f64's range
        let huge = format!("1{}", "0".repeat(400));
        assert_ne!(key(&huge), key(&format!("2{}", "0".repeat(399))));
        assert_eq!(key(&huge), key(&huge));
        // in lists too
        assert_ne!(
            key("[123456789012345678901234567890]"),
            key("[123456789012345678901234567891]")
        );
    }

    /// Nesting deeper than `value::MAX_DEPTH` is an error at the offending bracket, not a
    /// stack overflow (issue 18, defect 9): in cells, rows and skipped fields.
    #[test]
    fn deep_nesting_is_an_error() {
        let max = value::MAX_DEPTH;
        let ok = format!("{}{}", "[".repeat(max), "]".repeat(max));
        fast(&ok);
        let ok = format!("{}1{}", "{\"a\":".repeat(max), "}".repeat(max));
        fast(&ok);
        for deep in [max + 1, 50_000, 1_000_000] {
            for (open, close) in [("[", "]"), ("{\"k\":", "}")] {
                let text = format!("{}{}", open.repeat(deep), close.repeat(deep));
                // on the stack of rayon's worker threads (2 MiB)
                let res = std::thread::Builder::new()
                    .stack_size(2 << 20)
                    .spawn(move || {
                        let mut r = Reader::new(&text);
                        r.value_key(&mut Vec::new()).unwrap_err()
                    })
                    .unwrap()
                    .join()
                    .unwrap();
                assert!(res.message.contains("nested deeper than 256"), "{res}");
                assert_eq!(res.column, 1 + max * open.len(), "{res}");
            }
        }
        // a row of a result line, and a skipped field
        let deep = 100_000;
        let nested = format!("{}{}", "[".repeat(deep), "]".repeat(deep));
        for line in [
            format!("{{\"qid\": 1, \"rows\": [[{nested}]]}}"),
            format!("{{\"qid\": 1, \"rows\": [], \"extra\": {nested}}}"),
        ] {
            let mut arena = TableArena::default();
            let e = crate::evaluate::score::parse_record(&line, 1, &mut arena).unwrap_err();
            assert!(e.message.contains("nested deeper than"), "{e}");
        }
    }

    #[test]
    fn errors() {
        for (t, col) in [
            ("[1, 2", 6),
            ("[1 2]", 4),
            ("01", 1),
            ("\"abc", 2),
            ("tru", 1),
            ("[1,]", 4),
            ("1.", 3),
            ("{\"a\" 1}", 6),
            ("\"\\x\"", 4),
            ("-", 2),
            ("-x", 2),
            ("[1, 00]", 5),
            ("\"abcdefghij\u{1}\"", 12),
            ("\"abcdefghijklmnop", 2),
        ] {
            let mut r = Reader::new(t);
            let mut out = Vec::new();
            let e = r.value_key(&mut out).and_then(|_| r.end()).unwrap_err();
            assert_eq!(e.column, col, "{t}: {e}");
        }
    }
}
