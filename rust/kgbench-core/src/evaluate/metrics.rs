//! Answer-set, GTSQA and NGDBench metric families over canonical value keys
//! (`value::Value::canonical_key`, so `1 == 1.0` and list/map order is ignored everywhere).
//!
//! Conventions for the cases the papers leave open (also in the Python docstrings):
//! - empty sets: precision = 1 when nothing is predicted *and* nothing is expected, 0 when
//!   nothing is predicted but something is expected; recall likewise with the roles swapped;
//!   F1 = 0 when precision + recall = 0; Jaccard of two empty sets = 1;
//! - MdRE (NGDBench eq. 9): `|ŷ−y| / |y|` (the absolute value makes negative `y` work); when
//!   `y = 0` the denominator is `ε = 1e-6` (the paper: "a small ε is typically added");
//! - MSLE (eq. 10) and MLRE (eq. 12) use the odd extensions `sign(v)·ln(1+|v|)` and
//!   `sign(v)·ln(1+|v|/ε)`, which equal the paper's formulas for non-negative values and
//!   stay defined (and continuous) for negative ones;
//! - sMAPE (eq. 11) is reported as a fraction in [0, 2]; a term with `ŷ = y = 0` is 0;
//! - means over zero items are errors (callers raise them as `ValueError`).

use rustc_hash::FxHashMap;

/// Stabilising constant of MLRE (NGDBench eq. 12) and of MdRE when `y = 0`.
pub const EPSILON: f64 = 1e-6;

/// Precision, recall, F1 and Jaccard of a predicted collection against a gold one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetScores {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub jaccard: f64,
    /// Size of the intersection (bag: sum of minimum counts).
    pub n_common: usize,
    /// Size of the gold collection (distinct items for sets).
    pub n_gold: usize,
    /// Size of the predicted collection (distinct items for sets).
    pub n_pred: usize,
}

fn counts<K: AsRef<[u8]>>(items: &[K]) -> FxHashMap<&[u8], usize> {
    let mut m: FxHashMap<&[u8], usize> = FxHashMap::default();
    for it in items {
        *m.entry(it.as_ref()).or_insert(0) += 1;
    }
    m
}

fn ratio(num: usize, den: usize, both_empty: bool) -> f64 {
    if den == 0 {
        if both_empty {
            1.0
        } else {
            0.0
        }
    } else {
        num as f64 / den as f64
    }
}

/// Set (`bag = false`: duplicates ignored) or bag (`bag = true`: multiset intersection and
/// union) precision / recall / F1 / Jaccard (NGDBench Appendix C.1 eqs. 5–7).
pub fn set_scores<K: AsRef<[u8]>>(gold: &[K], pred: &[K], bag: bool) -> SetScores {
    let g = counts(gold);
    let p = counts(pred);
    let (n_gold, n_pred, n_common, n_union) = if bag {
        let common: usize = g
            .iter()
            .map(|(k, &c)| c.min(p.get(k).copied().unwrap_or(0)))
            .sum();
        (
            gold.len(),
            pred.len(),
            common,
            gold.len() + pred.len() - common,
        )
    } else {
        let common = g.keys().filter(|k| p.contains_key(*k)).count();
        (g.len(), p.len(), common, g.len() + p.len() - common)
    };
    let both_empty = n_gold == 0 && n_pred == 0;
    let precision = ratio(n_common, n_pred, both_empty);
    let recall = ratio(n_common, n_gold, both_empty);
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    SetScores {
        precision,
        recall,
        f1,
        jaccard: ratio(n_common, n_union, both_empty),
        n_common,
        n_gold,
        n_pred,
    }
}

/// GTSQA scores of one question (seed synthkgqa-gtsqa.txt §5.1, Table 2).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GtsqaScores {
    /// EM Hits: 1 if at least one gold answer is among the predicted answers.
    pub hits: f64,
    /// EM Recall: fraction of (distinct) gold answers predicted.
    pub recall: f64,
    /// Ground-truth triples: recall / precision / F1 of the retrieved triples (sets).
    pub triple_recall: f64,
    pub triple_precision: f64,
    pub triple_f1: f64,
    /// Answer nodes: 1 if some gold answer node is a node of the retrieved subgraph.
    pub answer_node_hits: f64,
    /// Fraction of gold answer nodes that are nodes of the retrieved subgraph.
    pub answer_node_recall: f64,
    /// Number of distinct retrieved triples.
    pub n_triples: usize,
}

