//! Reading input: files or stdin, plain / gzip / bzip2 ([`super::decompress`]),
//! N-Triples or Turtle (parsed with oxttl) or Wikidata entity JSON
//! ([`super::wdjson`]); the format is detected from the content ([`sniff`])
//! unless given. N-Triples is cut at line boundaries into blocks that are
//! parsed in parallel (rayon) and merged in input order, so the result does not
//! depend on the thread count. Turtle is parsed sequentially, in groups of whole
//! statements ([`super::turtle`]). A UTF-8 byte-order mark is skipped.

use indicatif::ProgressBar;
use oxttl::NTriplesParser;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};

use super::ConvertError;
use oxrdf::TripleRef;

/// Syntax of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    NTriples,
    Turtle,
    /// Wikidata entity JSON (dump, JSON lines, `Special:EntityData`, `wbgetentities`).
    Json,
}

/// Counters of one read.
#[derive(Debug, Default, Clone)]
pub struct ReadStats {
    pub triples: u64,
    pub bytes: u64,
    pub skipped_invalid: u64,
    /// First few skipped errors (`file:line: message`), for the report.
    pub skipped_examples: Vec<String>,
    /// JSON inputs: entities read and unknown datavalue types.
    pub entities: EntityCounts,
    /// Notes for the report (e.g. how a compressed input was decoded).
    pub notes: Vec<String>,
}

struct Counting<R> {
    inner: R,
    bar: Option<ProgressBar>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(b) = &self.bar {
            b.inc(n as u64);
        }
        Ok(n)
    }
}

/// Open `path` (`-` = stdin), detect compression from the magic bytes
/// ([`super::decompress`]) and the format from the content ([`sniff`]) unless
/// `format` is given; with a note on how a compressed input is decoded.
#[allow(clippy::type_complexity)]
pub(super) fn open(
    path: &str,
    format: Option<Format>,
    bar: Option<ProgressBar>,
) -> Result<(Box<dyn BufRead + Send>, Format, Option<String>), ConvertError> {
    let raw: Box<dyn Read + Send> = if path == "-" {
        Box::new(io::stdin())
    } else {
        Box::new(File::open(path).map_err(|e| ConvertError::Io {
            file: path.to_string(),
            message: e.to_string(),
        })?)
    };
    let mut buffered = BufReader::with_capacity(1 << 20, Counting { inner: raw, bar });
    let head = buffered
        .fill_buf()
        .map_err(|e| ConvertError::Io {
            file: path.to_string(),
            message: e.to_string(),
        })?
        .to_vec();
    // Compression from the magic bytes; multistream files are decoded in parallel.
    let mut note = None;
    let decoded: Box<dyn BufRead + Send> = match super::decompress::Kind::sniff(&head) {
        Some(kind) => {
            let d =
                super::decompress::decoder(kind, buffered, path).map_err(|e| ConvertError::Io {
                    file: path.to_string(),
                    message: e.to_string(),
                })?;
            note = Some(d.note().to_string());
            d.into_reader()
        }
        None => Box::new(buffered),
    };
    let mut decoded = decoded;
    let fmt = match format {
        Some(f) => f,
        None => {
            let peek = decoded.fill_buf().map_err(|e| ConvertError::Io {
                file: path.to_string(),
                message: e.to_string(),
            })?;
            sniff(&peek[..peek.len().min(64 << 10)], path)
        }
    };
    Ok((decoded, fmt, note))
}

/// The format of an input from its first (decompressed) bytes: JSON when the
/// first non-blank character is `[` or `{`; Turtle when the first statement line
/// is a directive (`@prefix`, `@base`, `PREFIX`, `BASE`) or, complete, is not one
/// N-Triples statement (oxttl), or when the name ends with `.ttl` (N-Triples is
/// Turtle, so this is always safe); N-Triples otherwise. `path` is only used for
/// its name.
pub fn sniff(head: &[u8], path: &str) -> Format {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    match head.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') | Some(b'{') => return Format::Json,
        _ => {}
    }
    // The first statement line, if complete within `head`.
    let mut first: Option<&[u8]> = None;
    let mut complete = false;
    let mut pos = 0;
    while let Some(p) = memchr::memchr(b'\n', &head[pos..]) {
        let line = head[pos..pos + p].trim_ascii();
        pos += p + 1;
        if !line.is_empty() && !line.starts_with(b"#") {
            first = Some(line);
            complete = true;
            break;
        }
    }
    if first.is_none() {
        let rest = head[pos..].trim_ascii_start();
        first = (!rest.is_empty()).then_some(rest); // incomplete: directives only
    }
    let turtle = first.is_some_and(|l| {
        let u = l.to_ascii_uppercase();
        u.starts_with(b"@PREFIX")
            || u.starts_with(b"@BASE")
            || u.starts_with(b"PREFIX")
            || u.starts_with(b"BASE")
            // a complete line that is not one N-Triples statement
            || (complete && !is_ntriples_statement(l))
    });
    let name = path
        .trim_end_matches(".gz")
        .trim_end_matches(".bz2")
        .trim_end_matches(".bz");
    if turtle || name.ends_with(".ttl") {
        Format::Turtle
    } else {
        Format::NTriples
    }
}

