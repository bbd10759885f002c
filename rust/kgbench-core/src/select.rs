//! PIPE-Cypher's diversity selection ("MMR-style", spec §4; seed
//! pipe-cypher.txt): greedy, per (graph, category) group, each step picks the
//! candidate with the highest score
//!
//! ```text
//! S = 0.24·N(sig) + 0.18·N(family) + 0.22·SN(substructures) + 0.14·SN(schema atoms)
//!   + 0.08·SN(values) + 0.10·(1 − max token-Jaccard to the picked) + 0.04·Q
//!   + 0.03·N(operator combination) − 0.35·[sig over cap] − 0.35·[family over cap]
//! ```
//!
//! N = 1 when the value is new to the picked set; SN = the fraction of the
//! candidate's (distinct) atoms that are new (0 for an empty set); the caps
//! are `max(2, ⌈share·target⌉)` picks per signature (share 0.2) and per
//! template family (0.25), where target = min(target per group, group size);
//! Q is given per candidate. Ties are broken by the larger hex digest of
//! `sha256("{seed}:{group}:tie:{id}")`, as the original does. The score is
//! summed in the original's order in `f64`, so the picks are the original's.
//!
//! The original recomputes every candidate's score from its sets at each
//! step. Here the state is incremental: each candidate keeps its count of
//! unseen atoms (decremented through an inverted index when an atom is first
//! picked) and its running maximum Jaccard to the picked questions (updated
//! against the newest pick only), so a step costs O(group size) plus the
//! postings of the newly seen atoms.

use std::collections::HashMap;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::cancel::Cancelled;

/// The weights of the selection score (spec §4 defaults).
#[derive(Debug, Clone, Copy)]
pub struct Weights {
    pub query_signature: f64,
    pub template_family: f64,
    pub structural_substructure: f64,
    pub schema_atom: f64,
    pub value_atom: f64,
    pub lexical_novelty: f64,
    pub quality: f64,
    pub operator_combination: f64,
    pub cap_penalty: f64,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            query_signature: 0.24,
            template_family: 0.18,
            structural_substructure: 0.22,
            schema_atom: 0.14,
            value_atom: 0.08,
            lexical_novelty: 0.10,
            quality: 0.04,
            operator_combination: 0.03,
            cap_penalty: 0.35,
        }
    }
}

/// One candidate; strings are compared exactly.
#[derive(Debug, Clone, Default)]
pub struct Candidate {
    /// Group key (the original joins graph and category with `::`).
    pub group: String,
    /// Stable id (tie-break and output order).
    pub id: String,
    pub signature: String,
    pub family: String,
    pub operator: String,
    pub substructures: Vec<String>,
    pub schema_atoms: Vec<String>,
    pub values: Vec<String>,
    /// Question tokens (lower-cased words).
    pub tokens: Vec<String>,
    /// Q in `[0, 1]`.
    pub quality: f64,
}

/// Selection parameters.
#[derive(Debug, Clone)]
pub struct Params {
    pub target_per_group: usize,
    pub seed: String,
    pub max_signature_share: f64,
    pub max_family_share: f64,
    pub weights: Weights,
}

/// What happened in one group.
#[derive(Debug, Clone, Default)]
pub struct GroupReport {
    pub group: String,
    pub input: usize,
    pub target: usize,
    /// Indices into the input, in pick order.
    pub picked: Vec<usize>,
    pub query_signatures: usize,
    pub template_families: usize,
    pub structural_substructures: usize,
    pub operator_combinations: usize,
    /// Picks made while over the signature cap / the family cap.
    pub signature_cap_events: usize,
    pub family_cap_events: usize,
}

/// Interns strings of one kind into dense ids.
#[derive(Default)]
struct Ids(HashMap<String, u32>);