/// GTSQA metrics of one question. `gold_answers`/`pred_answers` are canonical keys of answer
/// labels (EM = equal keys); triples are `(head, relation, tail)` node/relation ids; the
/// retrieved subgraph's nodes are the heads and tails of `retrieved_triples`.
///
/// With no gold answers (or answer nodes), hits and recall are 0 unless nothing is
/// predicted (then 1), as for [`set_scores`]. Without retrieved triples precision is 0.
pub fn gtsqa_scores<K: AsRef<[u8]>, S: AsRef<str>>(
    gold_answers: &[K],
    pred_answers: &[K],
    gold_triples: &[(S, S, S)],
    retrieved_triples: &[(S, S, S)],
    answer_nodes: &[S],
) -> GtsqaScores {
    let answers = set_scores(gold_answers, pred_answers, false);
    fn key<S: AsRef<str>>(t: &(S, S, S)) -> (&str, &str, &str) {
        (t.0.as_ref(), t.1.as_ref(), t.2.as_ref())
    }
    let gt: rustc_hash::FxHashSet<_> = gold_triples.iter().map(key).collect();
    let rt: rustc_hash::FxHashSet<_> = retrieved_triples.iter().map(key).collect();
    let common = gt.iter().filter(|t| rt.contains(*t)).count();
    let both_empty = gt.is_empty() && rt.is_empty();
    let tp = ratio(common, rt.len(), both_empty);
    let tr = ratio(common, gt.len(), both_empty);
    let tf = if tp + tr == 0.0 {
        0.0
    } else {
        2.0 * tp * tr / (tp + tr)
    };
    let nodes: rustc_hash::FxHashSet<&str> = retrieved_triples
        .iter()
        .flat_map(|t| [t.0.as_ref(), t.2.as_ref()])
        .collect();
    let gold_nodes: rustc_hash::FxHashSet<&str> = answer_nodes.iter().map(|s| s.as_ref()).collect();
    let found = gold_nodes.iter().filter(|n| nodes.contains(*n)).count();
    let (node_hits, node_recall) = if gold_nodes.is_empty() {
        let v = if nodes.is_empty() { 1.0 } else { 0.0 };
        (v, v)
    } else {
        (
            if found > 0 { 1.0 } else { 0.0 },
            found as f64 / gold_nodes.len() as f64,
        )
    };
    let hits = if answers.n_gold == 0 {
        answers.recall
    } else if answers.n_common > 0 {
        1.0
    } else {
        0.0
    };
    GtsqaScores {
        hits,
        recall: answers.recall,
        triple_recall: tr,
        triple_precision: tp,
        triple_f1: tf,
        answer_node_hits: node_hits,
        answer_node_recall: node_recall,
        n_triples: rt.len(),
    }
}

/// Errors of the numeric metrics.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricError {
    /// Gold and predicted sequences differ in length.
    #[error("gold has {gold} values but predictions have {pred}")]
    Length { gold: usize, pred: usize },
    /// No values to average.
    #[error("no values to score")]
    Empty,
    /// A value is NaN or infinite.
    #[error("value at index {index} is not finite")]
    NotFinite { index: usize },
}

fn check(y: &[f64], yhat: &[f64]) -> Result<(), MetricError> {
    if y.len() != yhat.len() {
        return Err(MetricError::Length {
            gold: y.len(),
            pred: yhat.len(),
        });
    }
    if y.is_empty() {
        return Err(MetricError::Empty);
    }
    for (i, (a, b)) in y.iter().zip(yhat).enumerate() {
        if !a.is_finite() || !b.is_finite() {
            return Err(MetricError::NotFinite { index: i });
        }
    }
    Ok(())
}

/// Median relative error `median(|ŷ−y| / |y|)` (NGDBench eq. 9; `|y| = 0` → ε). The median
/// of an even count is the mean of the two middle values.
pub fn mdre(y: &[f64], yhat: &[f64]) -> Result<f64, MetricError> {
    check(y, yhat)?;
    let mut errs: Vec<f64> = y
        .iter()
        .zip(yhat)
        .map(|(&a, &b)| {
            let den = if a == 0.0 { EPSILON } else { a.abs() };
            (b - a).abs() / den
        })
        .collect();
    errs.sort_by(f64::total_cmp);
    let m = errs.len();
    Ok(if m % 2 == 1 {
        errs[m / 2]
    } else {
        (errs[m / 2 - 1] + errs[m / 2]) / 2.0
    })
}

fn slog1p(v: f64) -> f64 {
    v.signum() * v.abs().ln_1p()
}

