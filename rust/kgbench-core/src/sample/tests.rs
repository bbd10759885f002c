use super::*;
use crate::testing::xorshift;
use std::collections::{BTreeMap, BTreeSet};

/// A random graph: `n` nodes over 3 labels, `m` edges over 3 types (self-loops and parallel
/// edges included), node slot 0 = a name (value ids 1..=n/2, some null), edge slot 0 = a
/// year (some null).
fn random_graph(seed: u64, n: usize, m: usize) -> Graph {
    let mut rnd = xorshift::<u64>(seed);
    let node_labels = (0..n).map(|_| rnd(3) as u32).collect();
    let names = (0..n)
        .map(|_| {
            if rnd(5) == 0 {
                0
            } else {
                1 + rnd((n / 2) as u64) as u32
            }
        })
        .collect();
    let mut edge_src = Vec::new();
    let mut edge_dst = Vec::new();
    let mut edge_types = Vec::new();
    let mut years = Vec::new();
    for _ in 0..m {
        // a few hubs: node 0 and 1 take a third of the edges
        let s = if rnd(6) == 0 { 0 } else { rnd(n as u64) as u32 };
        let o = if rnd(6) == 0 { 1 } else { rnd(n as u64) as u32 };
        edge_src.push(s);
        edge_dst.push(o);
        edge_types.push(rnd(3) as u32);
        years.push(if rnd(3) == 0 { 0 } else { 1 + rnd(4) as u32 });
    }
    let values = 2 + (n / 2).max(4);
    let cols = Columns {
        node_labels,
        node_values: vec![names],
        edge_src,
        edge_dst,
        edge_types,
        edge_values: vec![years],
        value_text: (0..values)
            .map(|i| {
                if i == 0 {
                    Vec::new()
                } else {
                    format!("v{i}").into_bytes()
                }
            })
            .collect(),
        label_text: vec![b"A".to_vec(), b"B".to_vec(), b"C".to_vec()],
        type_text: vec![b"r".to_vec(), b"s".to_vec(), b"t".to_vec()],
        node_keys: Vec::new(),
    };
    Graph::new(cols, seed).unwrap()
}

/// Distinct rows of one assignment with their hashes, in hash order.
type RankedRows = BTreeSet<([u8; 16], Vec<u32>)>;

/// Every match by brute force (all node tuples × all distinct edge tuples), projected and
/// ranked: the definition `instantiate` must agree with when `pivot_cap` is `None`.
fn oracle(g: &Graph, p: &Pattern, suffix: &[u8], k: usize) -> Vec<Instantiation> {
    let n = g.node_count() as u32;
    let m = g.relationship_count() as u32;
    let mut rows: BTreeMap<Vec<u32>, RankedRows> = BTreeMap::new();
    let mut nodes = vec![0u32; p.n_nodes];
    let total = (n as u64).pow(p.n_nodes as u32);
    for code in 0..total {
        let mut c = code;
        for v in nodes.iter_mut() {
            *v = (c % n as u64) as u32;
            c /= n as u64;
        }
        let node_ok = p
            .node_reqs
            .iter()
            .all(|&(v, s, r)| holds(g.node_val(nodes[v], s), r));
        if !node_ok {
            continue;
        }
        // candidate edges per relationship variable
        let cands: Vec<Vec<u32>> = p
            .rels
            .iter()
            .enumerate()
            .map(|(ri, &(s, o))| {
                (0..m)
                    .filter(|&e| {
                        g.edge_src[e as usize] == nodes[s]
                            && g.edge_dst[e as usize] == nodes[o]
                            && p.rel_reqs
                                .iter()
                                .filter(|&&(r, _, _)| r == ri)
                                .all(|&(_, slot, req)| holds(g.edge_val(e, slot), req))
                    })
                    .collect()
            })
            .collect();
        let mut idx = vec![0usize; p.rels.len()];
        'outer: loop {
            if cands.iter().any(|c| c.is_empty()) {
                break;
            }
            let edges: Vec<u32> = idx.iter().enumerate().map(|(r, &i)| cands[r][i]).collect();
            let distinct: BTreeSet<u32> = edges.iter().copied().collect();
            if distinct.len() == edges.len() {
                let row: Vec<u32> = p
                    .projection
                    .iter()
                    .map(|pr| {
                        if pr.is_rel {
                            g.edge_val(edges[pr.var], pr.slot)
                        } else {
                            g.node_val(nodes[pr.var], pr.slot)
                        }
                    })
                    .collect();
                let mut assignment: Vec<u32> = nodes.iter().map(|&x| g.label[x as usize]).collect();
                assignment.extend(edges.iter().map(|&e| g.edge_type[e as usize]));
                let mut h = Md5::new();
                for &v in &row {
                    h.update(&g.value_text[v as usize]);
                }
                for (i, &a) in assignment.iter().enumerate() {
                    h.update(if i < p.n_nodes {
                        &g.label_text[a as usize]
                    } else {
                        &g.type_text[a as usize]
                    });
                }
                h.update(suffix);
                rows.entry(assignment)
                    .or_default()
                    .insert((h.finalize().into(), row));
            }
            // next edge tuple
            let mut r = 0;
            loop {
                if r == idx.len() {
                    break 'outer;
                }
                idx[r] += 1;
                if idx[r] < cands[r].len() {
                    break;
                }
                idx[r] = 0;
                r += 1;
            }
        }
    }
    rows.into_iter()
        .map(|(assignment, set)| Instantiation {
            assignment,
            rows: set.into_iter().rev().take(k).map(|(_, r)| r).collect(),
        })
        .collect()
}

