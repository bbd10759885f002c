//! `kgbench score`: EX over two JSONL files of executed results, parsed and compared in
//! parallel without building a value tree.
//!
//! Each line is `{"qid": str|int, "columns": [str]?, "rows": [[v, ...] | {col: v}], "error":
//! any?}`; gold lines may add `"order_matters": bool` or `"gold_cypher": str` (order matters
//! iff it contains `order by`, SPEC.md §4; neither: unordered), prediction lines may add
//! `"pred_cypher": str` (a prediction whose query string equals the gold query scores 1
//! without comparing, as in CypherBench). Other fields are ignored; blank lines are skipped.
//!
//! Outcomes per gold record, in gold-file order: `match`/`mismatch` (EX 1/0),
//! `identical_query` (1), `missing` (no prediction: 0), `pred_error` (the prediction carries a
//! non-null `error`: 0), `gold_error` (the gold carries an error: 0, reported separately).
//! Predictions whose qid is not in the gold file are counted (`n_extra_pred`). A gold record
//! without an error whose result is uninformative ([`super::informative`]: empty, all null, a
//! single 0 / false / empty list) is flagged: its scores line gets `"uninformative":
//! "<reason>"`, and the summary counts it and gives EX over the informative records beside EX
//! over all.
//! Malformed lines, rows of unequal width and duplicate qids are errors naming the file and
//! line.
//!
//! Scoring is chunked by gold lines and parallel: each gold line is parsed and compared with
//! its prediction at once (predictions in the same order are paired by line, others by the
//! qid leading their line); anything else, and every error, takes the general path, which
//! parses both files whole and matches them by qid (the same verdicts and messages).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::ex::{compare_tables_with, order_matters, verdict_tol, ExScratch, Verdict};
use super::informative::{uninformative, Uninformative};
use super::json::{skip_ws, JsonError, Reader};
use super::table::{TableArena, TableRef, TableSpan};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// One parsed result line; its table lives in the [`ResultFile`]'s arenas.
#[derive(Debug, Clone, Default)]
pub struct ResultRecord {
    /// Question id (integers are kept as their decimal text).
    pub qid: String,
    /// The result table (empty when absent): arena `chunk`, `span`.
    pub span: TableSpan,
    pub chunk: u32,
    /// The `error` field when present and not null (strings as is, other JSON as text).
    pub error: Option<String>,
    /// `gold_cypher` or `pred_cypher`, when given.
    pub cypher: Option<String>,
    /// Explicit `order_matters`, when given.
    pub order_matters: Option<bool>,
    /// 1-based line number in its file.
    pub line: usize,
    /// Column names in the table's cell order: the `columns` field for array rows, the
    /// sorted keys for rows given as objects (empty when neither is known). Used by EX_set.
    pub columns: Vec<String>,
}

/// Outcome of one gold record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Tables equal (EX 1).
    Match,
    /// Tables differ (EX 0).
    Mismatch,
    /// Query strings identical (EX 1 without comparing).
    IdenticalQuery,
    /// No prediction for this qid (EX 0).
    Missing,
    /// The prediction failed (EX 0).
    PredError,
    /// The gold result failed (EX 0).
    GoldError,
    /// The column-bijection search stopped at its bound without a verdict (EX 0; see
    /// `ex::search_budget`).
    Undecided,
}

impl Status {
    /// The name written to `scores.jsonl`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Match => "match",
            Status::Mismatch => "mismatch",
            Status::IdenticalQuery => "identical_query",
            Status::Missing => "missing",
            Status::PredError => "pred_error",
            Status::GoldError => "gold_error",
            Status::Undecided => "undecided",
        }
    }

    /// The EX value of this outcome.
    pub fn ex(self) -> f64 {
        match self {
            Status::Match | Status::IdenticalQuery => 1.0,
            _ => 0.0,
        }
    }
}

/// Counts of a scoring run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScoreSummary {
    /// Gold records (= scored records).
    pub n_gold: usize,
    /// Prediction records.
    pub n_pred: usize,
    /// Per-status counts, in [`Status`] order: match, mismatch, identical_query, missing,
    /// pred_error, gold_error.
    pub n_match: usize,
    pub n_mismatch: usize,
    pub n_identical_query: usize,
    pub n_missing: usize,
    pub n_pred_error: usize,
    pub n_gold_error: usize,
    /// Pairs the column-bijection search could not decide (EX 0).
    pub n_undecided: usize,
    /// Predictions whose qid is not in the gold file (not scored).
    pub n_extra_pred: usize,
    /// Mean EX over gold records (0 when there are none).
    pub ex: f64,
    /// Gold records flagged uninformative, per reason in [`Uninformative::ALL`] order.
    pub n_uninformative: [usize; 5],
    /// Mean EX over the gold records not flagged uninformative (0 when there are none).
    pub ex_informative: f64,
}

/// Bad input to scoring.
#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    /// The file cannot be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Stopped by [`crate::cancel::request`] (Ctrl-C); nothing was written.
    #[error("interrupted")]
    Interrupted,
    /// A malformed line.
    #[error("{path}:{line}: {message}")]
    Line {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

crate::cancel::interrupted_from_cancelled!(ScoreError);

// ---------------------------------------------------------------------------------------
// parsing

/// The parsed records of one JSONL file and the arenas holding their tables.
#[derive(Debug, Default)]
pub struct ResultFile {
    /// Records in file order.
    pub records: Vec<ResultRecord>,
    arenas: Vec<TableArena>,
}

impl ResultFile {
    /// The table of `rec` (a record of this file).
    #[inline]
    pub fn table(&self, rec: &ResultRecord) -> TableRef<'_> {
        self.arenas[rec.chunk as usize].get(rec.span)
    }
}

/// Parse one result line (JSON object) into `arena`. `line` is stored in the record.
pub fn parse_record(
    text: &str,
    line: usize,
    arena: &mut TableArena,
) -> Result<ResultRecord, JsonError> {
    let mut r = Reader::new(text);
    let mut rec = ResultRecord::default();
    parse_record_into(&mut r, line, arena, &mut rec)?;
    Ok(rec)
}

