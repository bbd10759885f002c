//! Bulk path: GTSQA JSON Lines files straight to isomorphism types.
//!
//! Each non-blank line is a GTSQA record (seed synthkgqa-gtsqa.txt, Appendix
//! A.3; SPEC.md §5): a JSON object with `answer_subgraph` (a list of
//! `[head, relation, tail]` triples or `[head, tail]` pairs), `answer_node` and
//! `seed_entities` (a list); other fields are skipped, except an existing
//! `graph_isomorphism`, which is compared with the computed identifier.
//!
//! The file (plain, or gzip detected by its magic bytes) is read by a reader
//! thread in blocks of 8 MiB of whole lines; each block is cut into pieces of
//! about 128 KiB at line ends, and the pieces are parsed and classified in
//! parallel on the rayon pool while the next block is read. Parsing: a
//! hand-written validating scanner for the usual lines (valid UTF-8, strings
//! without escapes, integer node ids; node ids borrowed from the block), and
//! serde_json for every other line and for error messages. Results are merged
//! in file order, so the output is deterministic.
//!
//! Node ids are compared like Python dict keys after `json.loads`, so this
//! path agrees with the Python list API: strings by value; numbers by value
//! (`1`, `1.0` and `true` are the same node, `"1"` is another); `null` is a
//! node. Integers beyond 64 bits are read as floats by serde_json (two such
//! ids closer than the float precision would be merged).

use std::borrow::Cow;
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::batch::{identify_chunk, SubgraphBatch, TypeIds, TypeIdsBuilder};
use super::graph::{Defect, Workspace};
use super::identify::{analyze, canonical_identifier};

/// Field holding the identifier in GTSQA records.
pub const OUTPUT_FIELD: &str = "graph_isomorphism";

/// A record whose answer subgraph is not a valid answer tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidRecord {
    /// Position among the records (blank lines are not records), from 0.
    pub index: usize,
    /// Line number in the file, from 1.
    pub line: u64,
    /// The defects found, in [`Defect::ALL`] order.
    pub defects: Vec<Defect>,
}

/// Comparison of the records' existing `graph_isomorphism` with the computed
/// identifiers (records without the field are not counted).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GivenAgreement {
    /// Same string (both `null` for an invalid record counts too).
    pub identical: usize,
    /// Another spelling of the same type (juxtaposed terms in another order).
    pub reordered: usize,
    /// Anything else.
    pub different: usize,
}

/// Result of [`classify_jsonl`].
#[derive(Debug, Clone, Default)]
pub struct JsonlTypes {
    /// One entry per record, in file order ([`TypeIds::INVALID`] for invalid ones).
    pub types: TypeIds,
    /// The invalid records, in file order.
    pub invalid: Vec<InvalidRecord>,
    /// Agreement with an existing `graph_isomorphism` field.
    pub given: GivenAgreement,
    /// Lines read, blank ones included.
    pub lines: u64,
}

/// Error of [`classify_jsonl`]: names the file, and the line for a bad record.
#[derive(Debug, thiserror::Error)]
pub enum JsonlError {
    /// The file cannot be opened.
    #[error("{path}: cannot open: {source}")]
    Open {
        /// The file.
        path: String,
        /// Cause.
        source: io::Error,
    },
    /// The file cannot be read or decompressed.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: String,
        /// Cause.
        source: io::Error,
    },
    /// Stopped by [`crate::cancel::request`] (Ctrl-C).
    #[error("interrupted")]
    Interrupted,
    /// A malformed line.
    #[error("{path}:{line}: {message}")]
    Record {
        /// The file.
        path: String,
        /// Line number, from 1.
        line: u64,
        /// What is wrong, with the column when known.
        message: String,
    },
}

crate::cancel::interrupted_from_cancelled!(JsonlError);

/// Classify every record of a GTSQA JSONL file (plain or gzip).
///
/// Blank lines are skipped. Same identifiers as
/// [`isomorphism_types`](crate::iso::isomorphism_types) on the records.
///
/// # Errors
/// [`JsonlError::Open`] / [`JsonlError::Io`] when the file cannot be opened /
/// read or decompressed;
/// [`JsonlError::Record`] for the first malformed line (invalid JSON, not an
/// object, a missing or duplicated field, `answer_subgraph` or
/// `seed_entities` not a list, an edge that is not a pair or triple, a node id
/// that is a list or object).
pub fn classify_jsonl(path: &Path) -> Result<JsonlTypes, JsonlError> {
    let name = path.display().to_string();
    let io_err = |source| JsonlError::Io {
        path: name.clone(),
        source,
    };
    let file = File::open(path).map_err(|source| JsonlError::Open {
        path: name.clone(),
        source,
    })?;
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let gzip = reader
        .fill_buf()
        .map_err(io_err)?
        .starts_with(&[0x1f, 0x8b]);
    if gzip {
        classify_reader(flate2::read::MultiGzDecoder::new(reader), &name)
    } else {
        classify_reader(reader, &name)
    }
}