fn name(var: usize) -> Projected {
    Projected {
        is_rel: false,
        var,
        slot: 0,
    }
}

/// The shapes of CypherBench's MATCH patterns (spec §3), as kgbench plans them.
fn shapes() -> Vec<Pattern> {
    let named = |vars: &[usize]| -> (Vec<(usize, usize, Req)>, Vec<Projected>) {
        (
            vars.iter().map(|&v| (v, 0, Req::NotNull)).collect(),
            vars.iter().map(|&v| name(v)).collect(),
        )
    };
    let mut out = Vec::new();
    // (n); (n<name>)
    out.push(Pattern {
        n_nodes: 1,
        ..Default::default()
    });
    let (nr, pr) = named(&[0]);
    out.push(Pattern {
        n_nodes: 1,
        node_reqs: nr,
        projection: pr,
        ..Default::default()
    });
    // (n)-[r0]->(m0), reversed
    out.push(Pattern {
        n_nodes: 2,
        rels: vec![(0, 1)],
        ..Default::default()
    });
    out.push(Pattern {
        n_nodes: 2,
        rels: vec![(1, 0)],
        ..Default::default()
    });
    // (n)-[r0]->(m0<name>)
    let (nr, pr) = named(&[1]);
    out.push(Pattern {
        n_nodes: 2,
        rels: vec![(1, 0)],
        node_reqs: nr,
        projection: pr,
        ..Default::default()
    });
    // chains to a named m1, four directions
    for rels in [
        vec![(0, 1), (1, 2)],
        vec![(0, 1), (2, 1)],
        vec![(1, 0), (1, 2)],
        vec![(1, 0), (2, 1)],
    ] {
        let (nr, pr) = named(&[2]);
        out.push(Pattern {
            n_nodes: 3,
            rels,
            node_reqs: nr,
            projection: pr,
            ..Default::default()
        });
    }
    // two named neighbours of n
    for rels in [
        vec![(0, 1), (0, 2)],
        vec![(0, 1), (2, 0)],
        vec![(1, 0), (2, 0)],
    ] {
        let (nr, pr) = named(&[1, 2]);
        out.push(Pattern {
            n_nodes: 3,
            rels,
            node_reqs: nr,
            projection: pr,
            ..Default::default()
        });
    }
    // (n)=(m0) both ways
    out.push(Pattern {
        n_nodes: 2,
        rels: vec![(0, 1), (0, 1)],
        ..Default::default()
    });
    out.push(Pattern {
        n_nodes: 2,
        rels: vec![(1, 0), (1, 0)],
        ..Default::default()
    });
    // optional-match shape: (n)-[r1]->(m1<name>), (n)-[r0]->(m0)
    let (nr, pr) = named(&[2]);
    out.push(Pattern {
        n_nodes: 3,
        rels: vec![(0, 1), (0, 2)],
        node_reqs: nr,
        projection: pr,
        ..Default::default()
    });
    // time-sensitive: r0<start_year,end_year^> and r0<start_year,end_year?> (one slot here:
    // year NOT NULL / IS NULL / free) to a named m0
    for req in [Req::NotNull, Req::IsNull, Req::Free] {
        let (nr, mut pr) = named(&[1]);
        pr.push(Projected {
            is_rel: true,
            var: 0,
            slot: 0,
        });
        out.push(Pattern {
            n_nodes: 2,
            rels: vec![(0, 1)],
            node_reqs: nr,
            rel_reqs: vec![(0, 0, req)],
            projection: pr,
        });
    }
    // two unnamed leaves of one pivot (classes shared)
    out.push(Pattern {
        n_nodes: 3,
        rels: vec![(0, 1), (0, 2)],
        ..Default::default()
    });
    out
}

