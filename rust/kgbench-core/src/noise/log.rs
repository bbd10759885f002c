//! The noise log, `noise_log.json` (spec ngdbench.md §2): the repo's `_records.json` —
//! `summary{original_graph, perturbed_graph, noise_statistics, perturbation_logs[]}` and
//! `detailed_records{deleted_edges, added_edges, modified_edges, modified_nodes,
//! noisy_nodes_list, noisy_edges_list}` — without timestamps, plus `seed`, `profile`, `order`,
//! `clean_sha256`, `noisy_sha256` (and `input_sha256`, `opaque_ids`, `clean_graph`,
//! `similarity_method`, `noisy_schema_additions`).
//!
//! Members are in the order they become known: `summary` first (its `perturbation_logs` are
//! written while the noise runs, record by record), then `detailed_records`, the run's facts,
//! and last the three hashes (the log is written while the graphs are). The file is indented
//! like `json.dump(indent=2)` except that each record (and each entry of the id lists) is one
//! line (`json.dumps` separators) — records at column 0 — so a large log stays greppable. A
//! record is written in its perturbation log and again in its `detailed_records` list, as the
//! repo does (the second copy is made by the kernel from the file itself).

use std::borrow::Cow;

use super::apply::{Run, Spool};
use super::graph::prefix_key;
use super::json::{newline, write_str, write_val};
use super::output::SchemaAdditions;
use super::similar;
use super::NoiseError;
use crate::neo4j::value::{parse, Val};

/// The facts of the run that the log states besides the records.
pub struct LogHead<'h> {
    /// Seed.
    pub seed: u64,
    /// The clean graph file written beside the noisy one (opaque ids), if any.
    pub clean_graph: Option<&'h str>,
    /// Schema additions.
    pub additions: &'h SchemaAdditions,
    /// Nodes and edges of the clean graph.
    pub original: (usize, usize),
}

fn int(n: usize) -> Val<'static> {
    Val::Int(n as i128)
}

fn s(t: impl Into<String>) -> Val<'static> {
    Val::Str(Cow::Owned(t.into()))
}

fn obj(pairs: Vec<(&'static str, Val<'static>)>) -> Val<'static> {
    Val::Obj(
        pairs
            .into_iter()
            .map(|(k, v)| (Cow::Borrowed(k), v))
            .collect(),
    )
}

fn graph_size(nodes: usize, edges: usize) -> Val<'static> {
    obj(vec![("nodes", int(nodes)), ("edges", int(edges))])
}

/// `"key": ` at `level` (after a comma unless first).
fn key(out: &mut Vec<u8>, first: bool, level: usize, k: &str) {
    if !first {
        out.push(b',');
    }
    newline(out, level);
    write_str(out, k);
    out.extend_from_slice(b": ");
}

impl<'d, 'a> Run<'d, 'a> {
    /// Write a list of one-line entries as a value at `level`.
    fn put_lines<B: AsRef<[u8]>, I: Iterator<Item = B>>(spool: &mut Spool, level: usize, lines: I) {
        let mut any = false;
        let mut buf = Vec::new();
        for line in lines {
            buf.clear();
            buf.push(if any { b',' } else { b'[' });
            newline(&mut buf, level + 1);
            buf.extend_from_slice(line.as_ref());
            spool.text(&buf);
            any = true;
        }
        if any {
            buf.clear();
            newline(&mut buf, level);
            buf.push(b']');
            spool.text(&buf);
        } else {
            spool.text(b"[]");
        }
    }

    /// Write `n` one-line entries as a list at `level`, entry `k` written by `line(k, buf)`.
    fn put_lines_with(
        spool: &mut Spool,
        level: usize,
        n: usize,
        mut line: impl FnMut(usize, &mut Vec<u8>),
    ) {
        if n == 0 {
            spool.text(b"[]");
            return;
        }
        let mut buf = Vec::with_capacity(1 << 16);
        for k in 0..n {
            buf.push(if k > 0 { b',' } else { b'[' });
            newline(&mut buf, level + 1);
            line(k, &mut buf);
            if buf.len() >= 1 << 15 {
                spool.text(&buf);
                buf.clear();
            }
        }
        newline(&mut buf, level);
        buf.push(b']');
        spool.text(&buf);
    }