const BLOCK: usize = 8 << 20;
const PIECE: usize = 128 << 10;

/// [`classify_jsonl`] on any reader of uncompressed JSONL; `name` is used in errors.
///
/// A second thread reads (and decompresses) the next block while the rayon
/// pool parses the current one.
///
/// # Errors
/// As [`classify_jsonl`].
pub fn classify_reader(reader: impl Read + Send, name: &str) -> Result<JsonlTypes, JsonlError> {
    let (tx, rx) = std::sync::mpsc::sync_channel::<io::Result<Vec<u8>>>(1);
    // Used buffers go back to the reader (no fresh pages per block).
    let (recycle_tx, recycle_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
    std::thread::scope(|scope| {
        scope.spawn(move || read_blocks(reader, &tx, &recycle_rx));
        let mut merged = Merged::default();
        for block in rx {
            let block = block.map_err(|source| JsonlError::Io {
                path: name.to_owned(),
                source,
            })?;
            crate::cancel::check()?;
            merged.block(&block, name)?;
            let _ = recycle_tx.try_send(block);
        }
        Ok(merged.finish())
    })
}

/// Send blocks of whole lines (the last one may lack its newline) of about
/// [`BLOCK`] bytes; stops at the end, at an error, or when the receiver is gone.
fn read_blocks(
    mut reader: impl Read,
    tx: &std::sync::mpsc::SyncSender<io::Result<Vec<u8>>>,
    recycled: &std::sync::mpsc::Receiver<Vec<u8>>,
) {
    let mut buf: Vec<u8> = Vec::with_capacity(BLOCK + PIECE);
    let mut target = BLOCK;
    let mut eof = false;
    while !eof {
        while buf.len() < target {
            let want = (target - buf.len()) as u64;
            match (&mut reader).take(want).read_to_end(&mut buf) {
                Ok(0) => {
                    eof = true;
                    break;
                }
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
        let end = if eof {
            buf.len()
        } else {
            match memchr::memrchr(b'\n', &buf) {
                Some(p) => p + 1,
                None => {
                    // A line longer than the block: read more.
                    target *= 2;
                    continue;
                }
            }
        };
        let rest = buf.split_off(end);
        if !buf.is_empty() && tx.send(Ok(buf)).is_err() {
            return;
        }
        buf = recycled.try_recv().unwrap_or_default();
        buf.clear();
        buf.reserve(BLOCK.max(rest.len() + PIECE) + PIECE);
        buf.extend_from_slice(&rest);
        target = BLOCK.max(rest.len() + PIECE);
    }
}

#[derive(Default)]
struct Merged {
    builder: TypeIdsBuilder,
    invalid: Vec<InvalidRecord>,
    given: GivenAgreement,
    lines: u64,
    records: usize,
}

impl Merged {
    fn block(&mut self, data: &[u8], name: &str) -> Result<(), JsonlError> {
        let mut pieces = Vec::with_capacity(data.len() / PIECE + 1);
        let mut s = 0;
        while s < data.len() {
            let mut e = (s + PIECE).min(data.len());
            if e < data.len() {
                e = memchr::memchr(b'\n', &data[e..]).map_or(data.len(), |p| e + p + 1);
            }
            pieces.push(&data[s..e]);
            s = e;
        }
        let results: Vec<Piece> = pieces.into_par_iter().map(parse_piece).collect();
        for piece in results {
            if let Some((line, message)) = piece.error {
                return Err(JsonlError::Record {
                    path: name.to_owned(),
                    line: self.lines + line,
                    message,
                });
            }
            self.builder.push(piece.types);
            for mut r in piece.invalid {
                r.index += self.records;
                r.line += self.lines;
                self.invalid.push(r);
            }
            self.given.identical += piece.given.identical;
            self.given.reordered += piece.given.reordered;
            self.given.different += piece.given.different;
            self.lines += piece.lines;
            self.records += piece.records;
        }
        Ok(())
    }

    fn finish(self) -> JsonlTypes {
        JsonlTypes {
            types: self.builder.finish(),
            invalid: self.invalid,
            given: self.given,
            lines: self.lines,
        }
    }
}

/// Results of one piece, with record indices and line numbers local to it.
struct Piece {
    types: TypeIds,
    invalid: Vec<InvalidRecord>,
    given: GivenAgreement,
    lines: u64,
    records: usize,
    error: Option<(u64, String)>,
}

fn is_blank(line: &[u8]) -> bool {
    line.iter()
        .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n' | 0x0b | 0x0c))
}

fn parse_piece(data: &[u8]) -> Piece {
    // Valid UTF-8 (the usual case) enables the fast scanner; otherwise every
    // line goes through serde_json, which reports the bad bytes.
    let text = std::str::from_utf8(data).ok();
    let mut parser = Parser::default();
    let mut record_lines: Vec<u64> = Vec::new();
    let mut given: Vec<(usize, Given<'_>)> = Vec::new();
    let mut error = None;
    let mut lines = 0u64;
    let mut start = 0;
    while start < data.len() {
        let end = memchr::memchr(b'\n', &data[start..]).map_or(data.len(), |p| start + p);
        let line = &data[start..end];
        let line_text = text.map(|t| &t[start..end]);
        start = end + 1;
        lines += 1;
        if is_blank(line) {
            continue;
        }
        match parser.record(line, line_text) {
            Ok(g) => {
                if let Some(g) = g {
                    given.push((record_lines.len(), g));
                }
                record_lines.push(lines);
            }
            Err(e) => {
                error = Some((lines, describe(&e)));
                break;
            }
        }
    }
    let batch = parser.batch;
    let types = identify_chunk(&batch, 0..batch.len());
    let mut ws = Workspace::default();
    let invalid = types
        .ids
        .iter()
        .enumerate()
        .filter(|&(_, &id)| id == TypeIds::INVALID)
        .map(|(i, _)| InvalidRecord {
            index: i,
            line: record_lines[i],
            defects: analyze(&mut ws, &batch.get(i)).defects(),
        })
        .collect();
    let mut agreement = GivenAgreement::default();
    for (i, g) in &given {
        let id = types.get(*i);
        let verdict = match g {
            Given::Null if id.is_none() => 0,
            Given::Str(s) if Some(s.as_ref()) == id => 0,
            Given::Str(s) if id.is_some() && canonical_identifier(s).ok().as_deref() == id => 1,
            _ => 2,
        };
        match verdict {
            0 => agreement.identical += 1,
            1 => agreement.reordered += 1,
            _ => agreement.different += 1,
        }
    }
    Piece {
        records: record_lines.len(),
        types,
        invalid,
        given: agreement,
        lines,
        error,
    }
}

/// `serde_json` message without its "at line 1 column N" suffix, plus the column.
fn describe(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let msg = match full.rfind(" at line ") {
        Some(p) if e.line() > 0 => &full[..p],
        _ => full.as_str(),
    };
    let prefix = if e.is_data() { "" } else { "invalid JSON: " };
    if e.column() > 0 {
        format!("{prefix}{msg} (column {})", e.column())
    } else {
        format!("{prefix}{msg}")
    }
}

/// A node id as Python sees it after `json.loads` (dict-key equality).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Node<'de> {
    Str(Cow<'de, str>),
    Int(i128),
    /// A non-integral float, by bit pattern.
    Float(u64),
    Null,
}

/// Visitor of a node id; `LENIENT` accepts (and skips) a list or object as `None`.
struct NodeVisitor<const LENIENT: bool>;

impl<'de, const LENIENT: bool> Visitor<'de> for NodeVisitor<LENIENT> {
    type Value = Option<Node<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a node id (string, number, boolean or null)")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Node::Str(Cow::Borrowed(v))))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Node::Str(Cow::Owned(v.to_owned()))))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Some(Node::Str(Cow::Owned(v))))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Some(Node::Int(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Some(Node::Int(v.into())))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        // Python: 1.0 == 1 and hash(1.0) == hash(1).
        if v.fract() == 0.0 && v.abs() < 1e38 {
            Ok(Some(Node::Int(v as i128)))
        } else {
            Ok(Some(Node::Float(v.to_bits())))
        }
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        // Python: True == 1.
        Ok(Some(Node::Int(v.into())))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Some(Node::Null))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        if !LENIENT {
            return Err(de::Error::invalid_type(de::Unexpected::Seq, &self));
        }
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        if !LENIENT {
            return Err(de::Error::invalid_type(de::Unexpected::Map, &self));
        }
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

impl<'de> de::Deserialize<'de> for Node<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor::<false>)
            .map(|n| n.expect("strict visitor"))
    }
}

/// The middle item of an edge: the relation of a triple (anything) or the tail of a pair.
struct Middle<'de>(Option<Node<'de>>);

