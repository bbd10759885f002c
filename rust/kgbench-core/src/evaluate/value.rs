//! Result values and their canonical keys (SPEC.md §4, "cell values are made hashable").
//!
//! A query result cell is one of: null, boolean, integer, float, string (dates arrive as ISO
//! strings, `"2020-01-31"`, exactly as the reference's `neo4j.time.Date.iso_format()`), list
//! or map — nested to any depth. Every value is reduced to a *canonical key*: a byte string
//! such that two values are equal under SPEC.md §4 iff their keys are byte-equal. Tables
//! store only these keys, so comparing and hashing cells is comparing and hashing bytes.
//!
//! Canonicalisation (SPEC.md §4, CypherBench `to_hashable`):
//! - lists (at any depth) are unordered: their element keys are sorted;
//! - maps are sets of (key, value) pairs sorted by key (a repeated key keeps its last value,
//!   as Python's `json` does);
//! - numbers compare numerically and exactly: `1 == 1.0`, `-0.0 == 0`, but `2**53 + 1 !=
//!   2.0**53` (as in Python). A float with an integral value in the signed 64-bit range is
//!   stored as that integer; any other float keeps its IEEE bits. All NaNs are one value
//!   and equal to each other (the reference never calls two NaN results equal; kgbench
//!   chooses reflexive equality so that comparison is an equivalence relation). Integers
//!   outside the signed 64-bit range (Neo4j cannot return them) compare equal to a float
//!   only when the float has exactly that value.
//!
//! Deliberate differences from the reference (documented in `kgbench.evaluate`):
//! - booleans are not numbers: `true != 1` (Python's `True == 1` makes the reference
//!   call them equal; Cypher's `true = 1` is false);
//! - a map is never equal to a list (the reference turns both into tuples, so
//!   `{"a": "b"}` equals `[["a", "b"]]` there);
//! - lists mixing types, or holding several nulls, are ordered by a total order instead
//!   of raising `TypeError` as Python's `sorted` does (the reference then scores 0).

/// The deepest nesting of lists and maps a value may have (a list of scalars has depth 1).
/// Readers refuse deeper values with an error instead of exhausting the stack (they
/// recurse per level): 256 levels fit in the 2 MiB stack of a rayon worker thread even in a
/// debug build (about 4 KiB per level there). Python's `json` module, which CypherBench
/// reads results with, stops near 1,000 levels (its recursion limit), `serde_json` at 128;
/// Neo4j results are never nested this deep.
pub const MAX_DEPTH: usize = 256;

/// Tags opening each canonical key; also the first sort criterion of list elements.
pub(crate) mod tag {
    pub const NULL: u8 = 0;
    pub const FALSE: u8 = 1;
    pub const TRUE: u8 = 2;
    pub const INT: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const BIG_INT: u8 = 5;
    pub const STR: u8 = 6;
    pub const LIST: u8 = 7;
    pub const MAP: u8 = 8;
    pub const TUPLE: u8 = 9;
}

/// One result value (SPEC.md §4). Dates are ISO strings (`Value::Str`).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// Cypher `null` / JSON `null` / Python `None`.
    Null,
    /// Boolean; never equal to a number.
    Bool(bool),
    /// Signed 64-bit integer (Neo4j's integer type).
    Int(i64),
    /// IEEE double; equal to an `Int` with the same numeric value.
    Float(f64),
    /// String, including dates and times as ISO text.
    Str(String),
    /// List; element order is ignored.
    List(Vec<Value>),
    /// Map from string keys; key order is ignored.
    Map(Vec<(String, Value)>),
}

