//! Fuzz target of the score JSON reader (`kgbench score`'s result lines; issue 18).
//!
//! Generated result lines (records with qids, columns, rows of nested values, big and odd
//! numbers, escapes, deep nesting), then mutated at the character level (bytes inserted,
//! removed, repeated, the line cut short). For every input, `score::parse_record` and the
//! value reader must return (a value or an error) without panicking, within one second, and
//! must never accept text that is not JSON (checked against `serde_json` when the nesting is
//! within its recursion limit).
//!
//! The fixed seed corpus below runs first, then `KGBENCH_FUZZ_INPUTS` random inputs (default
//! 4,000: a few seconds, as CI runs it). The full run (1M inputs, see README "Fuzzing"):
//! `KGBENCH_FUZZ_INPUTS=1000000 cargo test -p kgbench-core --test fuzz_score_json -- --nocapture`.

use std::time::{Duration, Instant};

use kgbench_core::evaluate::json::Reader;
use kgbench_core::evaluate::score::parse_record;
use kgbench_core::evaluate::table::TableArena;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Longest time one input may take.
const MAX_PER_INPUT: Duration = Duration::from_secs(1);

/// Hand-picked inputs: the defects of issue 18 and the reader's edge cases.
fn seed_corpus() -> Vec<String> {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let deep_map = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
    let mut seeds = vec![
        r#"{"qid": 1, "rows": [[1, 2.5, "x", null, true, false]]}"#.to_string(),
        r#"{"qid": "a", "columns": ["x", "y"], "rows": [{"x": 1, "y": [1, {"k": "v"}]}]}"#.into(),
        r#"{"qid": 1, "rows": [[123456789012345678901234567890, -9223372036854775809]]}"#.into(),
        r#"{"qid": 1, "rows": [[1e400, -1e-400, 1E+2, -0.0, 0e0]]}"#.into(),
        r#"{"qid": 1, "rows": [["\ud83d\ude00 \u00e9 \" \\ \/ \b \f \n \r \t"]]}"#.into(),
        r#"{"qid": 1, "rows": [["\ud800"]]}"#.into(),
        r#"{"qid": 1, "rows": [["\udc00\ud800"]]}"#.into(),
        r#"{"qid": 1, "rows": [[1], [1, 2]]}"#.into(),
        r#"{"qid": 1, "rows": [{"a": 1}, {"b": 1}]}"#.into(),
        r#"{"qid": 1, "rows": null, "error": {"nested": [1, 2, {"x": null}]}}"#.into(),
        r#"{"qid": 1, "rows": [], "qid": 2}"#.into(),
        r#"{"qid": 99999999999999999999999999999999999999999, "rows": []}"#.into(),
        r#"{"qid": -0, "rows": [[-]]}"#.into(),
        r#"{"qid": 1, "rows": [[01]]}"#.into(),
        r#"{"qid": 1, "rows": [[1.]]}"#.into(),
        r#"{"qid": 1, "rows": [["abc]]}"#.into(),
        "{\"qid\": 1, \"rows\": [[\"a\u{1}\"]]}".into(),
        "{\"qid\": 1, \"rows\": [[\"\u{10FFFF}\u{FEFF}\"]]}".into(),
        r#"{"qid": 1, "rows": [[nul]]}"#.into(),
        r#"{"qid": 1, "rows": [[tru, fals]]}"#.into(),
        r#"{"qid": 1, "rows": [[1,]]}"#.into(),
        r#"{"qid": 1, "rows": [[1]],}"#.into(),
        r#"{"qid": 1 "rows": []}"#.into(),
        r#"{"qid": 1, "rows": [[1]]} trailing"#.into(),
        r#"[1, 2, 3]"#.into(),
        String::new(),
        " ".into(),
        "{".into(),
        "\"".into(),
        "\\".into(),
        "-".into(),
        "1e".into(),
        format!(r#"{{"qid": 1, "rows": [[{}]]}}"#, deep(254)),
        format!(r#"{{"qid": 1, "rows": [[{}]]}}"#, deep(255)),
        format!(r#"{{"qid": 1, "rows": [[{}]]}}"#, deep(50_000)),
        format!(r#"{{"qid": 1, "rows": [], "x": {}}}"#, deep(100_000)),
        format!(r#"{{"qid": 1, "rows": [[{}]]}}"#, deep_map(20_000)),
        format!(r#"{{"qid": 1, "rows": [[{}"#, "[".repeat(1_000_000)),
        format!(
            r#"{{"qid": 1, "rows": [[{}], [{}]]}}"#,
            vec!["1"; 100_000].join(","),
            vec!["2"; 100_000].join(",")
        ),
        format!(
            r#"{{"qid": 1, "rows": [["{}"]]}}"#,
            "\\u0041".repeat(50_000)
        ),
        format!(r#"{{"qid": 1, "rows": [[{}]]}}"#, "9".repeat(100_000)),
        format!(r#"{{"qid": 1, "rows": [[0.{}1]]}}"#, "0".repeat(100_000)),
    ];
    seeds.push(format!(r#"{{"qid": 1, "rows": [[{}]]}}"#, "1".repeat(400)));
    seeds
}

/// Nesting depth of the brackets outside strings (for the comparison with serde_json,
/// whose recursion limit is 128).
fn nesting(text: &str) -> usize {
    let (mut depth, mut max, mut in_str, mut esc) = (0usize, 0usize, false, false);
    for b in text.bytes() {
        if in_str {
            match (esc, b) {
                (true, _) => esc = false,
                (false, b'\\') => esc = true,
                (false, b'"') => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Run both readers on `text`; panics (a failure) when a reader panics, takes longer than
/// [`MAX_PER_INPUT`], or accepts a line `serde_json` rejects.
fn check(text: &str, arena: &mut TableArena) {
    let t0 = Instant::now();
    arena.clear();
    let record = parse_record(text, 1, arena);
    let mut reader = Reader::new(text);
    let mut key = Vec::new();
    let value = reader.value_key(&mut key).and_then(|_| reader.end());
    let took = t0.elapsed();
    assert!(
        took < MAX_PER_INPUT,
        "{took:?} for an input of {} bytes: {}",
        text.len(),
        excerpt(text)
    );
    if (record.is_ok() || value.is_ok()) && nesting(text) < 100 {
        // serde_json (without arbitrary precision) refuses integers beyond f64's range,
        // which kgbench reads exactly, as Python's `json` does
        if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
            assert!(
                e.to_string().starts_with("number out of range"),
                "accepted invalid JSON ({e}): {}",
                excerpt(text)
            );
        }
    }
    if let Err(e) = &record {
        assert!(e.column >= 1 && e.column <= text.len() + 1, "{e}");
    }
}

fn excerpt(text: &str) -> String {
    let cut: String = text.chars().take(300).collect();
    format!("{cut:?}{}", if cut.len() < text.len() { "..." } else { "" })
}

/// A JSON string literal: plain characters, escapes (valid and invalid), odd code points.
fn json_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        8 => prop::collection::vec(
            prop::sample::select(b"abcdefghijklmnopqrstuvwxyzABCXYZ0123456789 _-".to_vec()),
            0..7
        )
        .prop_map(|b| String::from_utf8(b).unwrap_or_default()),
        2 => any::<char>().prop_map(|c| serde_json::to_string(&c.to_string()).unwrap()
            .trim_matches('"').to_string()),
        1 => prop::sample::select(vec![
            "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u00e9", "\\u0000",
            "\\ud83d\\ude00", "\\ud800", "\\udc00", "\\uD834\\uDD1E", "\\x", "\\u12", "é", "日本",
        ])
        .prop_map(str::to_string),
    ];
    prop::collection::vec(piece, 0..5).prop_map(|p| format!("\"{}\"", p.concat()))
}

/// A JSON number: small and 64-bit integers, integers beyond 64 bits, decimals, exponents,
/// and the boundaries of `i64`/`u64`/`f64`.
fn json_number() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (-1000i64..1000).prop_map(|i| i.to_string()),
        2 => any::<i64>().prop_map(|i| i.to_string()),
        1 => any::<u64>().prop_map(|u| u.to_string()),
        1 => (any::<bool>(), prop::collection::vec(0u8..10, 19..45)).prop_map(|(neg, d)| {
            let digits: String = d.iter().map(|x| char::from(b'0' + x)).collect();
            format!("{}1{digits}", if neg { "-" } else { "" })
        }),
        2 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:?}")),
        1 => any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(|f| format!("{f:e}")),
        1 => prop::sample::select(vec![
            "9223372036854775807", "9223372036854775808", "-9223372036854775808",
            "-9223372036854775809", "18446744073709551615", "18446744073709551616",
            "1.7976931348623157e308", "2e308", "5e-324", "1e-400", "-0", "-0.0", "0.1e1",
            "9007199254740993", "123456789012345678.5",
        ])
        .prop_map(str::to_string),
    ]
}

/// A JSON value nested up to a few levels (lists and maps), or a deeply nested list.
fn json_value() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        1 => Just("null".to_string()),
        1 => any::<bool>().prop_map(|b| b.to_string()),
        4 => json_number(),
        4 => json_string(),
    ];
    let tree = leaf.prop_recursive(5, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec((json_string(), inner), 0..5).prop_map(|kv| {
                let members: Vec<String> = kv.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{{}}}", members.join(", "))
            }),
        ]
    });
    prop_oneof![
        20 => tree,
        1 => (0usize..1200, any::<bool>()).prop_map(|(n, map)| if map {
            format!("{}null{}", "{\"k\": ".repeat(n), "}".repeat(n))
        } else {
            format!("{}{}", "[".repeat(n), "]".repeat(n))
        }),
    ]
}

/// A result line: qid, optional columns, rows (arrays or records, sometimes ragged), optional
/// error / query / order fields, in a random order.
fn result_line() -> impl Strategy<Value = String> {
    let qid = prop_oneof![json_string(), json_number(), Just("null".to_string())];
    let rows = (1usize..4, 0usize..5, any::<bool>()).prop_flat_map(|(k, n, records)| {
        prop::collection::vec(prop::collection::vec(json_value(), k..=k + (n % 2)), n).prop_map(
            move |rows| {
                let rows: Vec<String> = rows
                    .iter()
                    .map(|cells| {
                        if records {
                            let m: Vec<String> = cells
                                .iter()
                                .enumerate()
                                .map(|(i, c)| format!("\"c{i}\": {c}"))
                                .collect();
                            format!("{{{}}}", m.join(", "))
                        } else {
                            format!("[{}]", cells.join(", "))
                        }
                    })
                    .collect();
                format!("[{}]", rows.join(", "))
            },
        )
    });
    let extra = prop::sample::subsequence(
        vec![
            "\"columns\": [\"a\", \"b\"]".to_string(),
            "\"error\": null".to_string(),
            "\"error\": \"boom\"".to_string(),
            "\"gold_cypher\": \"MATCH (n) RETURN n ORDER BY n\"".to_string(),
            "\"order_matters\": true".to_string(),
            "\"other\": {\"x\": [1, 2, {}]}".to_string(),
        ],
        0..3,
    );
    (qid, rows, extra, any::<prop::sample::Index>()).prop_map(|(q, r, extra, at)| {
        let mut members = vec![format!("\"qid\": {q}"), format!("\"rows\": {r}")];
        members.extend(extra);
        let i = at.index(members.len());
        members.swap(0, i);
        format!("{{{}}}", members.join(", "))
    })
}

/// One character-level edit of `text`.
#[derive(Debug, Clone)]
enum Edit {
    Insert(usize, char),
    Remove(usize, usize),
    Repeat(usize, usize, usize),
    Cut(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let special = prop::sample::select(vec![
        '[',
        ']',
        '{',
        '}',
        ',',
        ':',
        '"',
        '\\',
        '-',
        '+',
        '.',
        'e',
        'E',
        '0',
        '1',
        '9',
        'n',
        't',
        'f',
        'u',
        ' ',
        '\n',
        '\u{0}',
        '\u{1}',
        '\u{7f}',
        'é',
        '\u{FEFF}',
        '\u{10FFFF}',
    ]);
    prop_oneof![
        4 => (any::<usize>(), special).prop_map(|(i, c)| Edit::Insert(i, c)),
        3 => (any::<usize>(), 1usize..8).prop_map(|(i, n)| Edit::Remove(i, n)),
        1 => (any::<usize>(), 1usize..40, 1usize..300).prop_map(|(i, n, k)| Edit::Repeat(i, n, k)),
        1 => any::<usize>().prop_map(Edit::Cut),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let len = chars.len();
        match *e {
            Edit::Insert(i, c) => chars.insert(i % (len + 1), c),
            Edit::Remove(i, n) if len > 0 => {
                let s = i % len;
                chars.drain(s..(s + n).min(len));
            }
            Edit::Repeat(i, n, k) if len > 0 => {
                let s = i % len;
                let piece: Vec<char> = chars[s..(s + n).min(len)].to_vec();
                let at = (s + n).min(len);
                for _ in 0..k {
                    chars.splice(at..at, piece.iter().copied());
                }
            }
            Edit::Cut(i) => chars.truncate(i % (len + 1)),
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// Inputs checked per generated line: the line itself and this many edited copies.
const EDITED_COPIES: usize = 7;

/// The number of random inputs: `KGBENCH_FUZZ_INPUTS` (underscores allowed), default 4,000.
fn inputs() -> u64 {
    std::env::var("KGBENCH_FUZZ_INPUTS")
        .ok()
        .and_then(|v| v.replace('_', "").parse().ok())
        .unwrap_or(4_000)
}

#[test]
fn seed_corpus_never_crashes_or_hangs() {
    let mut arena = TableArena::default();
    for text in seed_corpus() {
        check(&text, &mut arena);
    }
}

#[test]
fn fuzz_score_json_reader() {
    let n = inputs();
    let per_case = 1 + EDITED_COPIES as u64;
    let mut runner = TestRunner::new(Config {
        cases: u32::try_from(n.div_ceil(per_case)).unwrap_or(u32::MAX),
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (
        result_line(),
        prop::collection::vec(prop::collection::vec(edit(), 1..5), EDITED_COPIES),
    );
    let t0 = Instant::now();
    let arena = std::cell::RefCell::new(TableArena::default());
    let count = std::cell::Cell::new(0u64);
    runner
        .run(&strategy, |(line, edit_sets)| {
            // the line as generated (mostly a valid record), then its edited copies
            check(&line, &mut arena.borrow_mut());
            for edits in &edit_sets {
                check(&apply(&line, edits), &mut arena.borrow_mut());
            }
            count.set(count.get() + per_case);
            Ok(())
        })
        .unwrap();
    eprintln!(
        "fuzz_score_json_reader: {} inputs in {:.1} s",
        count.get(),
        t0.elapsed().as_secs_f64()
    );
}