/// [`parse_record`] with a reader already [`Reader::reset`] to the line, writing into `rec`
/// (every field is overwritten; its buffers are reused, so a loop over lines does not
/// allocate per line).
pub fn parse_record_into(
    r: &mut Reader<'_>,
    line: usize,
    arena: &mut TableArena,
    rec: &mut ResultRecord,
) -> Result<(), JsonError> {
    rec.qid.clear();
    rec.span = TableSpan::default();
    rec.chunk = 0;
    // `error` and the query keep their buffers until the end (no allocation per line)
    let (mut have_error, mut have_cypher) = (false, false);
    rec.order_matters = None;
    rec.line = line;
    rec.columns.clear();
    let mut have_qid = false;
    let mut ncols: Option<usize> = None;
    let mut rows_seen = false;
    r.object(|r, key| {
        match key {
            "qid" => {
                rec.qid.clear();
                match r.peek() {
                    Some(b'"') => rec.qid.push_str(&r.string()?),
                    Some(b'-' | b'0'..=b'9') => {
                        let t = r.skip()?;
                        if t.parse::<i128>().is_err() {
                            return r.err("\"qid\" must be a string or an integer");
                        }
                        rec.qid.push_str(t);
                    }
                    _ => return r.err("\"qid\" must be a string or an integer"),
                }
                have_qid = true;
            }
            "columns" => {
                if let Some(n) = r.string_array(&mut rec.columns)? {
                    if rows_seen && rec.span.nrows() > 0 && n != rec.span.ncols() {
                        return r.err(format!(
                            "rows have {} columns but \"columns\" names {n}",
                            rec.span.ncols()
                        ));
                    }
                    ncols = Some(n);
                }
            }
            "rows" => {
                rows_seen = true;
                rec.span = r.rows(arena, ncols)?.unwrap_or_default();
                if let Some(names) = arena.record_names() {
                    rec.columns.clear();
                    rec.columns.extend(names.map(str::to_owned));
                }
            }
            "error" => {
                have_error = true;
                match r.peek() {
                    Some(b'n') => {
                        r.skip()?;
                        rec.error = None;
                    }
                    Some(b'"') => set_text(&mut rec.error, &r.string()?),
                    _ => set_text(&mut rec.error, r.skip()?),
                }
            }
            "gold_cypher" | "pred_cypher" => {
                have_cypher = true;
                match r.peek() {
                    Some(b'"') => set_text(&mut rec.cypher, &r.string()?),
                    Some(b'n') => {
                        r.skip()?;
                        rec.cypher = None;
                    }
                    _ => return r.err(format!("\"{key}\" must be a string")),
                }
            }
            "order_matters" => {
                rec.order_matters = match r.peek() {
                    Some(b't') => {
                        r.skip()?;
                        Some(true)
                    }
                    Some(b'f') => {
                        r.skip()?;
                        Some(false)
                    }
                    Some(b'n') => {
                        r.skip()?;
                        None
                    }
                    _ => return r.err("\"order_matters\" must be true or false"),
                }
            }
            _ => {
                r.skip()?;
            }
        }
        Ok(())
    })?;
    r.end()?;
    if !have_error {
        rec.error = None;
    }
    if !have_cypher {
        rec.cypher = None;
    }
    if !have_qid {
        return r.err("missing field \"qid\"");
    }
    if !rows_seen && rec.error.is_none() {
        return r.err("missing field \"rows\"");
    }
    Ok(())
}

/// Set `slot` to `text`, reusing its buffer.
#[inline]
fn set_text(slot: &mut Option<String>, text: &str) {
    match slot {
        Some(buf) => {
            buf.clear();
            buf.push_str(text);
        }
        None => *slot = Some(text.to_owned()),
    }
}

const CHUNK_LINES: usize = 4096;

/// The file as text, or an error naming the line of the first invalid UTF-8 byte.
fn utf8<'a>(data: &'a [u8], path: &Path) -> Result<&'a str, ScoreError> {
    std::str::from_utf8(data).map_err(|e| ScoreError::Line {
        path: path.to_path_buf(),
        line: 1 + memchr::memchr_iter(b'\n', &data[..e.valid_up_to()]).count(),
        message: "invalid UTF-8".into(),
    })
}

/// Non-blank lines as (1-based line number, start, end) byte offsets.
fn split_lines(data: &[u8], path: &Path) -> Result<Vec<(u32, u32, u32)>, ScoreError> {
    if data.len() > u32::MAX as usize {
        return Err(ScoreError::Line {
            path: path.to_path_buf(),
            line: 0,
            message: "file larger than 4 GiB; split it".into(),
        });
    }
    let mut lines = Vec::with_capacity(data.len() / 64);
    let mut start = 0usize;
    let mut no = 0u32;
    for end in memchr::memchr_iter(b'\n', data).chain(std::iter::once(data.len())) {
        no += 1;
        if start > end {
            break;
        }
        if !data[start..end].iter().all(u8::is_ascii_whitespace) {
            lines.push((no, start as u32, end as u32));
        }
        start = end + 1;
    }
    Ok(lines)
}

/// Hash of a qid for the duplicate check.
#[inline]
fn qid_hash(q: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    q.hash(&mut h);
    h.finish()
}

/// Error on the first repeated qid in file order (by line of the repetition). Sorts qid
/// hashes (parallel, no large hash table); equal hashes are confirmed by comparing text.
fn check_duplicates(qids: &[(&str, usize)], path: &Path) -> Result<(), ScoreError> {
    let keyed: Vec<(u64, u32)> = qids
        .par_iter()
        .enumerate()
        .map(|(i, (q, _))| (qid_hash(q), i as u32))
        .collect();
    check_duplicates_with(keyed, |i| qids[i], path)
}

/// [`check_duplicates`] on (qid hash, index) pairs; `qid(i)` gives the qid and line of
/// index `i`.
fn check_duplicates_with<'q>(
    mut keyed: Vec<(u64, u32)>,
    qid: impl Fn(usize) -> (&'q str, usize),
    path: &Path,
) -> Result<(), ScoreError> {
    keyed.par_sort_unstable();
    let mut worst: Option<(usize, usize)> = None; // (index of repetition, index of first)
    let mut s = 0;
    while s < keyed.len() {
        let mut e = s + 1;
        while e < keyed.len() && keyed[e].0 == keyed[s].0 {
            e += 1;
        }
        if e - s > 1 {
            // indices ascend within the group (sorted by (hash, index))
            for a in s + 1..e {
                let ia = keyed[a].1 as usize;
                if let Some(b) = (s..a).find(|&b| qid(keyed[b].1 as usize).0 == qid(ia).0) {
                    let ib = keyed[b].1 as usize;
                    if worst.is_none_or(|(w, _)| ia < w) {
                        worst = Some((ia, ib));
                    }
                }
            }
        }
        s = e;
    }
    match worst {
        None => Ok(()),
        Some((ia, ib)) => Err(ScoreError::Line {
            path: path.to_path_buf(),
            line: qid(ia).1,
            message: format!(
                "duplicate qid {:?} (first on line {})",
                qid(ia).0,
                qid(ib).1
            ),
        }),
    }
}

/// Parse a whole JSONL buffer in parallel (chunks of lines, one arena per chunk); errors
/// name `path` and the 1-based line (the first bad line in file order). Blank lines are
/// skipped. Duplicate qids are an error naming both lines.
pub fn parse_jsonl(data: &[u8], path: &Path) -> Result<ResultFile, ScoreError> {
    let lines = split_lines(data, path)?;
    parse_indexed(utf8(data, path)?, &lines, path)
}

