//! Writing the noisy graph, the clean graph with opaque ids, and the noise log.
//!
//! Graphs are written as kgbench's `graph.json` (Python's `json.dump(indent=2)`, no final
//! newline), item by item: chunks of items are formatted in parallel (rayon) while the
//! previous batch is written and hashed (SHA-256), so memory stays bounded and the text does
//! not depend on the number of threads.

use std::borrow::Cow;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use sha2::{Digest, Sha256};

use super::apply::Run;
use super::graph::{chunks, Top};
use super::json::{newline, write_str, write_val};
use super::NoiseError;
use crate::neo4j::value::Val;
use crate::neo4j::Dtype;

/// Chunks of items formatted per batch (each chunk is formatted by one thread).
const BATCH_CHUNKS: usize = 16;

/// A file being written: buffered, hashed, removed on drop unless [`Sink::finish`]ed.
pub struct Sink {
    w: Option<BufWriter<File>>,
    h: Sha256,
    /// The file.
    pub path: PathBuf,
}

impl Sink {
    /// Create `path` (a temporary name in the output directory).
    pub fn create(path: PathBuf) -> Result<Sink, NoiseError> {
        let f = File::create(&path).map_err(|e| NoiseError::io(&path, e))?;
        Ok(Sink {
            w: Some(BufWriter::with_capacity(1 << 20, f)),
            h: Sha256::new(),
            path,
        })
    }

    /// Append bytes.
    pub fn put(&mut self, b: &[u8]) -> Result<(), NoiseError> {
        self.h.update(b);
        match &mut self.w {
            Some(w) => w.write_all(b).map_err(|e| NoiseError::io(&self.path, e)),
            None => Ok(()),
        }
    }