impl<'de> de::Deserialize<'de> for Middle<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor::<true>).map(Middle)
    }
}

/// An existing `graph_isomorphism` value.
enum Given<'de> {
    Null,
    Str(Cow<'de, str>),
    Other,
}

impl<'de> de::Deserialize<'de> for Given<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match d.deserialize_any(NodeVisitor::<true>)? {
            Some(Node::Null) => Given::Null,
            Some(Node::Str(s)) => Given::Str(s),
            _ => Given::Other,
        })
    }
}

/// Per-piece state: the batch being filled and the current record's node ids.
#[derive(Default)]
struct Parser<'de> {
    /// The current record's node ids with a cheap fingerprint (compared first).
    keys: Vec<(u64, Node<'de>)>,
    index: FxHashMap<Node<'de>, u32>,
    batch: SubgraphBatch,
}

const LINEAR_MAX: usize = 32;

impl<'de> Parser<'de> {
    fn intern(&mut self, n: Node<'de>) -> u32 {
        if self.keys.len() < LINEAR_MAX {
            let f = fingerprint(&n);
            if let Some(i) = self.keys.iter().position(|(kf, k)| *kf == f && *k == n) {
                return i as u32;
            }
            self.keys.push((f, n));
        } else {
            if self.index.is_empty() {
                for (i, (_, k)) in self.keys.iter().enumerate() {
                    self.index.insert(k.clone(), i as u32);
                }
            }
            if let Some(&i) = self.index.get(&n) {
                return i;
            }
            self.index.insert(n.clone(), self.keys.len() as u32);
            self.keys.push((0, n));
        }
        self.keys.len() as u32 - 1
    }