/// Mean squared logarithmic error `mean((ln(1+ŷ) − ln(1+y))²)` (NGDBench eq. 10), with
/// `sign(v)·ln(1+|v|)` for negative values.
pub fn msle(y: &[f64], yhat: &[f64]) -> Result<f64, MetricError> {
    check(y, yhat)?;
    let s: f64 = y
        .iter()
        .zip(yhat)
        .map(|(&a, &b)| (slog1p(b) - slog1p(a)).powi(2))
        .sum();
    Ok(s / y.len() as f64)
}

/// Symmetric mean absolute percentage error as a fraction in [0, 2]:
/// `mean(|ŷ−y| / ((|ŷ|+|y|)/2))` (NGDBench eq. 11 without the 100 % factor); `ŷ = y = 0` → 0.
pub fn smape(y: &[f64], yhat: &[f64]) -> Result<f64, MetricError> {
    check(y, yhat)?;
    let s: f64 = y
        .iter()
        .zip(yhat)
        .map(|(&a, &b)| {
            let den = (a.abs() + b.abs()) / 2.0;
            if den == 0.0 {
                0.0
            } else {
                (b - a).abs() / den
            }
        })
        .sum();
    Ok(s / y.len() as f64)
}

/// Mean log relative error `mean(|ln((ŷ+ε)/(y+ε))|)`, ε = 1e-6 (NGDBench eq. 12), computed
/// as `|g(ŷ) − g(y)|` with `g(v) = sign(v)·ln(1+|v|/ε)` (identical for non-negative values).
pub fn mlre(y: &[f64], yhat: &[f64]) -> Result<f64, MetricError> {
    check(y, yhat)?;
    let g = |v: f64| v.signum() * (v.abs() / EPSILON).ln_1p();
    let s: f64 = y.iter().zip(yhat).map(|(&a, &b)| (g(b) - g(a)).abs()).sum();
    Ok(s / y.len() as f64)
}

/// Fraction of positions whose canonical keys are equal: NGDBench Boolean accuracy
/// (Appendix C.2 eq. 8) and step-wise exact match `L_step` (eq. 4).
pub fn exact_match_rate<K: AsRef<[u8]>>(gold: &[K], pred: &[K]) -> Result<f64, MetricError> {
    if gold.len() != pred.len() {
        return Err(MetricError::Length {
            gold: gold.len(),
            pred: pred.len(),
        });
    }
    if gold.is_empty() {
        return Err(MetricError::Empty);
    }
    let hits = gold
        .iter()
        .zip(pred)
        .filter(|(a, b)| a.as_ref() == b.as_ref())
        .count();
    Ok(hits as f64 / gold.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(items: &[&str]) -> Vec<Vec<u8>> {
        items.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    #[test]
    fn sets_and_bags() {
        let s = set_scores(&k(&["a", "b", "c"]), &k(&["b", "c", "d", "d"]), false);
        assert_eq!((s.n_common, s.n_gold, s.n_pred), (2, 3, 3));
        assert!((s.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.jaccard - 0.5).abs() < 1e-12);
        let b = set_scores(&k(&["a", "a", "b"]), &k(&["a", "b", "b"]), true);
        assert_eq!(b.n_common, 2);
        assert!((b.jaccard - 0.5).abs() < 1e-12);
        let e = set_scores::<Vec<u8>>(&[], &[], false);
        assert_eq!(
            (e.precision, e.recall, e.f1, e.jaccard),
            (1.0, 1.0, 1.0, 1.0)
        );
        let e = set_scores(&k(&["a"]), &[], false);
        assert_eq!(
            (e.precision, e.recall, e.f1, e.jaccard),
            (0.0, 0.0, 0.0, 0.0)
        );
    }

    #[test]
    fn numeric() {
        assert_eq!(mdre(&[10.0, 0.0, 4.0], &[12.0, 0.0, 2.0]).unwrap(), 0.2);
        assert!((smape(&[1.0, 0.0], &[3.0, 0.0]).unwrap() - 0.5).abs() < 1e-12);
        let v = msle(&[0.0], &[(1f64).exp() - 1.0]).unwrap();
        assert!((v - 1.0).abs() < 1e-12);
        let m = mlre(&[1.0], &[2.0]).unwrap();
        assert!((m - ((2.0 + EPSILON) / (1.0 + EPSILON)).ln()).abs() < 1e-9);
        assert!(mlre(&[], &[]).is_err());
        assert_eq!(
            msle(&[1.0], &[1.0, 2.0]),
            Err(MetricError::Length { gold: 1, pred: 2 })
        );
    }
}
