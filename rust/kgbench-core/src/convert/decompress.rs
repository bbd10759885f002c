//! Decompression of gzip and bzip2 inputs on all cores (rayon).
//!
//! **bzip2** (single- or multistream): the compressed bytes are scanned for the
//! 48-bit block and end-of-stream magics (at any bit offset), and every block is
//! decoded on its own, in parallel, by wrapping its bits in a stream of one block
//! — lbzip2's method — with the `bzip2` crate (a pure-Rust port of libbzip2);
//! outputs are handed on in file order. Each block's CRC is checked by the decoder;
//! a magic found by chance inside a block makes its piece fail, and the piece is
//! decoded again up to the following magic.
//!
//! **gzip**: multi-member files (`bgzip`, concatenated `.gz`) are decoded member
//! by member in parallel (`flate2`): members are found by their headers (`1f 8b 08`
//! with valid flag, `XFL` and `OS` bytes) in windows of about 4 MiB per thread, and
//! a piece is only accepted when it is exactly one whole member (CRC and length
//! checked); a header found by chance inside a member makes the piece before it
//! end inside its member, and it is joined with the next. A file with no second
//! member in its first 64 MiB (plain `gzip` output: DEFLATE cannot be split
//! without decoding), or a member larger than 256 MiB, is decoded by one
//! sequential multi-member decoder instead, and the decoder says so in a note for
//! the report ([`Decoder::note`]).
//!
//! Errors are `io::Error`s naming the compressed byte offset: a truncated file
//! (the data ends inside a block, member or stream) or corrupt data. Nothing is
//! returned past a block that does not decode.
//!
//! Crates considered: `lbzip2` and `parallel_bzip2_decoder` decode bzip2 blocks
//! in parallel, but are young, fast-moving single-author crates (`lbzip2` needs
//! edition 2024 and its versions change weekly); `gzp` decodes only BGZF/mgzip.
//! The block method needs about 200 lines on the `bzip2` and `flate2` crates the
//! converter already uses, so no dependency is added.

use rayon::prelude::*;
use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Compression of an input, from its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gzip,
    Bzip2,
}

impl Kind {
    /// The compression of a file starting with `head`, if any.
    pub fn sniff(head: &[u8]) -> Option<Kind> {
        if head.starts_with(&[0x1f, 0x8b]) {
            Some(Kind::Gzip)
        } else if head.starts_with(b"BZh") {
            Some(Kind::Bzip2)
        } else {
            None
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Gzip => "gzip",
            Kind::Bzip2 => "bzip2",
        }
    }

    /// Whether a stream header starts at `b[i..]` (needs 10 bytes).
    fn header_at(self, b: &[u8], i: usize) -> bool {
        let Some(h) = b.get(i..i + 10) else {
            return false;
        };
        match self {
            Kind::Bzip2 => {
                &h[..3] == b"BZh"
                    && (b'1'..=b'9').contains(&h[3])
                    && h[4..10] == [0x31, 0x41, 0x59, 0x26, 0x53, 0x59]
            }
            Kind::Gzip => {
                h[..3] == [0x1f, 0x8b, 0x08]
                    && h[3] & 0xe0 == 0
                    && matches!(h[8], 0 | 2 | 4)
                    && (h[9] <= 13 || h[9] == 255)
            }
        }
    }

    /// Stream starts in `b[from..]` (offsets into `b`).
    fn headers(self, b: &[u8], from: usize, out: &mut Vec<usize>) {
        let magic: &[u8] = match self {
            Kind::Bzip2 => b"BZh",
            Kind::Gzip => &[0x1f, 0x8b, 0x08],
        };
        for p in memchr::memmem::find_iter(&b[from.min(b.len())..], magic) {
            let i = from + p;
            if self.header_at(b, i) {
                out.push(i);
            }
        }
    }
}

/// Why decoding a piece failed.
enum PieceError {
    /// The data ended inside the stream (after `consumed` bytes).
    Incomplete,
    /// Bad data at `at` (offset within the piece).
    Corrupt { at: u64, message: String },
    /// The stream ended before the end of the piece.
    Trailing { at: u64 },
}