    fn finish_record(&mut self, answer: u32) {
        let b = &mut self.batch;
        b.answers.push(answer);
        b.n_nodes.push(self.keys.len() as u32);
        b.edge_offsets.push(b.edges.len());
        b.seed_offsets.push(b.seeds.len());
    }

    /// The fast scanner on one line; `None` declines (nothing is reported).
    fn fast_record(&mut self, line: &'de str) -> Option<(u32, Option<Given<'de>>)> {
        let mut sc = Scan { s: line, i: 0 };
        sc.ws();
        sc.expect(b'{')?;
        sc.ws();
        let mut seen = [false; 4];
        let mut answer = None;
        let mut given = None;
        if !sc.eat(b'}') {
            loop {
                let key = sc.string()?;
                sc.ws();
                sc.expect(b':')?;
                sc.ws();
                let field = match key {
                    "answer_subgraph" => 0,
                    "answer_node" => 1,
                    "seed_entities" => 2,
                    OUTPUT_FIELD => 3,
                    _ => 4,
                };
                if field < 4 && std::mem::replace(&mut seen[field], true) {
                    return None;
                }
                match field {
                    0 => self.fast_edges(&mut sc)?,
                    1 => {
                        let n = sc.node()?;
                        answer = Some(self.intern(n));
                    }
                    2 => {
                        sc.expect(b'[')?;
                        sc.ws();
                        if !sc.eat(b']') {
                            loop {
                                let n = sc.node()?;
                                let id = self.intern(n);
                                self.batch.seeds.push(id);
                                if sc.list_end()? {
                                    break;
                                }
                            }
                        }
                    }
                    3 => {
                        given = Some(match sc.peek()? {
                            b'"' => Given::Str(Cow::Borrowed(sc.string()?)),
                            b'n' => {
                                sc.literal("null")?;
                                Given::Null
                            }
                            _ => {
                                sc.skip_value(0)?;
                                Given::Other
                            }
                        });
                    }
                    _ => sc.skip_value(0)?,
                }
                sc.ws();
                if sc.eat(b',') {
                    sc.ws();
                    continue;
                }
                sc.expect(b'}')?;
                break;
            }
        }
        sc.ws();
        if sc.i != line.len() || !(seen[0] && seen[1] && seen[2]) {
            return None;
        }
        Some((answer?, given))
    }

    fn fast_edges(&mut self, sc: &mut Scan<'de>) -> Option<()> {
        sc.expect(b'[')?;
        sc.ws();
        if sc.eat(b']') {
            return Some(());
        }
        loop {
            sc.expect(b'[')?;
            sc.ws();
            let head = sc.node()?;
            sc.ws();
            sc.expect(b',')?;
            sc.ws();
            let middle = match sc.peek()? {
                b'[' | b'{' => {
                    sc.skip_value(0)?;
                    None
                }
                _ => Some(sc.node()?),
            };
            sc.ws();
            let tail = if sc.eat(b',') {
                sc.ws();
                let t = sc.node()?;
                sc.ws();
                sc.expect(b']')?;
                t
            } else {
                sc.expect(b']')?;
                middle?
            };
            let a = self.intern(head);
            let b = self.intern(tail);
            self.batch.edges.push([a, b]);
            if sc.list_end()? {
                return Some(());
            }
        }
    }

