//! Fuzzing of the RDF reader (N-Triples and Turtle, both `--skip-invalid`
//! modes) with proptest: real Wikidata lines and statements (the project's test
//! data, tests/data/wikidata) cut into small inputs and mutated (bytes flipped,
//! deleted, duplicated, truncated; RDF punctuation, escapes, directives,
//! byte-order marks, invalid UTF-8 and long language tags inserted).
//!
//! For every input, through the public reader [`super::read::read_all`] on a
//! file, strict and skipping:
//! - no panic, each read under 1 s of CPU time;
//! - skipping never fails; when the strict read succeeds, the skipping one
//!   reads the same triples and skips nothing;
//! - a strict error names a line and byte offset inside the input, and the
//!   skipping read skips at least one unit;
//! - every line the N-Triples fast path accepts is accepted by oxttl (the
//!   reference) with the same triple;
//! - the Turtle statement scanner cuts the same statements whether it gets the
//!   input at once or a few bytes at a time.
//!
//! `KGBENCH_FUZZ_CASES` sets the number of inputs (default 1,000, a few seconds:
//! the CI seed run). Full run, as recorded in the README:
//! `KGBENCH_FUZZ_CASES=1000000 cargo test -p kgbench-core --lib convert::fuzz -- --nocapture`.

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::facts::Vocab;
use super::input::{Format, ReadStats};
use super::read::read_all;
use super::{ntfast, turtle, ConvertError};

/// Pieces inserted by mutations.
const TOKENS: &[&[u8]] = &[
    b"@zh-classical",
    b"@be-tarask",
    b"@zh-min-nan",
    b"@",
    b"@en-",
    b"@-x",
    b"^^",
    b"^^<http://www.w3.org/2001/XMLSchema#decimal>",
    b"<",
    b">",
    b"\"",
    b"\"\"\"",
    b"'",
    b"'''",
    b".",
    b" . ",
    b".\n",
    b";",
    b",",
    b"[",
    b"]",
    b"(",
    b")",
    b"#",
    b"\n",
    b"\r\n",
    b"\r",
    b"\\",
    b"\\u00e9",
    b"\\U0001F600",
    b"\\uD800",
    b"\\n",
    b"_:",
    b"_:b1",
    b"wd:",
    b"wd:Q4294967297",
    b"<http://www.wikidata.org/entity/Q9703000031>",
    b"<http://www.wikidata.org/entity/L1-S1>",
    b"<http://www.wikidata.org/entity/Q99999999999999999999999>",
    b"@prefix x: <http://x/> .\n",
    b"PREFIX y: <http://y/>\n",
    b"@base <http://b/> .\n",
    b"BASE <rel/>\n",
    b"\xef\xbb\xbf",
    b"\0",
    b"\xff",
    b"\xc3",
    b"%",
    b"%zz",
    b"a",
    b"true",
    b"1.5e3",
    b"-",
    b" ",
    b"\t",
];

struct Corpus {
    /// N-Triples lines (without `\n`).
    nt: Vec<Vec<u8>>,
    /// Turtle prefix header of Q42.ttl.
    header: Vec<u8>,
    /// Turtle statements (Q42.ttl, small_dump_chunk.ttl).
    ttl: Vec<Vec<u8>>,
}

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/wikidata")
}

fn corpus() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let dir = data_dir();
        let mut nt = Vec::new();
        for e in std::fs::read_dir(dir.join("wikibase-format")).expect("test data") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "nt") {
                let text = std::fs::read(&p).expect("read");
                nt.extend(text.split(|&b| b == b'\n').map(<[u8]>::to_vec));
            }
        }
        let jsonl = std::fs::read_to_string(dir.join("triples-2022-05.jsonl")).expect("read");
        for line in jsonl.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            let t = |k: &str| v[k].as_str().unwrap_or("").to_string();
            nt.push(format!("{} {} {} .", t("subject"), t("predicate"), t("object")).into_bytes());
        }
        let mut header = Vec::new();
        let mut ttl = Vec::new();
        for name in ["Q42.ttl", "small_dump_chunk.ttl"] {
            let text = std::fs::read(dir.join(name)).expect("read");
            let mut start = 0;
            for end in turtle::statements(&text) {
                let st = &text[start..end];
                let trimmed = String::from_utf8_lossy(st);
                let t = trimmed.trim_start();
                if t.starts_with("@prefix") || t.starts_with("PREFIX") {
                    if name == "Q42.ttl" {
                        header.extend_from_slice(st);
                    }
                } else if !t.is_empty() && st.len() <= 4096 {
                    // (the one statement of ~100 KB, wd:Q42's own block, is left to
                    // the Python tests: it would make most of the fuzzing time)
                    ttl.push(st.to_vec());
                }
                start = end;
            }
        }
        header.push(b'\n');
        Corpus { nt, header, ttl }
    })
}