/// Decode `piece` as exactly one stream.
fn decode_piece(kind: Kind, piece: &[u8]) -> Result<Vec<u8>, PieceError> {
    match kind {
        Kind::Bzip2 => {
            let mut d = bzip2::Decompress::new(false);
            // A block of `BZh9` decodes to at most about 900 kB (more only with long
            // runs): one allocation for most blocks instead of growing.
            let mut out: Vec<u8> = Vec::with_capacity((piece.len() * 6).max(BZ2_BLOCK_OUT));
            loop {
                if out.capacity() - out.len() < (256 << 10) {
                    out.reserve(out.len().max(1 << 20));
                }
                let (in0, out0) = (d.total_in(), d.total_out());
                let rest = &piece[(in0 as usize).min(piece.len())..];
                match d.decompress_vec(rest, &mut out) {
                    Ok(bzip2::Status::StreamEnd) => break,
                    Ok(_) => {
                        if d.total_in() == in0 && d.total_out() == out0 {
                            return Err(PieceError::Incomplete);
                        }
                    }
                    Err(e) => {
                        return Err(PieceError::Corrupt {
                            at: d.total_in(),
                            message: e.to_string(),
                        })
                    }
                }
            }
            if (d.total_in() as usize) < piece.len() {
                return Err(PieceError::Trailing { at: d.total_in() });
            }
            Ok(out)
        }
        Kind::Gzip => {
            let mut dec = flate2::bufread::GzDecoder::new(piece);
            let mut out = Vec::with_capacity(piece.len() * 6);
            match dec.read_to_end(&mut out) {
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                    return Err(PieceError::Incomplete)
                }
                Err(e) => {
                    let left = dec.into_inner().len();
                    return Err(PieceError::Corrupt {
                        at: (piece.len() - left) as u64,
                        message: e.to_string(),
                    });
                }
            }
            let left = dec.into_inner().len();
            if left > 0 {
                return Err(PieceError::Trailing {
                    at: (piece.len() - left) as u64,
                });
            }
            Ok(out)
        }
    }
}

/// Room first given to a decoded bzip2 block (the largest block size, `BZh9`, is
/// 900,000 bytes before the initial run-length coding).
const BZ2_BLOCK_OUT: usize = 1 << 20;
/// Compressed bytes per thread in one parallel window.
const WINDOW_PER_THREAD: usize = 4 << 20;
/// Without a second stream header in this many bytes, the file is decoded sequentially.
const PROBE: usize = 64 << 20;
/// A stream (piece) larger than this switches the rest of the file to sequential decoding.
const MAX_PIECE: usize = 256 << 20;

/// Decoded output of a compressed input: a `BufRead` of the decompressed bytes.
pub struct Decoder {
    inner: Box<dyn BufRead + Send>,
    note: String,
}

impl Decoder {
    /// How the input is decoded, for the report (e.g. `"x.json.bz2: multistream
    /// bzip2, streams decoded in parallel"`).
    pub fn note(&self) -> &str {
        &self.note
    }

    /// The decompressed stream.
    pub fn into_reader(self) -> Box<dyn BufRead + Send> {
        self.inner
    }
}

/// Decoder of `input` (positioned at the start of the compressed file; `path` for
/// messages): parallel when the file has several streams, else sequential.
/// Errors: reading the first bytes.
pub fn decoder<R: BufRead + Send + 'static>(
    kind: Kind,
    mut input: R,
    path: &str,
) -> io::Result<Decoder> {
    let threads = rayon::current_num_threads().max(1);
    if kind == Kind::Bzip2 {
        return Ok(Decoder {
            inner: Box::new(ReadAhead::spawn(Bz2Blocks::new(
                Box::new(input),
                BZ2_WINDOW_PER_THREAD * threads,
            ))?),
            note: format!("{path}: bzip2: blocks decoded in parallel (single- or multistream)"),
        });
    }
    // Probe: read up to PROBE bytes looking for a second stream header.
    let mut buf: Vec<u8> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut eof = false;
    let want = (WINDOW_PER_THREAD * threads).min(PROBE);
    while starts.len() < 2 && !eof && buf.len() < PROBE {
        let scan_from = buf.len().saturating_sub(9);
        let n = read_more(&mut input, &mut buf, want)?;
        eof = n == 0;
        starts.retain(|&s| s < scan_from);
        kind.headers(&buf, scan_from, &mut starts);
    }
    let multi = starts.iter().any(|&s| s > 0);
    if !multi {
        let note = format!(
            "{path}: single-stream {} (no second stream in the first {} MiB): decoded on one thread",
            kind.name(),
            (buf.len().min(PROBE)) >> 20
        );
        return Ok(Decoder {
            inner: sequential(kind, io::Cursor::new(buf).chain(input), 0),
            note,
        });
    }
    let par = Parallel {
        kind,
        input: Some(Box::new(input)),
        pending: buf,
        pending_off: 0,
        starts,
        eof,
        out: VecDeque::new(),
        window: WINDOW_PER_THREAD * threads,
        fallback: None,
        streams: Arc::new(AtomicU64::new(0)),
    };
    let note = format!(
        "{path}: multistream {}: streams decoded in parallel",
        kind.name()
    );
    Ok(Decoder {
        inner: Box::new(ReadAhead::spawn(par)?),
        note,
    })
}