    /// Parse one record into the batch; returns its `graph_isomorphism`, if any.
    ///
    /// `text` is the same line when known to be valid UTF-8: then the fast
    /// scanner ([`Scan`]) is tried first, and serde_json only reads the lines
    /// it declines (escapes, floats, malformed lines: serde_json then gives
    /// the error message).
    fn record(
        &mut self,
        line: &'de [u8],
        text: Option<&'de str>,
    ) -> Result<Option<Given<'de>>, serde_json::Error> {
        if self.batch.edge_offsets.is_empty() {
            self.batch = SubgraphBatch::new();
        }
        let (e0, s0) = (self.batch.edges.len(), self.batch.seeds.len());
        if let Some(text) = text {
            self.keys.clear();
            self.index.clear();
            if let Some(r) = self.fast_record(text) {
                self.finish_record(r.0);
                return Ok(r.1);
            }
            self.batch.edges.truncate(e0);
            self.batch.seeds.truncate(s0);
        }
        self.keys.clear();
        self.index.clear();
        let mut de = serde_json::Deserializer::from_slice(line);
        let result = de
            .deserialize_map(RecordVisitor(self))
            .and_then(|r| de.end().map(|()| r));
        match result {
            Ok((answer, given)) => {
                self.finish_record(answer);
                Ok(given)
            }
            Err(e) => {
                self.batch.edges.truncate(e0);
                self.batch.seeds.truncate(s0);
                Err(e)
            }
        }
    }
}

/// Cheap fingerprint of a node id for the linear interner.
fn fingerprint(n: &Node<'_>) -> u64 {
    match n {
        Node::Str(s) => {
            let b = s.as_bytes();
            match b.len() {
                0 => 0x2222,
                n => {
                    (n as u64)
                        | (u64::from(b[0]) << 16)
                        | (u64::from(b[n - 1]) << 24)
                        | (u64::from(b[n / 2]) << 32)
                        | (u64::from(b[(n - 1).saturating_sub(1)]) << 40)
                }
            }
        }
        Node::Int(v) => (*v as u64).rotate_left(7) ^ 0x9e37_79b9_7f4a_7c15,
        Node::Float(bits) => *bits ^ 0x5555,
        Node::Null => 0x1111,
    }
}

/// Hand-written scanner for the common shape of a GTSQA line (valid UTF-8,
/// strings without escapes, integer node ids). It validates what it reads
/// (JSON grammar for skipped values too) and declines (`None`) anything
/// else, which then goes to serde_json: the two agree on every line the
/// scanner accepts.
struct Scan<'de> {
    s: &'de str,
    i: usize,
}

/// Nesting depth at which the scanner declines (serde_json's limit is 128).
const MAX_DEPTH: u32 = 100;

