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

/// Options selecting the original GTSQA code's behaviour where kgbench differs
/// (spec synthkgqa.md §5). The default is kgbench's behaviour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GtsqaOptions {
    /// Lenient EM: an empty final answer matches every gold label, and an empty gold label
    /// matches every response, as in the original's substring test. Default: neither
    /// matches, and an empty final answer is flagged ([`GtsqaScores::empty_answer`]).
    pub empty_matches_all: bool,
    /// Triples: count duplicate retrieved triples in precision's denominator and in
    /// `n_triples`, as the original does. Default: retrieved triples are deduplicated.
    pub count_duplicates: bool,
}

/// GTSQA scores of one question (seed synthkgqa-gtsqa.txt §5.1, Table 2; spec
/// synthkgqa.md §5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GtsqaScores {
    /// EM Hits: 1 if at least one gold answer is matched.
    pub hits: f64,
    /// EM Recall: fraction of gold answers matched (strict: distinct gold answers;
    /// lenient: every gold label, as listed).
    pub recall: f64,
    /// Ground-truth triples: recall / precision / F1 of the retrieved triples.
    pub triple_recall: f64,
    pub triple_precision: f64,
    pub triple_f1: f64,
    /// Answer nodes: 1 if some gold answer node is a node of the retrieved subgraph.
    pub answer_node_hits: f64,
    /// Fraction of gold answer nodes that are nodes of the retrieved subgraph.
    pub answer_node_recall: f64,
    /// Number of retrieved triples (distinct unless [`GtsqaOptions::count_duplicates`]).
    pub n_triples: usize,
    /// The response gave no answer: strict, no predicted answer; lenient, the final
    /// answer `f` is empty (kgbench then matches nothing unless
    /// [`GtsqaOptions::empty_matches_all`]).
    pub empty_answer: bool,
}

/// Ground-truth triple and answer-node scores of one question (spec synthkgqa.md §5
/// "Triples"; the triple fields of [`GtsqaScores`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TripleScores {
    /// `|T ∩ R| / |T|`, T = the gold (full answer subgraph) triples as a set.
    pub recall: f64,
    /// `|T ∩ R| / |R|`; 0 when R is empty (and T is not).
    pub precision: f64,
    /// `2PR / (P + R)`, 0 when `P + R = 0`.
    pub f1: f64,
    pub answer_node_hits: f64,
    pub answer_node_recall: f64,
    /// `|R|`: distinct retrieved triples, or all of them with `count_duplicates`.
    pub n_triples: usize,
}

/// Triple recall / precision / F1 of the retrieved triples R against the gold triples T
/// (exact and directed `(head, relation, tail)` equality), and whether / which fraction
/// of the gold answer nodes are a head or tail of some retrieved triple (spec
/// synthkgqa.md §5). T and the answer nodes are sets. `count_duplicates` makes `|R|`
/// (precision's denominator and `n_triples`) count repeated retrieved triples, as the
/// original code does; by default R is deduplicated.
///
/// Empty sets: with T and R both empty precision and recall are 1; with no gold answer
/// nodes the answer-node scores are 1 when nothing is retrieved, else 0.
pub fn triple_scores<S: AsRef<str>>(
    gold_triples: &[(S, S, S)],
    retrieved_triples: &[(S, S, S)],
    answer_nodes: &[S],
    count_duplicates: bool,
) -> TripleScores {
    fn key<S: AsRef<str>>(t: &(S, S, S)) -> (&str, &str, &str) {
        (t.0.as_ref(), t.1.as_ref(), t.2.as_ref())
    }
    let gt: rustc_hash::FxHashSet<_> = gold_triples.iter().map(key).collect();
    let rt: rustc_hash::FxHashSet<_> = retrieved_triples.iter().map(key).collect();
    let common = gt.iter().filter(|t| rt.contains(*t)).count();
    let n_retrieved = if count_duplicates {
        retrieved_triples.len()
    } else {
        rt.len()
    };
    let both_empty = gt.is_empty() && rt.is_empty();
    let precision = ratio(common, n_retrieved, both_empty);
    let recall = ratio(common, gt.len(), both_empty);
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    let nodes: rustc_hash::FxHashSet<&str> = retrieved_triples
        .iter()
        .flat_map(|t| [t.0.as_ref(), t.2.as_ref()])
        .collect();
    let gold_nodes: rustc_hash::FxHashSet<&str> = answer_nodes.iter().map(|s| s.as_ref()).collect();
    let found = gold_nodes.iter().filter(|n| nodes.contains(*n)).count();
    let (answer_node_hits, answer_node_recall) = if gold_nodes.is_empty() {
        let v = if nodes.is_empty() { 1.0 } else { 0.0 };
        (v, v)
    } else {
        (
            if found > 0 { 1.0 } else { 0.0 },
            found as f64 / gold_nodes.len() as f64,
        )
    };
    TripleScores {
        recall,
        precision,
        f1,
        answer_node_hits,
        answer_node_recall,
        n_triples: n_retrieved,
    }
}

