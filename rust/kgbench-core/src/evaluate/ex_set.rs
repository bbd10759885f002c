//! EX_set: PIPE-Cypher's row-key set accuracy (`shared/spec/pipe-cypher.md` §6; seed
//! pipe-cypher.txt).
//!
//! A result scores 1 when the *sets* of its row keys are equal, else 0; two empty results
//! score 1. A row key is the row's value when the result has one column, else the sorted
//! (column name, value) pairs of the row.
//!
//! # How it differs from EX (execution accuracy, SPEC.md §4)
//!
//! - **Column names.** With two or more columns, EX_set keys rows by column *name*: the
//!   same values under other aliases (`RETURN p.name AS n` vs `AS name`) score 0, and the
//!   same columns in another order score 1. EX ignores names and matches columns by their
//!   values (any permutation). With one column, both ignore the name.
//! - **Sets.** EX_set ignores row order and duplicate rows (`[a, a, b]` equals `[b, a]`);
//!   EX compares multisets, in order when the gold query has `ORDER BY`.
//! - **Values.** kgbench compares the canonical keys EX uses (numbers compared as numbers:
//!   `1` equals `1.0`; strings never equal numbers). The original compares Python
//!   `str(value)`, where the string `"1"` equals the number `1` and `1` differs from `1.0`.
//!
//! EX is CypherBench's metric and stays the default; EX_set is offered for PIPE-Cypher
//! benchmarks (`--metrics ex_set`).

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::score::{parse_jsonl, score_record, ResultFile, ResultRecord, ScoreError, Status};
use super::table::TableRef;

/// The set of row keys of `table` whose columns are named `columns` (positional names
/// `"0"`, `"1"`, ... when `columns` does not match the table's width).
fn row_keys(table: TableRef<'_>, columns: &[String]) -> HashSet<Vec<u8>> {
    let ncols = table.ncols();
    let names: Vec<String> = if columns.len() == ncols {
        columns.to_vec()
    } else {
        (0..ncols).map(|i| i.to_string()).collect()
    };
    let mut order: Vec<usize> = (0..ncols).collect();
    order.sort_by(|&a, &b| names[a].cmp(&names[b]).then(a.cmp(&b)));
    let mut keys = HashSet::with_capacity(table.nrows());
    for row in 0..table.nrows() {
        let mut key = Vec::new();
        if ncols == 1 {
            key.extend_from_slice(table.cell(row, 0));
        } else {
            for &c in &order {
                for part in [names[c].as_bytes(), table.cell(row, c)] {
                    key.extend_from_slice(&(part.len() as u32).to_le_bytes());
                    key.extend_from_slice(part);
                }
            }
        }
        keys.insert(key);
    }
    keys
}

/// EX_set of a predicted table against the gold table (module documentation): 1.0 when
/// the row-key sets are equal (or both tables are empty), else 0.0.
#[must_use]
pub fn ex_set(
    gold: TableRef<'_>,
    gold_columns: &[String],
    pred: TableRef<'_>,
    pred_columns: &[String],
) -> f64 {
    if gold.nrows() == 0 && pred.nrows() == 0 {
        return 1.0;
    }
    let single = gold.ncols() == 1 && pred.ncols() == 1;
    if !single && gold.ncols() != pred.ncols() {
        return 0.0;
    }
    if row_keys(gold, gold_columns) == row_keys(pred, pred_columns) {
        1.0
    } else {
        0.0
    }
}

/// One gold record's EX status and EX_set value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairScores {
    pub status: Status,
    pub ex_set: f64,
}

/// The outcome of [`score_files_ex_set`]: per gold record (in gold order) its qid and
/// scores, and the means over gold records.
#[derive(Debug, Clone)]
pub struct ExSetRun {
    pub scores: Vec<(String, PairScores)>,
    pub ex: f64,
    pub ex_set: f64,
}