impl<'de> Scan<'de> {
    #[inline]
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.i).copied()
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    #[inline]
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    #[inline]
    fn expect(&mut self, c: u8) -> Option<()> {
        self.eat(c).then_some(())
    }

    /// After a list item: `true` at `]`, `false` at `,` (whitespace skipped).
    #[inline]
    fn list_end(&mut self) -> Option<bool> {
        self.ws();
        if self.eat(b',') {
            self.ws();
            Some(false)
        } else {
            self.expect(b']')?;
            Some(true)
        }
    }

    fn literal(&mut self, word: &str) -> Option<()> {
        if self.s.as_bytes()[self.i..].starts_with(word.as_bytes()) {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// A string without escapes or control characters.
    #[inline]
    fn string(&mut self) -> Option<&'de str> {
        self.expect(b'"')?;
        let bytes = self.s.as_bytes();
        let start = self.i;
        let mut j = start;
        // Eight bytes at a time until a word holds `"`, `\` or a control
        // character (exact existence tests: Hacker's Delight, "haszero").
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        while let Some(word) = bytes.get(j..j + 8) {
            let x = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            let quote = x ^ (ONES * u64::from(b'"'));
            let backslash = x ^ (ONES * u64::from(b'\\'));
            let found = (quote.wrapping_sub(ONES) & !quote)
                | (backslash.wrapping_sub(ONES) & !backslash)
                | (x.wrapping_sub(ONES * 0x20) & !x);
            if found & HIGH != 0 {
                break;
            }
            j += 8;
        }
        loop {
            let b = *bytes.get(j)?;
            if b == b'"' {
                self.i = j + 1;
                // Both ends are ASCII quotes: char boundaries.
                return Some(&self.s[start..j]);
            }
            if b == b'\\' || b < 0x20 {
                return None;
            }
            j += 1;
        }
    }

    fn digits(&mut self) -> Option<()> {
        let start = self.i;
        while let Some(b'0'..=b'9') = self.peek() {
            self.i += 1;
        }
        (self.i > start).then_some(())
    }

    /// A JSON number; `Some(Some(v))` for an integer of at most 18 digits.
    fn number(&mut self) -> Option<Option<i64>> {
        let neg = self.eat(b'-');
        let start = self.i;
        match self.peek()? {
            b'0' => self.i += 1,
            b'1'..=b'9' => self.digits()?,
            _ => return None,
        }
        let end = self.i;
        let mut integer = true;
        if self.eat(b'.') {
            integer = false;
            self.digits()?;
        }
        if let Some(b'e' | b'E') = self.peek() {
            integer = false;
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            self.digits()?;
        }
        if !integer || end - start > 18 {
            return Some(None);
        }
        let v: i64 = self.s[start..end].parse().ok()?;
        Some(Some(if neg { -v } else { v }))
    }

    /// A node id: string, integer, boolean or null (floats decline).
    #[inline]
    fn node(&mut self) -> Option<Node<'de>> {
        match self.peek()? {
            b'"' => Some(Node::Str(Cow::Borrowed(self.string()?))),
            b't' => self.literal("true").map(|()| Node::Int(1)),
            b'f' => self.literal("false").map(|()| Node::Int(0)),
            b'n' => self.literal("null").map(|()| Node::Null),
            _ => self.number()?.map(|v| Node::Int(v.into())),
        }
    }

    /// Skip any JSON value, validating it.
    fn skip_value(&mut self, depth: u32) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.string()?;
            }
            b'{' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.ws();
                if !self.eat(b'}') {
                    loop {
                        self.string()?;
                        self.ws();
                        self.expect(b':')?;
                        self.ws();
                        self.skip_value(depth + 1)?;
                        self.ws();
                        if self.eat(b',') {
                            self.ws();
                            continue;
                        }
                        self.expect(b'}')?;
                        break;
                    }
                }
            }
            b'[' => {
                if depth >= MAX_DEPTH {
                    return None;
                }
                self.i += 1;
                self.ws();
                if !self.eat(b']') {
                    loop {
                        self.skip_value(depth + 1)?;
                        if self.list_end()? {
                            break;
                        }
                    }
                }
            }
            b't' => self.literal("true")?,
            b'f' => self.literal("false")?,
            b'n' => self.literal("null")?,
            _ => {
                self.number()?;
            }
        }
        Some(())
    }
}

enum Field {
    Edges,
    Answer,
    Seeds,
    Given,
    Other,
}

struct FieldVisitor;

impl<'de> Visitor<'de> for FieldVisitor {
    type Value = Field;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }
    fn visit_str<E>(self, v: &str) -> Result<Field, E> {
        Ok(match v {
            "answer_subgraph" => Field::Edges,
            "answer_node" => Field::Answer,
            "seed_entities" => Field::Seeds,
            OUTPUT_FIELD => Field::Given,
            _ => Field::Other,
        })
    }
}

impl<'de> de::Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_identifier(FieldVisitor)
    }
}

struct RecordVisitor<'p, 'de>(&'p mut Parser<'de>);

impl<'de> Visitor<'de> for RecordVisitor<'_, 'de> {
    type Value = (u32, Option<Given<'de>>);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object (GTSQA record)")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = [false; 4];
        let mut answer = None;
        let mut given = None;
        let dup = |seen: &mut [bool; 4], i: usize, name: &str| {
            if std::mem::replace(&mut seen[i], true) {
                Err(de::Error::custom(format_args!("duplicate field '{name}'")))
            } else {
                Ok(())
            }
        };
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Edges => {
                    dup(&mut seen, 0, "answer_subgraph")?;
                    map.next_value_seed(EdgesSeed(&mut *self.0))?;
                }
                Field::Answer => {
                    dup(&mut seen, 1, "answer_node")?;
                    let n: Node<'de> = map.next_value()?;
                    answer = Some(self.0.intern(n));
                }
                Field::Seeds => {
                    dup(&mut seen, 2, "seed_entities")?;
                    map.next_value_seed(SeedsSeed(&mut *self.0))?;
                }
                Field::Given => {
                    dup(&mut seen, 3, OUTPUT_FIELD)?;
                    given = Some(map.next_value::<Given<'de>>()?);
                }
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        for (i, name) in ["answer_subgraph", "answer_node", "seed_entities"]
            .iter()
            .enumerate()
        {
            if !seen[i] {
                return Err(de::Error::custom(format_args!("missing field '{name}'")));
            }
        }
        Ok((answer.expect("answer_node seen"), given))
    }
}

struct EdgesSeed<'p, 'de>(&'p mut Parser<'de>);

impl<'de> DeserializeSeed<'de> for EdgesSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EdgesSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("answer_subgraph as a list of [head, relation, tail] triples")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        while let Some((h, t)) = seq.next_element_seed(EdgeSeed(i))? {
            let a = self.0.intern(h);
            let b = self.0.intern(t);
            self.0.batch.edges.push([a, b]);
            i += 1;
        }
        Ok(())
    }
}

