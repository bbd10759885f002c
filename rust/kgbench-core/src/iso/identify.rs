//! Answer-subgraph identification: the checks of [`super::graph`] and the GTSQA identifier
//! of a valid answer tree, by the small-tree fast path ([`super::small`]) or the general
//! AHU encoder ([`super::gtsqa`]). Above the encoders, which share [`super::graph`]'s types.

use super::graph::{Analysis, AnswerSubgraph, Workspace, NONE};
use super::gtsqa::{parse_identifier, IdentifierError};

/// Check `g` and, when it is a valid answer tree, compute its GTSQA identifier.
///
/// Runs in O(V + E) plus the sorting of sibling terms.
///
/// # Panics
/// When a node id in `g` is `>= g.n_nodes`.
pub fn analyze(ws: &mut Workspace, g: &AnswerSubgraph<'_>) -> Analysis {
    let mut out = String::new();
    if let Some(t) = super::small::try_encode(g, &mut out) {
        return valid_analysis(g, out, t);
    }
    analyze_general(ws, g)
}

fn valid_analysis(
    g: &AnswerSubgraph<'_>,
    identifier: String,
    t: super::small::SmallTree,
) -> Analysis {
    Analysis {
        identifier: Some(identifier),
        n_hops: Some(t.n_hops),
        n_seeds: t.n_seeds,
        n_edges: g.edges.len() as u32,
        n_nodes: g.n_nodes,
        is_tree: true,
        is_connected: true,
        has_cycle: false,
        hanging_branches: false,
        answer_is_seed: false,
        internal_seeds: false,
        answer_missing: false,
        missing_seeds: false,
    }
}

/// Append the identifier of `g` to `out` and return `true`, or return `false`
/// (with `out` unchanged) when `g` is not a valid answer tree.
pub(crate) fn identify_into(ws: &mut Workspace, g: &AnswerSubgraph<'_>, out: &mut String) -> bool {
    if super::small::try_encode(g, out).is_some() {
        return true;
    }
    match analyze_general(ws, g).identifier {
        Some(id) => {
            out.push_str(&id);
            true
        }
        None => false,
    }
}

/// [`analyze`] without the small-tree fast path (any size).
pub fn analyze_general(ws: &mut Workspace, g: &AnswerSubgraph<'_>) -> Analysis {
    let n = g.n_nodes as usize;
    ws.build_adjacency(n, g.edges);
    let (is_connected, has_cycle) = ws.components(n, g.edges);
    ws.is_seed.clear();
    ws.is_seed.resize(n, false);
    let mut n_seeds = 0u32;
    let mut missing_seeds = false;
    let mut internal_seeds = false;
    for &s in g.seeds {
        if !ws.is_seed[s as usize] {
            ws.is_seed[s as usize] = true;
            n_seeds += 1;
            let d = ws.deg[s as usize];
            missing_seeds |= d == 0;
            internal_seeds |= d >= 2;
        }
    }
    let answer_missing = ws.deg[g.answer as usize] == 0;
    let answer_is_seed = ws.is_seed[g.answer as usize];
    let mut hanging_branches = false;
    let mut n_nodes = 0u32;
    for v in 0..n {
        let d = ws.deg[v];
        n_nodes += u32::from(d > 0);
        hanging_branches |= d == 1 && !ws.is_seed[v] && v as u32 != g.answer;
    }
    let n_hops = if answer_missing {
        None
    } else {
        ws.bfs(n, g.answer);
        g.seeds
            .iter()
            .map(|&s| ws.dist[s as usize])
            .filter(|&d| d != NONE)
            .max()
    };
    let mut analysis = Analysis {
        identifier: None,
        n_hops,
        n_seeds,
        n_edges: g.edges.len() as u32,
        n_nodes,
        is_tree: is_connected && !has_cycle,
        is_connected,
        has_cycle,
        hanging_branches,
        answer_is_seed,
        internal_seeds,
        answer_missing,
        missing_seeds,
    };
    let valid = !g.edges.is_empty()
        && n_seeds > 0
        && analysis.is_tree
        && !answer_missing
        && !missing_seeds
        && !answer_is_seed
        && !hanging_branches
        && !internal_seeds;
    if valid {
        let mut out = String::new();
        super::gtsqa::encode_rooted_tree(ws, n, g.answer, &mut out);
        analysis.identifier = Some(out);
    }
    analysis
}

/// The canonical spelling of a (possibly non-canonical) identifier, e.g.
/// `"((1)(1)(2))"` -> `"((2)(1)(1))"`.
///
/// # Errors
/// [`IdentifierError`] when `identifier` does not parse.
pub fn canonical_identifier(identifier: &str) -> Result<String, IdentifierError> {
    let t = parse_identifier(identifier)?;
    let mut ws = Workspace::default();
    let a = analyze(
        &mut ws,
        &AnswerSubgraph {
            n_nodes: t.n_nodes,
            edges: &t.edges,
            answer: t.answer,
            seeds: &t.seeds,
        },
    );
    Ok(a.identifier
        .expect("a parsed identifier is a valid answer tree"))
}