#[test]
fn exact_mode_equals_brute_force_on_random_graphs() {
    for seed in 1..=12u64 {
        let g = random_graph(seed, 9, 22);
        for (i, p) in shapes().iter().enumerate() {
            for k in [1, 2, 5] {
                let got = instantiate(&g, p, b"cat42", k, None).unwrap();
                let want = oracle(&g, p, b"cat42", k);
                assert_eq!(got, want, "seed {seed}, shape {i} {p:?}, k {k}");
            }
        }
    }
}

#[test]
fn leaf_classes_respect_relationship_isomorphism() {
    // one pivot with exactly one r-edge to a B: (n)-[r0]->(m0),(n)-[r1]->(m1) needs two
    let cols = Columns {
        node_labels: vec![0, 1],
        node_values: vec![],
        edge_src: vec![0],
        edge_dst: vec![1],
        edge_types: vec![0],
        edge_values: vec![],
        value_text: vec![vec![]],
        label_text: vec![b"A".to_vec(), b"B".to_vec()],
        type_text: vec![b"r".to_vec()],
        node_keys: vec![],
    };
    let g = Graph::new(cols, 0).unwrap();
    let p = Pattern {
        n_nodes: 3,
        rels: vec![(0, 1), (0, 2)],
        ..Default::default()
    };
    assert!(instantiate(&g, &p, b"", 2, None).unwrap().is_empty());
    let single = Pattern {
        n_nodes: 2,
        rels: vec![(0, 1)],
        ..Default::default()
    };
    let got = instantiate(&g, &single, b"", 2, None).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].assignment, vec![0, 1, 0]);
    assert_eq!(got[0].rows, vec![Vec::<u32>::new()]);
}

#[test]
fn pivot_cap_bounds_work_and_is_deterministic() {
    let g = random_graph(99, 40, 400);
    let p = &shapes()[11]; // two named neighbours, both incoming
    let capped = instantiate(&g, p, b"x", 2, Some(3)).unwrap();
    assert_eq!(capped, instantiate(&g, p, b"x", 2, Some(3)).unwrap());
    let exact = instantiate(&g, p, b"x", 2, None).unwrap();
    // every capped assignment exists exactly, and a row found under the cap is a real row
    let exact_keys: BTreeSet<_> = exact.iter().map(|i| i.assignment.clone()).collect();
    assert!(capped.iter().all(|i| exact_keys.contains(&i.assignment)));
    assert!(!capped.is_empty());
    // a cap larger than every class gives the exact answer
    assert_eq!(instantiate(&g, p, b"x", 2, Some(10_000)).unwrap(), exact);
}

#[test]
fn bad_snapshots_and_patterns_are_errors() {
    let cols = Columns {
        node_labels: vec![0],
        edge_src: vec![0],
        edge_dst: vec![3],
        edge_types: vec![0],
        label_text: vec![b"A".to_vec()],
        type_text: vec![b"r".to_vec()],
        value_text: vec![vec![]],
        ..Default::default()
    };
    let err = Graph::new(cols, 0).unwrap_err();
    assert!(
        err.to_string()
            .contains("relationship object 3 is not a node"),
        "{err}"
    );
    let g = random_graph(1, 5, 5);
    let p = Pattern {
        n_nodes: 1,
        rels: vec![(0, 2)],
        ..Default::default()
    };
    assert!(matches!(
        instantiate(&g, &p, b"", 1, None),
        Err(SampleError::Pattern(_))
    ));
}