/// Edge `i` of `answer_subgraph`.
struct EdgeSeed(usize);

impl<'de> DeserializeSeed<'de> for EdgeSeed {
    type Value = (Node<'de>, Node<'de>);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EdgeSeed {
    type Value = (Node<'de>, Node<'de>);
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "answer_subgraph edge {} as a [head, relation, tail] triple or a [head, tail] pair",
            self.0
        )
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let Some(head) = seq.next_element::<Node<'de>>()? else {
            return Err(de::Error::invalid_length(0, &self));
        };
        let Some(Middle(middle)) = seq.next_element::<Middle<'de>>()? else {
            return Err(de::Error::invalid_length(1, &self));
        };
        let tail = seq.next_element::<Node<'de>>()?;
        if seq.next_element::<IgnoredAny>()?.is_some() {
            let mut n = 4;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                n += 1;
            }
            return Err(de::Error::invalid_length(n, &self));
        }
        match (tail, middle) {
            (Some(tail), _) | (None, Some(tail)) => Ok((head, tail)),
            (None, None) => Err(de::Error::invalid_type(de::Unexpected::Seq, &self)),
        }
    }
}

struct SeedsSeed<'p, 'de>(&'p mut Parser<'de>);

impl<'de> DeserializeSeed<'de> for SeedsSeed<'_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for SeedsSeed<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("seed_entities as a list of node ids")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(n) = seq.next_element::<Node<'de>>()? {
            let s = self.0.intern(n);
            self.0.batch.seeds.push(s);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Result<JsonlTypes, JsonlError> {
        classify_reader(text.as_bytes(), "t.jsonl")
    }

    #[test]
    fn types_ids_and_defects() {
        let text = concat!(
            r#"{"answer_subgraph": [["a", "P1", "b"], ["b", "P2", "c"], ["a", "P3", "d"]], "answer_node": "a", "seed_entities": ["c", "d"], "graph_isomorphism": "(1)(2)"}"#,
            "\n\n",
            r#"{"seed_entities": [2], "answer_node": 1.0, "answer_subgraph": [[true, 2]], "graph_isomorphism": "(1)"}"#,
            "\n",
            r#"{"answer_subgraph": [["x", "P", "y"], ["y", "P", "x"]], "answer_node": "x", "seed_entities": ["y"], "graph_isomorphism": null}"#,
            "\r\n",
            r#"{"answer_subgraph": [["x\u0041", "P", "y"]], "answer_node": "xA", "seed_entities": ["y"], "q": [1, {"a": 2}]}"#,
        );
        let r = run(text).unwrap();
        let got: Vec<Option<&str>> = (0..r.types.ids.len()).map(|i| r.types.get(i)).collect();
        assert_eq!(got, vec![Some("(2)(1)"), Some("(1)"), None, Some("(1)")]);
        assert_eq!(r.lines, 5);
        assert_eq!(
            r.invalid,
            vec![InvalidRecord {
                index: 2,
                line: 4,
                defects: vec![Defect::Cycle, Defect::InternalSeeds]
            }]
        );
        assert_eq!(
            r.given,
            GivenAgreement {
                identical: 2,
                reordered: 1,
                different: 0
            }
        );
    }

    #[test]
    fn errors_name_file_and_line() {
        let good =
            r#"{"answer_subgraph": [["a", "P", "b"]], "answer_node": "a", "seed_entities": ["b"]}"#;
        let cases = [
            ("{\"answer_subgraph\": [", "invalid JSON"),
            ("[1, 2]", "invalid type: sequence, expected a JSON object"),
            (
                r#"{"answer_subgraph": [], "seed_entities": []}"#,
                "missing field 'answer_node'",
            ),
            (
                r#"{"answer_subgraph": [["a", "b", "c", "d"]], "answer_node": "a", "seed_entities": []}"#,
                "invalid length 4, expected answer_subgraph edge 0",
            ),
            (
                r#"{"answer_subgraph": [["a", "P", "b"], ["a"]], "answer_node": "a", "seed_entities": []}"#,
                "expected answer_subgraph edge 1",
            ),
            (
                r#"{"answer_subgraph": {}, "answer_node": "a", "seed_entities": []}"#,
                "expected answer_subgraph as a list",
            ),
            (
                r#"{"answer_subgraph": [], "answer_node": ["a"], "seed_entities": []}"#,
                "expected a node id",
            ),
            (
                r#"{"answer_subgraph": [], "answer_node": "a", "answer_node": "b", "seed_entities": []}"#,
                "duplicate field 'answer_node'",
            ),
            (
                r#"{"answer_subgraph": [], "answer_node": "a", "seed_entities": []} x"#,
                "trailing",
            ),
        ];
        for (bad, expected) in cases {
            let text = format!("{good}\n\n{good}\n{bad}\n{good}\n");
            let err = run(&text).unwrap_err().to_string();
            assert!(err.starts_with("t.jsonl:4: "), "{err}");
            assert!(err.contains(expected), "{err} lacks {expected}");
        }
    }