/// [`parse_jsonl`] on text whose non-blank lines are indexed by [`split_lines`].
fn parse_indexed(
    data: &str,
    lines: &[(u32, u32, u32)],
    path: &Path,
) -> Result<ResultFile, ScoreError> {
    type Chunk = Result<(TableArena, Vec<ResultRecord>), (usize, JsonError)>;
    let chunks: Vec<Chunk> = lines
        .par_chunks(CHUNK_LINES)
        .enumerate()
        .map(|(ci, chunk)| {
            let bytes: usize = chunk.iter().map(|&(_, s, e)| (e - s) as usize).sum();
            let mut arena = TableArena::with_capacity(bytes / 4, bytes);
            let mut recs = Vec::with_capacity(chunk.len());
            let mut r = Reader::new("");
            for &(no, s, e) in chunk {
                if crate::cancel::requested() {
                    return Err((no as usize, r.err::<()>("interrupted").unwrap_err()));
                }
                r.reset(&data[s as usize..e as usize]);
                let mut rec = ResultRecord::default();
                parse_record_into(&mut r, no as usize, &mut arena, &mut rec)
                    .map_err(|err| (no as usize, err))?;
                rec.chunk = ci as u32;
                recs.push(rec);
            }
            Ok((arena, recs))
        })
        .collect();
    let mut file = ResultFile {
        records: Vec::with_capacity(lines.len()),
        arenas: Vec::with_capacity(chunks.len()),
    };
    for c in chunks {
        match c {
            Ok((arena, recs)) => {
                file.arenas.push(arena);
                file.records.extend(recs);
            }
            Err((line, e)) => {
                return Err(ScoreError::Line {
                    path: path.to_path_buf(),
                    line,
                    message: format!("invalid result record: {e}"),
                })
            }
        }
    }
    let qids: Vec<(&str, usize)> = file
        .records
        .iter()
        .map(|r| (r.qid.as_str(), r.line))
        .collect();
    check_duplicates(&qids, path)?;
    Ok(file)
}

/// Whether a gold record's result is uninformative ([`super::informative`]); `None` for an
/// informative result and for a gold record that carries an error.
pub fn gold_flag(gold_file: &ResultFile, gold: &ResultRecord) -> Option<Uninformative> {
    if gold.error.is_some() {
        return None;
    }
    uninformative(gold_file.table(gold))
}

/// Score one gold record (of `gold_file`) against its prediction (of `pred_file`), if any.
pub fn score_record(
    gold_file: &ResultFile,
    gold: &ResultRecord,
    pred_file: &ResultFile,
    pred: Option<&ResultRecord>,
    rel_tol: Option<f64>,
) -> Status {
    score_record_with(gold_file, gold, pred_file, pred, rel_tol, None)
}

/// [`score_record`] with optional EX scratch buffers (same verdicts).
fn score_record_with(
    gold_file: &ResultFile,
    gold: &ResultRecord,
    pred_file: &ResultFile,
    pred: Option<&ResultRecord>,
    rel_tol: Option<f64>,
    scratch: Option<&mut ExScratch>,
) -> Status {
    let Some(pred) = pred else {
        return Status::Missing;
    };
    if let (Some(g), Some(p)) = (&gold.cypher, &pred.cypher) {
        if g == p {
            return Status::IdenticalQuery;
        }
    }
    if gold.error.is_some() {
        return Status::GoldError;
    }
    if pred.error.is_some() {
        return Status::PredError;
    }
    let ordered = gold
        .order_matters
        .unwrap_or_else(|| gold.cypher.as_deref().is_some_and(order_matters));
    let (g, p) = (gold_file.table(gold), pred_file.table(pred));
    let verdict = match (scratch, rel_tol) {
        // exact, with the caller's buffers (no thread-local look-up per pair)
        (Some(s), None) => compare_tables_with(g, p, ordered, s),
        _ => verdict_tol(g, p, ordered, rel_tol),
    };
    match verdict {
        Verdict::Equal => Status::Match,
        Verdict::Different => Status::Mismatch,
        Verdict::Undecided => Status::Undecided,
    }
}

/// Score parsed records: one status per gold record, in gold order, plus the summary.
/// `rel_tol`: optional relative tolerance on numbers (`None`: exact).
pub fn score_records(
    gold_file: &ResultFile,
    pred_file: &ResultFile,
    rel_tol: Option<f64>,
) -> (Vec<Status>, ScoreSummary) {
    let (gold, pred) = (&gold_file.records, &pred_file.records);
    // files in the same qid order (the usual case) pair up by position, without hashing
    let aligned = gold.len() == pred.len() && gold.iter().zip(pred).all(|(g, p)| g.qid == p.qid);
    let (statuses, n_extra_pred) = if aligned {
        let st: Vec<Status> = gold
            .par_iter()
            .zip(pred.par_iter())
            .with_min_len(1024)
            .map(|(g, p)| score_record(gold_file, g, pred_file, Some(p), rel_tol))
            .collect();
        (st, 0)
    } else {
        let mut by_qid: FxHashMap<&str, usize> = FxHashMap::default();
        by_qid.reserve(pred.len());
        for (i, p) in pred.iter().enumerate() {
            by_qid.insert(p.qid.as_str(), i);
        }
        let st: Vec<Status> = gold
            .par_iter()
            .with_min_len(1024)
            .map(|g| {
                let p = by_qid.get(g.qid.as_str()).map(|&i| &pred[i]);
                score_record(gold_file, g, pred_file, p, rel_tol)
            })
            .collect();
        let gold_qids: rustc_hash::FxHashSet<&str> = gold.iter().map(|g| g.qid.as_str()).collect();
        let extra = pred
            .iter()
            .filter(|p| !gold_qids.contains(p.qid.as_str()))
            .count();
        (st, extra)
    };
    let flags: Vec<Option<Uninformative>> = gold.iter().map(|g| gold_flag(gold_file, g)).collect();
    let s = summarize(&statuses, &flags, gold.len(), pred.len(), n_extra_pred);
    (statuses, s)
}

/// Score two JSONL files; when `out` is given, write one line per gold record, in gold order:
/// `{"qid": ..., "ex": 0.0|1.0, "status": "..."}`. Returns the statuses and the summary.
///
/// Errors: unreadable files, malformed lines, ragged rows, duplicate qids (each naming the
/// file and line); an unwritable output file.
pub fn score_files(
    gold_path: &Path,
    pred_path: &Path,
    out: Option<&Path>,
    rel_tol: Option<f64>,
) -> Result<(Vec<Status>, ScoreSummary), ScoreError> {
    score_files_chunked(gold_path, pred_path, out, rel_tol, CHUNK_LINES)
}