impl Value {
    /// The canonical key of this value (see the module documentation).
    pub fn canonical_key(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16);
        self.write_key(&mut out);
        out
    }

    /// Append the canonical key of this value to `out`.
    pub fn write_key(&self, out: &mut Vec<u8>) {
        match self {
            Value::Null => push_null(out),
            Value::Bool(b) => push_bool(out, *b),
            Value::Int(i) => push_int(out, *i),
            Value::Float(f) => push_float(out, *f),
            Value::Str(s) => push_str(out, s),
            Value::List(items) => {
                let mut list = ListKeys::default();
                for item in items {
                    item.write_key(list.item_buf());
                    list.end_item();
                }
                list.finish_list(out);
            }
            Value::Map(pairs) => {
                let mut map = MapKeys::default();
                for (k, v) in pairs {
                    v.write_key(map.entry_buf(k));
                    map.end_entry();
                }
                map.finish(out);
            }
        }
    }

    /// Convert a `serde_json::Value` (numbers beyond `i64` become floats when exact).
    pub fn from_json(v: &serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Value::Int(i)
                } else {
                    Value::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => Value::Str(s.clone()),
            serde_json::Value::Array(a) => Value::List(a.iter().map(Value::from_json).collect()),
            serde_json::Value::Object(o) => Value::Map(
                o.iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v)))
                    .collect(),
            ),
        }
    }
}

/// Append the key of `null`.
#[inline]
pub fn push_null(out: &mut Vec<u8>) {
    out.push(tag::NULL);
}

/// Append the key of a boolean.
#[inline]
pub fn push_bool(out: &mut Vec<u8>, b: bool) {
    out.push(if b { tag::TRUE } else { tag::FALSE });
}

/// Append the key of an integer (order-preserving big-endian with the sign bit flipped).
#[inline]
pub fn push_int(out: &mut Vec<u8>, i: i64) {
    out.push(tag::INT);
    out.extend_from_slice(&((i as u64) ^ (1u64 << 63)).to_be_bytes());
}

const TWO_POW_63: f64 = 9_223_372_036_854_775_808.0;

/// Append the key of a float: integral values in the `i64` range become integers.
#[inline(always)]
pub fn push_float(out: &mut Vec<u8>, f: f64) {
    if f.is_nan() {
        out.push(tag::FLOAT);
        out.extend_from_slice(&f64::NAN.to_bits().to_be_bytes());
    } else if (-TWO_POW_63..TWO_POW_63).contains(&f) && (f as i64) as f64 == f {
        // in range, the conversion truncates: exact iff `f` is integral (no libm call)
        push_int(out, f as i64);
    } else {
        out.push(tag::FLOAT);
        out.extend_from_slice(&f.to_bits().to_be_bytes());
    }
}

/// Append the key of an unsigned integer (JSON numbers above `i64::MAX`).
pub fn push_u64(out: &mut Vec<u8>, u: u64) {
    if let Ok(i) = i64::try_from(u) {
        push_int(out, i);
    } else {
        let f = u as f64;
        // exact iff converting back gives the same integer (f < 2^64 here)
        if f < 18_446_744_073_709_551_616.0 && f as u64 == u {
            push_float(out, f);
        } else {
            push_big_int_decimal(out, &u.to_string());
        }
    }
}

/// Append the key of an integer of any size given as JSON decimal text (optional `-`, no
/// leading zeros): exact, as Python's `int` (CypherBench reads results with `json`, which
/// gives integers of any size). Beyond `u64` it equals a float only when the float has
/// exactly its value (Python's `int == float`), else it is a big integer compared by its
/// digits: `123456789012345678901234567890 != 123456789012345678901234567891`, although
/// both round to the same float.
pub fn push_int_text(out: &mut Vec<u8>, text: &str) {
    if let Ok(i) = text.parse::<i64>() {
        push_int(out, i);
    } else if let Ok(u) = text.parse::<u64>() {
        push_u64(out, u);
    } else {
        match text.parse::<f64>() {
            // `{:.0}` prints an integral float's exact decimal value
            Ok(f) if f.is_finite() && format!("{f:.0}") == text => push_float(out, f),
            _ => push_big_int_decimal(out, text),
        }
    }
}