#[derive(Debug, Clone)]
enum Op {
    Set(Index, u8),
    Insert(Index, Index),
    Delete(Index, u8),
    Duplicate(Index, u8),
    Truncate(Index),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Op::Set(i, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, t)| Op::Insert(i, t)),
        (any::<Index>(), 1u8..16).prop_map(|(i, n)| Op::Delete(i, n)),
        (any::<Index>(), 1u8..64).prop_map(|(i, n)| Op::Duplicate(i, n)),
        any::<Index>().prop_map(Op::Truncate),
    ]
}

#[derive(Debug, Clone)]
struct Case {
    turtle: bool,
    start: Index,
    len: usize,
    ops: Vec<Op>,
    /// Chunk size for the incremental scanner check.
    chunk: usize,
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<bool>(),
        any::<Index>(),
        1usize..6,
        proptest::collection::vec(op(), 0..6),
        1usize..9,
    )
        .prop_map(|(turtle, start, len, ops, chunk)| Case {
            turtle,
            start,
            len,
            ops,
            chunk,
        })
}

fn build(c: &Case) -> Vec<u8> {
    let corpus = corpus();
    let mut data = Vec::new();
    if c.turtle {
        data.extend_from_slice(&corpus.header);
        let i = c.start.index(corpus.ttl.len());
        for st in corpus.ttl.iter().cycle().skip(i).take(c.len) {
            data.extend_from_slice(st);
        }
    } else {
        let i = c.start.index(corpus.nt.len());
        for l in corpus.nt.iter().cycle().skip(i).take(c.len) {
            data.extend_from_slice(l);
            data.push(b'\n');
        }
    }
    // Mutations land in the statements, not in the (long) prefix header.
    let floor = if c.turtle { corpus.header.len() } else { 0 };
    for o in &c.ops {
        let span = data.len() - floor + 1;
        match o {
            Op::Set(i, b) => {
                if data.len() > floor {
                    let k = floor + i.index(data.len() - floor);
                    data[k] = *b;
                }
            }
            Op::Insert(i, t) => {
                let k = floor + i.index(span);
                let tok = TOKENS[t.index(TOKENS.len())];
                data.splice(k..k, tok.iter().copied());
            }
            Op::Delete(i, n) => {
                let k = floor + i.index(span);
                let e = (k + *n as usize).min(data.len());
                data.drain(k..e);
            }
            Op::Duplicate(i, n) => {
                let k = floor + i.index(span);
                let e = (k + *n as usize).min(data.len());
                let piece = data[k..e].to_vec();
                data.splice(k..k, piece);
            }
            Op::Truncate(i) => {
                let k = floor + i.index(span);
                data.truncate(k);
            }
        }
    }
    data
}

/// The input without the Turtle prefix header, and the line `at` (1-based; 0:
/// none), for messages.
fn show(data: &[u8], at: usize) -> String {
    let h = &corpus().header;
    let body = data.strip_prefix(h.as_slice()).unwrap_or(data);
    let line = data
        .split(|&b| b == b'\n')
        .nth(at.wrapping_sub(1))
        .unwrap_or(b"");
    format!(
        "line {at}: {:?}\ninput (after the prefixes): {:?}",
        String::from_utf8_lossy(line),
        String::from_utf8_lossy(body)
    )
}

type Read = (Result<(), ConvertError>, ReadStats, Vec<String>, Duration);

