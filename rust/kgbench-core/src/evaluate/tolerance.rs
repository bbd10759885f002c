//! Optional float tolerance for EX (off by default: the reference compares exactly).
//!
//! Two numbers are *close* when `|a − b| <= rel_tol · max(|a|, |b|)` (Python's
//! `math.isclose` with `abs_tol = 0`; integers are numbers too, so `100` is close to
//! `100.0000001` at `rel_tol = 1e-6`). Strings, booleans and nulls still compare exactly;
//! lists are compared element by element after sorting them (numbers by value), maps key by
//! key. Closeness is not transitive, so the tables are compared by search instead of
//! hashing: a gold column may map to a predicted column only if their values can be paired
//! one to one (ordered: position by position), and a column bijection is accepted when the
//! rows can be paired one to one (bipartite matching; ordered: position by position).
//! Worst case `O(k! · n² · k)` for `k` columns and `n` rows (plus the matchings), so it is
//! meant for the small tables of text-to-Cypher benchmarks.

use std::cmp::Ordering;

use super::table::TableRef;
use super::value::{tag, Value};

/// Decode a canonical key back into a value (integers beyond `i64` become floats).
pub fn decode_key(key: &[u8]) -> Value {
    let mut pos = 0;
    decode(key, &mut pos)
}

fn read_u32(key: &[u8], pos: &mut usize) -> usize {
    let v = u32::from_le_bytes(key[*pos..*pos + 4].try_into().unwrap_or([0; 4]));
    *pos += 4;
    v as usize
}

fn decode(key: &[u8], pos: &mut usize) -> Value {
    let t = key[*pos];
    *pos += 1;
    match t {
        tag::NULL => Value::Null,
        tag::FALSE => Value::Bool(false),
        tag::TRUE => Value::Bool(true),
        tag::INT => {
            let raw = u64::from_be_bytes(key[*pos..*pos + 8].try_into().unwrap_or([0; 8]));
            *pos += 8;
            Value::Int((raw ^ (1u64 << 63)) as i64)
        }
        tag::FLOAT => {
            let raw = u64::from_be_bytes(key[*pos..*pos + 8].try_into().unwrap_or([0; 8]));
            *pos += 8;
            Value::Float(f64::from_bits(raw))
        }
        tag::BIG_INT | tag::STR => {
            let n = read_u32(key, pos);
            let s = String::from_utf8_lossy(&key[*pos..*pos + n]).into_owned();
            *pos += n;
            if t == tag::BIG_INT {
                Value::Float(s.parse().unwrap_or(f64::NAN))
            } else {
                Value::Str(s)
            }
        }
        tag::MAP => {
            let n = read_u32(key, pos);
            let mut pairs = Vec::with_capacity(n);
            for _ in 0..n {
                let k = match decode(key, pos) {
                    Value::Str(s) => s,
                    _ => String::new(),
                };
                pairs.push((k, decode(key, pos)));
            }
            Value::Map(pairs)
        }
        // LIST, TUPLE
        _ => {
            let n = read_u32(key, pos);
            Value::List((0..n).map(|_| decode(key, pos)).collect())
        }
    }
}

fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Null => 0,
        Value::Bool(_) => 1,
        Value::Int(_) | Value::Float(_) => 2,
        Value::Str(_) => 3,
        Value::List(_) => 4,
        Value::Map(_) => 5,
    }
}