/// A parallel decoder's output, handed out in file order one piece (a decoded
/// block, member or stream) at a time.
trait Chunks: Send {
    /// The next decoded piece (never empty); `None` at the end of the input.
    /// Errors: truncated or corrupt input (naming the compressed byte offset).
    fn next_chunk(&mut self) -> io::Result<Option<Vec<u8>>>;
}

/// The first non-empty decoded piece of `out`, removed from it.
fn pop_piece(out: &mut VecDeque<Vec<u8>>) -> Option<Vec<u8>> {
    std::iter::from_fn(|| out.pop_front()).find(|c| !c.is_empty())
}

/// Decoded pieces [`ReadAhead`] keeps ready ahead of its reader.
const AHEAD_CHUNKS: usize = 16;
/// Bytes read at a time from the sequential fallback of [`Parallel`].
const FALLBACK_CHUNK: usize = 8 << 20;

/// A reader whose source is decoded ahead on a thread of its own, up to
/// [`AHEAD_CHUNKS`] pieces: the parallel decoders work in windows of blocks, and
/// without it the parser and the decoder took turns (the parser waited for each
/// window, the decoder for the parser to drain it) instead of overlapping. The
/// decoder's own `par_iter` runs on rayon's global pool. The pieces themselves
/// are passed on (no copy); the bytes and the first error come out in order;
/// dropping the reader stops the thread at its next piece.
struct ReadAhead {
    rx: std::sync::mpsc::Receiver<io::Result<Vec<u8>>>,
    chunk: Vec<u8>,
    pos: usize,
    done: bool,
}

impl ReadAhead {
    /// Errors: the thread cannot be started.
    fn spawn<C: Chunks + 'static>(mut source: C) -> io::Result<ReadAhead> {
        let (tx, rx) = std::sync::mpsc::sync_channel(AHEAD_CHUNKS);
        std::thread::Builder::new()
            .name("kgbench-decode".into())
            .spawn(move || loop {
                match source.next_chunk() {
                    Ok(None) => return,
                    Ok(Some(c)) => {
                        if tx.send(Ok(c)).is_err() {
                            return; // the reader is gone
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            })?;
        Ok(ReadAhead {
            rx,
            chunk: Vec::new(),
            pos: 0,
            done: false,
        })
    }
}

impl BufRead for ReadAhead {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        while self.pos == self.chunk.len() && !self.done {
            match self.rx.recv() {
                Ok(Ok(c)) => {
                    self.chunk = c;
                    self.pos = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => self.done = true,
            }
        }
        Ok(&self.chunk[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.chunk.len());
    }
}

impl Read for ReadAhead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = buf.len().min(avail.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

/// Decode the file at `path` and count its bytes, as the converter's reader
/// decodes it: (compressed bytes, decompressed bytes, note). For benchmarks (the
/// decompression-only rate). Errors: unreadable, truncated or corrupt input.
pub fn count_decompressed(path: &str) -> io::Result<(u64, u64, String)> {
    let f = std::fs::File::open(path)?;
    let compressed = f.metadata()?.len();
    let mut r = io::BufReader::with_capacity(1 << 20, f);
    let head = r.fill_buf()?.to_vec();
    let (mut reader, note): (Box<dyn BufRead + Send>, String) = match Kind::sniff(&head) {
        Some(k) => {
            let d = decoder(k, r, path)?;
            let note = d.note().to_string();
            (d.into_reader(), note)
        }
        None => (Box::new(r), format!("{path}: not compressed")),
    };
    let mut total = 0u64;
    loop {
        let n = reader.fill_buf()?.len();
        if n == 0 {
            break;
        }
        total += n as u64;
        reader.consume(n);
    }
    Ok((compressed, total, note))
}

fn read_more<R: Read + ?Sized>(input: &mut R, buf: &mut Vec<u8>, n: usize) -> io::Result<usize> {
    let start = buf.len();
    buf.resize(start + n, 0);
    let mut got = 0;
    while got < n {
        match input.read(&mut buf[start + got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.truncate(start + got);
                return Err(e);
            }
        }
    }
    buf.truncate(start + got);
    Ok(got)
}

/// Sequential multi-stream decoder whose errors name the compressed byte offset
/// (`base` + bytes consumed).
fn sequential<R: Read + Send + 'static>(
    kind: Kind,
    input: R,
    base: u64,
) -> Box<dyn BufRead + Send> {
    let counter = Arc::new(AtomicU64::new(base));
    let counted = io::BufReader::with_capacity(
        1 << 20,
        CountRead {
            inner: input,
            n: counter.clone(),
        },
    );
    let dec: Box<dyn Read + Send> = match kind {
        Kind::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(counted)),
        Kind::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(counted)),
    };
    Box::new(io::BufReader::with_capacity(
        1 << 20,
        OffsetErrors {
            inner: dec,
            n: counter,
            kind,
        },
    ))
}

struct CountRead<R> {
    inner: R,
    n: Arc<AtomicU64>,
}

impl<R: Read> Read for CountRead<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n.fetch_add(k as u64, Ordering::Relaxed);
        Ok(k)
    }
}