fn with_triples(hits: f64, recall: f64, empty_answer: bool, t: TripleScores) -> GtsqaScores {
    GtsqaScores {
        hits,
        recall,
        triple_recall: t.recall,
        triple_precision: t.precision,
        triple_f1: t.f1,
        answer_node_hits: t.answer_node_hits,
        answer_node_recall: t.answer_node_recall,
        n_triples: t.n_triples,
        empty_answer,
    }
}

/// GTSQA metrics of one question with **strict** set EM. `gold_answers`/`pred_answers`
/// are canonical keys of answer labels (EM = equal keys); triples are
/// `(head, relation, tail)` node/relation ids scored by [`triple_scores`]
/// (`opts.count_duplicates`; `opts.empty_matches_all` does not apply).
///
/// With no gold answers, hits and recall are 0 unless nothing is predicted (then 1), as
/// for [`set_scores`]. Without retrieved triples precision is 0.
pub fn gtsqa_scores<K: AsRef<[u8]>, S: AsRef<str>>(
    gold_answers: &[K],
    pred_answers: &[K],
    gold_triples: &[(S, S, S)],
    retrieved_triples: &[(S, S, S)],
    answer_nodes: &[S],
    opts: GtsqaOptions,
) -> GtsqaScores {
    let answers = set_scores(gold_answers, pred_answers, false);
    let hits = if answers.n_gold == 0 {
        answers.recall
    } else if answers.n_common > 0 {
        1.0
    } else {
        0.0
    };
    with_triples(
        hits,
        answers.recall,
        pred_answers.is_empty(),
        triple_scores(
            gold_triples,
            retrieved_triples,
            answer_nodes,
            opts.count_duplicates,
        ),
    )
}

/// GTSQA metrics of one question with the original's **lenient** EM ([`lenient_match`]
/// of the free-text `response` against the gold answer labels) and [`triple_scores`].
pub fn gtsqa_scores_lenient<L: AsRef<str>, S: AsRef<str>>(
    gold_labels: &[L],
    response: &str,
    gold_triples: &[(S, S, S)],
    retrieved_triples: &[(S, S, S)],
    answer_nodes: &[S],
    opts: GtsqaOptions,
) -> GtsqaScores {
    let m = lenient_match(response, gold_labels, opts.empty_matches_all);
    with_triples(
        m.hits,
        m.recall,
        m.empty_answer,
        triple_scores(
            gold_triples,
            retrieved_triples,
            answer_nodes,
            opts.count_duplicates,
        ),
    )
}

/// Result of [`lenient_match`].
#[derive(Debug, Clone, PartialEq)]
pub struct LenientMatch {
    /// The normalised final answer `f` that was compared.
    pub final_answer: String,
    /// Per gold label (in the order given): whether it matched.
    pub matched: Vec<bool>,
    /// 1 if some gold label matched.
    pub hits: f64,
    /// Fraction of the gold labels (as listed, duplicates included) that matched; 0 with
    /// no gold labels.
    pub recall: f64,
    /// `f` is empty (an empty response, `{}`, or only spaces).
    pub empty_answer: bool,
}

/// Python's `str.isspace` set: Rust's `White_Space` plus U+001C..U+001F.
fn py_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// GTSQA's answer normalisation: Python `s.strip().replace(" ", "").lower()` (only
/// U+0020 is removed inside the text; the ends lose all whitespace).
pub fn normalize_answer(s: &str) -> String {
    s.trim_matches(py_space).replace(' ', "").to_lowercase()
}

/// The content of the last match of the regex `\{(.*?)\}` in `s` (`.` excludes only
/// `\n`), as Python's `re.findall(...)[-1]`. Linear time.
fn last_braced(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    let mut last = None;
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'{' {
            i += 1;
            continue;
        }
        match b[i + 1..].iter().position(|&c| c == b'}' || c == b'\n') {
            Some(off) if b[i + 1 + off] == b'}' => {
                last = Some(&s[i + 1..i + 1 + off]);
                i += off + 2;
            }
            // A newline before any '}': no match starts at a '{' before that newline.
            Some(off) => i += off + 2,
            None => break,
        }
    }
    last
}

