//! Type-swap similarity (spec ngdbench.md §3 `relation_type_noise` / `node_type_noise`, §6
//! item 2): the cosine of character-trigram count vectors of two type names.
//!
//! A name is lower-cased, a camelCase boundary and `_` / `-` become a space, and the text is
//! padded with one space on each side; its trigrams are the windows of 3 characters. The
//! repo embeds names with all-MiniLM-L6-v2; kgbench uses this model-free measure (logged as
//! [`METHOD`]) so that the swap is deterministic and needs no download.

use rustc_hash::FxHashMap;

/// The `similarity_method` written to the log.
pub const METHOD: &str = "char_trigram_cosine";

/// The trigram counts of `name` (see the module text for the normalisation).
pub fn trigrams(name: &str) -> FxHashMap<[char; 3], u32> {
    let mut text: Vec<char> = vec![' '];
    let mut prev: Option<char> = None;
    for c in name.chars() {
        if c == '_' || c == '-' {
            text.push(' ');
        } else {
            if c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
                text.push(' ');
            }
            text.extend(c.to_lowercase());
        }
        prev = Some(c);
    }
    text.push(' ');
    let mut counts = FxHashMap::default();
    for w in text.windows(3) {
        *counts.entry([w[0], w[1], w[2]]).or_insert(0) += 1;
    }
    counts
}

/// The cosine of two trigram count vectors (0 when either is empty).
pub fn cosine(a: &FxHashMap<[char; 3], u32>, b: &FxHashMap<[char; 3], u32>) -> f64 {
    let norm = |m: &FxHashMap<[char; 3], u32>| {
        m.values()
            .map(|&c| f64::from(c) * f64::from(c))
            .sum::<f64>()
            .sqrt()
    };
    let (na, nb) = (norm(a), norm(b));
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let dot: f64 = small
        .iter()
        .filter_map(|(k, &c)| large.get(k).map(|&d| f64::from(c) * f64::from(d)))
        .sum();
    dot / (na * nb)
}

/// For each of `names` (distinct, sorted), the most similar *other* name and the similarity:
/// the highest cosine, ties broken by the smaller name (byte order). `None` when there is no
/// other name.
pub fn nearest_table(names: &[String]) -> Vec<Option<(usize, f64)>> {
    let grams: Vec<_> = names.iter().map(|n| trigrams(n)).collect();
    (0..names.len())
        .map(|i| {
            let mut best: Option<(usize, f64)> = None;
            for j in 0..names.len() {
                if j == i {
                    continue;
                }
                let s = cosine(&grams[i], &grams[j]);
                best = match best {
                    Some((bj, bs)) if bs > s || (bs == s && names[bj] <= names[j]) => {
                        Some((bj, bs))
                    }
                    _ => Some((j, s)),
                };
            }
            best
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_names_score_one_and_disjoint_zero() {
        let a = trigrams("hasGenre");
        assert!((cosine(&a, &trigrams("has_genre")) - 1.0).abs() < 1e-12);
        assert_eq!(cosine(&trigrams("abc"), &trigrams("xyz")), 0.0);
    }

    #[test]
    fn nearest_prefers_shared_trigrams_and_breaks_ties_by_name() {
        let names: Vec<String> = ["bornIn", "diedIn", "hasFather", "hasMother"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let t = nearest_table(&names);
        assert_eq!(names[t[2].unwrap().0], "hasMother");
        assert_eq!(names[t[3].unwrap().0], "hasFather");
        // a tie: both others share nothing with "x"; the smaller name wins
        let names: Vec<String> = ["b", "c", "x"].iter().map(|s| s.to_string()).collect();
        let t = nearest_table(&names);
        assert_eq!(t[2], Some((0, 0.0)));
        assert_eq!(nearest_table(&["only".to_string()]), vec![None]);
    }
}