/// [`score_files`] with an explicit number of lines per parallel work unit (any value
/// >= 1 gives the same result and the same output bytes; exposed for tests).
pub fn score_files_chunked(
    gold_path: &Path,
    pred_path: &Path,
    out: Option<&Path>,
    rel_tol: Option<f64>,
    chunk_lines: usize,
) -> Result<(Vec<Status>, ScoreSummary), ScoreError> {
    let chunk_lines = chunk_lines.max(1);
    let mut timer = PhaseTimer::from_env();
    // read, validate and index both files at once (one per core)
    let (g, p) = rayon::join(|| load(gold_path), || load(pred_path));
    let (gd, pd) = (g?, p?);
    interrupted()?;
    timer.phase("read + line index");
    // fast path: files in the same qid order are parsed and compared chunk by chunk, while
    // the chunk is in cache; anything unusual (error, different order) takes the full path,
    // which also produces the canonical error message
    let mut pairing = Pairing::Aligned;
    let mut paired = score_paired(&gd, &pd, &pairing, rel_tol, chunk_lines, out.is_some());
    timer.phase("parse + compare (aligned)");
    if paired.is_none() {
        // predictions in another order (or a subset): pair them by qid
        if let Some((text, index)) = qid_index(&pd) {
            pairing = Pairing::ByQid { text, index };
            paired = score_paired(&gd, &pd, &pairing, rel_tol, chunk_lines, out.is_some());
            timer.phase("parse + compare (by qid)");
        }
    }
    interrupted()?;
    let extra = match (&paired, &pairing) {
        (Some(chunks), Pairing::ByQid { text, .. }) => unmatched_predictions(&pd, text, chunks),
        _ => Some(0),
    };
    if let (Some(chunks), Some(n_extra_pred)) = (paired, extra) {
        drop(pairing);
        let n_pred = pd.lines.len();
        // the inputs are no longer needed: free both at once
        rayon::join(|| drop(gd), || drop(pd));
        let n: usize = chunks.iter().map(|c| c.statuses.len()).sum();
        // sorting bare hashes is enough when no two are equal (the usual case); otherwise
        // the (hash, index) check finds the first repetition and confirms it on the text
        let mut hashes: Vec<u64> = Vec::with_capacity(n);
        for c in &chunks {
            hashes.extend_from_slice(&c.hashes);
        }
        hashes.par_sort_unstable();
        if hashes.windows(2).any(|w| w[0] == w[1]) {
            check_duplicates_with(
                chunks
                    .iter()
                    .enumerate()
                    .flat_map(|(ci, c)| {
                        c.hashes
                            .iter()
                            .enumerate()
                            .map(move |(j, &h)| (h, (ci * chunk_lines + j) as u32))
                    })
                    .collect(),
                |i| {
                    let (ci, j) = (i / chunk_lines, i % chunk_lines);
                    chunks[ci].qid(j)
                },
                gold_path,
            )?;
        }
        timer.phase("duplicate check");
        let statuses: Vec<Status> = chunks
            .iter()
            .flat_map(|c| c.statuses.iter().copied())
            .collect();
        let flags: Vec<Option<Uninformative>> = chunks
            .iter()
            .flat_map(|c| c.flags.iter().copied())
            .collect();
        let summary = summarize(&statuses, &flags, n, n_pred, n_extra_pred);
        timer.phase("summary");
        interrupted()?;
        if let Some(out_path) = out {
            let io = |source| ScoreError::Io {
                path: out_path.to_path_buf(),
                source,
            };
            let mut f = std::fs::File::create(out_path).map_err(io)?;
            for c in &chunks {
                f.write_all(&c.out).map_err(io)?;
            }
            f.flush().map_err(io)?;
        }
        timer.phase("write");
        return Ok((statuses, summary));
    }
    // invalid UTF-8 anywhere is reported before any other error of either file
    gd.text(gold_path)?;
    pd.text(pred_path)?;
    let (gold, pred) = rayon::join(
        || parse_lines(&gd, gold_path),
        || parse_lines(&pd, pred_path),
    );
    interrupted()?;
    let (gold, pred) = (gold?, pred?);
    let (statuses, summary) = score_records(&gold, &pred, rel_tol);
    interrupted()?;
    if let Some(out_path) = out {
        write_scores(
            out_path,
            gold.records
                .iter()
                .map(|r| (r.qid.as_str(), gold_flag(&gold, r))),
            &statuses,
        )
        .map_err(|source| ScoreError::Io {
            path: out_path.to_path_buf(),
            source,
        })?;
    }
    Ok((statuses, summary))
}

/// `Err(Interrupted)` once a stop was requested ([`crate::cancel`]): checked between the
/// phases of [`score_files`] and before anything is written, so an interrupted run writes
/// no scores file.
fn interrupted() -> Result<(), ScoreError> {
    crate::cancel::check().map_err(ScoreError::from)
}

/// Wall and process CPU time per phase on stderr, when `KGBENCH_SCORE_TIMING` is set
/// (profiling aid; CPU time from `/proc/self/stat`, so Linux only).
struct PhaseTimer(Option<(std::time::Instant, f64)>);

impl PhaseTimer {
    fn from_env() -> Self {
        PhaseTimer(
            std::env::var_os("KGBENCH_SCORE_TIMING")
                .map(|_| (std::time::Instant::now(), Self::cpu())),
        )
    }

    fn cpu() -> f64 {
        let st = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let f: Vec<&str> = st.rsplit(") ").next().unwrap_or("").split(' ').collect();
        let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
        (tick(11) + tick(12)) / 100.0
    }

    fn phase(&mut self, name: &str) {
        if let Some((t, c)) = &mut self.0 {
            let cpu = Self::cpu();
            eprintln!(
                "kgbench score: {name}: {:.3} s wall, {:.2} CPU-s",
                t.elapsed().as_secs_f64(),
                cpu - *c
            );
            *t = std::time::Instant::now();
            *c = cpu;
        }
    }
}

/// A file's bytes, read into memory, with its non-blank lines indexed. UTF-8 is checked
/// later: chunk by chunk in the aligned path (while the bytes are in cache), for the whole
/// file in the general path ([`Loaded::text`]).
///
/// The file is read, not memory-mapped: a mapped file that another process truncates while
/// it is scored kills the process with SIGBUS (issue 18, defect 12); a read sees the bytes
/// of one moment, and a size that changes during the read is an I/O error.
struct Loaded {
    data: Vec<u8>,
    lines: Vec<(u32, u32, u32)>,
}

impl Loaded {
    fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// The whole file as text, or an error naming the line of the first invalid byte.
    fn text(&self, path: &Path) -> Result<&str, ScoreError> {
        utf8(self.bytes(), path)
    }
}

fn load(path: &Path) -> Result<Loaded, ScoreError> {
    use std::io::Read;
    let io = |source| ScoreError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    let expected = meta.is_file().then_some(meta.len());
    let mut data = Vec::with_capacity(expected.unwrap_or(0) as usize);
    file.read_to_end(&mut data).map_err(io)?;
    if let Some(n) = expected {
        if data.len() as u64 != n {
            return Err(io(std::io::Error::other(format!(
                "the file changed while it was read ({n} bytes at the start, {} read)",
                data.len()
            ))));
        }
    }
    let lines = split_lines(&data, path)?;
    Ok(Loaded { data, lines })
}

/// [`parse_jsonl`] on a file already loaded.
fn parse_lines(file: &Loaded, path: &Path) -> Result<ResultFile, ScoreError> {
    parse_indexed(file.text(path)?, &file.lines, path)
}

/// The qids, statuses, qid hashes and (optionally) score lines of one chunk of pairs.
#[derive(Default)]
struct QidChunk {
    text: String,
    ends: Vec<u32>,
    lines: Vec<u32>,
    statuses: Vec<Status>,
    /// The uninformative flag of each gold record.
    flags: Vec<Option<Uninformative>>,
    /// Hash of each qid, for the duplicate check.
    hashes: Vec<u64>,
    /// The chunk's lines of the scores file.
    out: Vec<u8>,
    /// Indices of the prediction lines the chunk's gold lines found (pairing by qid).
    matched: Vec<u32>,
}

impl QidChunk {
    /// The `j`-th qid of the chunk and its gold line.
    fn qid(&self, j: usize) -> (&str, usize) {
        let start = if j == 0 { 0 } else { self.ends[j - 1] as usize };
        (
            &self.text[start..self.ends[j] as usize],
            self.lines[j] as usize,
        )
    }
}

/// How each gold line finds its prediction line in [`score_paired`].
enum Pairing<'p> {
    /// Line `i` of the prediction file (the same qid sequence in both files).
    Aligned,
    /// By qid: the prediction file's text (valid UTF-8) and the index in its lines of each
    /// prediction's qid, as [`leading_qid`] reads it.
    ByQid {
        text: &'p str,
        index: FxHashMap<&'p str, u32>,
    },
}