struct OffsetErrors {
    inner: Box<dyn Read + Send>,
    n: Arc<AtomicU64>,
    kind: Kind,
}

impl Read for OffsetErrors {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let at = self.n.load(Ordering::Relaxed);
            let what = if e.kind() == io::ErrorKind::UnexpectedEof {
                format!("the data ends inside a {} stream", self.kind.name())
            } else {
                format!("corrupt {} data ({e})", self.kind.name())
            };
            io::Error::new(
                e.kind(),
                format!("{what}, at compressed byte offset {at} (read up to there)"),
            )
        })
    }
}

/// The parallel stream decoder ([`Chunks`] of the decompressed bytes).
struct Parallel {
    kind: Kind,
    input: Option<Box<dyn BufRead + Send>>,
    /// Compressed bytes not yet decoded, starting at file offset `pending_off`.
    pending: Vec<u8>,
    pending_off: u64,
    /// Stream header offsets in `pending` (the first is 0: a known stream start).
    starts: Vec<usize>,
    eof: bool,
    out: VecDeque<Vec<u8>>,
    window: usize,
    fallback: Option<Box<dyn BufRead + Send>>,
    streams: Arc<AtomicU64>,
}

impl Parallel {
    fn err(&self, at: u64, what: String) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{what}, at compressed byte offset {at}"),
        )
    }

    /// Decode the next window; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        let input = self.input.as_mut().expect("input while not in fallback");
        // Read until the window holds a complete piece (two starts) or the end.
        while !self.eof && (self.starts.len() < 2 || self.pending.len() < self.window) {
            if self.pending.len() >= MAX_PIECE && self.starts.len() < 2 {
                // One huge stream: decode the rest sequentially.
                let rest = std::mem::take(&mut self.pending);
                let input = self.input.take().expect("input");
                self.fallback = Some(sequential(
                    self.kind,
                    io::Cursor::new(rest).chain(input),
                    self.pending_off,
                ));
                return Ok(true);
            }
            let scan_from = self.pending.len().saturating_sub(9);
            let n = read_more(input, &mut self.pending, self.window)?;
            self.eof = n == 0;
            self.starts.retain(|&s| s < scan_from);
            self.kind
                .headers(&self.pending, scan_from, &mut self.starts);
            if self.starts.first() != Some(&0) {
                self.starts.insert(0, 0);
            }
        }
        if self.pending.is_empty() {
            return Ok(false);
        }
        // Pieces between consecutive starts; the last one (up to the end of what was
        // read) is complete only at the end of the input.
        let mut bounds: Vec<usize> = self.starts.clone();
        if self.eof {
            bounds.push(self.pending.len());
        }
        let pieces: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
        let kind = self.kind;
        let pending = &self.pending;
        let mut decoded: Vec<Option<Result<Vec<u8>, PieceError>>> = pieces
            .par_iter()
            .map(|&(a, b)| Some(decode_piece(kind, &pending[a..b])))
            .collect();
        // Resolve in order: a piece that ends inside its stream is joined with the next.
        let mut start = 0usize;
        let mut consumed = 0usize;
        for (i, &(a, b)) in pieces.iter().enumerate() {
            let res = if a == start {
                decoded[i].take().expect("decoded once")
            } else {
                decode_piece(kind, &self.pending[start..b])
            };
            match res {
                Ok(v) => {
                    self.streams.fetch_add(1, Ordering::Relaxed);
                    self.out.push_back(v);
                    start = b;
                    consumed = b;
                }
                Err(PieceError::Incomplete) => {
                    if self.eof && b == self.pending.len() {
                        return Err(self.err(
                            self.pending_off + self.pending.len() as u64,
                            format!(
                                "truncated {} file: the data ends inside the stream that starts at compressed byte offset {}",
                                kind.name(),
                                self.pending_off + start as u64
                            ),
                        ));
                    }
                }
                Err(PieceError::Corrupt { at, message }) => {
                    return Err(self.err(
                        self.pending_off + start as u64 + at,
                        format!("corrupt {} data ({message})", kind.name()),
                    ));
                }
                Err(PieceError::Trailing { at }) => {
                    return Err(self.err(
                        self.pending_off + start as u64 + at,
                        format!("data after the end of a {} stream", kind.name()),
                    ));
                }
            }
        }
        // Keep the undecoded tail (from `consumed`) for the next window.
        self.pending.drain(..consumed);
        self.pending_off += consumed as u64;
        self.starts = self
            .starts
            .iter()
            .filter(|&&s| s >= consumed)
            .map(|&s| s - consumed)
            .collect();
        if self.eof && self.pending.is_empty() {
            self.starts.clear();
        }
        Ok(true)
    }
}

