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
//! Predictions whose qid is not in the gold file are counted (`n_extra_pred`).
//! Malformed lines, rows of unequal width and duplicate qids are errors naming the file and
//! line.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use super::ex::{order_matters, tables_equivalent};
use super::table::{RowsSeed, Table};

/// One parsed result line.
#[derive(Debug, Clone, Default)]
pub struct ResultRecord {
    /// Question id (integers are kept as their decimal text).
    pub qid: String,
    /// The result table (empty when absent).
    pub table: Table,
    /// The `error` field when present and not null (strings as is, other JSON as text).
    pub error: Option<String>,
    /// `gold_cypher` or `pred_cypher`, when given.
    pub cypher: Option<String>,
    /// Explicit `order_matters`, when given.
    pub order_matters: Option<bool>,
    /// 1-based line number in its file.
    pub line: usize,
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
    /// Predictions whose qid is not in the gold file (not scored).
    pub n_extra_pred: usize,
    /// Mean EX over gold records (0 when there are none).
    pub ex: f64,
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
    /// A malformed line.
    #[error("{path}:{line}: {message}")]
    Line {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

// ---------------------------------------------------------------------------------------
// parsing

struct RecordVisitor;

impl<'de> Visitor<'de> for RecordVisitor {
    type Value = ResultRecord;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a result object {\"qid\", \"columns\", \"rows\", \"error\"}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ResultRecord, A::Error> {
        let mut rec = ResultRecord::default();
        let mut qid = None;
        let mut ncols: Option<usize> = None;
        let mut rows_seen = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match key.as_ref() {
                "qid" => {
                    let v: serde_json::Value = map.next_value()?;
                    qid = Some(match v {
                        serde_json::Value::String(s) => s,
                        serde_json::Value::Number(n) if n.is_i64() || n.is_u64() => n.to_string(),
                        other => {
                            return Err(de::Error::custom(format!(
                                "field \"qid\" must be a string or integer, got {other}"
                            )))
                        }
                    });
                }
                "columns" => {
                    if rows_seen {
                        // checked against the table after the fact
                        let cols: Option<Vec<IgnoredAny>> = map.next_value()?;
                        if let Some(c) = cols {
                            if rec.table.nrows() > 0 && c.len() != rec.table.ncols() {
                                return Err(de::Error::custom(format!(
                                    "rows have {} columns but \"columns\" names {}",
                                    rec.table.ncols(),
                                    c.len()
                                )));
                            }
                        }
                    } else {
                        let cols: Option<Vec<IgnoredAny>> = map.next_value()?;
                        ncols = cols.map(|c| c.len());
                    }
                }
                "rows" => {
                    rows_seen = true;
                    let t: Option<Table> = map.next_value_seed(OptRows(ncols))?;
                    rec.table = t.unwrap_or_default();
                }
                "error" => {
                    let v: serde_json::Value = map.next_value()?;
                    rec.error = match v {
                        serde_json::Value::Null => None,
                        serde_json::Value::String(s) => Some(s),
                        other => Some(other.to_string()),
                    };
                }
                "gold_cypher" | "pred_cypher" => {
                    rec.cypher = map.next_value()?;
                }
                "order_matters" => {
                    rec.order_matters = map.next_value()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        rec.qid = qid.ok_or_else(|| de::Error::missing_field("qid"))?;
        if !rows_seen && rec.error.is_none() {
            return Err(de::Error::missing_field("rows"));
        }
        Ok(rec)
    }
}

struct OptRows(Option<usize>);

impl<'de> DeserializeSeed<'de> for OptRows {
    type Value = Option<Table>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Table>, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for OptRows {
    type Value = Option<Table>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows or null")
    }
    fn visit_none<E>(self) -> Result<Option<Table>, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Option<Table>, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<Table>, D::Error> {
        RowsSeed(self.0).deserialize(d).map(Some)
    }
}

/// Parse one result line (JSON object). `line` is stored in the record.
pub fn parse_record(text: &[u8], line: usize) -> Result<ResultRecord, serde_json::Error> {
    let mut d = serde_json::Deserializer::from_slice(text);
    let mut rec = d.deserialize_map(RecordVisitor)?;
    d.end()?;
    rec.line = line;
    Ok(rec)
}

/// Parse a whole JSONL buffer in parallel; errors name `path` and the 1-based line. Blank
/// lines are skipped. Duplicate qids are an error naming both lines.
pub fn parse_jsonl(data: &[u8], path: &Path) -> Result<Vec<ResultRecord>, ScoreError> {
    let mut lines: Vec<(usize, &[u8])> = Vec::new();
    let mut start = 0;
    let mut no = 0;
    for end in memchr::memchr_iter(b'\n', data).chain(std::iter::once(data.len())) {
        no += 1;
        let l = &data[start..end.min(data.len())];
        start = end + 1;
        if !l.iter().all(u8::is_ascii_whitespace) {
            lines.push((no, l));
        }
        if start > data.len() {
            break;
        }
    }
    let parsed: Vec<Result<ResultRecord, (usize, serde_json::Error)>> = lines
        .par_iter()
        .with_min_len(1024)
        .map(|&(no, l)| parse_record(l, no).map_err(|e| (no, e)))
        .collect();
    let mut out = Vec::with_capacity(parsed.len());
    for r in parsed {
        match r {
            Ok(rec) => out.push(rec),
            Err((line, e)) => {
                return Err(ScoreError::Line {
                    path: path.to_path_buf(),
                    line,
                    message: format!("invalid result record: {e}"),
                })
            }
        }
    }
    let mut seen: FxHashMap<&str, usize> = FxHashMap::default();
    seen.reserve(out.len());
    for rec in &out {
        if let Some(first) = seen.insert(rec.qid.as_str(), rec.line) {
            return Err(ScoreError::Line {
                path: path.to_path_buf(),
                line: rec.line,
                message: format!("duplicate qid {:?} (first on line {first})", rec.qid),
            });
        }
    }
    Ok(out)
}

fn read(path: &Path) -> Result<Vec<u8>, ScoreError> {
    std::fs::read(path).map_err(|source| ScoreError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Score one gold record against its prediction (if any).
pub fn score_record(gold: &ResultRecord, pred: Option<&ResultRecord>) -> Status {
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
    if tables_equivalent(&gold.table, &pred.table, ordered) {
        Status::Match
    } else {
        Status::Mismatch
    }
}

/// Score parsed records: one status per gold record, in gold order, plus the summary.
pub fn score_records(gold: &[ResultRecord], pred: &[ResultRecord]) -> (Vec<Status>, ScoreSummary) {
    let mut by_qid: FxHashMap<&str, usize> = FxHashMap::default();
    by_qid.reserve(pred.len());
    for (i, p) in pred.iter().enumerate() {
        by_qid.insert(p.qid.as_str(), i);
    }
    let statuses: Vec<Status> = gold
        .par_iter()
        .with_min_len(1024)
        .map(|g| score_record(g, by_qid.get(g.qid.as_str()).map(|&i| &pred[i])))
        .collect();
    let gold_qids: rustc_hash::FxHashSet<&str> = gold.iter().map(|g| g.qid.as_str()).collect();
    let mut s = ScoreSummary {
        n_gold: gold.len(),
        n_pred: pred.len(),
        n_extra_pred: pred
            .iter()
            .filter(|p| !gold_qids.contains(p.qid.as_str()))
            .count(),
        ..Default::default()
    };
    let mut total = 0.0;
    for st in &statuses {
        total += st.ex();
        match st {
            Status::Match => s.n_match += 1,
            Status::Mismatch => s.n_mismatch += 1,
            Status::IdenticalQuery => s.n_identical_query += 1,
            Status::Missing => s.n_missing += 1,
            Status::PredError => s.n_pred_error += 1,
            Status::GoldError => s.n_gold_error += 1,
        }
    }
    s.ex = if gold.is_empty() {
        0.0
    } else {
        total / gold.len() as f64
    };
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
) -> Result<(Vec<Status>, ScoreSummary), ScoreError> {
    let (gold, pred) = rayon::join(
        || read(gold_path).and_then(|d| parse_jsonl(&d, gold_path)),
        || read(pred_path).and_then(|d| parse_jsonl(&d, pred_path)),
    );
    let (gold, pred) = (gold?, pred?);
    let (statuses, summary) = score_records(&gold, &pred);
    if let Some(out_path) = out {
        write_scores(out_path, &gold, &statuses).map_err(|source| ScoreError::Io {
            path: out_path.to_path_buf(),
            source,
        })?;
    }
    Ok((statuses, summary))
}

fn write_scores(path: &Path, gold: &[ResultRecord], statuses: &[Status]) -> std::io::Result<()> {
    let file = std::fs::File::create(path)?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    for (g, st) in gold.iter().zip(statuses) {
        w.write_all(b"{\"qid\":")?;
        serde_json::to_writer(&mut w, &g.qid)?;
        write!(w, ",\"ex\":{:.1},\"status\":\"{}\"}}", st.ex(), st.as_str())?;
        w.write_all(b"\n")?;
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
        assert_eq!(g[2].line, 4);
        let p = parse_jsonl(pred, Path::new("p.jsonl")).unwrap();
        let (st, s) = score_records(&g, &p);
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
        assert!(e.contains("missing field `qid`"), "{e}");
    }
}
