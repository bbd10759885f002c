//! AHU canonical form of rooted, node-labeled trees (Aho, Hopcroft & Ullman,
//! 1974; the encoding the GTSQA notation simplifies, seed Appendix A.2).

use std::cmp::Ordering;

use super::graph::Workspace;

/// Why [`canonical_form`] rejected its input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotATree {
    /// The edges (with the root) do not form one connected component.
    #[error("not a tree: the graph is not connected")]
    Disconnected,
    /// The undirected multigraph has a cycle, self-loop or parallel edge.
    #[error("not a tree: the graph has a cycle (or a self-loop or parallel edges)")]
    Cycle,
}

/// The AHU canonical string of the undirected tree `edges` on nodes
/// `0..n_nodes`, rooted at `root`, with an optional label per node.
///
/// Each node is written `(` + label + its children's codes + `)`; a label's
/// `(`, `)` and `\` are escaped with `\`, and an unlabeled node has the empty
/// label, so an unlabeled 3-node path rooted at an end is `((()))`. Children
/// are ordered by (label, then their own children's order, lexicographically),
/// computed level by level as in AHU, so the string is the same for two inputs
/// iff they are isomorphic as rooted labeled trees. O(n log n) time (the
/// sorts); linear apart from sorting.
///
/// # Errors
/// [`NotATree`] when the graph is disconnected or has a cycle.
///
/// # Panics
/// When a node id is `>= n_nodes` or `labels` is shorter than `n_nodes`.
pub fn canonical_form(
    ws: &mut Workspace,
    n_nodes: u32,
    edges: &[[u32; 2]],
    root: u32,
    labels: Option<&[&str]>,
) -> Result<String, NotATree> {
    let n = n_nodes as usize;
    ws.build_adjacency(n, edges);
    let (connected, cycle) = ws.components(n, edges);
    if cycle {
        return Err(NotATree::Cycle);
    }
    if !connected {
        return Err(NotATree::Disconnected);
    }
    ws.bfs(n, root);
    // Label ranks (byte order of the label strings).
    let label_of = |v: usize| labels.map_or("", |l| l[v]);
    let mut order: Vec<u32> = (0..n_nodes).collect();
    order.sort_unstable_by(|&a, &b| label_of(a as usize).cmp(label_of(b as usize)));
    let Workspace {
        dist,
        parent,
        queue,
        adj,
        adj_start,
        key,
        rank,
        kid_start,
        kid_len,
        kids,
        stack,
        ..
    } = ws;
    key.clear();
    key.resize(n, 0);
    let mut r = 0u32;
    for i in 0..order.len() {
        if i > 0 && label_of(order[i - 1] as usize) != label_of(order[i] as usize) {
            r += 1;
        }
        key[order[i] as usize] = r;
    }
    // `queue` is in BFS order, hence grouped by level (`dist`).
    kid_start.clear();
    kid_start.resize(n, 0);
    kid_len.clear();
    kid_len.resize(n, 0);
    kids.clear();
    for &v in queue.iter() {
        let p = parent[v as usize];
        kid_start[v as usize] = kids.len() as u32;
        kids.extend(
            adj[adj_start[v as usize] as usize..adj_start[v as usize + 1] as usize]
                .iter()
                .copied()
                .filter(|&w| w != p),
        );
        kid_len[v as usize] = kids.len() as u32 - kid_start[v as usize];
    }
    rank.clear();
    rank.resize(n, 0);
    let mut end = queue.len();
    while end > 0 {
        let lvl = dist[queue[end - 1] as usize];
        let mut start = end;
        while start > 0 && dist[queue[start - 1] as usize] == lvl {
            start -= 1;
        }
        for &v in &queue[start..end] {
            let (ks, kl) = (kid_start[v as usize] as usize, kid_len[v as usize] as usize);
            kids[ks..ks + kl].sort_unstable_by_key(|&c| rank[c as usize]);
        }
        let kids_of = |v: u32| {
            let ks = kid_start[v as usize] as usize;
            &kids[ks..ks + kid_len[v as usize] as usize]
        };
        let cmp = |&a: &u32, &b: &u32| -> Ordering {
            key[a as usize].cmp(&key[b as usize]).then_with(|| {
                kids_of(a)
                    .iter()
                    .map(|&x| rank[x as usize])
                    .cmp(kids_of(b).iter().map(|&x| rank[x as usize]))
            })
        };
        let slice = &mut queue[start..end];
        sort_dense_ranks(slice, cmp, stack);
        for (&v, &r) in queue[start..end].iter().zip(stack.iter()) {
            rank[v as usize] = r;
        }
        end = start;
    }
    let mut out = String::with_capacity(2 * n);
    const CLOSE: u32 = u32::MAX;
    stack.clear();
    stack.push(root);
    while let Some(v) = stack.pop() {
        if v == CLOSE {
            out.push(')');
            continue;
        }
        out.push('(');
        for ch in label_of(v as usize).chars() {
            if matches!(ch, '(' | ')' | '\\') {
                out.push('\\');
            }
            out.push(ch);
        }
        stack.push(CLOSE);
        let (ks, kl) = (kid_start[v as usize] as usize, kid_len[v as usize] as usize);
        stack.extend(kids[ks..ks + kl].iter().rev());
    }
    Ok(out)
}