impl Chunks for Parallel {
    fn next_chunk(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(c) = pop_piece(&mut self.out) {
                return Ok(Some(c));
            }
            if let Some(f) = &mut self.fallback {
                let mut c = Vec::new();
                return Ok((read_more(f, &mut c, FALLBACK_CHUNK)? > 0).then_some(c));
            }
            if (self.eof && self.pending.is_empty()) || !self.fill()? {
                return Ok(None);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// bzip2 blocks in parallel.
//
// A bzip2 stream is `BZh1`-`BZh9`, then blocks, each starting with the 48-bit
// magic 0x314159265359 and its 32-bit CRC at any bit offset, then the 48-bit
// end-of-stream magic 0x177245385090, the stream CRC and padding to a byte. A
// block between two magics is decoded on its own by wrapping its bits in a
// stream of one block (header `BZh9`, the block, the end-of-stream magic and,
// as the stream CRC of one block, its own CRC) — the method of lbzip2. Magics
// found by chance inside a block make its piece fail to decode (the block CRC
// is checked); the piece is then decoded again up to the following magic.

const BLOCK_MAGIC: u64 = 0x3141_5926_5359;
const EOS_MAGIC: u64 = 0x1772_4538_5090;
const MASK48: u64 = (1 << 48) - 1;
/// Compressed bytes per thread in one window of bzip2 blocks.
const BZ2_WINDOW_PER_THREAD: usize = 2 << 20;

/// Bit offsets of the block (`true`) and end-of-stream (`false`) magics that
/// start at or after bit `from` of `b`, in order.
fn scan_magics(b: &[u8], from: u64) -> Vec<(u64, bool)> {
    const CHUNK: usize = 1 << 20;
    let first = (from / 8) as usize;
    let chunks: Vec<usize> = (first..b.len()).step_by(CHUNK).collect();
    let mut all: Vec<(u64, bool)> = chunks
        .par_iter()
        .flat_map_iter(|&s| {
            let e = (s + CHUNK + 6).min(b.len());
            let own = (s as u64 * 8, (s + CHUNK) as u64 * 8);
            let mut acc: u64 = 0;
            let mut out = Vec::new();
            for (i, &byte) in b.iter().enumerate().take(e).skip(s) {
                acc = (acc << 8) | byte as u64;
                if i < s + 5 {
                    continue;
                }
                for sh in 0..8u64 {
                    let w = (acc >> sh) & MASK48;
                    if w == BLOCK_MAGIC || w == EOS_MAGIC {
                        let start = (i as u64 + 1) * 8 - sh - 48;
                        if start >= own.0 && start < own.1 && start >= from {
                            out.push((start, w == BLOCK_MAGIC));
                        }
                    }
                }
            }
            out.sort_unstable();
            out.into_iter()
        })
        .collect();
    all.sort_unstable();
    all.dedup();
    all
}

/// `k` (≤ 57) bits of `b` from bit `pos`, MSB first.
fn read_bits(b: &[u8], pos: u64, k: u32) -> u64 {
    let mut v = 0u64;
    for j in 0..k as u64 {
        let p = pos + j;
        let bit = (b[(p / 8) as usize] >> (7 - (p % 8))) & 1;
        v = (v << 1) | bit as u64;
    }
    v
}

struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    fn push(&mut self, v: u64, k: u32) {
        debug_assert!(k <= 32);
        self.acc = ((self.acc & ((1u64 << self.n) - 1)) << k) | (v & ((1u64 << k) - 1));
        self.n += k;
        while self.n >= 8 {
            self.out.push((self.acc >> (self.n - 8)) as u8);
            self.n -= 8;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            let pad = 8 - self.n;
            self.push(0, pad);
        }
        self.out
    }
}

/// A stream of one block: bits `[a, e)` of `b` (a block from its magic on).
fn one_block_stream(b: &[u8], a: u64, e: u64) -> Vec<u8> {
    let mut w = BitWriter {
        out: Vec::with_capacity(((e - a) / 8) as usize + 16),
        acc: 0,
        n: 0,
    };
    for &c in b"BZh9" {
        w.push(c as u64, 8);
    }
    let crc = read_bits(b, a + 48, 32);
    let sh = (a % 8) as u32;
    let mut p = a;
    let whole = (e - a) / 8;
    let base = (a / 8) as usize;
    for j in 0..whole as usize {
        let hi = b[base + j] as u64;
        let lo = if sh == 0 { 0 } else { b[base + j + 1] as u64 };
        let byte = if sh == 0 {
            hi
        } else {
            ((hi << sh) | (lo >> (8 - sh))) & 0xff
        };
        w.push(byte, 8);
    }
    p += whole * 8;
    let rest = (e - p) as u32;
    if rest > 0 {
        w.push(read_bits(b, p, rest), rest);
    }
    w.push(EOS_MAGIC >> 24, 24);
    w.push(EOS_MAGIC & 0xff_ffff, 24);
    w.push(crc, 32);
    w.finish()
}

/// Decode bits `[a, e)` of `b` as one block.
fn decode_block(b: &[u8], a: u64, e: u64) -> Result<Vec<u8>, PieceError> {
    decode_piece(Kind::Bzip2, &one_block_stream(b, a, e))
}

/// The parallel bzip2 block decoder ([`Chunks`] of the decompressed bytes).
struct Bz2Blocks {
    input: Box<dyn BufRead + Send>,
    /// Compressed bytes from file offset `pending_off` on.
    pending: Vec<u8>,
    pending_off: u64,
    /// Magics in `pending` (bit offsets), and how far it was scanned.
    mags: Vec<(u64, bool)>,
    scanned_bytes: usize,
    /// Bit in `pending` from which the next block is looked for.
    cur: u64,
    eof: bool,
    out: VecDeque<Vec<u8>>,
    window: usize,
}

impl Bz2Blocks {
    fn new(input: Box<dyn BufRead + Send>, window: usize) -> Self {
        Self {
            input,
            pending: Vec::new(),
            pending_off: 0,
            mags: Vec::new(),
            scanned_bytes: 0,
            cur: 0,
            eof: false,
            out: VecDeque::new(),
            window,
        }
    }

    fn err(&self, bit: u64, what: String) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{what}, at compressed byte offset {}",
                self.pending_off + bit / 8
            ),
        )
    }

    /// Read about one more window of compressed bytes and find its magics.
    fn read_window(&mut self) -> io::Result<()> {
        let n = read_more(&mut self.input, &mut self.pending, self.window)?;
        self.eof = n == 0;
        let from = (self.scanned_bytes as u64 * 8).saturating_sub(47);
        let new = scan_magics(&self.pending, from);
        self.mags.retain(|&(m, _)| m < from);
        self.mags.extend(new);
        self.scanned_bytes = self.pending.len();
        Ok(())
    }

    /// Decode the next blocks; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        loop {
            while !self.eof && self.pending.len() - ((self.cur / 8) as usize) < self.window {
                self.read_window()?;
            }
            if self.decode_available()? || self.eof {
                break;
            }
            // Nothing could be decoded yet (a block longer than the window, or a
            // magic by chance near its end): read more.
            self.read_window()?;
        }
        if !self.out.is_empty() {
            self.drop_decoded();
            return Ok(true);
        }
        // End of input: every block decoded; the last stream must be complete.
        let rest = &self.mags[self.mags.partition_point(|&(m, _)| m < self.cur)..];
        if let Some(&(a, _)) = rest.iter().find(|m| m.1) {
            return Err(self.err(
                self.pending.len() as u64 * 8,
                format!(
                    "truncated bzip2 file: the data ends inside the block that starts at compressed byte offset {}",
                    self.pending_off + a / 8
                ),
            ));
        }
        match self.mags.last() {
            Some(&(m, false)) if m + 48 + 32 <= self.pending.len() as u64 * 8 => {
                let end = (m + 48 + 32).div_ceil(8);
                if end < self.pending.len() as u64 {
                    return Err(self.err(
                        end * 8,
                        "data after the end of the last bzip2 stream".into(),
                    ));
                }
                Ok(false)
            }
            None if self.pending_off == 0 && self.pending.len() <= 4 => Ok(false),
            _ => Err(self.err(
                self.pending.len() as u64 * 8,
                "truncated bzip2 file: the data ends before the end of its stream".into(),
            )),
        }
    }

    /// Decode the complete blocks after `cur` (in parallel), in order; whether any was.
    fn decode_available(&mut self) -> io::Result<bool> {
        let first = self.mags.partition_point(|&(m, _)| m < self.cur);
        // (index of the magic ending it, start bit, end bit)
        let mut pieces: Vec<(usize, u64, u64)> = Vec::new();
        for k in first..self.mags.len() {
            let (a, is_block) = self.mags[k];
            if is_block {
                match self.mags.get(k + 1) {
                    Some(&(e, _)) => pieces.push((k + 1, a, e)),
                    None => break,
                }
            }
        }
        let pending = &self.pending;
        let mut decoded: Vec<Option<Result<Vec<u8>, PieceError>>> = pieces
            .par_iter()
            .map(|&(_, a, e)| Some(decode_block(pending, a, e)))
            .collect();
        let mut any = false;
        for (i, &(end_k, a, _)) in pieces.iter().enumerate() {
            if a < self.cur {
                continue; // inside a block decoded together with the next piece
            }
            let mut res = decoded[i].take().expect("decoded once");
            let mut end_k = end_k;
            let mut waiting = false;
            if res.is_err() {
                // A magic by chance inside the block: decode up to a later magic.
                for _ in 0..3 {
                    end_k += 1;
                    let Some(&(e2, _)) = self.mags.get(end_k) else {
                        waiting = !self.eof;
                        break;
                    };
                    if let Ok(v) = decode_block(&self.pending, a, e2) {
                        res = Ok(v);
                        break;
                    }
                }
            }
            match res {
                Ok(v) => {
                    self.out.push_back(v);
                    self.cur = self.mags[end_k].0;
                    any = true;
                }
                Err(_) if waiting => break,
                Err(e) => {
                    let why = match e {
                        PieceError::Corrupt { message, .. } => message,
                        _ => "it does not decode".into(),
                    };
                    return Err(self.err(a, format!("corrupt bzip2 block ({why})")));
                }
            }
        }
        Ok(any)
    }

    /// Drop the compressed bytes before the byte of `cur`.
    fn drop_decoded(&mut self) {
        let keep = (self.cur / 8) as usize;
        if keep == 0 {
            return;
        }
        self.pending.drain(..keep);
        self.pending_off += keep as u64;
        let shift = keep as u64 * 8;
        self.cur -= shift;
        self.mags = self
            .mags
            .iter()
            .filter(|&&(m, _)| m >= shift)
            .map(|&(m, b)| (m - shift, b))
            .collect();
        self.scanned_bytes -= keep;
    }
}