fn read(path: &Path, fmt: Format, skip: bool, vocab: &Vocab) -> Read {
    let extract = |t: oxrdf::TripleRef<'_>| {
        let _ = vocab.extract(t);
        Some(t.to_string())
    };
    let mut stats = ReadStats::default();
    let mut out = Vec::new();
    let t0 = Instant::now();
    let r = read_all(
        &[path.to_string_lossy().into_owned()],
        Some(fmt),
        &extract,
        skip,
        false,
        &mut stats,
        &mut |b| out.extend(b),
    );
    (r, stats, out, t0.elapsed())
}

/// The input being read and since when: a watchdog thread ends the process
/// with the input shown when one input hangs (over 30 s of wall time), instead of blocking CI.
static CURRENT: std::sync::Mutex<Option<(Instant, Vec<u8>)>> = std::sync::Mutex::new(None);

fn watchdog() {
    std::thread::spawn(|| loop {
        std::thread::sleep(Duration::from_millis(200));
        let cur = CURRENT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((t0, data)) = cur.as_ref() {
            if t0.elapsed() > Duration::from_secs(30) {
                eprintln!(
                    "fuzz_rdf_reader: an input hangs (> 30 s): {}",
                    show(data, 0)
                );
                std::process::exit(101);
            }
        }
    });
}

/// One read of `data` as the reader does it for one block (N-Triples) or one
/// input (Turtle), without a file: (error line 1-based, offset, excerpt) of the
/// first error when strict, units skipped, triples.
/// The last field is the read's CPU time.
type Direct = (Option<(u64, u64)>, u64, Vec<String>, Duration);

/// CPU time of this thread (Linux `/proc/thread-self/schedstat`), so that the
/// 1 s bound holds for the work of a read, not for the machine's load; the
/// wall clock where that file is missing.
fn thread_cpu() -> Duration {
    static T0: OnceLock<Instant> = OnceLock::new();
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map(Duration::from_nanos)
        .unwrap_or_else(|| T0.get_or_init(Instant::now).elapsed())
}

fn direct(data: &[u8], turtle: bool, skip: bool, vocab: &Vocab) -> Direct {
    let extract = |t: oxrdf::TripleRef<'_>| {
        let _ = vocab.extract(t);
        Some(t.to_string())
    };
    let t0 = thread_cpu();
    if turtle {
        let mut stats = ReadStats::default();
        let mut out = Vec::new();
        let mut reader: &[u8] = data;
        let r = turtle::read(
            &mut reader,
            "fuzz",
            0,
            &extract,
            skip,
            &mut stats,
            &mut |b| out.extend(b),
        );
        let err = match r {
            Ok(()) => None,
            Err(ConvertError::Syntax { line, offset, .. }) => Some((line, offset)),
            Err(e) => panic!("unexpected error {e}"),
        };
        (
            err,
            stats.skipped_invalid,
            out,
            thread_cpu().saturating_sub(t0),
        )
    } else {
        let r = super::input::parse_block(data, &extract, !skip);
        let err = r.errors.first().map(|(l, o, _)| (l + 1, *o));
        let skipped = if skip { r.errors.len() as u64 } else { 0 };
        let facts = if skip || r.errors.is_empty() {
            r.facts
        } else {
            Vec::new()
        };
        (
            err.filter(|_| !skip),
            skipped,
            facts,
            thread_cpu().saturating_sub(t0),
        )
    }
}