/// The final answer `f` of a response (spec synthkgqa.md §5 EM): the response is
/// normalised by [`normalize_answer`]; `f` is the content of its last `{…}` unless that is
/// `yes` or `no` (or there is none), else the whole normalised response.
pub fn lenient_final_answer(response: &str) -> String {
    let s = normalize_answer(response);
    match last_braced(&s) {
        Some(inner) if inner != "yes" && inner != "no" => inner.to_string(),
        _ => s,
    }
}

/// GTSQA's lenient answer matching (the original code's `exact_match` of
/// `synth_kgqa/eval.py` and `notebooks/paper_analysis.ipynb`; spec synthkgqa.md §5 EM):
/// f = [`lenient_final_answer`] of the response; a gold label a, normalised by
/// [`normalize_answer`], matches if `f == a`, `a ⊂ f` or `f ⊂ a` (substrings). Hits = any
/// match; Recall = the fraction of gold labels matched.
///
/// The original lets an empty f (and an empty gold label) match everything. By default
/// kgbench matches neither and reports an empty f in [`LenientMatch::empty_answer`];
/// `empty_matches_all = true` restores the original behaviour.
pub fn lenient_match<L: AsRef<str>>(
    response: &str,
    gold_labels: &[L],
    empty_matches_all: bool,
) -> LenientMatch {
    let f = lenient_final_answer(response);
    let empty_answer = f.is_empty();
    let matched: Vec<bool> = gold_labels
        .iter()
        .map(|label| {
            let a = normalize_answer(label.as_ref());
            if !empty_matches_all && (f.is_empty() || a.is_empty()) {
                return false;
            }
            f == a || f.contains(a.as_str()) || a.contains(f.as_str())
        })
        .collect();
    let n = matched.iter().filter(|&&m| m).count();
    LenientMatch {
        final_answer: f,
        hits: if n > 0 { 1.0 } else { 0.0 },
        recall: if matched.is_empty() {
            0.0
        } else {
            n as f64 / matched.len() as f64
        },
        matched,
        empty_answer,
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

    /// The worked example of spec synthkgqa.md §5: G = full = {t1, t2, t5}, answer guitar.
    fn example() -> (
        Vec<(&'static str, &'static str, &'static str)>,
        [&'static str; 1],
    ) {
        (
            vec![
                ("Q2911403", "P40", "Aviv"),
                ("Aviv", "P1303", "guitar"),
                ("Q3720616", "P1303", "guitar"),
            ],
            ["guitar"],
        )
    }

    #[test]
    fn gtsqa_worked_example() {
        let (full, answers) = example();
        let retrieved = [
            ("Q2911403", "P40", "Aviv"), // t1
            ("Aviv", "P1303", "guitar"), // t2
            ("Aviv", "P1303", "piano"),  // t3
            ("Q2911403", "P27", "Q801"), // x
        ];
        let t = triple_scores(&full, &retrieved, &answers, false);
        assert!((t.precision - 0.5).abs() < 1e-12);
        assert!((t.recall - 2.0 / 3.0).abs() < 1e-12);
        assert!((t.f1 - 4.0 / 7.0).abs() < 1e-12);
        assert_eq!(
            format!("{:.3} {:.3} {:.3}", t.precision, t.recall, t.f1),
            "0.500 0.667 0.571"
        );
        assert_eq!(
            (t.answer_node_hits, t.answer_node_recall, t.n_triples),
            (1.0, 1.0, 4)
        );
        let s = gtsqa_scores_lenient(
            &["guitar"],
            "It is {Guitar}",
            &full,
            &retrieved,
            &answers,
            GtsqaOptions::default(),
        );
        assert_eq!((s.hits, s.recall, s.empty_answer), (1.0, 1.0, false));
        assert_eq!(
            (s.triple_precision, s.answer_node_hits, s.n_triples),
            (0.5, 1.0, 4)
        );
        // Strict EM: the response text is not an answer label.
        let k = |v: &[&str]| v.iter().map(|x| x.as_bytes().to_vec()).collect::<Vec<_>>();
        let strict = gtsqa_scores(
            &k(&["guitar"]),
            &k(&["It is {Guitar}"]),
            &full,
            &retrieved,
            &answers,
            GtsqaOptions::default(),
        );
        assert_eq!((strict.hits, strict.recall), (0.0, 0.0));
        assert_eq!(strict.triple_f1, s.triple_f1);
    }

    #[test]
    fn triples_duplicates_and_empty() {
        let (full, answers) = example();
        let retrieved = [
            ("Q2911403", "P40", "Aviv"),
            ("Q2911403", "P40", "Aviv"),
            ("Aviv", "P1303", "voice"),
        ];
        let dedup = triple_scores(&full, &retrieved, &answers, false);
        assert_eq!((dedup.n_triples, dedup.precision), (2, 0.5));
        assert_eq!(
            (dedup.answer_node_hits, dedup.answer_node_recall),
            (0.0, 0.0)
        );
        let dup = triple_scores(&full, &retrieved, &answers, true);
        assert_eq!(dup.n_triples, 3);
        assert!((dup.precision - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(dup.recall, dedup.recall);
        let none: [(&str, &str, &str); 0] = [];
        let e = triple_scores(&full, &none, &answers, false);
        assert_eq!(
            (e.precision, e.recall, e.f1, e.n_triples),
            (0.0, 0.0, 0.0, 0)
        );
        // Direction counts: (guitar, P1303, Aviv) is not t2.
        let rev = triple_scores(&full, &[("guitar", "P1303", "Aviv")], &answers, false);
        assert_eq!((rev.precision, rev.answer_node_hits), (0.0, 1.0));
    }

    #[test]
    fn lenient_final_answers() {
        for (response, f) in [
            ("It is {Guitar}", "guitar"),
            ("  The Answer  ", "theanswer"),
            ("{a} then {B c}", "bc"),
            ("{yes}", "{yes}"),
            ("I think {No}.", "ithink{no}."),
            ("{x} and {no}", "{x}and{no}"),
            ("{a\nb} {c}", "c"),
            ("{a\nb}", "{a\nb}"),
            ("{a{b}", "a{b"),
            ("{}", ""),
            ("", ""),
            ("\u{1f}\tX Y\n", "xy"),
            ("{ΣΑΣ}", "σας"),
        ] {
            assert_eq!(lenient_final_answer(response), f, "{response:?}");
        }
    }

    #[test]
    fn lenient_matching() {
        let m = lenient_match(
            "It is {Guitar}",
            &["guitar", "Electric Guitar", "piano"],
            false,
        );
        // "guitar" equal; "electricguitar" contains f; "piano" no.
        assert_eq!(m.matched, vec![true, true, false]);
        assert_eq!(m.hits, 1.0);
        assert!((m.recall - 2.0 / 3.0).abs() < 1e-12);
        // f inside a: "{bass}" vs "Bass guitar"; a inside f: "{the guitar}" vs "guitar".
        assert!(lenient_match("{bass}", &["Bass guitar"], false).matched[0]);
        assert!(lenient_match("{the guitar}", &["guitar"], false).matched[0]);
        // yes/no: f is the whole normalised response.
        let y = lenient_match("The answer is {Yes}", &["yes"], false);
        assert_eq!((y.final_answer.as_str(), y.hits), ("theansweris{yes}", 1.0));
        assert_eq!(lenient_match("{no}", &["yes"], false).hits, 0.0);
        // Empty f: kgbench matches nothing and flags it; the original matches everything.
        for response in ["", "{}", "   "] {
            let k = lenient_match(response, &["guitar", "piano"], false);
            assert_eq!((k.hits, k.recall, k.empty_answer), (0.0, 0.0, true));
            let o = lenient_match(response, &["guitar", "piano"], true);
            assert_eq!((o.hits, o.recall, o.empty_answer), (1.0, 1.0, true));
        }
        // An empty gold label: no match by default, matches anything in compat mode.
        assert_eq!(lenient_match("{piano}", &[" "], false).hits, 0.0);
        assert_eq!(lenient_match("{piano}", &[" "], true).hits, 1.0);
        // No gold labels.
        let none: [&str; 0] = [];
        let n = lenient_match("{x}", &none, true);
        assert_eq!((n.hits, n.recall), (0.0, 0.0));
        // Recall counts labels as listed.
        let d = lenient_match("{a}", &["A", "a", "b"], false);
        assert!((d.recall - 2.0 / 3.0).abs() < 1e-12);
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
