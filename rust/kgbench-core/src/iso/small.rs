//! Fast path for small answer trees (at most [`MAX_NODES`] nodes): adjacency as
//! bit masks and fixed-size arrays, no heap use except the output. It only
//! recognises *valid* answer trees; anything else (or anything larger) returns
//! `None` and goes through the general path, which computes every defect flag.
//! Both paths produce the same identifiers (checked by the tests).

use std::cmp::Ordering;

use super::graph::AnswerSubgraph;

/// Largest node count handled here.
pub(crate) const MAX_NODES: usize = 32;

/// What the fast path learns about a valid answer tree.
pub(crate) struct SmallTree {
    pub n_hops: u32,
    pub n_seeds: u32,
}

#[derive(Clone, Copy, Default)]
struct Term {
    size: u32,
    depth: u32,
    k: u32,
    kids_start: u8,
    kids_len: u8,
}

struct Arena {
    terms: [Term; MAX_NODES],
    n_terms: usize,
    kids: [u8; MAX_NODES],
    n_kids: usize,
}

fn cmp_terms(arena: &Arena, a: u8, b: u8) -> Ordering {
    let (ta, tb) = (&arena.terms[a as usize], &arena.terms[b as usize]);
    tb.size
        .cmp(&ta.size)
        .then(tb.depth.cmp(&ta.depth))
        .then(tb.k.cmp(&ta.k))
        .then_with(|| {
            let ka = &arena.kids[ta.kids_start as usize..][..ta.kids_len as usize];
            let kb = &arena.kids[tb.kids_start as usize..][..tb.kids_len as usize];
            for (&x, &y) in ka.iter().zip(kb) {
                let o = cmp_terms(arena, x, y);
                if o != Ordering::Equal {
                    return o;
                }
            }
            ka.len().cmp(&kb.len())
        })
}

/// Insertion sort (slices here have at most a few dozen items).
fn sort_terms(arena: &mut Arena, start: usize, len: usize) {
    for i in 1..len {
        let mut j = i;
        while j > 0
            && cmp_terms(arena, arena.kids[start + j - 1], arena.kids[start + j])
                == Ordering::Greater
        {
            arena.kids.swap(start + j - 1, start + j);
            j -= 1;
        }
    }
}

/// Build the term entering `v` from `parent`; returns its arena index.
fn build(adj: &[u32; MAX_NODES], arena: &mut Arena, mut parent: usize, mut v: usize) -> u8 {
    let mut k = 1;
    let mut children = adj[v] & !(1 << parent);
    while children.count_ones() == 1 {
        parent = v;
        v = children.trailing_zeros() as usize;
        children = adj[v] & !(1 << parent);
        k += 1;
    }
    let id = arena.n_terms;
    arena.n_terms += 1;
    if children == 0 {
        arena.terms[id] = Term {
            size: k,
            depth: k,
            k,
            kids_start: 0,
            kids_len: 0,
        };
        return id as u8;
    }
    let start = arena.n_kids;
    let len = children.count_ones() as usize;
    arena.n_kids += len;
    let (mut size, mut depth) = (k, 0);
    let mut rest = children;
    let mut i = start;
    while rest != 0 {
        let c = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let t = build(adj, arena, v, c);
        arena.kids[i] = t;
        i += 1;
        size += arena.terms[t as usize].size;
        depth = depth.max(arena.terms[t as usize].depth);
    }
    sort_terms(arena, start, len);
    arena.terms[id] = Term {
        size,
        depth: depth + k,
        k,
        kids_start: start as u8,
        kids_len: len as u8,
    };
    id as u8
}

fn push_number(out: &mut String, mut n: u32) {
    let mut buf = [0u8; 10];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &b in &buf[i..] {
        out.push(b as char);
    }
}

fn emit(arena: &Arena, t: u8, out: &mut String) {
    let term = &arena.terms[t as usize];
    out.push('(');
    if term.kids_len == 0 {
        push_number(out, term.k);
    } else {
        if term.k > 1 {
            push_number(out, term.k);
        }
        for i in 0..term.kids_len as usize {
            emit(arena, arena.kids[term.kids_start as usize + i], out);
        }
    }
    out.push(')');
}