    /// Flush and close; the hex SHA-256 of everything written.
    pub fn finish(mut self) -> Result<String, NoiseError> {
        if let Some(w) = self.w.take() {
            // flushed and closed; no fsync: the rename makes the file visible only when whole
            w.into_inner()
                .map_err(|e| NoiseError::io(&self.path, e.into_error()))?;
        }
        let digest = std::mem::take(&mut self.h).finalize();
        self.path = PathBuf::new(); // finished: keep the file
        Ok(hex(&digest))
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if !self.path.as_os_str().is_empty() {
            drop(self.w.take());
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Lower-case hex of bytes.
pub fn hex(b: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// Write the items `order` of an array at nesting level 1 (`"key": [...]`), each rendered by
/// `render` at level 2, in parallel batches.
fn write_array(
    sink: &mut Sink,
    order: &[u32],
    render: &(dyn Fn(u32, &mut Vec<u8>) + Sync),
) -> Result<(), NoiseError> {
    if order.is_empty() {
        return sink.put(b"[]");
    }
    sink.put(b"[")?;
    let parts = chunks(order.len());
    let format = |batch: &[(usize, usize)]| -> Vec<Vec<u8>> {
        batch
            .par_iter()
            .map(|&(lo, hi)| {
                let mut buf = Vec::with_capacity((hi - lo) * 256);
                for (k, &i) in order[lo..hi].iter().enumerate() {
                    if lo + k > 0 {
                        buf.push(b',');
                    }
                    newline(&mut buf, 2);
                    render(i, &mut buf);
                }
                buf
            })
            .collect()
    };
    let mut pending: Vec<Vec<u8>> = Vec::new();
    for batch in parts.chunks(BATCH_CHUNKS) {
        let (written, next) = rayon::join(
            || -> Result<(), NoiseError> {
                for b in &pending {
                    sink.put(b)?;
                }
                Ok(())
            },
            || format(batch),
        );
        written?;
        pending = next;
    }
    for b in &pending {
        sink.put(b)?;
    }
    let mut tail = Vec::new();
    newline(&mut tail, 1);
    tail.push(b']');
    sink.put(&tail)
}

/// What the noisy graph's schema gained so that it still describes (and validates) the graph.
#[derive(Debug, Default, Clone)]
pub struct SchemaAdditions {
    /// `(label, property, datatype)` declared for relabelled nodes.
    pub entity_properties: Vec<(String, String, String)>,
    /// `(label, subj_label, obj_label)` relation triples created by the noise.
    pub relation_triples: Vec<(String, String, String)>,
    /// `(relation triple, property, datatype)` declared for retyped / re-ended relations.
    pub relation_properties: usize,
    /// Values whose datatype differs from the one their new label declares.
    pub datatype_conflicts: usize,
}

type RelKey = (String, String, String);

fn props_of(v: Option<&Val<'_>>) -> Vec<(String, String)> {
    match v {
        Some(Val::Obj(pairs)) => pairs
            .iter()
            .filter_map(|(k, d)| Some((k.to_string(), d.as_str()?.to_string())))
            .collect(),
        _ => Vec::new(),
    }
}

impl<'d, 'a> Run<'d, 'a> {
    /// The noisy graph's schema: the clean schema, plus the properties of relabelled nodes
    /// under their new label, plus the relation triples (with their edges' properties) that the
    /// noise created; datatypes come from the clean declarations.
    pub fn noisy_schema(&self) -> (Val<'a>, SchemaAdditions) {
        let schema = &self.doc.schema;
        let mut ent_decl: FxHashMap<String, Vec<(String, String)>> = FxHashMap::default();
        if let Some(Val::List(ents)) = schema.get("entities") {
            for e in ents {
                if let Some(l) = e.get("label").and_then(Val::as_str) {
                    ent_decl.insert(l.to_string(), props_of(e.get("properties")));
                }
            }
        }
        let mut rel_decl: FxHashMap<RelKey, Vec<(String, String)>> = FxHashMap::default();
        if let Some(Val::List(rels)) = schema.get("relations") {
            for r in rels {
                let f = |k: &str| r.get(k).and_then(Val::as_str).unwrap_or("").to_string();
                rel_decl.insert(
                    (f("label"), f("subj_label"), f("obj_label")),
                    props_of(r.get("properties")),
                );
            }
        }
        let mut add = SchemaAdditions::default();
        // entity properties of relabelled nodes
        let mut ent_add: FxHashMap<String, Vec<(String, String)>> = FxHashMap::default();
        let g = &self.g;
        let mut relabelled: Vec<u32> = (0..g.nodes.len() as u32)
            .filter(|&i| g.nodes[i as usize].label != g.nodes[i as usize].clean_label)
            .collect();
        relabelled.sort_unstable();
        for i in relabelled {
            let n = &g.nodes[i as usize];
            let (new, clean) = (g.labels.name(n.label), g.labels.name(n.clean_label));
            let item = g.node_item(self.doc, i);
            let Some(Val::Obj(props)) = item.get("properties") else {
                continue;
            };
            for (k, v) in props {
                let declared_new = ent_decl
                    .get(new)
                    .and_then(|p| p.iter().find(|(pk, _)| pk == k))
                    .or_else(|| {
                        ent_add
                            .get(new)
                            .and_then(|p| p.iter().find(|(pk, _)| pk == k))
                    });
                match declared_new {
                    Some((_, d)) => {
                        let ok = matches!(v, Val::Null)
                            || Dtype::parse(d).is_some_and(|dt| dt.accepts(v));
                        if !ok {
                            add.datatype_conflicts += 1;
                        }
                    }
                    None => {
                        let Some((_, d)) = ent_decl
                            .get(clean)
                            .and_then(|p| p.iter().find(|(pk, _)| pk == k))
                        else {
                            continue;
                        };
                        ent_add
                            .entry(new.to_string())
                            .or_default()
                            .push((k.to_string(), d.clone()));
                        add.entity_properties
                            .push((new.to_string(), k.to_string(), d.clone()));
                    }
                }
            }
        }
        // relation triples whose key changed
        let changed: Vec<u32> = g
            .edge_order
            .iter()
            .copied()
            .filter(|&e| {
                let ed = &g.edges[e as usize];
                ed.added
                    || ed.label != ed.clean_label
                    || g.nodes[ed.src as usize].label != g.nodes[ed.src as usize].clean_label
                    || g.nodes[ed.dst as usize].label != g.nodes[ed.dst as usize].clean_label
            })
            .collect();
        // (current key, clean key) of each changed edge as ids, with its property names (read
        // only when the item has properties), in parallel; then grouped
        type Ids = (u32, u32, u32);
        let keyed: Vec<(Ids, Ids, Vec<String>)> = changed
            .par_iter()
            .with_min_len(1024)
            .map(|&e| {
                let ed = &g.edges[e as usize];
                let (s, o) = (&g.nodes[ed.src as usize], &g.nodes[ed.dst as usize]);
                let cur = (ed.label, s.label, o.label);
                let clean = (ed.clean_label, s.clean_label, o.clean_label);
                let no_props = ed.added
                    || (g.relation_canon[e as usize]
                        && self.doc.relation_raw(e as usize).is_some_and(|r| {
                            memchr::memmem::find(r, b"\n      \"properties\": {}").is_some()
                        }));
                let props = if no_props {
                    Vec::new()
                } else {
                    match self.doc.relation(e as usize).get("properties") {
                        Some(Val::Obj(p)) => p.iter().map(|(k, _)| k.to_string()).collect(),
                        _ => Vec::new(),
                    }
                };
                (cur, clean, props)
            })
            .collect();
        let mut groups: FxHashMap<(Ids, Ids), Vec<String>> = FxHashMap::default();
        for (cur, clean, props) in keyed {
            let names = groups.entry((cur, clean)).or_default();
            for p in props {
                if !names.contains(&p) {
                    names.push(p);
                }
            }
        }
        let mut groups: Vec<((Ids, Ids), Vec<String>)> = groups.into_iter().collect();
        groups.sort_unstable_by_key(|g| g.0);
        let name3 = |(t, a, b): Ids| -> RelKey {
            (
                g.types.name(t).to_string(),
                g.labels.name(a).to_string(),
                g.labels.name(b).to_string(),
            )
        };
        let keyed: Vec<(RelKey, RelKey, Vec<String>)> = groups
            .into_iter()
            .map(|((cur, clean), props)| (name3(cur), name3(clean), props))
            .collect();
        let mut rel_add: Vec<(RelKey, Vec<(String, String)>)> = Vec::new();
        let mut rel_add_index: FxHashMap<RelKey, usize> = FxHashMap::default();
        let mut seen: FxHashSet<(RelKey, String)> = FxHashSet::default();
        for (cur, clean, props) in keyed {
            let existing = rel_decl.contains_key(&cur);
            if !existing && !rel_add_index.contains_key(&cur) {
                rel_add_index.insert(cur.clone(), rel_add.len());
                rel_add.push((cur.clone(), Vec::new()));
                add.relation_triples.push(cur.clone());
            }
            for p in props {
                let declared = rel_decl
                    .get(&cur)
                    .is_some_and(|d| d.iter().any(|(k, _)| *k == p));
                if declared || !seen.insert((cur.clone(), p.clone())) {
                    continue;
                }
                let Some((_, d)) = rel_decl
                    .get(&clean)
                    .and_then(|d| d.iter().find(|(k, _)| *k == p))
                else {
                    continue;
                };
                let slot = match rel_add_index.get(&cur) {
                    Some(&i) => i,
                    None => {
                        rel_add_index.insert(cur.clone(), rel_add.len());
                        rel_add.push((cur.clone(), Vec::new()));
                        rel_add.len() - 1
                    }
                };
                rel_add[slot].1.push((p, d.clone()));
                add.relation_properties += 1;
            }
        }
        // the new schema value
        let mut out = schema.clone();
        let str_val = |t: &str| Val::Str(Cow::Owned(t.to_string()));
        if let Val::Obj(pairs) = &mut out {
            for (k, v) in pairs.iter_mut() {
                match (k.as_ref(), v) {
                    ("entities", Val::List(ents)) => {
                        for e in ents.iter_mut() {
                            let Some(l) = e.get("label").and_then(Val::as_str) else {
                                continue;
                            };
                            let Some(extra) = ent_add.get(l) else {
                                continue;
                            };
                            let mut extra = extra.clone();
                            extra.sort();
                            if let Val::Obj(ep) = e {
                                if let Some((_, Val::Obj(pp))) =
                                    ep.iter_mut().find(|(k, _)| k == "properties")
                                {
                                    for (pk, d) in extra {
                                        pp.push((Cow::Owned(pk), str_val(&d)));
                                    }
                                }
                            }
                        }
                    }
                    ("relations", Val::List(rels)) => {
                        // properties added to existing triples
                        for r in rels.iter_mut() {
                            let f =
                                |k: &str| r.get(k).and_then(Val::as_str).unwrap_or("").to_string();
                            let key = (f("label"), f("subj_label"), f("obj_label"));
                            let Some(&i) = rel_add_index.get(&key) else {
                                continue;
                            };
                            if !rel_decl.contains_key(&key) {
                                continue;
                            }
                            let mut extra = rel_add[i].1.clone();
                            extra.sort();
                            if let Val::Obj(rp) = r {
                                if let Some((_, Val::Obj(pp))) =
                                    rp.iter_mut().find(|(k, _)| k == "properties")
                                {
                                    for (pk, d) in extra {
                                        pp.push((Cow::Owned(pk), str_val(&d)));
                                    }
                                }
                            }
                        }
                        // new triples, sorted
                        let mut new: Vec<&(RelKey, Vec<(String, String)>)> = rel_add
                            .iter()
                            .filter(|(k, _)| !rel_decl.contains_key(k))
                            .collect();
                        new.sort_by(|a, b| a.0.cmp(&b.0));
                        for ((l, sl, ol), props) in new {
                            let mut props = props.clone();
                            props.sort();
                            rels.push(Val::Obj(vec![
                                (Cow::Borrowed("label"), str_val(l)),
                                (Cow::Borrowed("subj_label"), str_val(sl)),
                                (Cow::Borrowed("obj_label"), str_val(ol)),
                                (
                                    Cow::Borrowed("properties"),
                                    Val::Obj(
                                        props
                                            .into_iter()
                                            .map(|(k, d)| (Cow::Owned(k), str_val(&d)))
                                            .collect(),
                                    ),
                                ),
                            ]));
                        }
                    }
                    _ => {}
                }
            }
        }
        add.relation_triples.sort();
        add.entity_properties.sort();
        (out, add)
    }

    /// The output order of the nodes: document order, or sorted by opaque id.
    fn node_output_order(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.g.nodes.len() as u32).collect();
        if let Some(o) = &self.opaque {
            order.par_sort_unstable_by_key(|&i| o.nodes[i as usize]);
        }
        order
    }

    /// The output order of `edges`: as given, or sorted by opaque id.
    fn edge_output_order(&self, mut edges: Vec<u32>) -> Vec<u32> {
        if let Some(o) = &self.opaque {
            edges.par_sort_unstable_by_key(|&e| o.edges[e as usize]);
        }
        edges
    }

    /// Write a graph document to `sink`: the clean one (document items, opaque ids) or the
    /// noisy one (current items, `schema` = `noisy_schema`). Returns the SHA-256.
    pub fn write_graph(
        &self,
        mut sink: Sink,
        noisy_schema: Option<&Val<'a>>,
    ) -> Result<String, NoiseError> {
        let noisy = noisy_schema.is_some();
        sink.put(b"{")?;
        for (n, m) in self.doc.members.iter().enumerate() {
            let mut head = Vec::new();
            if n > 0 {
                head.push(b',');
            }
            newline(&mut head, 1);
            let key = match m {
                Top::Schema => "schema",
                Top::Entities => "entities",
                Top::Relations => "relations",
                Top::Other(k, _) => k.as_ref(),
            };
            write_str(&mut head, key);
            head.extend_from_slice(b": ");
            match m {
                Top::Schema => {
                    write_val(&mut head, noisy_schema.unwrap_or(&self.doc.schema), Some(1));
                    sink.put(&head)?;
                }
                Top::Other(_, v) => {
                    write_val(&mut head, v, Some(1));
                    sink.put(&head)?;
                }
                Top::Entities => {
                    sink.put(&head)?;
                    let order = self.node_output_order();
                    let render = |i: u32, buf: &mut Vec<u8>| match self.g.node_state.get(&i) {
                        Some(state) if noisy => {
                            self.write_node_state(buf, i, &state.item, &state.changed, Some(2))
                        }
                        _ => self.write_doc_node(buf, i, Some(2)),
                    };
                    write_array(&mut sink, &order, &render)?;
                }
                Top::Relations => {
                    sink.put(&head)?;
                    let edges: Vec<u32> = if noisy {
                        let mut live: Vec<u32> = (0..self.g.edges.len() as u32)
                            .filter(|&e| self.g.edges[e as usize].alive)
                            .collect();
                        live.sort_unstable();
                        live
                    } else {
                        (0..self.g.raw_edges as u32).collect()
                    };
                    let order = self.edge_output_order(edges);
                    let render = |e: u32, buf: &mut Vec<u8>| {
                        let ed = &self.g.edges[e as usize];
                        let label = if noisy { ed.label } else { ed.clean_label };
                        self.write_edge_item(buf, e, label, Some(2));
                    };
                    write_array(&mut sink, &order, &render)?;
                }
            }
        }
        sink.put(if self.doc.members.is_empty() {
            b"}"
        } else {
            b"\n}"
        })?;
        sink.finish()
    }
}

/// A path in `dir` with a temporary name for `name` (hidden, with the process id).
pub fn temp_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.tmp-{}", std::process::id()))
}