    #[test]
    fn many_blocks_and_pieces() {
        let mut text = String::new();
        for i in 0..60_000u32 {
            let len = 1 + i % 4;
            let edges: Vec<String> = (0..len)
                .map(|v| format!("[\"n{i}_{v}\", \"P{v}\", \"n{i}_{}\"]", v + 1))
                .collect();
            text.push_str(&format!(
                "{{\"answer_subgraph\": [{}], \"answer_node\": \"n{i}_0\", \"seed_entities\": [\"n{i}_{len}\"], \"pad\": \"{}\"}}\n",
                edges.join(", "),
                "x".repeat((i % 200) as usize)
            ));
        }
        let r = run(&text).unwrap();
        assert_eq!(r.types.ids.len(), 60_000);
        for i in 0..60_000 {
            assert_eq!(r.types.get(i), Some(format!("({})", 1 + i % 4).as_str()));
        }
        let bad = format!("{text}{{\n");
        let err = run(&bad).unwrap_err().to_string();
        assert!(err.starts_with("t.jsonl:60001: invalid JSON"), "{err}");
    }
}

#[cfg(test)]
mod scan_tests {
    use super::*;

    /// Edges, seeds, answer and node count of one interned record.
    type Interned = (Vec<[u32; 2]>, Vec<u32>, u32, u32);

    /// Interned edges, seeds and answer of one line, through the scanner
    /// (when it accepts) or serde_json.
    fn parse(line: &str, fast: bool) -> Option<Interned> {
        let mut p = Parser::default();
        let ok = p.record(line.as_bytes(), fast.then_some(line)).is_ok();
        let b = &p.batch;
        ok.then(|| (b.edges.clone(), b.seeds.clone(), b.answers[0], b.n_nodes[0]))
    }

    #[test]
    fn scanner_agrees_with_serde() {
        let lines = [
            r#"{"answer_subgraph": [["a", "P1", "b"], ["b", 7, "c"]], "answer_node": "a", "seed_entities": ["c"]}"#,
            r#" { "x" : [1, -2.5e3, {"y": [true, false, null]}, "z"] , "answer_subgraph":[[1,2],[2,{"k":1},3]],"answer_node":1,"seed_entities":[3, true]} "#,
            r#"{"answer_subgraph": [[1.0, "r", 2]], "answer_node": 1, "seed_entities": [2]}"#,
            r#"{"answer_subgraph": [["a\"b", "r", "c"]], "answer_node": "a\"b", "seed_entities": ["c"]}"#,
            r#"{"answer_subgraph": [[null, "r", false]], "answer_node": null, "seed_entities": [0, -0]}"#,
            r#"{"answer_subgraph": [[123456789012345678901, "r", 2]], "answer_node": 2, "seed_entities": []}"#,
            r#"{"answer_subgraph": [["é", "r", "ü"]], "answer_node": "é", "seed_entities": ["ü"], "graph_isomorphism": "(1)"}"#,
            r#"{"answer_subgraph": [["a", "r"]], "answer_node": "a", "seed_entities": []}"#,
            r#"{"answer_subgraph": [["a", [], "b"]], "answer_node": "a", "seed_entities": ["b"],}"#,
            r#"{"answer_subgraph": [["a", "r", "b"]], "answer_node": "a", "seed_entities": [01]}"#,
            r#"{"answer_subgraph": [], "answer_node": "a", "seed_entities": [], "q": "tab	inside"}"#,
            r#"{"answer_subgraph": [], "answer_node": "a", "seed_entities": []} {}"#,
        ];
        let mut accepted = 0;
        for line in lines {
            let slow = parse(line, false);
            let mut p = Parser::default();
            if p.fast_record(line).is_some() {
                accepted += 1;
                assert_eq!(parse(line, true), slow, "{line}");
                assert!(slow.is_some(), "{line}");
            }
            assert_eq!(parse(line, true), slow, "{line}");
        }
        assert_eq!(accepted, 5);
    }
}