/// Append the key of an integer outside `i64` that no float equals, given as canonical
/// decimal text (optional `-`, no leading zeros). Callers check float exactness first.
pub fn push_big_int_decimal(out: &mut Vec<u8>, decimal: &str) {
    out.push(tag::BIG_INT);
    push_len(out, decimal.len());
    out.extend_from_slice(decimal.as_bytes());
}

/// Append the key of a string.
#[inline]
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    out.push(tag::STR);
    push_len(out, s.len());
    out.extend_from_slice(s.as_bytes());
}

/// [`push_str`] of `text[start..end]` (a string's bytes inside a larger text, e.g. a JSON
/// line). Short strings with 16 readable bytes after `start` are copied as a fixed 16-byte
/// block and the excess cut off again: the same bytes as [`push_str`] without a
/// variable-length copy call.
#[inline(always)]
pub fn push_str_within(out: &mut Vec<u8>, text: &[u8], start: usize, end: usize) {
    let n = end - start;
    match text.get(start..start + 16) {
        Some(block) if n <= 16 => {
            out.push(tag::STR);
            push_len(out, n);
            let at = out.len();
            let block: &[u8; 16] = block.try_into().unwrap_or(&[0; 16]);
            out.extend_from_slice(block);
            out.truncate(at + n);
        }
        _ => {
            out.push(tag::STR);
            push_len(out, n);
            out.extend_from_slice(&text[start..end]);
        }
    }
}

#[inline]
fn push_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

/// Builder of a list key: encode each element into [`ListKeys::item_buf`], call
/// [`ListKeys::end_item`], then [`ListKeys::finish_list`] (unordered, elements sorted) or
/// [`ListKeys::finish_tuple`] (ordered; used for triples). [`ListKeys::finish_list_reuse`]
/// keeps the buffers for the next list (no allocation once warm).
#[derive(Default)]
pub struct ListKeys {
    buf: Vec<u8>,
    ends: Vec<usize>,
    /// Scratch: (start, end) of each element, sorted by key.
    order: Vec<(usize, usize)>,
}

impl ListKeys {
    /// The buffer the next element's key is written to.
    #[inline]
    pub fn item_buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Mark the end of the element just written.
    #[inline]
    pub fn end_item(&mut self) {
        self.ends.push(self.buf.len());
    }

    /// Forget all elements (keeps the buffers).
    #[inline]
    pub fn clear(&mut self) {
        self.buf.clear();
        self.ends.clear();
    }

    /// Append the unordered list key (elements sorted) to `out`.
    pub fn finish_list(mut self, out: &mut Vec<u8>) {
        self.finish_list_reuse(out);
    }

    /// Append the unordered list key (elements sorted) to `out`, then clear `self` for
    /// reuse.
    pub fn finish_list_reuse(&mut self, out: &mut Vec<u8>) {
        out.push(tag::LIST);
        push_len(out, self.ends.len());
        match self.ends.len() {
            0 => {}
            1 => out.extend_from_slice(&self.buf),
            _ => {
                self.order.clear();
                let mut start = 0;
                for &end in &self.ends {
                    self.order.push((start, end));
                    start = end;
                }
                let buf = &self.buf;
                self.order
                    .sort_unstable_by(|a, b| buf[a.0..a.1].cmp(&buf[b.0..b.1]));
                for &(s, e) in &self.order {
                    out.extend_from_slice(&buf[s..e]);
                }
            }
        }
        self.clear();
    }

    /// Append the ordered sequence key (elements in the given order) to `out`.
    pub fn finish_tuple(self, out: &mut Vec<u8>) {
        out.push(tag::TUPLE);
        push_len(out, self.ends.len());
        out.extend_from_slice(&self.buf);
    }
}

/// Builder of a map key: [`MapKeys::entry_buf`] with the key, write the value's key into
/// the returned buffer, [`MapKeys::end_entry`], then [`MapKeys::finish`] (or
/// [`MapKeys::finish_reuse`], which keeps the buffers for the next map).
#[derive(Default)]
pub struct MapKeys {
    buf: Vec<u8>,
    /// (start of key, start of value, end)
    entries: Vec<(usize, usize, usize)>,
    /// Scratch: entries sorted by (map key, position).
    order: Vec<(usize, usize, usize)>,
}