/// Score two JSONL result files (the format of `kgbench score`) with EX and EX_set; when
/// `out` is given, write one line per gold record, in gold order:
/// `{"qid": ..., "ex": 0.0|1.0, "ex_set": 0.0|1.0, "status": "..."}`. Missing predictions,
/// prediction errors and gold errors score 0 on both; identical queries 1 on both.
///
/// Errors: as [`super::score::score_files`].
pub fn score_files_ex_set(
    gold_path: &Path,
    pred_path: &Path,
    out: Option<&Path>,
    rel_tol: Option<f64>,
) -> Result<ExSetRun, ScoreError> {
    let read = |p: &Path| {
        std::fs::read(p).map_err(|source| ScoreError::Io {
            path: p.to_path_buf(),
            source,
        })
    };
    let (g, p) = rayon::join(|| read(gold_path), || read(pred_path));
    let (gd, pd) = (g?, p?);
    let (g, p) = rayon::join(
        || parse_jsonl(&gd, gold_path),
        || parse_jsonl(&pd, pred_path),
    );
    let stop = || crate::cancel::check().map_err(ScoreError::from);
    stop()?;
    let (gold, pred) = (g?, p?);
    let by_qid: FxHashMap<&str, &ResultRecord> =
        pred.records.iter().map(|r| (r.qid.as_str(), r)).collect();
    let scores: Vec<(String, PairScores)> = gold
        .records
        .par_iter()
        .map(|g| {
            let p = by_qid.get(g.qid.as_str()).copied();
            (g.qid.clone(), pair(&gold, g, &pred, p, rel_tol))
        })
        .collect();
    let n = scores.len().max(1) as f64;
    let ex = scores.iter().map(|(_, s)| s.status.ex()).sum::<f64>() / n;
    let ex_set_mean = scores.iter().map(|(_, s)| s.ex_set).sum::<f64>() / n;
    stop()?;
    if let Some(out_path) = out {
        let io = |source| ScoreError::Io {
            path: out_path.to_path_buf(),
            source,
        };
        let mut f = std::io::BufWriter::new(std::fs::File::create(out_path).map_err(io)?);
        for (qid, s) in &scores {
            writeln!(
                f,
                "{{\"qid\": {}, \"ex\": {:.1}, \"ex_set\": {:.1}, \"status\": \"{}\"}}",
                serde_json::to_string(qid).unwrap_or_default(),
                s.status.ex(),
                s.ex_set,
                s.status.as_str()
            )
            .map_err(io)?;
        }
        f.flush().map_err(io)?;
    }
    Ok(ExSetRun {
        scores,
        ex,
        ex_set: ex_set_mean,
    })
}

fn pair(
    gold_file: &ResultFile,
    gold: &ResultRecord,
    pred_file: &ResultFile,
    pred: Option<&ResultRecord>,
    rel_tol: Option<f64>,
) -> PairScores {
    let status = score_record(gold_file, gold, pred_file, pred, rel_tol);
    let ex_set = match (status, pred) {
        (Status::IdenticalQuery, _) => 1.0,
        (Status::Match | Status::Mismatch, Some(p)) => ex_set(
            gold_file.table(gold),
            &gold.columns,
            pred_file.table(p),
            &p.columns,
        ),
        _ => 0.0,
    };
    PairScores { status, ex_set }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::table::table_from_json;

    fn t(rows: &str) -> crate::evaluate::table::Table {
        table_from_json(rows).unwrap()
    }

    fn cols(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn sets_ignore_order_and_duplicates() {
        let g = t(r#"[["a"], ["b"]]"#);
        let p = t(r#"[["b"], ["a"], ["a"]]"#);
        assert_eq!(
            ex_set(g.as_ref(), &cols(&["x"]), p.as_ref(), &cols(&["y"])),
            1.0
        );
    }

    #[test]
    fn names_matter_with_several_columns() {
        let g = t(r#"[["Ann", 1], ["Bob", 2]]"#);
        let p = t(r#"[[1, "Ann"], [2, "Bob"]]"#);
        let gc = cols(&["name", "n"]);
        assert_eq!(
            ex_set(g.as_ref(), &gc, p.as_ref(), &cols(&["n", "name"])),
            1.0
        );
        assert_eq!(
            ex_set(g.as_ref(), &gc, p.as_ref(), &cols(&["count", "name"])),
            0.0
        );
    }

    #[test]
    fn empty_results_and_widths() {
        let e = t("[]");
        assert_eq!(ex_set(e.as_ref(), &[], e.as_ref(), &[]), 1.0);
        let g = t(r#"[["a"]]"#);
        assert_eq!(ex_set(g.as_ref(), &[], e.as_ref(), &[]), 0.0);
        let wide = t(r#"[["a", 1]]"#);
        assert_eq!(
            ex_set(g.as_ref(), &cols(&["x"]), wide.as_ref(), &cols(&["x", "y"])),
            0.0
        );
    }

    #[test]
    fn numbers_compare_as_numbers() {
        let g = t("[[1]]");
        let p = t("[[1.0]]");
        assert_eq!(ex_set(g.as_ref(), &[], p.as_ref(), &[]), 1.0);
        let s = t(r#"[["1"]]"#);
        assert_eq!(ex_set(g.as_ref(), &[], s.as_ref(), &[]), 0.0);
    }
}