impl Chunks for Bz2Blocks {
    fn next_chunk(&mut self) -> io::Result<Option<Vec<u8>>> {
        loop {
            if let Some(c) = pop_piece(&mut self.out) {
                return Ok(Some(c));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Every decoded byte of `c`, in order.
    fn drain(c: &mut impl Chunks, out: &mut Vec<u8>) -> io::Result<()> {
        while let Some(piece) = c.next_chunk()? {
            out.extend_from_slice(&piece);
        }
        Ok(())
    }

    fn bz(data: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn text(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| format!("line {i} {}\n", i * 7919 % 1000))
            .collect::<String>()
            .into_bytes()
    }

    fn read_all(kind: Kind, file: Vec<u8>) -> (io::Result<Vec<u8>>, String) {
        let d = decoder(kind, io::Cursor::new(file), "f").unwrap();
        let note = d.note().to_string();
        let mut r = d.into_reader();
        let mut out = Vec::new();
        let res = r.read_to_end(&mut out).map(|_| out);
        (res, note)
    }

    #[test]
    fn multistream_round_trips_and_truncation_is_an_error() {
        for kind in [Kind::Bzip2, Kind::Gzip] {
            let parts: Vec<Vec<u8>> = (0..40).map(|i| text(2000 + i * 37)).collect();
            let mut file = Vec::new();
            let mut all = Vec::new();
            for p in &parts {
                file.extend(if kind == Kind::Bzip2 { bz(p) } else { gz(p) });
                all.extend_from_slice(p);
            }
            let (out, note) = read_all(kind, file.clone());
            assert_eq!(out.unwrap(), all);
            assert!(note.contains("in parallel"), "{note}");
            let cut = file.len() - 100;
            let (out, _) = read_all(kind, file[..cut].to_vec());
            let e = out.unwrap_err().to_string();
            assert!(e.contains(&format!("compressed byte offset {cut}")), "{e}");
            // A single stream: gzip sequentially, with a note; bzip2 by blocks.
            let one = if kind == Kind::Bzip2 {
                bz(&all)
            } else {
                gz(&all)
            };
            let (out, note) = read_all(kind, one.clone());
            assert_eq!(out.unwrap(), all);
            let expect = match kind {
                Kind::Bzip2 => "blocks decoded in parallel",
                Kind::Gzip => "single-stream",
            };
            assert!(note.contains(expect), "{note}");
            let (out, _) = read_all(kind, one[..one.len() / 2].to_vec());
            let e = out.unwrap_err().to_string();
            assert!(e.contains("compressed byte offset"), "{e}");
        }
    }

    fn bz_level1(data: &[u8]) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(1));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn noisy_text(n: usize) -> Vec<u8> {
        let mut x: u64 = 88172645463325252;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b"abcdefghij klmnop\n"[(x % 18) as usize]
            })
            .collect()
    }