impl Ids {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.0.get(s) {
            return i;
        }
        let i = u32::try_from(self.0.len()).unwrap_or(u32::MAX);
        self.0.insert(s.to_string(), i);
        i
    }
    fn set(&mut self, v: &[String]) -> Vec<u32> {
        let mut out: Vec<u32> = v.iter().map(|s| self.id(s)).collect();
        out.sort_unstable();
        out.dedup();
        out
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// An atom kind with incremental novelty.
struct AtomSet {
    sets: Vec<Vec<u32>>,
    postings: Vec<Vec<u32>>,
    seen: Vec<bool>,
    unseen: Vec<u32>,
}

impl AtomSet {
    fn new(sets: Vec<Vec<u32>>, n_atoms: usize) -> Self {
        let mut postings = vec![Vec::new(); n_atoms];
        for (c, s) in sets.iter().enumerate() {
            for &a in s {
                postings[a as usize].push(c as u32);
            }
        }
        let unseen = sets.iter().map(|s| s.len() as u32).collect();
        AtomSet {
            sets,
            postings,
            seen: vec![false; n_atoms],
            unseen,
        }
    }
    #[inline]
    fn novelty(&self, c: usize) -> f64 {
        let n = self.sets[c].len();
        if n == 0 {
            0.0
        } else {
            f64::from(self.unseen[c]) / n as f64
        }
    }
    fn add(&mut self, c: usize) {
        for k in 0..self.sets[c].len() {
            let a = self.sets[c][k] as usize;
            if !self.seen[a] {
                self.seen[a] = true;
                for &d in &self.postings[a] {
                    self.unseen[d as usize] -= 1;
                }
            }
        }
    }
    fn seen_count(&self) -> usize {
        self.seen.iter().filter(|s| **s).count()
    }
}

/// Jaccard similarity of two sorted, distinct id lists (1 when both empty).
fn jaccard(a: &[u32], b: &[u32]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut inter) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                inter += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - inter;
    inter as f64 / union as f64
}

fn hex_sha256(s: &str) -> [u8; 32] {
    let d = Sha256::digest(s.as_bytes());
    let mut out = [0u8; 32];
    out.copy_from_slice(&d);
    out
}

/// Select per group; groups are processed in sorted key order (in parallel)
/// and returned in that order.
///
/// Errors: [`crate::cancel::Cancelled`] once [`crate::cancel::request`] was called (polled
/// before every pick: a pick scans the group's candidates, so a group of `n` candidates and
/// target `t` costs O(n·t)).
pub fn select(cands: &[Candidate], params: &Params) -> Result<Vec<GroupReport>, Cancelled> {
    let mut groups: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, c) in cands.iter().enumerate() {
        groups.entry(c.group.as_str()).or_default().push(i);
    }
    let mut keys: Vec<&str> = groups.keys().copied().collect();
    keys.sort_unstable();
    keys.par_iter()
        .map(|k| select_group(cands, &groups[k], k, params))
        .collect()
}