/// Sort `slice` (node ids) by `cmp` and write into `ranks` the dense rank of each
/// position: equal keys (isomorphic terms) share a rank, ranks count up from 0.
/// The AHU level step shared by [`canonical_form`] and the GTSQA encoder.
pub(crate) fn sort_dense_ranks(
    slice: &mut [u32],
    cmp: impl Fn(&u32, &u32) -> Ordering,
    ranks: &mut Vec<u32>,
) {
    slice.sort_unstable_by(&cmp);
    ranks.clear();
    let mut r = 0u32;
    for i in 0..slice.len() {
        if i > 0 && cmp(&slice[i - 1], &slice[i]) != Ordering::Equal {
            r += 1;
        }
        ranks.push(r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cf(n: u32, edges: &[[u32; 2]], root: u32, labels: Option<&[&str]>) -> String {
        canonical_form(&mut Workspace::default(), n, edges, root, labels).unwrap()
    }

    #[test]
    fn unlabeled() {
        assert_eq!(cf(1, &[], 0, None), "()");
        assert_eq!(cf(3, &[[0, 1], [1, 2]], 0, None), "((()))");
        assert_eq!(cf(3, &[[0, 1], [1, 2]], 1, None), "(()())");
        // Same rooted shape, different node numbering and edge direction.
        let a = cf(5, &[[0, 1], [1, 2], [0, 3], [3, 4]], 0, None);
        let b = cf(5, &[[4, 0], [2, 4], [1, 0], [3, 1]], 0, None);
        assert_eq!(a, b);
        let c = cf(5, &[[0, 1], [1, 2], [1, 3], [0, 4]], 0, None);
        assert_ne!(a, c);
    }

    #[test]
    fn labels_matter_and_are_escaped() {
        let l1 = ["a", "s", "s"];
        let l2 = ["a", "s", "x"];
        assert_eq!(cf(3, &[[0, 1], [0, 2]], 0, Some(&l1)), "(a(s)(s))");
        assert_eq!(cf(3, &[[0, 1], [0, 2]], 0, Some(&l2)), "(a(s)(x))");
        assert_eq!(
            cf(3, &[[0, 2], [0, 1]], 0, Some(&["a", "x", "s"])),
            "(a(s)(x))"
        );
        assert_eq!(cf(2, &[[0, 1]], 0, Some(&["(", "\\"])), "(\\((\\\\))");
    }

    #[test]
    fn rejects_non_trees() {
        let mut ws = Workspace::default();
        assert_eq!(
            canonical_form(&mut ws, 3, &[[0, 1], [1, 2], [2, 0]], 0, None),
            Err(NotATree::Cycle)
        );
        assert_eq!(
            canonical_form(&mut ws, 3, &[[0, 1]], 0, None),
            Err(NotATree::Disconnected)
        );
    }
}