    #[test]
    fn single_stream_bzip2_blocks_decode_in_parallel_and_truncation_is_found() {
        // ~1.2 MB at level 1: about 12 blocks of 100 kB in one stream, then a
        // second stream (multistream) of a few blocks.
        let a = noisy_text(1_200_000);
        let b = noisy_text(350_000);
        let mut file = bz_level1(&a);
        let first_len = file.len();
        file.extend(bz_level1(&b));
        let mut all = a.clone();
        all.extend_from_slice(&b);
        // Small windows, so that blocks straddle windows.
        for window in [50_000, 1 << 20] {
            let mut d = Bz2Blocks::new(Box::new(io::Cursor::new(file.clone())), window);
            let mut out = Vec::new();
            drain(&mut d, &mut out).unwrap();
            assert!(out == all, "window {window}");
        }
        let mut junk = file.clone();
        junk.extend_from_slice(b"junk");
        let mut d = Bz2Blocks::new(Box::new(io::Cursor::new(junk)), 1 << 20);
        let e = drain(&mut d, &mut Vec::new()).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "after the end of the last bzip2 stream, at compressed byte offset {}",
                file.len()
            )),
            "{e}"
        );
        for cut in [
            first_len / 2,
            first_len - 3,
            first_len + 100,
            file.len() - 2,
        ] {
            let mut d = Bz2Blocks::new(Box::new(io::Cursor::new(file[..cut].to_vec())), 1 << 16);
            let mut out = Vec::new();
            let e = drain(&mut d, &mut out).unwrap_err().to_string();
            assert!(
                e.contains(&format!("compressed byte offset {cut}")),
                "{cut}: {e}"
            );
        }
    }

    #[test]
    fn a_magic_by_chance_inside_a_block_is_decoded_with_the_next_piece() {
        let data = noisy_text(600_000);
        let file = bz_level1(&data);
        let mut d = Bz2Blocks::new(Box::new(io::Cursor::new(file)), 1 << 30);
        d.read_window().unwrap();
        while !d.eof {
            d.read_window().unwrap();
        }
        let blocks: Vec<u64> = d.mags.iter().filter(|m| m.1).map(|m| m.0).collect();
        assert!(blocks.len() >= 4);
        // Pretend the scanner found magics inside the second and third blocks.
        for &(x, kind) in &[(blocks[1] + 12_345, true), (blocks[2] + 777, false)] {
            let at = d.mags.partition_point(|&(m, _)| m < x);
            d.mags.insert(at, (x, kind));
        }
        let mut out = Vec::new();
        drain(&mut d, &mut out).unwrap();
        assert!(out == data);
    }

    #[test]
    fn a_false_header_inside_a_stream_is_joined_with_the_next_piece() {
        // Stored (uncompressed) gzip data containing a gzip header by chance.
        let mut payload = text(500);
        payload.extend_from_slice(&[0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3]);
        payload.extend(text(300));
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::none());
        e.write_all(&payload).unwrap();
        let first = e.finish().unwrap();
        let mut file = first.clone();
        file.extend(gz(&text(400)));
        let mut all = payload.clone();
        all.extend(text(400));
        let (out, _) = read_all(Kind::Gzip, file);
        assert_eq!(out.unwrap(), all);
    }
}