fn select_group(
    cands: &[Candidate],
    members: &[usize],
    group: &str,
    p: &Params,
) -> Result<GroupReport, Cancelled> {
    let n = members.len();
    let target = p.target_per_group.min(n);
    let w = p.weights;
    let sig_cap = 2usize.max((target as f64 * p.max_signature_share).ceil() as usize);
    let fam_cap = 2usize.max((target as f64 * p.max_family_share).ceil() as usize);
    let (mut sig_ids, mut fam_ids, mut op_ids) = (Ids::default(), Ids::default(), Ids::default());
    let (mut sub_ids, mut schema_ids, mut value_ids, mut tok_ids) = (
        Ids::default(),
        Ids::default(),
        Ids::default(),
        Ids::default(),
    );
    let mut sig = Vec::with_capacity(n);
    let mut fam = Vec::with_capacity(n);
    let mut op = Vec::with_capacity(n);
    let (mut subs, mut schemas, mut values, mut toks) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let mut tie: Vec<[u8; 32]> = Vec::with_capacity(n);
    for &i in members {
        let c = &cands[i];
        sig.push(sig_ids.id(&c.signature) as usize);
        fam.push(fam_ids.id(&c.family) as usize);
        op.push(op_ids.id(&c.operator) as usize);
        subs.push(sub_ids.set(&c.substructures));
        schemas.push(schema_ids.set(&c.schema_atoms));
        values.push(value_ids.set(&c.values));
        toks.push(tok_ids.set(&c.tokens));
        tie.push(hex_sha256(&format!("{}:{group}:tie:{}", p.seed, c.id)));
    }
    let mut subs = AtomSet::new(subs, sub_ids.len());
    let mut schemas = AtomSet::new(schemas, schema_ids.len());
    let mut values = AtomSet::new(values, value_ids.len());
    let mut sig_count = vec![0usize; sig_ids.len()];
    let mut fam_count = vec![0usize; fam_ids.len()];
    let mut op_seen = vec![false; op_ids.len()];
    let mut max_jac: Vec<Option<f64>> = vec![None; n];
    let mut alive = vec![true; n];
    let mut report = GroupReport {
        group: group.to_string(),
        input: n,
        target,
        ..GroupReport::default()
    };
    while report.picked.len() < target {
        crate::cancel::check()?;
        let mut best: Option<(usize, f64)> = None;
        for c in 0..n {
            if !alive[c] {
                continue;
            }
            let nov = |seen: bool| if seen { 0.0 } else { 1.0 };
            let lexical = 1.0 - max_jac[c].unwrap_or(0.0);
            let mut s = w.query_signature * nov(sig_count[sig[c]] > 0)
                + w.template_family * nov(fam_count[fam[c]] > 0)
                + w.structural_substructure * subs.novelty(c)
                + w.schema_atom * schemas.novelty(c)
                + w.value_atom * values.novelty(c)
                + w.lexical_novelty * lexical
                + w.quality * cands[members[c]].quality
                + w.operator_combination * nov(op_seen[op[c]]);
            if sig_count[sig[c]] + 1 > sig_cap {
                s -= w.cap_penalty;
            }
            if fam_count[fam[c]] + 1 > fam_cap {
                s -= w.cap_penalty;
            }
            let better = match best {
                None => true,
                Some((b, bs)) => s > bs || (s == bs && tie[c] > tie[b]),
            };
            if better {
                best = Some((c, s));
            }
        }
        let Some((c, _)) = best else { break };
        if sig_count[sig[c]] + 1 > sig_cap {
            report.signature_cap_events += 1;
        }
        if fam_count[fam[c]] + 1 > fam_cap {
            report.family_cap_events += 1;
        }
        alive[c] = false;
        report.picked.push(members[c]);
        sig_count[sig[c]] += 1;
        fam_count[fam[c]] += 1;
        op_seen[op[c]] = true;
        subs.add(c);
        schemas.add(c);
        values.add(c);
        let picked_tokens = std::mem::take(&mut toks[c]);
        for d in 0..n {
            if alive[d] {
                let j = jaccard(&toks[d], &picked_tokens);
                max_jac[d] = Some(max_jac[d].map_or(j, |m| m.max(j)));
            }
        }
    }
    report.query_signatures = sig_count.iter().filter(|c| **c > 0).count();
    report.template_families = fam_count.iter().filter(|c| **c > 0).count();
    report.structural_substructures = subs.seen_count();
    report.operator_combinations = op_seen.iter().filter(|s| **s).count();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(id: &str, sig: &str, fam: &str, subs: &[&str], q: &str) -> Candidate {
        Candidate {
            group: "g::simple_retrieval".into(),
            id: id.into(),
            signature: sig.into(),
            family: fam.into(),
            operator: "single_hop+plain".into(),
            substructures: subs.iter().map(|s| (*s).to_string()).collect(),
            schema_atoms: vec![],
            values: vec![],
            tokens: q.split(' ').map(str::to_string).collect(),
            quality: 1.0,
        }
    }

    fn params(target: usize) -> Params {
        Params {
            target_per_group: target,
            seed: "13".into(),
            max_signature_share: 0.2,
            max_family_share: 0.25,
            weights: Weights::default(),
        }
    }

    #[test]
    fn prefers_new_signatures_and_families() {
        let c = vec![
            cand("a", "s1", "f1", &["x"], "who owns a"),
            cand("b", "s1", "f1", &["x"], "who owns b"),
            cand("c", "s2", "f2", &["y"], "how many posts"),
        ];
        let r = select(&c, &params(2)).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].picked.len(), 2);
        assert!(r[0].picked.contains(&2));
        assert_eq!(r[0].query_signatures, 2);
    }

    #[test]
    fn caps_penalise_repeats() {
        let mut c: Vec<Candidate> = (0..10)
            .map(|i| cand(&format!("s{i}"), "same", "fam", &["x"], &format!("q {i}")))
            .collect();
        c.push(cand("other", "diff", "fam2", &["x"], "q 0"));
        let r = select(&c, &params(5)).unwrap();
        assert_eq!(r[0].picked.len(), 5);
        assert!(r[0].picked.contains(&10));
        // cap = max(2, ceil(0.2*5)) = 2 per signature: the 4th pick of "same" is over cap
        assert!(r[0].signature_cap_events >= 1);
    }

    #[test]
    fn deterministic_and_groups_sorted() {
        let mut c = vec![cand("a", "s", "f", &[], "x"), cand("b", "s", "f", &[], "x")];
        c[1].group = "a::first".into();
        let r1 = select(&c, &params(1)).unwrap();
        let r2 = select(&c, &params(1)).unwrap();
        assert_eq!(r1[0].group, "a::first");
        assert_eq!(
            r1.iter().map(|g| g.picked.clone()).collect::<Vec<_>>(),
            r2.iter().map(|g| g.picked.clone()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn jaccard_edges() {
        assert_eq!(jaccard(&[], &[]), 1.0);
        assert_eq!(jaccard(&[1], &[]), 0.0);
        assert!((jaccard(&[1, 2, 3], &[2, 3, 4]) - 0.5).abs() < 1e-12);
    }
}