/// Whether `line` is one or more N-Triples statements, without a syntax error
/// (Wikidata's language codes accepted, as the N-Triples readers accept them).
fn is_ntriples_statement(line: &[u8]) -> bool {
    parse_line_reference(line).is_ok_and(|ts| !ts.is_empty())
}

/// Skip a UTF-8 byte-order mark (`EF BB BF`) at the start of the decoded
/// input, as rdflib does; returns its length (0 or 3). Byte offsets in errors
/// stay offsets of the decoded stream, the mark included.
pub(super) fn skip_bom(r: &mut (dyn BufRead + Send)) -> io::Result<u64> {
    let head = r.fill_buf()?;
    if head.starts_with(b"\xEF\xBB\xBF") {
        r.consume(3);
        Ok(3)
    } else {
        Ok(0)
    }
}

/// Bytes per N-Triples block (cut after a line end), 4 MiB; the environment
/// variable `KGBENCH_CONVERT_BLOCK_BYTES` overrides it (tests use tiny blocks
/// to check that block boundaries never change the output).
pub(super) fn block_bytes() -> usize {
    std::env::var("KGBENCH_CONVERT_BLOCK_BYTES")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(4 << 20)
}

/// What a block parser (N-Triples or JSON lines) returns for one block of whole lines.
pub(super) struct BlockResult<T> {
    pub(super) facts: Vec<T>,
    pub(super) triples: u64,
    /// JSON lines: entities read and unknown datavalue types.
    pub(super) entities: EntityCounts,
    /// Line ends (`\n`) in the block (complete only when no error stopped it).
    pub(super) newlines: u64,
    /// (line within block, 0-based; byte offset within block; message)
    pub(super) errors: Vec<(u64, u64, String)>,
}

impl<T> BlockResult<T> {
    pub(super) fn with_capacity(n: usize) -> Self {
        Self {
            facts: Vec::with_capacity(n),
            triples: 0,
            entities: Default::default(),
            newlines: 0,
            errors: Vec::new(),
        }
    }
}

/// Parses one block of whole lines (`true`: stop at the first error).
pub(super) type ParseBlock<'a, T> = dyn Fn(&[u8], bool) -> BlockResult<T> + Sync + 'a;

/// Progress message from the counters and the seconds since the start.
pub(super) type Rate = fn(&ReadStats, f64) -> String;

/// Read a line-based input (N-Triples, JSON lines, the JSON dump layout) in groups
/// of blocks cut at line ends: each group is parsed in parallel (rayon) while the
/// next one is read (and decompressed), and the values go to `sink` in input
/// order, so the result does not depend on the thread count. `first_offset` is the
/// byte offset of the first byte read (after a byte-order mark).
///
/// Errors: [`ConvertError::Syntax`] with the file, line, byte offset (of the
/// decompressed stream) and an excerpt of the line, unless `skip_invalid` (then
/// each bad line is counted in `stats` with its message); `io_err` of a read error.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_line_blocks<T: Send>(
    reader: &mut (dyn BufRead + Send),
    path: &str,
    first_offset: u64,
    skip_invalid: bool,
    parse: &ParseBlock<'_, T>,
    stats: &mut ReadStats,
    sink: &mut dyn FnMut(Vec<T>),
    io_err: &dyn Fn(io::Error) -> ConvertError,
    progress: Option<(&ProgressBar, std::time::Instant, Rate)>,
) -> Result<(), ConvertError> {
    let group = rayon::current_num_threads().max(1) * 2;
    let block = block_bytes();
    let mut carry: Vec<u8> = Vec::new();
    let mut base_line: u64 = 0;
    let mut base_offset: u64 = first_offset;
    let mut eof = false;
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut next =
        read_group(reader, &mut carry, &mut eof, group, block, &mut pool).map_err(io_err)?;
    while !next.is_empty() {
        super::check_cancel()?;
        let blocks = std::mem::take(&mut next);
        // Parse this group while the next one is read (and decompressed).
        let (results, read) = rayon::join(
            || {
                blocks
                    .par_iter()
                    .map(|b| parse(b, !skip_invalid))
                    .collect::<Vec<BlockResult<T>>>()
            },
            || {
                if eof {
                    Ok(Vec::new())
                } else {
                    read_group(reader, &mut carry, &mut eof, group, block, &mut pool)
                }
            },
        );
        next = read.map_err(io_err)?;
        for (b, res) in blocks.iter().zip(results) {
            if let Some((line, off, msg)) = res.errors.first() {
                if !skip_invalid {
                    return Err(ConvertError::Syntax {
                        file: path.to_string(),
                        line: base_line + line + 1,
                        offset: base_offset + off,
                        message: msg.clone(),
                        excerpt: excerpt(b, *off),
                    });
                }
            }
            for (line, _off, msg) in &res.errors {
                stats.skipped_invalid += 1;
                if stats.skipped_examples.len() < 10 {
                    stats
                        .skipped_examples
                        .push(format!("{path}:{}: {msg}", base_line + line + 1));
                }
            }
            stats.triples += res.triples;
            stats.entities.merge(res.entities);
            base_line += res.newlines;
            base_offset += b.len() as u64;
            sink(res.facts);
        }
        pool.extend(blocks);
        if let Some((bar, t0, rate)) = progress {
            bar.set_message(rate(stats, t0.elapsed().as_secs_f64().max(1e-9)));
        }
    }
    stats.bytes += base_offset;
    Ok(())
}