/// The qid of a result line whose first member is `"qid"` (a string without escapes, or
/// an integer's text), read without parsing the rest; `None` for any other line (the
/// caller then takes the general path, which parses everything).
fn leading_qid(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let ws = |p: usize| skip_ws(b, p);
    let mut p = ws(0);
    if b.get(p) != Some(&b'{') {
        return None;
    }
    p = ws(p + 1);
    if !b[p..].starts_with(b"\"qid\"") {
        return None;
    }
    p = ws(p + 5);
    if b.get(p) != Some(&b':') {
        return None;
    }
    p = ws(p + 1);
    match b.get(p) {
        Some(b'"') => {
            let e = p + 1 + memchr::memchr2(b'"', b'\\', &b[p + 1..])?;
            (b[e] == b'"').then(|| &line[p + 1..e])
        }
        Some(b'-' | b'0'..=b'9') => {
            let e = p + b[p..]
                .iter()
                .position(|c| !matches!(c, b'-' | b'0'..=b'9'))
                .unwrap_or(b.len() - p);
            Some(&line[p..e])
        }
        _ => None,
    }
}

/// The prediction lines by qid, for [`Pairing::ByQid`]; `None` when a line has no leading
/// qid, the file is not valid UTF-8 or a qid repeats (the general path reports these).
fn qid_index(pred: &Loaded) -> Option<(&str, FxHashMap<&str, u32>)> {
    let text = std::str::from_utf8(pred.bytes()).ok()?;
    let qids: Vec<Option<&str>> = pred
        .lines
        .par_iter()
        .map(|&(_, s, e)| leading_qid(&text[s as usize..e as usize]))
        .collect();
    let mut index = FxHashMap::default();
    index.reserve(qids.len());
    for (i, q) in qids.into_iter().enumerate() {
        if index.insert(q?, i as u32).is_some() {
            return None;
        }
    }
    Some((text, index))
}

/// Chunked parse-and-compare of the gold lines with their predictions, paired by line
/// (`Pairing::Aligned`) or by qid; `None` when the pairing does not hold (or a line is
/// malformed). Each pair is parsed into small reused arenas and scored at once, while
/// its cells are in cache; nothing is allocated per pair. With `write`, each chunk also
/// formats its lines of the scores file.
fn score_paired(
    gold: &Loaded,
    pred: &Loaded,
    pairing: &Pairing<'_>,
    rel_tol: Option<f64>,
    chunk_lines: usize,
    write: bool,
) -> Option<Vec<QidChunk>> {
    let (gbytes, pbytes) = (gold.bytes(), pred.bytes());
    let (glines, plines) = (&gold.lines, &pred.lines);
    if glines.len() > u32::MAX as usize
        || (matches!(pairing, Pairing::Aligned) && glines.len() != plines.len())
    {
        return None;
    }
    let tails = status_tails();
    // set by the first chunk that fails: the others stop at their next line instead of
    // finishing work the caller will redo on another path
    let abandoned = std::sync::atomic::AtomicBool::new(false);
    let score_chunk = |ci: usize, gc: &[(u32, u32, u32)]| -> Option<QidChunk> {
        let mut ga = ResultFile {
            records: Vec::new(),
            arenas: vec![TableArena::with_capacity(256, 4096)],
        };
        let mut pa = ResultFile {
            records: Vec::new(),
            arenas: vec![TableArena::with_capacity(256, 4096)],
        };
        // UTF-8 of the chunk's lines, checked while they are in cache (blank lines,
        // the only bytes between them, are ASCII)
        let gbase = gc[0].1 as usize;
        let gtext = std::str::from_utf8(&gbytes[gbase..gc[gc.len() - 1].2 as usize]).ok()?;
        let aligned_pred = match pairing {
            Pairing::Aligned => {
                let pc = &plines[ci * chunk_lines..ci * chunk_lines + gc.len()];
                let pbase = pc[0].1 as usize;
                let end = pc[pc.len() - 1].2 as usize;
                Some((pc, pbase, std::str::from_utf8(&pbytes[pbase..end]).ok()?))
            }
            Pairing::ByQid { .. } => None,
        };
        let (mut gr, mut pr) = (Reader::new(""), Reader::new(""));
        let mut scratch = ExScratch::default();
        let (mut g, mut p) = (ResultRecord::default(), ResultRecord::default());
        let mut out = QidChunk {
            text: String::with_capacity(gc.len() * 8),
            ends: Vec::with_capacity(gc.len()),
            lines: Vec::with_capacity(gc.len()),
            statuses: Vec::with_capacity(gc.len()),
            flags: Vec::with_capacity(gc.len()),
            hashes: Vec::with_capacity(gc.len()),
            out: Vec::with_capacity(if write { gc.len() * 48 } else { 0 }),
            matched: Vec::new(),
        };
        for (j, &(gno, gs, ge)) in gc.iter().enumerate() {
            if abandoned.load(std::sync::atomic::Ordering::Relaxed) || crate::cancel::requested() {
                return None;
            }
            let gline = &gtext[gs as usize - gbase..ge as usize - gbase];
            // the prediction line and its number, if any
            let pline = match (&aligned_pred, pairing) {
                (Some((pc, pbase, ptext)), _) => {
                    let (pno, ps, pe) = pc[j];
                    Some((&ptext[ps as usize - pbase..pe as usize - pbase], pno))
                }
                (None, Pairing::ByQid { text, index }) => {
                    index.get(leading_qid(gline)?).map(|&i| {
                        out.matched.push(i);
                        let (pno, ps, pe) = plines[i as usize];
                        (&text[ps as usize..pe as usize], pno)
                    })
                }
                (None, Pairing::Aligned) => None,
            };
            ga.arenas[0].clear();
            gr.reset(gline);
            parse_record_into(&mut gr, gno as usize, &mut ga.arenas[0], &mut g).ok()?;
            let st = match pline {
                Some((pline, pno)) => {
                    pa.arenas[0].clear();
                    pr.reset(pline);
                    parse_record_into(&mut pr, pno as usize, &mut pa.arenas[0], &mut p).ok()?;
                    if g.qid != p.qid {
                        return None;
                    }
                    score_record_with(&ga, &g, &pa, Some(&p), rel_tol, Some(&mut scratch))
                }
                None => Status::Missing,
            };
            let flag = gold_flag(&ga, &g);
            out.statuses.push(st);
            out.flags.push(flag);
            out.text.push_str(&g.qid);
            out.ends.push(u32::try_from(out.text.len()).ok()?);
            out.lines.push(gno);
            out.hashes.push(qid_hash(&g.qid));
            if write {
                push_score_line(&mut out.out, &g.qid, &tails[st as usize], flag);
            }
        }
        Some(out)
    };
    let chunks: Vec<Option<QidChunk>> = glines
        .par_chunks(chunk_lines)
        .enumerate()
        .map(|(ci, gc)| {
            let chunk = score_chunk(ci, gc);
            if chunk.is_none() {
                abandoned.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            chunk
        })
        .collect();
    chunks.into_iter().collect()
}

/// The number of prediction lines no gold line matched ([`Pairing::ByQid`]), each parsed
/// to check it; `None` if one is malformed.
fn unmatched_predictions(pred: &Loaded, text: &str, chunks: &[QidChunk]) -> Option<usize> {
    let mut matched = vec![false; pred.lines.len()];
    for &i in chunks.iter().flat_map(|c| &c.matched) {
        matched[i as usize] = true;
    }
    pred.lines
        .par_iter()
        .zip(&matched)
        .filter(|(_, &m)| !m)
        .map_init(
            || {
                (
                    Reader::new(""),
                    TableArena::default(),
                    ResultRecord::default(),
                )
            },
            |(r, arena, rec), (&(no, s, e), _)| {
                arena.clear();
                r.reset(&text[s as usize..e as usize]);
                parse_record_into(r, no as usize, arena, rec)
                    .ok()
                    .map(|_| 1)
            },
        )
        .sum()
}

fn summarize(
    statuses: &[Status],
    flags: &[Option<Uninformative>],
    n_gold: usize,
    n_pred: usize,
    n_extra_pred: usize,
) -> ScoreSummary {
    let mut s = ScoreSummary {
        n_gold,
        n_pred,
        n_extra_pred,
        ..Default::default()
    };
    let (mut total, mut total_informative, mut n_informative) = (0.0, 0.0, 0usize);
    for (st, flag) in statuses.iter().zip(flags) {
        total += st.ex();
        match flag {
            Some(u) => s.n_uninformative[*u as usize] += 1,
            None => {
                total_informative += st.ex();
                n_informative += 1;
            }
        }
        match st {
            Status::Match => s.n_match += 1,
            Status::Mismatch => s.n_mismatch += 1,
            Status::IdenticalQuery => s.n_identical_query += 1,
            Status::Missing => s.n_missing += 1,
            Status::PredError => s.n_pred_error += 1,
            Status::GoldError => s.n_gold_error += 1,
            Status::Undecided => s.n_undecided += 1,
        }
    }
    s.ex = if n_gold == 0 {
        0.0
    } else {
        total / n_gold as f64
    };
    s.ex_informative = if n_informative == 0 {
        0.0
    } else {
        total_informative / n_informative as f64
    };
    s
}

/// The tail of a scores line per status (in [`Status`] order), formatted once.
fn status_tails() -> Vec<String> {
    [
        Status::Match,
        Status::Mismatch,
        Status::IdenticalQuery,
        Status::Missing,
        Status::PredError,
        Status::GoldError,
        Status::Undecided,
    ]
    .iter()
    .map(|st| format!(",\"ex\":{:.1},\"status\":\"{}\"", st.ex(), st.as_str()))
    .collect()
}

/// Append `{"qid":"<q>"` + `tail` + the uninformative flag, if any + `}` (one line of the
/// scores file).
#[inline]
fn push_score_line(w: &mut Vec<u8>, q: &str, tail: &str, flag: Option<Uninformative>) {
    w.extend_from_slice(b"{\"qid\":");
    if q.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        // nothing to escape: the JSON string is the text in quotes
        w.push(b'"');
        w.extend_from_slice(q.as_bytes());
        w.push(b'"');
    } else {
        // writing to a Vec cannot fail
        let _ = serde_json::to_writer(&mut *w, q);
    }
    w.extend_from_slice(tail.as_bytes());
    if let Some(u) = flag {
        w.extend_from_slice(b",\"uninformative\":\"");
        w.extend_from_slice(u.as_str().as_bytes());
        w.push(b'"');
    }
    w.extend_from_slice(b"}\n");
}