/// Adjacency bit masks of `g` (indexed by node), if `g` is a valid answer tree
/// with at most [`MAX_NODES`] nodes and no parallel edges; `None` otherwise.
fn valid_tree(g: &AnswerSubgraph<'_>) -> Option<([u32; MAX_NODES], u32)> {
    let n = g.n_nodes as usize;
    if n > MAX_NODES || g.edges.len() + 1 != n || g.seeds.is_empty() {
        return None;
    }
    let mut adj = [0u32; MAX_NODES];
    for &[a, b] in g.edges {
        let (a, b) = (a as usize, b as usize);
        if a == b || adj[a] & (1 << b) != 0 {
            return None;
        }
        adj[a] |= 1 << b;
        adj[b] |= 1 << a;
    }
    let answer = g.answer as usize;
    let mut seeds = 0u32;
    for &s in g.seeds {
        seeds |= 1 << s;
    }
    let mut leaves = 0u32;
    for (v, &m) in adj.iter().enumerate().take(n) {
        if m.count_ones() == 1 {
            leaves |= 1 << v;
        }
    }
    if seeds & (1 << answer) != 0 || leaves & !(1 << answer) != seeds {
        return None;
    }
    // Connected (with n - 1 edges: a tree); BFS levels give n_hops.
    let all = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
    let mut seen = 1u32 << answer;
    let mut frontier = seen;
    while frontier != 0 {
        let mut next = 0;
        let mut f = frontier;
        while f != 0 {
            next |= adj[f.trailing_zeros() as usize];
            f &= f - 1;
        }
        frontier = next & !seen;
        seen |= frontier;
    }
    if seen != all {
        return None;
    }
    Some((adj, seeds))
}

/// AHU code of the rooted tree entering `v` (its children: `adj[v] & !from`):
/// `1`, the children's codes in ascending order, `0`, read as a binary number
/// whose highest set bit is the leading `1` (so the value determines the length).
/// `stack[top..]` is scratch space (one entry per node below `v` suffices).
fn shape_code(adj: &[u32; MAX_NODES], from: u32, v: usize, stack: &mut [u64], top: usize) -> u64 {
    let mut m = 0;
    let mut rest = adj[v] & !from;
    while rest != 0 {
        let c = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let code = shape_code(adj, 1 << v, c, stack, top + m);
        // Insertion into the sorted `stack[top..top + m]`.
        let mut j = top + m;
        while j > top && stack[j - 1] > code {
            stack[j] = stack[j - 1];
            j -= 1;
        }
        stack[j] = code;
        m += 1;
    }
    let mut bits = 1u64;
    for &k in &stack[top..top + m] {
        let len = 64 - k.leading_zeros();
        bits = (bits << len) | k;
    }
    bits << 1
}

/// A key of the rooted shape of `g` (answer as root), if `g` is a valid answer
/// tree with at most [`MAX_NODES`] nodes: two such trees get the same key iff
/// they are isomorphic rooted at their answers. In a valid answer tree the
/// seeds are exactly the leaves other than the answer, so the key determines
/// the identifier (memoised by the batch encoder).
pub(crate) fn shape_key(g: &AnswerSubgraph<'_>) -> Option<u64> {
    // 2 bits per node: at most 64 bits.
    let (adj, _) = valid_tree(g)?;
    let mut stack = [0u64; MAX_NODES];
    Some(shape_code(&adj, 0, g.answer as usize, &mut stack, 0))
}