/// Call `each` with every line of `block` (split at `\n`): its 0-based number, its
/// byte offset, its bytes and its text (the UTF-8 error when it is not UTF-8; the
/// whole block is checked once, lines split at `\n` stay valid). With
/// `stop_at_first`, stops after the first line that leaves an error in `out`;
/// otherwise sets `out.newlines`.
pub(super) fn for_each_line<T>(
    block: &[u8],
    out: &mut BlockResult<T>,
    stop_at_first: bool,
    mut each: impl FnMut(&mut BlockResult<T>, u64, usize, &[u8], Result<&str, std::str::Utf8Error>),
) {
    let whole = std::str::from_utf8(block).ok();
    let mut line_no: u64 = 0;
    let mut pos = 0usize;
    while pos < block.len() {
        let end = memchr::memchr(b'\n', &block[pos..]).map_or(block.len(), |p| pos + p);
        let line = &block[pos..end];
        let text = match whole {
            Some(w) => Ok(&w[pos..end]),
            None => std::str::from_utf8(line),
        };
        each(out, line_no, pos, line, text);
        if stop_at_first && !out.errors.is_empty() {
            return;
        }
        line_no += 1;
        pos = end + 1;
    }
    out.newlines = line_no - u64::from(block.last().is_some_and(|&b| b != b'\n'));
}

/// Parse a block: each line with the fast path; a line it rejects is parsed
/// again with oxttl (the reference), which gives the triples or the error.
pub(super) fn parse_block<T>(
    block: &[u8],
    extract: &Extract<'_, T>,
    stop_at_first: bool,
) -> BlockResult<T> {
    let mut out = BlockResult::with_capacity(block.len() / 256);
    for_each_line(
        block,
        &mut out,
        stop_at_first,
        |out, line_no, pos, line, text| {
            let fast = text
                .ok()
                .and_then(|text| super::ntfast::parse_line(text, extract).ok());
            match fast {
                Some(Some(f)) => {
                    out.triples += 1;
                    if let Some(f) = f {
                        out.facts.push(f);
                    }
                }
                Some(None) => {}
                None => match parse_line_reference(line) {
                    Ok(ts) => {
                        for t in ts {
                            out.triples += 1;
                            if let Some(f) = extract(t.as_ref()) {
                                out.facts.push(f);
                            }
                        }
                    }
                    Err(e) => out.errors.push((
                        line_no,
                        pos as u64 + e.location().start.offset,
                        e.message().to_string(),
                    )),
                },
            }
        },
    );
    out
}

/// One N-Triples line with oxttl (strict), accepting language tags of the
/// grammar ([`super::langtag::parse_with_wikidata_tags`]). All or nothing: a
/// bad line yields no triple.
pub(super) fn parse_line_reference(
    line: &[u8],
) -> Result<Vec<oxrdf::Triple>, oxttl::TurtleSyntaxError> {
    let run = |t: &[u8], lenient: bool| {
        let p = if lenient {
            NTriplesParser::new().lenient()
        } else {
            NTriplesParser::new()
        };
        p.for_slice(t).collect::<Result<Vec<_>, _>>()
    };
    super::langtag::parse_with_wikidata_tags(line, &mut |t| run(t, false), &mut |t| run(t, true))
}