fn write_scores<'q>(
    path: &Path,
    qids: impl Iterator<Item = (&'q str, Option<Uninformative>)>,
    statuses: &[Status],
) -> std::io::Result<()> {
    let file = std::fs::File::create(path)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let tails = status_tails();
    let mut line = Vec::with_capacity(256);
    for ((q, flag), st) in qids.zip(statuses) {
        line.clear();
        push_score_line(&mut line, q, &tails[*st as usize], flag);
        w.write_all(&line)?;
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_score() {
        let gold = br#"{"qid": "a", "columns": ["x"], "rows": [[1], [2]], "gold_cypher": "MATCH (n) RETURN n.x ORDER BY n.x"}
{"qid": "b", "columns": ["x", "y"], "rows": [{"x": 1, "y": "u"}], "error": null}

{"qid": 3, "rows": [], "order_matters": false}
{"qid": "d", "rows": [[1]]}
{"qid": "e", "rows": [[1]]}
"#;
        let pred = br#"{"qid": "a", "rows": [[2], [1]]}
{"qid": "b", "rows": [["u", 1.0]]}
{"qid": "3", "rows": []}
{"qid": "e", "rows": null, "error": "SyntaxError"}
{"qid": "zz", "rows": []}
"#;
        let g = parse_jsonl(gold, Path::new("g.jsonl")).unwrap();
        assert_eq!(g.records[2].line, 4);
        let p = parse_jsonl(pred, Path::new("p.jsonl")).unwrap();
        let (st, s) = score_records(&g, &p, None);
        assert_eq!(
            st,
            vec![
                Status::Mismatch,
                Status::Match,
                Status::Match,
                Status::Missing,
                Status::PredError
            ]
        );
        assert_eq!(s.n_extra_pred, 1);
        assert_eq!(s.n_missing, 1);
        assert!((s.ex - 0.4).abs() < 1e-12);
        // qid 3's empty gold is uninformative (and matched): EX over the other four is 1/4
        assert_eq!(s.n_uninformative, [1, 0, 0, 0, 0]);
        assert!((s.ex_informative - 0.25).abs() < 1e-12);
    }

    /// Each reason is counted and written on its scores line, the same on every path; gold
    /// lines with an error are not flagged.
    #[test]
    fn uninformative_gold_lines_are_flagged() {
        let dir = std::env::temp_dir().join(format!("kgbench-score-uninf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gold = concat!(
            "{\"qid\": \"a\", \"rows\": []}\n",
            "{\"qid\": \"b\", \"rows\": [[null, null]]}\n",
            "{\"qid\": \"c\", \"rows\": [[0.0]]}\n",
            "{\"qid\": \"d\", \"rows\": [{\"x\": false}]}\n",
            "{\"qid\": \"e\", \"rows\": [[[]]]}\n",
            "{\"qid\": \"f\", \"rows\": [[7]]}\n",
            "{\"qid\": \"g\", \"rows\": [], \"error\": \"timeout\"}\n",
        );
        let pred = concat!(
            "{\"qid\": \"a\", \"rows\": []}\n",
            "{\"qid\": \"b\", \"rows\": [[null, null]]}\n",
            "{\"qid\": \"c\", \"rows\": [[0]]}\n",
            "{\"qid\": \"d\", \"rows\": [[false]]}\n",
            "{\"qid\": \"e\", \"rows\": [[[]]]}\n",
            "{\"qid\": \"f\", \"rows\": [[8]]}\n",
            "{\"qid\": \"g\", \"rows\": []}\n",
        );
        let (gp, pp) = (dir.join("g.jsonl"), dir.join("p.jsonl"));
        std::fs::write(&gp, gold).unwrap();
        // aligned, by qid (reversed predictions) and the general path (a blank line first)
        let reversed: String = pred.lines().rev().map(|l| format!("{l}\n")).collect();
        let mut outs = Vec::new();
        for (k, p) in [pred.to_string(), reversed, format!("\n{pred}")]
            .iter()
            .enumerate()
        {
            std::fs::write(&pp, p).unwrap();
            let op = dir.join(format!("o{k}.jsonl"));
            let (_, s) = score_files(&gp, &pp, Some(&op), None).unwrap();
            assert_eq!(s.n_uninformative, [1, 1, 1, 1, 1]);
            assert_eq!(s.ex_informative, 0.0); // f: 7 vs 8
            assert!((s.ex - 5.0 / 7.0).abs() < 1e-12);
            outs.push(std::fs::read_to_string(&op).unwrap());
        }
        assert!(outs.iter().all(|o| o == &outs[0]));
        let lines: Vec<&str> = outs[0].lines().collect();
        assert_eq!(
            lines[2],
            r#"{"qid":"c","ex":1.0,"status":"match","uninformative":"single_zero"}"#
        );
        assert_eq!(lines[5], r#"{"qid":"f","ex":0.0,"status":"mismatch"}"#);
        assert_eq!(lines[6], r#"{"qid":"g","ex":0.0,"status":"gold_error"}"#);
        for (line, reason) in lines.iter().zip([
            "empty",
            "all_null",
            "single_zero",
            "single_false",
            "single_empty_list",
        ]) {
            assert!(
                line.ends_with(&format!(",\"uninformative\":\"{reason}\"}}")),
                "{line}"
            );
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn aligned_and_general_paths_agree() {
        let dir = std::env::temp_dir().join(format!("kgbench-score-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut gold = String::new();
        let mut pred = String::new();
        for i in 0..10_000 {
            let (g, p) = match i % 4 {
                0 => ("[[1, \"a\"], [2, \"b\"]]", "[[\"b\", 2.0], [\"a\", 1]]"),
                1 => ("[[1, \"a\"], [2, \"b\"]]", "[[\"a\", 2], [\"b\", 1]]"),
                2 => ("[[[3, 1]]]", "[[[1, 3]]]"),
                _ => ("[]", "[[null]]"),
            };
            gold.push_str(&format!("{{\"qid\": \"q{i}\", \"rows\": {g}}}\n"));
            pred.push_str(&format!("{{\"qid\": \"q{i}\", \"rows\": {p}}}\n"));
        }
        let (gp, pp) = (dir.join("g.jsonl"), dir.join("p.jsonl"));
        std::fs::write(&gp, &gold).unwrap();
        std::fs::write(&pp, &pred).unwrap();
        let (aligned, s1) = score_files(&gp, &pp, None, None).unwrap();
        // reversed prediction order pairs by qid
        let rev: String = pred.lines().rev().map(|l| format!("{l}\n")).collect();
        std::fs::write(&pp, &rev).unwrap();
        let (by_qid, s2) = score_files(&gp, &pp, None, None).unwrap();
        assert_eq!(aligned, by_qid);
        assert_eq!(s1, s2);
        assert_eq!(s1.n_match, 5000);
        // the same lines with "rows" first (no leading qid) take the general path
        let swapped = |text: &str| -> String {
            text.lines()
                .map(|l| {
                    let (q, r) = l.split_once(", \"rows\": ").unwrap();
                    format!("{{\"rows\": {}, {}}}\n", &r[..r.len() - 1], &q[1..])
                })
                .collect()
        };
        std::fs::write(&pp, swapped(&rev)).unwrap();
        let (general, s3) = score_files(&gp, &pp, None, None).unwrap();
        assert_eq!(aligned, general);
        assert_eq!(s1, s3);
        // missing and extra predictions: by qid and the general path agree
        let some: String = rev
            .lines()
            .enumerate()
            .filter(|(i, _)| i % 7 != 3)
            .map(|(_, l)| format!("{l}\n"))
            .chain(["{\"qid\": \"zz\", \"rows\": []}\n".to_string()])
            .collect();
        std::fs::write(&pp, &some).unwrap();
        let (by_qid, s4) = score_files(&gp, &pp, None, None).unwrap();
        std::fs::write(&pp, swapped(&some)).unwrap();
        let (general, s5) = score_files(&gp, &pp, None, None).unwrap();
        assert_eq!(by_qid, general);
        assert_eq!(s4, s5);
        assert_eq!((s4.n_missing, s4.n_extra_pred), (1429, 1));
        // a malformed unmatched prediction is still an error naming its line
        std::fs::write(&pp, format!("{some}{{\"qid\": \"yy\", \"rows\": [}}\n")).unwrap();
        let e = score_files(&gp, &pp, None, None).unwrap_err().to_string();
        assert!(e.contains("p.jsonl:8573: invalid result record"), "{e}");
        // a duplicate in aligned files is still an error naming the gold file
        let dup = "{\"qid\": \"x\", \"rows\": []}\n{\"qid\": \"x\", \"rows\": []}\n";
        std::fs::write(&gp, dup).unwrap();
        std::fs::write(&pp, dup).unwrap();
        let e = score_files(&gp, &pp, None, None).unwrap_err().to_string();
        assert!(
            e.ends_with("g.jsonl:2: duplicate qid \"x\" (first on line 1)"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Output bytes and statuses do not depend on the chunk size, the number of threads or
    /// the path taken (aligned files, or predictions in another order).
    #[test]
    fn parallel_output_is_byte_identical() {
        let dir = std::env::temp_dir().join(format!("kgbench-score-par-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut gold = String::new();
        let mut pred = String::new();
        for i in 0..3_000 {
            let (g, p) = match i % 6 {
                0 => ("[[1, \"a\"], [2, \"b\"]]", "[[\"b\", 2.0], [\"a\", 1]]"),
                1 => ("[[1, \"a\"], [2, \"b\"]]", "[[\"a\", 2], [\"b\", 1]]"),
                2 => ("[[[3, 1], {\"x\": 1}]]", "[[{\"x\": 1.0}, [1, 3]]]"),
                3 => (
                    "[[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]]",
                    "[[5, 4, 3, 2, 1], [1, 2, 3, 4, 5]]",
                ),
                4 => ("[[1], [1], [2]]", "[[1], [2], [2]]"),
                _ => ("[]", "[[null]]"),
            };
            let qid = if i % 5 == 0 {
                format!("{i}")
            } else {
                format!("\"q\\\"{i}\"")
            };
            let ord = if i % 7 == 0 {
                ", \"order_matters\": true"
            } else {
                ""
            };
            gold.push_str(&format!("{{\"qid\": {qid}, \"rows\": {g}{ord}}}\n"));
            if i % 11 == 0 {
                pred.push_str(&format!(
                    "{{\"qid\": {qid}, \"rows\": null, \"error\": \"x\"}}\n"
                ));
            } else {
                pred.push_str(&format!("{{\"qid\": {qid}, \"rows\": {p}}}\n"));
            }
        }
        let (gp, pp, op) = (
            dir.join("g.jsonl"),
            dir.join("p.jsonl"),
            dir.join("o.jsonl"),
        );
        std::fs::write(&gp, &gold).unwrap();
        let run = |pred: &str, chunk: usize, threads: usize| {
            std::fs::write(&pp, pred).unwrap();
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let (st, s) = pool
                .install(|| score_files_chunked(&gp, &pp, Some(&op), None, chunk))
                .unwrap();
            (st, s, std::fs::read(&op).unwrap())
        };
        let reference = run(&pred, 1, 1);
        assert_eq!(reference.1.n_gold, 3_000);
        assert!(reference.1.n_match > 1_000 && reference.1.n_mismatch > 1_000);
        let text = String::from_utf8(reference.2.clone()).unwrap();
        assert!(text.starts_with("{\"qid\":\"0\",\"ex\":0.0,\"status\":\"pred_error\"}\n"));
        assert!(text.contains("{\"qid\":\"q\\\"1\",\"ex\":0.0,\"status\":\"mismatch\"}\n"));
        let rev: String = pred.lines().rev().map(|l| format!("{l}\n")).collect();
        for (chunk, threads) in [(1, 2), (7, 1), (7, 2), (1000, 2), (4096, 1), (4096, 2)] {
            assert_eq!(run(&pred, chunk, threads), reference, "{chunk} {threads}");
            assert_eq!(
                run(&rev, chunk, threads),
                reference,
                "rev {chunk} {threads}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn aligned_errors_name_file_and_line() {
        let dir = std::env::temp_dir().join(format!("kgbench-score-err-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (gp, pp) = (dir.join("g.jsonl"), dir.join("p.jsonl"));
        let mut lines: Vec<String> = (0..100)
            .map(|i| format!("{{\"qid\": \"q{i}\", \"rows\": [[{i}]]}}"))
            .collect();
        std::fs::write(&gp, lines.join("\n")).unwrap();
        lines[57] = "{\"qid\": \"q57\", \"rows\": [[1], [2, 3]]}".into();
        std::fs::write(&pp, lines.join("\n")).unwrap();
        for chunk in [1, 10, 4096] {
            let e = score_files_chunked(&gp, &pp, None, None, chunk)
                .unwrap_err()
                .to_string();
            assert!(e.ends_with("p.jsonl:58: invalid result record: row 1 has 2 columns, expected 1 at column 29"), "{e}");
        }
        lines[57] = "{\"qid\": \"q3\", \"rows\": [[57]]}".into();
        std::fs::write(&gp, lines.join("\n")).unwrap();
        std::fs::write(&pp, lines.join("\n")).unwrap();
        for chunk in [1, 10, 4096] {
            let e = score_files_chunked(&gp, &pp, None, None, chunk)
                .unwrap_err()
                .to_string();
            assert!(
                e.ends_with("g.jsonl:58: duplicate qid \"q3\" (first on line 4)"),
                "{e}"
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file truncated by another process after it was loaded is still scored from the
    /// bytes read (issue 18, defect 12: a memory-mapped input then raised SIGBUS, which
    /// kills the test process).
    #[test]
    fn truncated_input_after_loading() {
        let dir = std::env::temp_dir().join(format!("kgbench-trunc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.jsonl");
        let line = "{\"qid\": 0, \"rows\": [[\"a value long enough to fill pages\", 1]]}\n";
        std::fs::write(&path, line.repeat(20_000)).unwrap();
        let loaded = load(&path).unwrap();
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(0)
            .unwrap();
        let text = loaded.text(&path).unwrap();
        assert_eq!(text.len(), line.len() * 20_000);
        assert_eq!(loaded.lines.len(), 20_000);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn errors_name_lines() {
        let dup = b"{\"qid\": \"a\", \"rows\": []}\n{\"qid\": \"a\", \"rows\": []}\n";
        let e = parse_jsonl(dup, Path::new("g.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("g.jsonl:2: duplicate qid \"a\" (first on line 1)"),
            "{e}"
        );
        let bad = b"{\"qid\": \"a\", \"rows\": []}\n{\"qid\": \"b\", \"rows\": [[1],[1,2]]}\n";
        let e = parse_jsonl(bad, Path::new("p.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("p.jsonl:2: invalid result record: row 1 has 2 columns"),
            "{e}"
        );
        let cols = b"{\"qid\": \"a\", \"columns\": [\"x\"], \"rows\": [[1, 2]]}\n";
        let e = parse_jsonl(cols, Path::new("p.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("row 0 has 2 columns, expected 1"), "{e}");
        let nofield = b"{\"rows\": []}\n";
        let e = parse_jsonl(nofield, Path::new("p.jsonl"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("missing field \"qid\""), "{e}");
    }
}

#[cfg(test)]
mod timing {
    use super::*;

    /// Phase timings on a generated pair of files (`KGBENCH_SCORE_GOLD`/`_PRED`); run with
    /// `cargo test --release -p kgbench-core phase_timings -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn phase_timings() {
        let g = PathBuf::from(std::env::var("KGBENCH_SCORE_GOLD").unwrap());
        let p = PathBuf::from(std::env::var("KGBENCH_SCORE_PRED").unwrap());
        let gd = std::fs::read(&g).unwrap();
        let pd = std::fs::read(&p).unwrap();
        // process CPU seconds (utime + stime) from /proc/self/stat: the machine is shared
        let cpu = || -> f64 {
            let st = std::fs::read_to_string("/proc/self/stat").unwrap();
            let f: Vec<&str> = st.rsplit(") ").next().unwrap().split(' ').collect();
            (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0
        };
        {
            let c0 = cpu();
            let mut n = 0usize;
            for l in gd.split(|&b| b == b'\n').chain(pd.split(|&b| b == b'\n')) {
                if !l.is_empty() {
                    let v: serde_json::Value = serde_json::from_slice(l).unwrap();
                    n += v.as_object().map_or(0, |o| o.len());
                }
            }
            let c1 = cpu();
            let mut sum = 0u64;
            for &b in gd.iter().chain(pd.iter()) {
                sum = sum.wrapping_add(b as u64);
            }
            eprintln!(
                "cpu: serde_json::Value {:.2}s ({n}) byte sum {:.2}s ({sum})",
                c1 - c0,
                cpu() - c1
            );
        }
        {
            let text = std::str::from_utf8(&gd).unwrap();
            let c0 = cpu();
            let mut n = 0;
            for l in text.split('\n') {
                n += l.len() & 1;
            }
            let c1 = cpu();
            let mut sink = Vec::with_capacity(1 << 20);
            for l in text.split('\n') {
                if !l.is_empty() {
                    sink.clear();
                    let mut r = crate::evaluate::json::Reader::new(l);
                    r.value_key(&mut sink).unwrap();
                }
            }
            let c2 = cpu();
            let mut arena = TableArena::default();
            for (i, l) in text.split('\n').enumerate() {
                if !l.is_empty() {
                    parse_record(l, i, &mut arena).unwrap();
                }
            }
            let c3 = cpu();
            eprintln!(
                "cpu gold only: split {:.2}s value_key {:.2}s parse_record {:.2}s ({n})",
                c1 - c0,
                c2 - c1,
                c3 - c2
            );
        }
        for _ in 0..3 {
            let c0 = cpu();
            let gold = parse_jsonl(&gd, &g).unwrap();
            let pred = parse_jsonl(&pd, &p).unwrap();
            let c1 = cpu();
            let (_, s) = score_records(&gold, &pred, None);
            let c2 = cpu();
            eprintln!(
                "cpu: parse {:.2}s score {:.2}s ex {}",
                c1 - c0,
                c2 - c1,
                s.ex
            );
            let c3 = cpu();
            let (_, s2) = score_files(&g, &p, None, None).unwrap();
            eprintln!("cpu: score_files {:.2}s ex {}", cpu() - c3, s2.ex);
        }
    }
}