fn check(
    c: &Case,
    k: u64,
    path: &Path,
    vocab: &Vocab,
    worst: &mut Duration,
) -> Result<(), TestCaseError> {
    let data = build(c);
    *CURRENT.lock().unwrap_or_else(|e| e.into_inner()) = Some((Instant::now(), data.clone()));
    let (strict_err, _, strict_triples, t1) = direct(&data, c.turtle, false, vocab);
    let (skip_err, skipped, skip_triples, t2) = direct(&data, c.turtle, true, vocab);
    *worst = (*worst).max(t1).max(t2);
    prop_assert!(
        t1 < Duration::from_secs(1) && t2 < Duration::from_secs(1),
        "slow: {t1:?} {t2:?}: {}",
        show(&data, 0)
    );
    prop_assert!(skip_err.is_none(), "skipping read failed: {:?}", skip_err);
    match strict_err {
        None => {
            prop_assert_eq!(skipped, 0, "{}", show(&data, 0));
            prop_assert_eq!(&strict_triples, &skip_triples, "{}", show(&data, 0));
        }
        Some((line, offset)) => {
            let lines = data.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            prop_assert!(line >= 1 && line <= lines, "line {line} of {lines}");
            prop_assert!(offset <= data.len() as u64, "offset {offset}");
            prop_assert!(
                skipped >= 1,
                "strict error at line {line}, nothing skipped: {}",
                show(&data, line as usize)
            );
        }
    }
    // Every 64th input also through the public reader, from a file.
    if k.is_multiple_of(64) {
        std::fs::write(path, &data).expect("write the fuzz input");
        let fmt = if c.turtle {
            Format::Turtle
        } else {
            Format::NTriples
        };
        let (r, stats, triples, _) = read(path, fmt, true, vocab);
        prop_assert!(r.is_ok(), "{:?}", r.err());
        prop_assert_eq!(stats.skipped_invalid, skipped);
        prop_assert_eq!(&triples, &skip_triples);
        let (r, _, _, _) = read(path, fmt, false, vocab);
        match (r, strict_err) {
            (Ok(()), None) => {}
            (Err(ConvertError::Syntax { line, offset, .. }), Some(e)) => {
                prop_assert_eq!((line, offset), e)
            }
            (r, e) => prop_assert!(false, "file read {:?}, direct {:?}", r.err(), e),
        }
    }
    if c.turtle {
        let whole = turtle::statements(&data);
        let mut sp = turtle::Splitter::default();
        let mut ends = Vec::new();
        let mut k = 0;
        while k < data.len() {
            k = (k + c.chunk).min(data.len());
            sp.scan(&data[..k], k == data.len(), &mut ends);
        }
        if ends.last() != Some(&data.len()) && !data[ends.last().copied().unwrap_or(0)..].is_empty()
        {
            ends.push(data.len());
        }
        prop_assert_eq!(whole, ends, "{}", show(&data, 0));
    } else {
        for line in data.split(|&b| b == b'\n') {
            let Ok(text) = std::str::from_utf8(line) else {
                continue;
            };
            if let Ok(Some(fast)) = ntfast::parse_line(text, |t| t.to_string()) {
                let reference = super::input::parse_line_reference(line);
                prop_assert!(
                    reference.is_ok(),
                    "fast path accepts, oxttl rejects: {text:?}: {:?}",
                    reference.err()
                );
                let reference = reference.unwrap_or_default();
                prop_assert_eq!(reference.len(), 1);
                prop_assert_eq!(&reference[0].to_string(), &fast, "{:?}", text);
            }
        }
    }
    Ok(())
}

#[test]
fn fuzz_rdf_reader() {
    let cases: u32 = std::env::var("KGBENCH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000);
    let vocab = Vocab::new(
        "http://www.wikidata.org/entity/",
        "http://www.wikidata.org/prop/",
        [31, 279, 569, 106, 2048, 735].into_iter().collect(),
    );
    let path = std::env::temp_dir().join(format!("kgbench-fuzz-{}.rdf", std::process::id()));
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    watchdog();
    let t0 = Instant::now();
    let worst = std::cell::Cell::new(Duration::ZERO);
    let n = std::cell::Cell::new(0u64);
    let result = runner.run(&case(), |c| {
        n.set(n.get() + 1);
        let mut w = worst.get();
        let r = check(&c, n.get(), &path, &vocab, &mut w);
        worst.set(w);
        r
    });
    let (n, worst) = (n.get(), worst.get());
    let _ = std::fs::remove_file(&path);
    eprintln!(
        "fuzz_rdf_reader: {n} inputs in {:.1}s, slowest read {:.1} ms of CPU",
        t0.elapsed().as_secs_f64(),
        worst.as_secs_f64() * 1e3
    );
    if let Err(e) = result {
        panic!("{e}");
    }
}