    /// Write records `ids` (ascending) as a list at `level`: each run of records that are
    /// adjacent in the file is copied from the file itself (one record per line, at column 0).
    fn put_records(&self, spool: &mut Spool, level: usize, ids: &[u32]) -> Result<(), NoiseError> {
        if ids.is_empty() {
            spool.text(b"[]");
            return Ok(());
        }
        let (offsets, ends) = (&self.log.offsets, &self.log.ends);
        spool.text(b"[");
        let mut i = 0;
        while i < ids.len() {
            let mut j = i;
            while j + 1 < ids.len()
                && ids[j + 1] == ids[j] + 1
                && offsets[ids[j + 1] as usize] == ends[ids[j] as usize] + 1
            {
                j += 1;
            }
            if i > 0 {
                spool.text(b",");
            }
            let lo = offsets[ids[i] as usize];
            spool.copy_own(lo, ends[ids[j] as usize] - lo)?;
            i = j + 1;
        }
        let mut tail = Vec::new();
        newline(&mut tail, level);
        tail.push(b']');
        spool.text(&tail);
        Ok(())
    }

    /// Write the rest of `noise_log.json` after the perturbation logs, up to its last members
    /// (the SHA-256 of the graphs, known once they are written: [`log_trailer`]). Runs while
    /// the graphs are written.
    pub fn write_log_body(
        &self,
        mut spool: Spool,
        head: &LogHead<'_>,
    ) -> Result<Spool, NoiseError> {
        let lg = &self.log;
        let mut out = Vec::new();
        if lg.types.is_empty() {
            out.push(b']');
        } else {
            newline(&mut out, 2);
            out.push(b']');
        }
        key(&mut out, false, 2, "original_graph");
        write_val(
            &mut out,
            &graph_size(head.original.0, head.original.1),
            Some(2),
        );
        key(&mut out, false, 2, "perturbed_graph");
        write_val(
            &mut out,
            &graph_size(self.g.nodes.len(), self.g.edge_count()),
            Some(2),
        );
        key(&mut out, false, 2, "noise_statistics");
        let stats = obj(vec![
            ("noisy_nodes_count", int(lg.noisy_nodes.len())),
            ("noisy_edges_count", int(lg.noisy_edges.len())),
            ("deleted_edges_count", int(lg.deleted_edges.len())),
            ("added_edges_count", int(lg.added_edges.len())),
            ("modified_edges_count", int(lg.modified_edges.len())),
            ("modified_nodes_count", int(lg.modified_nodes.len())),
        ]);
        write_val(&mut out, &stats, Some(2));
        newline(&mut out, 1);
        out.push(b'}');
        // detailed records
        key(&mut out, false, 1, "detailed_records");
        out.push(b'{');
        let lists: [(&str, &[u32]); 4] = [
            ("deleted_edges", &lg.deleted_edges),
            ("added_edges", &lg.added_edges),
            ("modified_edges", &lg.modified_edges),
            ("modified_nodes", &lg.modified_nodes),
        ];
        for (n, (k, ids)) in lists.iter().enumerate() {
            key(&mut out, n == 0, 2, k);
            spool.text(&out);
            out.clear();
            self.put_records(&mut spool, 2, ids)?;
        }
        key(&mut out, false, 2, "noisy_nodes_list");
        spool.text(&out);
        out.clear();
        // sorted by id: by the ids' first 16 bytes, then (ties only) by the whole ids
        let mut nodes: Vec<(u128, u32)> = lg
            .noisy_nodes
            .iter()
            .map(|&i| (prefix_key(self.node_out(i)), i))
            .collect();
        nodes.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| self.node_out(a.1).cmp(self.node_out(b.1)))
        });
        Self::put_lines_with(&mut spool, 2, nodes.len(), |k, b| {
            write_str(b, self.node_out(nodes[k].1));
        });
        key(&mut out, false, 2, "noisy_edges_list");
        spool.text(&out);
        out.clear();
        let ends = |e: u32| {
            let ed = &self.g.edges[e as usize];
            (
                self.edge_out(e),
                self.node_out(ed.src),
                self.node_out(ed.dst),
            )
        };
        let mut edges: Vec<(u128, u32)> = lg
            .noisy_edges
            .iter()
            .map(|&e| (prefix_key(self.edge_out(e)), e))
            .collect();
        edges.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| ends(a.1).cmp(&ends(b.1))));
        Self::put_lines_with(&mut spool, 2, edges.len(), |x, b| {
            let (k, src, dst) = ends(edges[x].1);
            b.push(b'[');
            write_str(b, src);
            b.extend_from_slice(b", ");
            write_str(b, dst);
            b.extend_from_slice(b", ");
            write_str(b, k);
            b.push(b']');
        });
        newline(&mut out, 1);
        out.push(b'}');
        // the run's facts
        key(&mut out, false, 1, "seed");
        write_val(&mut out, &Val::Int(i128::from(head.seed)), Some(1));
        key(&mut out, false, 1, "profile");
        let profile = parse(self.profile.text.as_bytes()).unwrap_or(Val::Null);
        write_val(&mut out, &profile, Some(1));
        key(&mut out, false, 1, "order");
        let order = Val::List(lg.types.iter().map(|t| s(t.kind.name())).collect());
        write_val(&mut out, &order, Some(1));
        key(&mut out, false, 1, "opaque_ids");
        write_val(&mut out, &Val::Bool(self.opaque.is_some()), Some(1));
        key(&mut out, false, 1, "clean_graph");
        write_val(&mut out, &head.clean_graph.map_or(Val::Null, s), Some(1));
        key(&mut out, false, 1, "similarity_method");
        write_str(&mut out, similar::METHOD);
        key(&mut out, false, 1, "noisy_schema_additions");
        out.push(b'{');
        let add = head.additions;
        let triple = |t: &(String, String, String)| {
            let mut b = Vec::new();
            write_val(
                &mut b,
                &Val::List(vec![s(t.0.clone()), s(t.1.clone()), s(t.2.clone())]),
                None,
            );
            b
        };
        key(&mut out, true, 2, "entity_properties");
        spool.text(&out);
        out.clear();
        Self::put_lines(&mut spool, 2, add.entity_properties.iter().map(triple));
        key(&mut out, false, 2, "relation_triples");
        spool.text(&out);
        out.clear();
        Self::put_lines(&mut spool, 2, add.relation_triples.iter().map(triple));
        key(&mut out, false, 2, "relation_properties");
        write_val(&mut out, &int(add.relation_properties), Some(2));
        key(&mut out, false, 2, "datatype_conflicts");
        write_val(&mut out, &int(add.datatype_conflicts), Some(2));
        newline(&mut out, 1);
        out.push(b'}');
        spool.text(&out);
        spool.check()?;
        Ok(spool)
    }
}

/// The last members of `noise_log.json` and its end: `input_sha256`, `clean_sha256` (of the
/// clean graph paired with the noisy one: the input, or `clean_graph.json`), `noisy_sha256`.
pub fn log_trailer(input: &str, clean: &str, noisy: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for (k, v) in [
        ("input_sha256", input),
        ("clean_sha256", clean),
        ("noisy_sha256", noisy),
    ] {
        key(&mut out, false, 1, k);
        write_str(&mut out, v);
    }
    out.extend_from_slice(b"\n}\n");
    out
}