impl MapKeys {
    /// Start an entry with map key `key`; the value's key goes into the returned buffer.
    #[inline]
    pub fn entry_buf(&mut self, key: &str) -> &mut Vec<u8> {
        let start = self.buf.len();
        push_str(&mut self.buf, key);
        let vstart = self.buf.len();
        self.entries.push((start, vstart, usize::MAX));
        &mut self.buf
    }

    /// The buffer of the current entry's value (after [`MapKeys::entry_buf`]).
    #[inline]
    pub fn value_buf(&mut self) -> &mut Vec<u8> {
        &mut self.buf
    }

    /// Mark the end of the entry just written.
    #[inline]
    pub fn end_entry(&mut self) {
        if let Some(last) = self.entries.last_mut() {
            last.2 = self.buf.len();
        }
    }

    /// Forget all entries (keeps the buffers).
    #[inline]
    pub fn clear(&mut self) {
        self.buf.clear();
        self.entries.clear();
    }

    /// Append the map key (entries sorted by key, last value of a repeated key) to `out`.
    pub fn finish(mut self, out: &mut Vec<u8>) {
        self.finish_reuse(out);
    }

    /// As [`MapKeys::finish`], then clear `self` for reuse.
    pub fn finish_reuse(&mut self, out: &mut Vec<u8>) {
        let buf = &self.buf;
        // entries already in strictly ascending key order (no repeated key): the buffer is
        // the key as it stands
        let e = &self.entries;
        if e.windows(2)
            .all(|w| buf[w[0].0..w[0].1] < buf[w[1].0..w[1].1])
        {
            out.push(tag::MAP);
            push_len(out, e.len());
            out.extend_from_slice(buf);
            self.clear();
            return;
        }
        self.order.clear();
        self.order.extend_from_slice(&self.entries);
        // entries are in file order (ascending start): ties on the map key keep it
        self.order.sort_unstable_by(|a, b| {
            buf[a.0..a.1]
                .cmp(&buf[b.0..b.1])
                .then_with(|| a.0.cmp(&b.0))
        });
        let o = &self.order;
        // keep the last entry of each run of equal map keys
        let last_of_run =
            |i: usize| i + 1 == o.len() || buf[o[i].0..o[i].1] != buf[o[i + 1].0..o[i + 1].1];
        let kept = (0..o.len()).filter(|&i| last_of_run(i)).count();
        out.push(tag::MAP);
        push_len(out, kept);
        for i in 0..o.len() {
            if last_of_run(i) {
                out.extend_from_slice(&buf[o[i].0..o[i].2]);
            }
        }
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(v: &Value) -> Vec<u8> {
        v.canonical_key()
    }

    #[test]
    fn numbers_compare_numerically() {
        assert_eq!(key(&Value::Int(1)), key(&Value::Float(1.0)));
        assert_eq!(key(&Value::Int(0)), key(&Value::Float(-0.0)));
        assert_ne!(key(&Value::Int(1)), key(&Value::Float(1.5)));
        assert_ne!(
            key(&Value::Int((1 << 53) + 1)),
            key(&Value::Float((1u64 << 53) as f64))
        );
        assert_eq!(key(&Value::Float(f64::NAN)), key(&Value::Float(-f64::NAN)));
        assert_ne!(key(&Value::Bool(true)), key(&Value::Int(1)));
        let mut a = Vec::new();
        push_u64(&mut a, 1 << 63);
        let mut b = Vec::new();
        push_float(&mut b, 9_223_372_036_854_775_808.0);
        assert_eq!(a, b);
        let mut c = Vec::new();
        push_u64(&mut c, (1 << 63) + 1);
        assert_ne!(a, c);
    }

    #[test]
    fn lists_unordered_maps_sorted() {
        let l1 = Value::List(vec![Value::Int(2), Value::Str("a".into()), Value::Null]);
        let l2 = Value::List(vec![Value::Null, Value::Float(2.0), Value::Str("a".into())]);
        assert_eq!(key(&l1), key(&l2));
        let m1 = Value::Map(vec![("b".into(), Value::Int(1)), ("a".into(), l1.clone())]);
        let m2 = Value::Map(vec![("a".into(), l2), ("b".into(), Value::Float(1.0))]);
        assert_eq!(key(&m1), key(&m2));
        let as_list = Value::List(vec![Value::List(vec![
            Value::Str("a".into()),
            Value::Str("b".into()),
        ])]);
        let as_map = Value::Map(vec![("a".into(), Value::Str("b".into()))]);
        assert_ne!(key(&as_list), key(&as_map));
        // bag semantics inside a list
        let d1 = Value::List(vec![Value::Int(1), Value::Int(1), Value::Int(2)]);
        let d2 = Value::List(vec![Value::Int(1), Value::Int(2), Value::Int(2)]);
        assert_ne!(key(&d1), key(&d2));
        // repeated map key keeps the last value
        let r1 = Value::Map(vec![
            ("a".into(), Value::Int(1)),
            ("a".into(), Value::Int(2)),
        ]);
        let r2 = Value::Map(vec![("a".into(), Value::Int(2))]);
        assert_eq!(key(&r1), key(&r2));
    }

    /// Map keys (including the already-sorted shortcut) agree with a direct statement of
    /// the rule: entries sorted by key, the last value of a repeated key kept.
    #[test]
    fn map_keys_match_the_rule() {
        let names = ["", "a", "b", "n", "name", "ab", "é"];
        let mut next = crate::testing::xorshift::<usize>(0x9E37_79B9_7F4A_7C15);
        for _ in 0..20_000 {
            let len = next(5);
            let entries: Vec<(&str, i64)> = (0..len)
                .map(|_| (names[next(names.len())], next(3) as i64))
                .collect();
            let mut map = MapKeys::default();
            for (k, v) in &entries {
                push_int(map.entry_buf(k), *v);
                map.end_entry();
            }
            let mut got = Vec::new();
            map.finish_reuse(&mut got);
            // the rule: last value per key, entries ordered by the key's canonical bytes
            let mut last: Vec<(Vec<u8>, i64)> = Vec::new();
            for (k, v) in &entries {
                let mut kb = Vec::new();
                push_str(&mut kb, k);
                match last.iter_mut().find(|(k2, _)| *k2 == kb) {
                    Some(e) => e.1 = *v,
                    None => last.push((kb, *v)),
                }
            }
            last.sort();
            let mut want = vec![tag::MAP];
            push_len(&mut want, last.len());
            for (kb, v) in &last {
                want.extend_from_slice(kb);
                push_int(&mut want, *v);
            }
            assert_eq!(got, want, "{entries:?}");
        }
    }

    #[test]
    fn str_within_text() {
        let text = b"\"short\", \"a string longer than sixteen bytes\", \"end\"";
        for (s, e) in [(1, 6), (10, 44), (48, 51), (51, 51)] {
            let mut a = vec![7u8];
            push_str_within(&mut a, text, s, e);
            let mut b = vec![7u8];
            push_str(&mut b, std::str::from_utf8(&text[s..e]).unwrap());
            assert_eq!(a, b);
        }
    }

    #[test]
    fn self_delimiting() {
        // ["ab"] vs ["a", "b"] must differ
        let a = Value::List(vec![Value::Str("ab".into())]);
        let b = Value::List(vec![Value::Str("a".into()), Value::Str("b".into())]);
        assert_ne!(key(&a), key(&b));
        let c = Value::List(vec![Value::List(vec![]), Value::List(vec![Value::Null])]);
        let d = Value::List(vec![Value::List(vec![Value::Null]), Value::List(vec![])]);
        assert_eq!(key(&c), key(&d));
    }
}