/// The identifier of `g` appended to `out`, if `g` is a valid answer tree with
/// at most [`MAX_NODES`] nodes and no parallel edges; `None` otherwise (then
/// `out` is unchanged).
pub(crate) fn try_encode(g: &AnswerSubgraph<'_>, out: &mut String) -> Option<SmallTree> {
    let (adj, seeds) = valid_tree(g)?;
    let answer = g.answer as usize;
    let mut arena = Arena {
        terms: [Term::default(); MAX_NODES],
        n_terms: 0,
        kids: [0; MAX_NODES],
        n_kids: 0,
    };
    // The root's branches: treat the answer as a branching point.
    let start = 0;
    let len = adj[answer].count_ones() as usize;
    arena.n_kids = len;
    let mut rest = adj[answer];
    let mut i = 0;
    let mut n_hops = 0;
    while rest != 0 {
        let c = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        // `parent` = answer: `adj[c] & !(1 << answer)` are c's children.
        let t = build(&adj, &mut arena, answer, c);
        arena.kids[i] = t;
        n_hops = n_hops.max(arena.terms[t as usize].depth);
        i += 1;
    }
    sort_terms(&mut arena, start, len);
    for i in 0..len {
        emit(&arena, arena.kids[i], out);
    }
    Some(SmallTree {
        n_hops,
        n_seeds: seeds.count_ones(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::graph::Workspace;
    use super::super::identify::analyze_general;
    use super::*;
    use crate::testing::xorshift;

    /// Fast and general paths agree on random trees of 1..=40 nodes, valid or not.
    #[test]
    fn fast_path_matches_general_path() {
        let mut rnd = xorshift::<u32>(0x2545_f491_4f6c_dd1d);
        let mut ws = Workspace::default();
        let (mut fast, mut valid) = (0, 0);
        for round in 0..20_000 {
            let n = 2 + rnd(39);
            let mut edges: Vec<[u32; 2]> = (1..n).map(|c| [rnd(c), c]).collect();
            let mut deg = vec![0u32; n as usize];
            for &[a, b] in &edges {
                deg[a as usize] += 1;
                deg[b as usize] += 1;
            }
            let answer = rnd(n);
            let mut seeds: Vec<u32> = (0..n)
                .filter(|&v| deg[v as usize] == 1 && v != answer)
                .collect();
            match round % 10 {
                0 => edges.push([rnd(n), rnd(n)]),
                1 => seeds.push(answer),
                2 => {
                    seeds.pop();
                }
                _ => {}
            }
            let g = AnswerSubgraph {
                n_nodes: n,
                edges: &edges,
                answer,
                seeds: &seeds,
            };
            let general = analyze_general(&mut ws, &g);
            let mut out = String::new();
            match try_encode(&g, &mut out) {
                Some(t) => {
                    fast += 1;
                    assert_eq!(general.identifier.as_deref(), Some(out.as_str()));
                    assert_eq!(general.n_hops, Some(t.n_hops));
                    assert_eq!(general.n_seeds, t.n_seeds);
                }
                None => assert!(general.identifier.is_none() || n as usize > MAX_NODES),
            }
            valid += usize::from(general.identifier.is_some());
        }
        assert!(fast > 5_000 && valid > fast, "fast {fast}, valid {valid}");
    }

    /// Shape keys exist exactly for the trees `try_encode` accepts, and equal
    /// keys <=> equal identifiers (random trees of 2..=14 nodes, random ids).
    #[test]
    fn shape_keys_match_identifiers() {
        use std::collections::HashMap;
        let mut rnd = xorshift::<u32>(0x9e37_79b9_7f4a_7c15);
        let mut by_key: HashMap<u64, String> = HashMap::new();
        let mut by_id: HashMap<String, u64> = HashMap::new();
        for round in 0..30_000 {
            let n = 2 + rnd(13);
            let mut edges: Vec<[u32; 2]> = (1..n).map(|c| [rnd(c), c]).collect();
            let mut deg = vec![0u32; n as usize];
            for &[a, b] in &edges {
                deg[a as usize] += 1;
                deg[b as usize] += 1;
            }
            let answer = rnd(n);
            let seeds: Vec<u32> = (0..n)
                .filter(|&v| deg[v as usize] == 1 && v != answer)
                .collect();
            if round % 13 == 0 {
                edges.push([rnd(n), rnd(n)]);
            }
            let g = AnswerSubgraph {
                n_nodes: n,
                edges: &edges,
                answer,
                seeds: &seeds,
            };
            let mut out = String::new();
            let encoded = try_encode(&g, &mut out).is_some();
            match shape_key(&g) {
                Some(k) => {
                    assert!(encoded);
                    assert_eq!(by_key.entry(k).or_insert_with(|| out.clone()), &out);
                    assert_eq!(*by_id.entry(out).or_insert(k), k);
                }
                None => assert!(!encoded),
            }
        }
        assert!(by_key.len() > 300, "{} shapes", by_key.len());
    }
}