/// The line of `block` around byte `offset`, at most 120 characters.
pub(super) fn excerpt(block: &[u8], offset: u64) -> String {
    let off = (offset as usize).min(block.len());
    let start = block[..off]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let end = block[off..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(block.len(), |p| off + p);
    let line = String::from_utf8_lossy(&block[start..end]);
    let mut s: String = line.chars().take(120).collect();
    if line.chars().count() > 120 {
        s.push('…');
    }
    s
}

/// Read up to `n` blocks of about `block` bytes, each cut after a line end.
/// Buffers come from `pool` (and go back to it after parsing), so that steady
/// state reading does not allocate.
pub(super) fn read_group(
    reader: &mut (dyn BufRead + Send),
    carry: &mut Vec<u8>,
    eof: &mut bool,
    n: usize,
    block: usize,
    pool: &mut Vec<Vec<u8>>,
) -> io::Result<Vec<Vec<u8>>> {
    let mut blocks: Vec<Vec<u8>> = Vec::new();
    while blocks.len() < n && !*eof {
        // A reused buffer keeps its bytes: only what it never held is zeroed.
        let mut buf = pool.pop().unwrap_or_default();
        let want = block.max(carry.len() + 1);
        buf.resize(want, 0);
        buf[..carry.len()].copy_from_slice(carry);
        let mut filled = carry.len();
        carry.clear();
        while filled < want {
            let got = reader.read(&mut buf[filled..])?;
            if got == 0 {
                *eof = true;
                break;
            }
            filled += got;
        }
        buf.truncate(filled);
        if !*eof {
            match memchr::memrchr(b'\n', &buf) {
                Some(p) => {
                    carry.extend_from_slice(&buf[p + 1..]);
                    buf.truncate(p + 1);
                }
                None => {
                    *carry = buf;
                    continue;
                }
            }
        }
        if buf.is_empty() {
            pool.push(buf);
        } else {
            blocks.push(buf);
        }
    }
    Ok(blocks)
}

/// Counters of entity reading.
#[derive(Debug, Default, Clone)]
pub struct EntityCounts {
    /// Entities read (of any type).
    pub entities: u64,
    /// Datavalue type → values of that type skipped (not a Wikibase type the
    /// converter knows).
    pub unknown_types: BTreeMap<String, u64>,
}

impl EntityCounts {
    pub fn merge(&mut self, o: EntityCounts) {
        self.entities += o.entities;
        for (k, v) in o.unknown_types {
            *self.unknown_types.entry(k).or_default() += v;
        }
    }
}

/// Maps one JSON text (an entity, an `{"entities": …}` object or an array of
/// entities) to values, pushed to the vector. The error is the parser's message.
pub type JsonExtract<'a, T> =
    dyn Fn(&str, &mut Vec<T>, &mut EntityCounts) -> Result<(), String> + Sync + 'a;

/// Maps a parsed triple to the value kept from it (or nothing).
pub type Extract<'a, T> = dyn Fn(TripleRef<'_>) -> Option<T> + Sync + 'a;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_from_content() {
        let nt = b"# c\n<http://x/a> <http://x/p> \"a . b\" . # c\n";
        assert_eq!(sniff(nt, "x.data"), Format::NTriples);
        assert_eq!(sniff(nt, "x.ttl"), Format::Turtle); // N-Triples is Turtle
        let ttl = b"<http://x/a> <http://x/p> \"a . b\" ;\n  <http://x/q> 1 .\n";
        assert_eq!(sniff(ttl, "x.nt"), Format::Turtle);
        assert_eq!(
            sniff(b"\n@prefix wd: <http://x/> .\n", "x.nt"),
            Format::Turtle
        );
        assert_eq!(sniff(b"PREFIX wd: <http://x/>\n", "-"), Format::Turtle);
        assert_eq!(sniff(b"  [\n{\"id\":\"Q1\"},\n", "x.nt"), Format::Json);
        assert_eq!(sniff(b"{\"entities\": {}}", "x.ttl"), Format::Json);
        // A first line longer than the look-ahead: not judged.
        assert_eq!(
            sniff(b"<http://x/a> <http://x/p> \"aaaa", "x"),
            Format::NTriples
        );
    }

    #[test]
    fn reference_path_accepts_wikidata_language_codes() {
        let line = br#"<http://www.wikidata.org/entity/Q513> <http://www.w3.org/2000/01/rdf-schema#label> "x"@zh-classical ."#;
        let ts = parse_line_reference(line).unwrap();
        assert_eq!(ts.len(), 1);
        assert_eq!(
            ts[0].object.to_string(),
            r#""x"@zh-classical"#,
            "the tag is kept (lowercased)"
        );
        let upper = br#"<http://x/a> <http://x/p> "x"@ZH-Min-NAN ."#;
        assert_eq!(
            parse_line_reference(upper).unwrap()[0].object.to_string(),
            r#""x"@zh-min-nan"#
        );
        // Any other error is reported at its own place, not at the tag.
        let bad = br#"<http://x/a> <http://x/p> "x"@zh-classical <http://x/c> ."#;
        let e = parse_line_reference(bad).unwrap_err();
        assert!(
            e.location().start.offset >= 43 && e.message().contains("dot"),
            "{e}"
        );
        let bad_iri = br#"<http://x/a> <p> "x"@zh-classical ."#;
        assert!(parse_line_reference(bad_iri).is_err());
    }
}