/// Sort order for list elements under tolerance: numbers by value.
fn order(a: &Value, b: &Value) -> Ordering {
    match (as_f64(a), as_f64(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        _ => rank(a).cmp(&rank(b)).then_with(|| match (a, b) {
            (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
            (Value::Str(x), Value::Str(y)) => x.cmp(y),
            (Value::List(x), Value::List(y)) => x.len().cmp(&y.len()),
            (Value::Map(x), Value::Map(y)) => x.len().cmp(&y.len()),
            _ => Ordering::Equal,
        }),
    }
}

/// Whether two values are equal up to `rel_tol` on numbers (see the module documentation).
pub fn values_close(a: &Value, b: &Value, rel_tol: f64) -> bool {
    match (a, b) {
        (Value::Int(x), Value::Int(y)) if x == y => true,
        _ => match (as_f64(a), as_f64(b)) {
            (Some(x), Some(y)) => {
                x == y
                    || (x - y).abs() <= rel_tol * x.abs().max(y.abs())
                    || (x.is_nan() && y.is_nan())
            }
            _ => match (a, b) {
                (Value::Null, Value::Null) => true,
                (Value::Bool(x), Value::Bool(y)) => x == y,
                (Value::Str(x), Value::Str(y)) => x == y,
                (Value::List(x), Value::List(y)) => {
                    if x.len() != y.len() {
                        return false;
                    }
                    let mut xs: Vec<&Value> = x.iter().collect();
                    let mut ys: Vec<&Value> = y.iter().collect();
                    xs.sort_by(|p, q| order(p, q));
                    ys.sort_by(|p, q| order(p, q));
                    xs.iter().zip(&ys).all(|(p, q)| values_close(p, q, rel_tol))
                }
                (Value::Map(x), Value::Map(y)) => {
                    x.len() == y.len()
                        && x.iter()
                            .zip(y)
                            .all(|((kx, vx), (ky, vy))| kx == ky && values_close(vx, vy, rel_tol))
                }
                _ => false,
            },
        },
    }
}

/// Is there a perfect matching in the bipartite graph `adj` (left i -> right js)? Kuhn.
fn perfect_matching(adj: &[Vec<usize>], n: usize) -> bool {
    fn augment(u: usize, adj: &[Vec<usize>], seen: &mut [bool], owner: &mut [usize]) -> bool {
        for &v in &adj[u] {
            if !seen[v] {
                seen[v] = true;
                if owner[v] == usize::MAX || augment(owner[v], adj, seen, owner) {
                    owner[v] = u;
                    return true;
                }
            }
        }
        false
    }
    let mut owner = vec![usize::MAX; n];
    for u in 0..adj.len() {
        let mut seen = vec![false; n];
        if !augment(u, adj, &mut seen, &mut owner) {
            return false;
        }
    }
    true
}

/// EX equality with a relative tolerance on numbers (module documentation).
pub fn tables_close(gold: TableRef<'_>, pred: TableRef<'_>, ordered: bool, rel_tol: f64) -> bool {
    if let Some(verdict) = gold.shape_verdict(pred) {
        return verdict;
    }
    let (n, k) = (gold.nrows(), gold.ncols());
    let g: Vec<Value> = (0..n * k).map(|i| decode_key(gold.cell_at(i))).collect();
    let p: Vec<Value> = (0..n * k).map(|i| decode_key(pred.cell_at(i))).collect();
    let close = |a: &Value, b: &Value| values_close(a, b, rel_tol);
    // candidate columns: values pairable one to one (ordered: position by position)
    let cand: Vec<Vec<usize>> = (0..k)
        .map(|i| {
            (0..k)
                .filter(|&j| {
                    if ordered {
                        (0..n).all(|r| close(&g[r * k + i], &p[r * k + j]))
                    } else {
                        let adj: Vec<Vec<usize>> = (0..n)
                            .map(|r| {
                                (0..n)
                                    .filter(|&s| close(&g[r * k + i], &p[s * k + j]))
                                    .collect()
                            })
                            .collect();
                        perfect_matching(&adj, n)
                    }
                })
                .collect()
        })
        .collect();
    let mut perm = vec![usize::MAX; k];
    let mut used = vec![false; k];
    search(0, k, &cand, &mut perm, &mut used, &|perm: &[usize]| {
        if ordered {
            (0..n).all(|r| (0..k).all(|c| close(&g[r * k + c], &p[r * k + perm[c]])))
        } else {
            let adj: Vec<Vec<usize>> = (0..n)
                .map(|r| {
                    (0..n)
                        .filter(|&s| (0..k).all(|c| close(&g[r * k + c], &p[s * k + perm[c]])))
                        .collect()
                })
                .collect();
            perfect_matching(&adj, n)
        }
    })
}

fn search(
    depth: usize,
    k: usize,
    cand: &[Vec<usize>],
    perm: &mut [usize],
    used: &mut [bool],
    accept: &dyn Fn(&[usize]) -> bool,
) -> bool {
    if depth == k {
        return accept(perm);
    }
    for &j in &cand[depth] {
        if !used[j] {
            used[j] = true;
            perm[depth] = j;
            if search(depth + 1, k, cand, perm, used, accept) {
                return true;
            }
            used[j] = false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::table::table_from_json;

    fn close(g: &str, p: &str, ordered: bool, tol: f64) -> bool {
        let (g, p) = (table_from_json(g).unwrap(), table_from_json(p).unwrap());
        tables_close(g.as_ref(), p.as_ref(), ordered, tol)
    }

    #[test]
    fn decode_roundtrip() {
        let v = Value::Map(vec![
            (
                "a".into(),
                Value::List(vec![Value::Int(-3), Value::Float(2.5), Value::Null]),
            ),
            ("b".into(), Value::Bool(true)),
        ]);
        assert_eq!(
            decode_key(&decode_key(&v.canonical_key()).canonical_key()),
            decode_key(&v.canonical_key())
        );
    }

    #[test]
    fn tolerance() {
        assert!(close("[[1.0000001, \"a\"]]", "[[\"a\", 1]]", false, 1e-6));
        assert!(!close("[[1.0000001, \"a\"]]", "[[\"a\", 1]]", false, 1e-9));
        assert!(close(
            "[[[1.0000001, 5]], [2]]",
            "[[2.0], [[5, 1]]]",
            false,
            1e-6
        ));
        assert!(!close("[[1], [2]]", "[[2], [1]]", true, 1e-6));
        assert!(close(
            "[[1, 10], [2, 20]]",
            "[[20.000001, 2], [10, 1]]",
            false,
            1e-6
        ));
        // pairing matters: same column values, different rows
        assert!(!close(
            "[[1, 10], [2, 20]]",
            "[[1, 20], [2, 10]]",
            false,
            1e-6
        ));
        assert!(close("[]", "[]", false, 0.1));
        assert!(!close("[[\"a\"]]", "[[\"b\"]]", false, 0.5));
    }
}
