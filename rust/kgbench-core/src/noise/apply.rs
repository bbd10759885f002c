//! The six noise types (spec ngdbench.md §3), each applied to the **current** graph with
//! `int(n · rate)` targets drawn from its own stream ([`Rng::for_type`]) over candidates
//! sorted by id, and the records of what they did (the repo's `_records.json` layout, §2).

use std::borrow::Cow;

use rustc_hash::FxHashSet;

use super::canon;
use super::canon::Slot;
use super::graph::{Doc, Graph, Names, NodeState};
use super::ids::{self, Opaque};
use super::json::{write_item, write_str, write_val};
use super::profile::{NoiseType, Profile};
use super::rng::Rng;
use super::similar;
use super::typo::{introduce_typo, TypoOp};
use super::NoiseError;
use crate::neo4j::value::Val;
use crate::neo4j::Dtype;

/// Sampled nodes whose items are parsed ahead, in parallel, per batch (a node is drawn at most
/// once per noise type, so its item cannot change before its turn).
const PREFETCH: usize = 8192;

/// A summary entry (`summary` of a perturbation log).
pub type Summary = Vec<(&'static str, Val<'static>)>;

/// What one noise type did.
pub struct TypeLog {
    /// The type.
    pub kind: NoiseType,
    /// Its rate.
    pub rate: f64,
    /// Its records (numbers of [`Log::offsets`]).
    pub records: Vec<u32>,
    /// Its summary.
    pub summary: Summary,
    /// How many elements it changed (deleted, added or modified).
    pub applied: usize,
    /// Its target count.
    pub target: usize,
    /// Nodes and edges of the graph it ran on.
    pub before: (usize, usize),
    /// Nodes and edges of the graph it left.
    pub after: (usize, usize),
    /// Wall seconds it took.
    pub seconds: f64,
}

/// `noise_log.json` while it is written (under a temporary name): its first member,
/// `summary.perturbation_logs`, is written as the noise runs — each record as soon as it is
/// formatted — and the rest after ([`Run::write_log_body`]). Record `r` is the bytes
/// `offsets[r]..ends[r]` of the file (`"\n"` and one line of JSON), so `detailed_records`
/// copies them from the file itself. Removed on drop unless finished.
pub struct Spool {
    w: std::io::BufWriter<std::fs::File>,
    /// The file.
    pub path: std::path::PathBuf,
    /// Bytes written.
    pub pos: u64,
    error: Option<std::io::Error>,
    done: bool,
}

impl Spool {
    /// Create the log file `path` and write its opening.
    pub fn create(path: std::path::PathBuf) -> Result<Spool, NoiseError> {
        let f = std::fs::File::create(&path).map_err(|e| NoiseError::io(&path, e))?;
        let mut s = Spool {
            w: std::io::BufWriter::with_capacity(1 << 20, f),
            path,
            pos: 0,
            error: None,
            done: false,
        };
        s.text(b"{\n  \"summary\": {\n    \"perturbation_logs\": [");
        Ok(s)
    }

    /// Append bytes (an error is kept and reported by [`Spool::check`]).
    pub fn text(&mut self, b: &[u8]) {
        use std::io::Write;
        if self.error.is_none() {
            if let Err(e) = self.w.write_all(b) {
                self.error = Some(e);
            }
        }
        self.pos += b.len() as u64;
    }

    /// Flush; the first write error, if any.
    pub fn check(&mut self) -> Result<(), NoiseError> {
        use std::io::Write;
        if let Some(e) = self.error.take() {
            return Err(NoiseError::io(&self.path, e));
        }
        self.w.flush().map_err(|e| NoiseError::io(&self.path, e))
    }

    /// Append `len` bytes of the file itself from `start` (before the end: by the kernel,
    /// `copy_file_range`).
    pub fn copy_own(&mut self, start: u64, len: u64) -> Result<(), NoiseError> {
        use std::io::{Read, Seek, SeekFrom};
        self.check()?;
        let err = |e| NoiseError::io(&self.path, e);
        let mut src = std::fs::File::open(&self.path).map_err(err)?;
        src.seek(SeekFrom::Start(start)).map_err(err)?;
        let n = std::io::copy(&mut src.take(len), &mut self.w).map_err(err)?;
        if n != len {
            return Err(err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "noise log shorter than written",
            )));
        }
        self.pos += len;
        Ok(())
    }

    /// Flush and close the file, keeping it.
    pub fn finish(mut self) -> Result<(), NoiseError> {
        self.check()?;
        self.done = true;
        Ok(())
    }
}

impl Drop for Spool {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// All records of a run.
#[derive(Default)]
pub struct Log {
    /// Where the records are written.
    pub spool: Option<Spool>,
    /// The start offset of each record in the log file.
    pub offsets: Vec<u64>,
    /// The end offset of each record.
    pub ends: Vec<u64>,
    /// Records made so far (queued or spooled).
    pub n_records: u32,
    /// Per noise type, in run order.
    pub types: Vec<TypeLog>,
    /// Records of deleted edges.
    pub deleted_edges: Vec<u32>,
    /// Records of added edges.
    pub added_edges: Vec<u32>,
    /// Records of modified edges.
    pub modified_edges: Vec<u32>,
    /// Records of modified nodes.
    pub modified_nodes: Vec<u32>,
    /// Nodes any record touched.
    pub noisy_nodes: FxHashSet<u32>,
    /// Edges any record touched.
    pub noisy_edges: FxHashSet<u32>,
}

/// One run: the document, the graph under perturbation, the output ids and the log.
pub struct Run<'d, 'a> {
    /// The clean document.
    pub doc: &'d Doc<'a>,
    /// The graph.
    pub g: Graph<'a>,
    /// Opaque ids (`--opaque-ids`).
    pub opaque: Option<Opaque>,
    /// The records.
    pub log: Log,
    /// The profile.
    pub profile: &'d Profile,
    /// The seed.
    pub seed: u64,
    /// Records of the running noise type, not formatted yet.
    pub pending: Vec<Pending<'a>>,
}

/// A record waiting to be formatted.
pub enum Pending<'a> {
    /// An edge record.
    Edge {
        /// The edge.
        e: u32,
        /// Its type before (`None`: added).
        before: Option<u32>,
        /// Its type after (`None`: deleted).
        after: Option<u32>,
        /// `deleted` / `added` / `modified`.
        op: &'static str,
        /// The `change` member.
        change: Option<Val<'static>>,
    },
    /// A node record.
    Node {
        /// The node.
        i: u32,
        /// Its item before, when the noise had changed it already (else the document's).
        old: Option<Val<'a>>,
        /// `field_changed`.
        field: String,
        /// The `change` member.
        change: Val<'static>,
    },
}

fn int(n: usize) -> Val<'static> {
    Val::Int(n as i128)
}

fn s(text: impl Into<String>) -> Val<'static> {
    Val::Str(Cow::Owned(text.into()))
}

fn obj(pairs: Vec<(&'static str, Val<'static>)>) -> Val<'static> {
    Val::Obj(
        pairs
            .into_iter()
            .map(|(k, v)| (Cow::Borrowed(k), v))
            .collect(),
    )
}

/// `int(n · rate)` as Python computes it.
fn target_of(n: usize, rate: f64) -> usize {
    (n as f64 * rate).floor() as usize
}

/// The attributes of a node item in order: top-level keys, with the keys of `properties`
/// in its place.
fn attributes<'v, 'a>(item: &'v Val<'a>) -> Vec<(Slot, &'v str, &'v Val<'a>)> {
    let mut out = Vec::new();
    if let Val::Obj(pairs) = item {
        for (i, (k, v)) in pairs.iter().enumerate() {
            match (k.as_ref(), v) {
                ("properties", Val::Obj(props)) => {
                    for (j, (pk, pv)) in props.iter().enumerate() {
                        out.push((Slot::Prop(i, j), pk.as_ref(), pv));
                    }
                }
                _ => out.push((Slot::Top(i), k.as_ref(), v)),
            }
        }
    }
    out
}

fn set_slot<'a>(item: &mut Val<'a>, slot: Slot, value: Val<'a>) {
    if let Val::Obj(pairs) = item {
        match slot {
            Slot::Top(i) => pairs[i].1 = value,
            Slot::Prop(i, j) => {
                if let Val::Obj(props) = &mut pairs[i].1 {
                    props[j].1 = value;
                }
            }
        }
    }
}

/// Set top-level key `key` of `item` (added when missing); the slot it replaced, if any.
fn set_key<'a>(item: &mut Val<'a>, key: &str, value: Val<'a>) -> Option<Slot> {
    if let Val::Obj(pairs) = item {
        match pairs.iter().position(|(k, _)| k == key) {
            Some(p) => {
                pairs[p].1 = value;
                return Some(Slot::Top(p));
            }
            None => pairs.push((Cow::Owned(key.to_string()), value)),
        }
    }
    None
}

/// Ends in "id" (or is "id"), case-insensitively: an identifier the noise never touches.
fn id_like(name: &str) -> bool {
    name.to_lowercase().ends_with("id")
}

/// The scale factors of `attribute_noise`, in the repo's order; the last four divide.
const SCALE: [(bool, u32); 8] = [
    (true, 1),
    (true, 2),
    (true, 3),
    (true, 4),
    (false, 1),
    (false, 2),
    (false, 3),
    (false, 4),
];

/// A number scaled by 10^±k: ints stay ints when the result is integral (a declared `int`
/// is rounded), 10^-k is a division (correctly rounded). `None` when not finite.
fn scale(v: &Val<'_>, up: bool, k: u32, declared_int: bool) -> Option<Val<'static>> {
    let p = 10i128.pow(k);
    let pf = p as f64;
    match *v {
        Val::Int(i) => {
            if up {
                match i.checked_mul(p) {
                    Some(r) if i64::try_from(r).is_ok() => Some(Val::Int(r)),
                    _ => Some(Val::Float(i as f64 * pf)).filter(|_| (i as f64 * pf).is_finite()),
                }
            } else if i % p == 0 {
                Some(Val::Int(i / p))
            } else if declared_int {
                Some(Val::Int((i as f64 / pf).round() as i128))
            } else {
                Some(Val::Float(i as f64 / pf))
            }
        }
        Val::Float(f) => {
            let r = if up { f * pf } else { f / pf };
            r.is_finite().then_some(Val::Float(r))
        }
        _ => None,
    }
}

impl<'d, 'a> Run<'d, 'a> {
    /// The output id of node `i`.
    pub fn node_out(&self, i: u32) -> &str {
        match &self.opaque {
            Some(o) => ids::as_str(&o.nodes[i as usize]),
            None => self.g.node_ids.get(i as usize),
        }
    }

    /// The output id of edge `e`.
    pub fn edge_out(&self, e: u32) -> &str {
        match &self.opaque {
            Some(o) => ids::as_str(&o.edges[e as usize]),
            None => self.g.edge_rids.get(e as usize),
        }
    }

    /// Append edge `e`'s item with type `label` (indented at `level`, or compact).
    pub fn write_edge_item(&self, out: &mut Vec<u8>, e: u32, label: u32, level: Option<usize>) {
        let ed = &self.g.edges[e as usize];
        if !ed.added && self.g.relation_canon[e as usize] && matches!(level, None | Some(2)) {
            if let Some(raw) = self.doc.relation_raw(e as usize) {
                // only what differs from the text is looked up
                let mut repl = [("", ""); 4];
                let mut n = 0;
                if label != ed.clean_label {
                    repl[n] = ("label", self.g.types.name(label));
                    n += 1;
                }
                if self.opaque.is_some() {
                    repl[n] = ("rid", self.edge_out(e));
                    repl[n + 1] = ("subj_id", self.node_out(ed.src));
                    repl[n + 2] = ("obj_id", self.node_out(ed.dst));
                    n += 3;
                }
                canon::write_copy(out, raw, &repl[..n], level.is_none());
                return;
            }
        }
        let ov = [
            ("rid", self.edge_out(e)),
            ("label", self.g.types.name(label)),
            ("subj_id", self.node_out(ed.src)),
            ("obj_id", self.node_out(ed.dst)),
        ];
        if ed.added {
            let item = Val::Obj(
                ["rid", "label", "subj_id", "obj_id"]
                    .iter()
                    .map(|k| (Cow::Borrowed(*k), Val::Null))
                    .chain([
                        (Cow::Borrowed("properties"), Val::Obj(Vec::new())),
                        (Cow::Borrowed("provenance"), Val::List(Vec::new())),
                    ])
                    .collect(),
            );
            write_item(out, &item, level, &ov);
        } else {
            write_item(out, &self.doc.relation(e as usize), level, &ov);
        }
    }

    /// Append node `i`'s item `item` with its output id.
    pub fn write_node_item(&self, out: &mut Vec<u8>, i: u32, item: &Val<'_>, level: Option<usize>) {
        write_item(out, item, level, &[("eid", self.node_out(i))]);
    }

    /// Append node `i`'s item as the document has it, with its output id (copied when its
    /// text is canonical).
    pub fn write_doc_node(&self, out: &mut Vec<u8>, i: u32, level: Option<usize>) {
        if self.g.entity_canon[i as usize] && matches!(level, None | Some(2)) {
            if let Some(raw) = self.doc.entity_raw(i as usize) {
                match self.opaque {
                    Some(_) => {
                        canon::write_copy(out, raw, &[("eid", self.node_out(i))], level.is_none())
                    }
                    None => canon::write_copy(out, raw, &[], level.is_none()),
                }
                return;
            }
        }
        self.write_node_item(out, i, &self.doc.entity(i as usize), level);
    }

    /// Append node `i`'s item `item`, which differs from the document's at most in the values
    /// of `changed` (each a scalar), with its output id: spliced into the document's text
    /// when that is canonical, else written from the tree.
    pub fn write_node_state(
        &self,
        out: &mut Vec<u8>,
        i: u32,
        item: &Val<'_>,
        changed: &Option<Vec<Slot>>,
        level: Option<usize>,
    ) {
        if let (Some(slots), true, Some(raw), None | Some(2)) = (
            changed,
            self.g.entity_canon[i as usize],
            self.doc.entity_raw(i as usize),
            level,
        ) {
            let id = self.opaque.as_ref().map(|_| self.node_out(i));
            if canon::splice_values(out, raw, 2, item, slots, id, level.is_none()) {
                return;
            }
        }
        self.write_node_item(out, i, item, level);
    }

    /// Queue an edge record: `{source, target, edge_key, original_attrs, new_attrs, operation,
    /// change?}` (`edge_key` = the rid; `original_attrs` `{}` for an added edge, `new_attrs`
    /// `null` for a deleted one). Records are formatted in parallel when the type ends
    /// ([`Run::flush_records`]).
    fn edge_record(
        &mut self,
        e: u32,
        before: Option<u32>,
        after: Option<u32>,
        op: &'static str,
        change: Option<Val<'static>>,
    ) -> u32 {
        self.log.noisy_edges.insert(e);
        self.pending.push(Pending::Edge {
            e,
            before,
            after,
            op,
            change,
        });
        self.log.n_records += 1;
        self.log.n_records - 1
    }

    /// Queue a node record: `{node_id, original_attrs, new_attrs, operation: "modified",
    /// field_changed, change}`; `new` becomes the node's current item (a node is changed at
    /// most once per noise type, so its item when the type ends is `new`). `slots`: the slots
    /// whose values `new` replaced, or `None` when its shape changed.
    fn node_record(
        &mut self,
        i: u32,
        new: Val<'a>,
        slots: Option<&[Slot]>,
        field: &str,
        change: Val<'static>,
    ) -> u32 {
        let (old, before) = match self.g.node_state.remove(&i) {
            Some(st) => (Some(st.item), st.changed),
            None => (None, Some(Vec::new())),
        };
        let changed = match (before, slots) {
            (Some(mut c), Some(slots)) => {
                for &x in slots {
                    if !c.contains(&x) {
                        c.push(x);
                    }
                }
                Some(c)
            }
            _ => None,
        };
        self.g
            .node_state
            .insert(i, NodeState { item: new, changed });
        self.log.noisy_nodes.insert(i);
        self.pending.push(Pending::Node {
            i,
            old,
            field: field.to_string(),
            change,
        });
        let r = self.log.n_records;
        self.log.n_records += 1;
        self.log.modified_nodes.push(r);
        r
    }

    /// Append the text of a queued record to `out`.
    fn format_record(&self, p: &Pending<'a>, out: &mut Vec<u8>) {
        match p {
            Pending::Edge {
                e,
                before,
                after,
                op,
                change,
            } => {
                let e = *e;
                let ed = &self.g.edges[e as usize];
                out.extend_from_slice(b"{\"source\": ");
                write_str(out, self.node_out(ed.src));
                out.extend_from_slice(b", \"target\": ");
                write_str(out, self.node_out(ed.dst));
                out.extend_from_slice(b", \"edge_key\": ");
                write_str(out, self.edge_out(e));
                out.extend_from_slice(b", \"original_attrs\": ");
                match before {
                    Some(l) => self.write_edge_item(out, e, *l, None),
                    None => out.extend_from_slice(b"{}"),
                }
                out.extend_from_slice(b", \"new_attrs\": ");
                match after {
                    Some(l) => self.write_edge_item(out, e, *l, None),
                    None => out.extend_from_slice(b"null"),
                }
                out.extend_from_slice(b", \"operation\": ");
                write_str(out, op);
                if let Some(c) = change {
                    out.extend_from_slice(b", \"change\": ");
                    write_val(out, c, None);
                }
                out.push(b'}');
            }
            Pending::Node {
                i,
                old,
                field,
                change,
            } => {
                out.extend_from_slice(b"{\"node_id\": ");
                write_str(out, self.node_out(*i));
                out.extend_from_slice(b", \"original_attrs\": ");
                let state = self.g.node_state.get(i);
                match (old, state) {
                    // the slots changed by now include those `old` differs by
                    (Some(v), Some(st)) => self.write_node_state(out, *i, v, &st.changed, None),
                    (Some(v), None) => self.write_node_item(out, *i, v, None),
                    (None, _) => self.write_doc_node(out, *i, None),
                }
                out.extend_from_slice(b", \"new_attrs\": ");
                match state {
                    Some(st) => self.write_node_state(out, *i, &st.item, &st.changed, None),
                    None => self.write_doc_node(out, *i, None),
                }
                out.extend_from_slice(b", \"operation\": \"modified\", \"field_changed\": ");
                write_str(out, field);
                out.extend_from_slice(b", \"change\": ");
                write_val(out, change, None);
                out.push(b'}');
            }
        }
    }

    /// Write the perturbation log of a type: its head, its queued records and its summary. The
    /// records are formatted in parallel (rayon, fixed chunks), a batch at a time, while the
    /// previous batch is written; the text does not depend on the number of threads.
    fn write_type_log(&mut self, kind: NoiseType, rate: f64, summary: &Summary) {
        use rayon::prelude::*;
        /// Records per formatting task.
        const TASK: usize = 512;
        /// Records per batch.
        const BATCH: usize = 1 << 14;
        let pending = std::mem::take(&mut self.pending);
        let mut head = Vec::new();
        if !self.log.types.is_empty() {
            head.push(b',');
        }
        head.extend_from_slice(b"\n      {\n        \"perturbation_type\": ");
        write_str(&mut head, kind.name());
        head.extend_from_slice(b",\n        \"rate\": ");
        write_val(&mut head, &Val::Float(rate), None);
        head.extend_from_slice(b",\n        \"records\": [");
        let mut spool = self
            .log
            .spool
            .take()
            .expect("the log file is set up before the noise");
        spool.text(&head);
        let mut offsets = std::mem::take(&mut self.log.offsets);
        let mut ends = std::mem::take(&mut self.log.ends);
        // one task's text: each record after ",\n" ("\n" for the type's first), with the
        // (start of "\n", end) of each record relative to the buffer
        type Part = (Vec<u8>, Vec<(u32, u32)>);
        let this = &*self;
        let format = |first: usize, batch: &[Pending<'a>]| -> Vec<Part> {
            batch
                .par_chunks(TASK)
                .enumerate()
                .map(|(t, ps)| {
                    let mut buf = Vec::with_capacity(ps.len() * 512);
                    let mut spans = Vec::with_capacity(ps.len());
                    for (k, p) in ps.iter().enumerate() {
                        if first + t * TASK + k > 0 {
                            buf.push(b',');
                        }
                        let at = buf.len() as u32;
                        buf.push(b'\n');
                        this.format_record(p, &mut buf);
                        spans.push((at, buf.len() as u32));
                    }
                    (buf, spans)
                })
                .collect()
        };
        let mut write = |parts: Vec<Part>| {
            for (buf, spans) in parts {
                let base = spool.pos;
                offsets.extend(spans.iter().map(|&(a, _)| base + u64::from(a)));
                ends.extend(spans.iter().map(|&(_, b)| base + u64::from(b)));
                spool.text(&buf);
            }
        };
        let no_records = pending.is_empty();
        let batches: Vec<&[Pending<'a>]> = pending.chunks(BATCH).collect();
        let mut ready: Option<Vec<Part>> = None;
        for k in 0..=batches.len() {
            let todo = ready.take();
            let (_, next) = rayon::join(
                || {
                    if let Some(parts) = todo {
                        write(parts);
                    }
                },
                || batches.get(k).map(|b| format(k * BATCH, b)),
            );
            ready = next;
        }
        drop(batches);
        // the queued records hold trees: freed on every core
        pending.into_par_iter().with_min_len(1024).for_each(drop);
        self.log.offsets = offsets;
        self.log.ends = ends;
        let mut tail = Vec::new();
        if !no_records {
            tail.extend_from_slice(b"\n        ");
        }
        tail.extend_from_slice(b"],\n        \"summary\": ");
        let summary = Val::Obj(
            summary
                .iter()
                .map(|(k, v)| (Cow::Borrowed(*k), v.clone()))
                .collect(),
        );
        super::json::write_val(&mut tail, &summary, Some(4));
        tail.extend_from_slice(b"\n      }");
        spool.text(&tail);
        self.log.spool = Some(spool);
    }

    /// Run noise type `kind` at `rate` on the current graph.
    pub fn apply(&mut self, kind: NoiseType, rate: f64) -> Result<(), NoiseError> {
        let t0 = std::time::Instant::now();
        let mut rng = Rng::for_type(self.seed, kind.name());
        let before = (self.g.nodes.len(), self.g.edge_count());
        let (records, summary, applied, target) = match kind {
            NoiseType::IncompleteEdges => self.incomplete_edges(rate, &mut rng),
            NoiseType::FalseEdges => self.false_edges(rate, &mut rng)?,
            NoiseType::RelationTypeNoise => self.relation_type_noise(rate, &mut rng),
            NoiseType::NameTypos => self.name_typos(rate, &mut rng),
            NoiseType::NodeTypeNoise => self.node_type_noise(rate, &mut rng),
            NoiseType::AttributeNoise => self.attribute_noise(rate, &mut rng),
        };
        self.write_type_log(kind, rate, &summary);
        let after = (self.g.nodes.len(), self.g.edge_count());
        self.log.types.push(TypeLog {
            kind,
            rate,
            records,
            summary,
            applied,
            target,
            before,
            after,
            seconds: t0.elapsed().as_secs_f64(),
        });
        Ok(())
    }

    fn incomplete_edges(&mut self, rate: f64, rng: &mut Rng) -> (Vec<u32>, Summary, usize, usize) {
        let cands = self.g.edge_order.clone();
        let target = target_of(cands.len(), rate);
        let mut records = Vec::new();
        let mut skipped = 0usize;
        for p in rng.sample(cands.len(), target) {
            let e = cands[p as usize];
            let (src, dst, label) = {
                let ed = &self.g.edges[e as usize];
                (ed.src as usize, ed.dst as usize, ed.label)
            };
            if self.profile.avoid_dangling_edges
                && (self.g.degree[src] <= 1 || self.g.degree[dst] <= 1)
            {
                skipped += 1;
                continue;
            }
            let r = self.edge_record(e, Some(label), None, "deleted", None);
            self.g.edges[e as usize].alive = false;
            self.g.degree[src] -= 1;
            self.g.degree[dst] -= 1;
            self.log.deleted_edges.push(r);
            records.push(r);
        }
        self.g.refresh_edge_order();
        let n = records.len();
        let summary = vec![
            ("deleted_count", int(n)),
            ("target_count", int(target)),
            ("skipped_dangling", int(skipped)),
        ];
        (records, summary, n, target)
    }

    /// The current items of nodes `ids`, parsed in parallel (rayon).
    fn node_items_par(&self, ids: &[u32]) -> Vec<Val<'a>> {
        use rayon::prelude::*;
        ids.par_iter()
            .with_min_len(64)
            .map(|&i| self.g.node_item(self.doc, i).into_owned())
            .collect()
    }

    /// The current relation types (of live edges), sorted by name.
    fn present_types(&self) -> Vec<u32> {
        let mut seen = vec![false; self.g.types.names.len()];
        for &e in &self.g.edge_order {
            seen[self.g.edges[e as usize].label as usize] = true;
        }
        let mut out: Vec<u32> = (0..seen.len() as u32)
            .filter(|&t| seen[t as usize])
            .collect();
        out.sort_by(|&a, &b| self.g.types.name(a).cmp(self.g.types.name(b)));
        out
    }

    /// The current node labels, sorted by name.
    fn present_labels(&self) -> Vec<u32> {
        let mut seen = vec![false; self.g.labels.names.len()];
        for n in &self.g.nodes {
            seen[n.label as usize] = true;
        }
        let mut out: Vec<u32> = (0..seen.len() as u32)
            .filter(|&t| seen[t as usize])
            .collect();
        out.sort_by(|&a, &b| self.g.labels.name(a).cmp(self.g.labels.name(b)));
        out
    }

    fn false_edges(
        &mut self,
        rate: f64,
        rng: &mut Rng,
    ) -> Result<(Vec<u32>, Summary, usize, usize), NoiseError> {
        let x = self.g.edge_count();
        let target = target_of(x, rate);
        let mut types = self.present_types();
        if types.is_empty() {
            types.push(self.g.types.intern("related_to"));
        }
        let mut exists: FxHashSet<u64> = FxHashSet::default();
        if target > 0 {
            exists.reserve(x + target);
            for &e in &self.g.edge_order {
                let ed = &self.g.edges[e as usize];
                exists.insert((u64::from(ed.src) << 32) | u64::from(ed.dst));
            }
        }
        let first_new = self.g.edges.len();
        let nodes = self.g.node_order.len();
        let mut records = Vec::new();
        let mut attempts = 0usize;
        while records.len() < target && attempts < target * 10 {
            attempts += 1;
            if nodes < 2 {
                break;
            }
            let u = self.g.node_order[rng.below(nodes)];
            let v = self.g.node_order[rng.below(nodes)];
            if u == v || exists.contains(&((u64::from(u) << 32) | u64::from(v))) {
                continue;
            }
            let t = types[rng.below(types.len())];
            let rid = self.g.next_rid.to_string();
            self.g.next_rid += 1;
            if let Some(o) = &mut self.opaque {
                o.push_edge(&rid)?;
            }
            self.g.edge_rids.push(&rid);
            self.g.edges.push(super::graph::Edge {
                label: t,
                clean_label: t,
                src: u,
                dst: v,
                alive: true,
                added: true,
            });
            self.g.degree[u as usize] += 1;
            self.g.degree[v as usize] += 1;
            exists.insert((u64::from(u) << 32) | u64::from(v));
            let e = (self.g.edges.len() - 1) as u32;
            let r = self.edge_record(e, None, Some(t), "added", None);
            self.log.added_edges.push(r);
            records.push(r);
        }
        self.g.merge_added(first_new);
        let n = records.len();
        let summary = vec![
            ("added_count", int(n)),
            ("target_count", int(target)),
            ("attempts", int(attempts)),
            ("edges_before", int(x)),
        ];
        Ok((records, summary, n, target))
    }

    fn relation_type_noise(
        &mut self,
        rate: f64,
        rng: &mut Rng,
    ) -> (Vec<u32>, Summary, usize, usize) {
        let cands = self.g.edge_order.clone();
        let target = target_of(cands.len(), rate);
        let similar = self.profile.same_relation_family;
        let plan = match SwapPlan::new(self.present_types(), &self.g.types, similar) {
            Some(plan) => plan,
            None => {
                return (
                    Vec::new(),
                    fewer_than_two(target, "relation types"),
                    0,
                    target,
                )
            }
        };
        let method = if similar {
            "trigram_similar_swap"
        } else {
            "uniform_random_swap"
        };
        let mut records = Vec::new();
        let mut total = 0.0;
        for p in rng.sample(cands.len(), target) {
            let e = cands[p as usize];
            let orig = self.g.edges[e as usize].label;
            let Some((new, sim)) = plan.pick(orig, rng) else {
                continue;
            };
            let change = obj(vec![
                ("original_value", s(self.g.types.name(orig))),
                ("new_value", s(self.g.types.name(new))),
                ("modification_method", s(method)),
                ("similarity_score", Val::Float(sim)),
            ]);
            let r = self.edge_record(e, Some(orig), Some(new), "modified", Some(change));
            self.g.edges[e as usize].label = new;
            total += sim;
            self.log.modified_edges.push(r);
            records.push(r);
        }
        let n = records.len();
        let avg = if n > 0 { total / n as f64 } else { 0.0 };
        let summary = vec![
            ("modified_count", int(n)),
            ("target_count", int(target)),
            ("average_similarity", Val::Float((avg * 1e4).round() / 1e4)),
            ("unique_relations_count", int(plan.present.len())),
            (
                "similarity_method",
                s(if similar { similar::METHOD } else { "uniform" }),
            ),
        ];
        (records, summary, n, target)
    }

    fn node_type_noise(&mut self, rate: f64, rng: &mut Rng) -> (Vec<u32>, Summary, usize, usize) {
        let cands = self.g.node_order.clone();
        let target = target_of(cands.len(), rate);
        let plan = match SwapPlan::new(self.present_labels(), &self.g.labels, true) {
            Some(plan) => plan,
            None => return (Vec::new(), fewer_than_two(target, "node labels"), 0, target),
        };
        let mut records = Vec::new();
        let mut total = 0.0;
        let mut clashes = 0usize;
        let picks: Vec<u32> = rng
            .sample(cands.len(), target)
            .into_iter()
            .map(|p| cands[p as usize])
            .collect();
        for chunk in picks.chunks(PREFETCH) {
            let mut items = self.node_items_par(chunk).into_iter();
            for &i in chunk {
                let mut prefetched = items.next();
                let orig = self.g.nodes[i as usize].label;
                let Some((new, sim)) = plan.pick(orig, rng) else {
                    continue;
                };
                let mut item = prefetched.take().unwrap_or(Val::Null);
                // a property the new label declares with another datatype (Spider's
                // stadium.Stadium_ID is an int, concert.Stadium_ID a str) would make the noisy
                // graph invalid: such nodes keep their label, and are counted
                if self.declared_clash(new, &item) {
                    clashes += 1;
                    continue;
                }
                let slot = set_key(
                    &mut item,
                    "label",
                    Val::Str(Cow::Owned(self.g.labels.name(new).to_string())),
                );
                let change = obj(vec![
                    ("original_value", s(self.g.labels.name(orig))),
                    ("new_value", s(self.g.labels.name(new))),
                    ("modification_method", s("trigram_similar_swap")),
                    ("similarity_score", Val::Float(sim)),
                ]);
                let slots = slot.map(|x| [x]);
                let r = self.node_record(i, item, slots.as_ref().map(|x| &x[..]), "label", change);
                self.g.nodes[i as usize].label = new;
                total += sim;
                records.push(r);
            }
        }
        let n = records.len();
        let avg = if n > 0 { total / n as f64 } else { 0.0 };
        let summary = vec![
            ("modified_count", int(n)),
            ("target_count", int(target)),
            ("average_similarity", Val::Float((avg * 1e4).round() / 1e4)),
            ("unique_types_count", int(plan.present.len())),
            ("similarity_method", s(similar::METHOD)),
            ("skipped_datatype_clash", int(clashes)),
        ];
        (records, summary, n, target)
    }

    /// Whether node item `item` has a property that label `label` declares with a datatype
    /// that does not accept its value (SPEC.md §2 validation would then reject the graph).
    fn declared_clash(&self, label: u32, item: &Val<'_>) -> bool {
        let (Some(decl), Some(Val::Obj(props))) =
            (self.g.entity_dtypes.get(&label), item.get("properties"))
        else {
            return false;
        };
        props.iter().any(|(k, v)| {
            !matches!(v, Val::Null) && decl.get(k.as_ref()).is_some_and(|d| !d.accepts(v))
        })
    }

    /// The name field of a node item (spec §3): the first of `name_fields`, else `name`, else
    /// the first attribute whose name contains "name" and does not end in "id" — a string of
    /// 2+ characters.
    fn name_slot(&self, item: &Val<'a>) -> Option<(Slot, String, String)> {
        let attrs = attributes(item);
        let ok = |v: &Val<'_>| v.as_str().is_some_and(|t| t.chars().count() >= 2);
        let found = self
            .profile
            .name_fields
            .iter()
            .find_map(|f| attrs.iter().find(|(_, k, v)| k == f && ok(v)))
            .or_else(|| attrs.iter().find(|(_, k, v)| *k == "name" && ok(v)))
            .or_else(|| {
                attrs.iter().find(|(_, k, v)| {
                    let l = k.to_lowercase();
                    l.contains("name") && !id_like(k) && ok(v)
                })
            })?;
        Some((found.0, found.1.to_string(), found.2.as_str()?.to_string()))
    }

    fn name_typos(&mut self, rate: f64, rng: &mut Rng) -> (Vec<u32>, Summary, usize, usize) {
        let cands = self.g.node_order.clone();
        let target = target_of(cands.len(), rate);
        let ops: Vec<TypoOp> = self.profile.name_ops.clone();
        let mut records = Vec::new();
        let (mut no_name, mut unchanged) = (0usize, 0usize);
        let picks: Vec<u32> = rng
            .sample(cands.len(), target)
            .into_iter()
            .map(|p| cands[p as usize])
            .collect();
        for chunk in picks.chunks(PREFETCH) {
            let mut items = self.node_items_par(chunk).into_iter();
            for &i in chunk {
                let mut prefetched = items.next();
                let mut item = prefetched.take().unwrap_or(Val::Null);
                let Some((slot, field, value)) = self.name_slot(&item) else {
                    no_name += 1;
                    continue;
                };
                if id_like(&field) || value.chars().count() < 3 {
                    no_name += 1;
                    continue;
                }
                let typo = introduce_typo(&value, &ops, rng);
                if typo.text == value {
                    unchanged += 1;
                    continue;
                }
                set_slot(&mut item, slot, Val::Str(Cow::Owned(typo.text.clone())));
                let change = obj(vec![
                    ("original_value", s(value)),
                    ("new_value", s(typo.text)),
                    ("modification_method", s(typo.method)),
                    ("similarity_score", Val::Null),
                ]);
                records.push(self.node_record(i, item, Some(&[slot]), &field, change));
            }
        }
        let n = records.len();
        let summary = vec![
            ("modified_count", int(n)),
            ("target_count", int(target)),
            ("skipped_no_name", int(no_name)),
            ("skipped_unchanged", int(unchanged)),
        ];
        (records, summary, n, target)
    }

    fn attribute_noise(&mut self, rate: f64, rng: &mut Rng) -> (Vec<u32>, Summary, usize, usize) {
        let cands = self.g.node_order.clone();
        let target = target_of(cands.len(), rate);
        let ops: Vec<TypoOp> = self.profile.attribute_ops.clone();
        let mut records = Vec::new();
        let (mut numeric, mut strings, mut dates) = (0usize, 0usize, 0usize);
        let picks: Vec<u32> = rng
            .sample(cands.len(), target)
            .into_iter()
            .map(|p| cands[p as usize])
            .collect();
        for chunk in picks.chunks(PREFETCH) {
            let mut items = self.node_items_par(chunk).into_iter();
            for &i in chunk {
                let mut prefetched = items.next();
                let clean_label = self.g.nodes[i as usize].clean_label;
                let old = prefetched.take().unwrap_or(Val::Null);
                let mut item = old.clone();
                let mut fields: Vec<String> = Vec::new();
                let mut slots: Vec<Slot> = Vec::new();
                let mut changes: Vec<Val<'static>> = Vec::new();
                let (mut n_num, mut n_str) = (0usize, 0usize);
                for (slot, name, value) in attributes(&old) {
                    if self.profile.exclude_attributes.iter().any(|x| x == name) || id_like(name) {
                        continue;
                    }
                    let declared = self
                        .g
                        .entity_dtypes
                        .get(&clean_label)
                        .and_then(|m| m.get(name))
                        .copied();
                    let (new, method): (Val<'a>, String) = match value {
                        Val::Int(_) | Val::Float(_) => {
                            let (up, k) = SCALE[rng.below(SCALE.len())];
                            let Some(v) = scale(value, up, k, declared == Some(Dtype::Int)) else {
                                continue;
                            };
                            let m = if up {
                                format!("multiply:{}", 10u64.pow(k))
                            } else {
                                format!("divide:{}", 10u64.pow(k))
                            };
                            (v, m)
                        }
                        Val::Str(text) if text.chars().count() >= 2 => {
                            if declared == Some(Dtype::Date) {
                                dates += 1;
                                continue;
                            }
                            let t = introduce_typo(text, &ops, rng);
                            (Val::Str(Cow::Owned(t.text)), t.method)
                        }
                        _ => continue,
                    };
                    if new == *value {
                        continue;
                    }
                    if matches!(value, Val::Str(_)) {
                        n_str += 1;
                    } else {
                        n_num += 1;
                    }
                    changes.push(obj(vec![
                        ("field", s(name)),
                        ("original_value", to_static(value)),
                        ("new_value", to_static(&new)),
                        ("modification_method", s(method)),
                    ]));
                    fields.push(name.to_string());
                    slots.push(slot);
                    set_slot(&mut item, slot, new);
                }
                if fields.is_empty() {
                    continue;
                }
                numeric += n_num;
                strings += n_str;
                let joined = fields.join(",");
                let change = obj(vec![
                    (
                        "changed_fields",
                        Val::List(fields.into_iter().map(s).collect()),
                    ),
                    ("numeric_attrs_count", int(n_num)),
                    ("string_attrs_count", int(n_str)),
                    ("changes", Val::List(changes)),
                ]);
                records.push(self.node_record(i, item, Some(&slots), &joined, change));
            }
        }
        let n = records.len();
        let summary = vec![
            ("modified_count", int(n)),
            ("target_count", int(target)),
            ("numeric_attrs_modified", int(numeric)),
            ("string_attrs_modified", int(strings)),
            ("date_values_skipped", int(dates)),
        ];
        (records, summary, n, target)
    }
}

/// An owned copy of a scalar value (strings and numbers of the log's `change`).
fn to_static(v: &Val<'_>) -> Val<'static> {
    match v {
        Val::Null => Val::Null,
        Val::Bool(b) => Val::Bool(*b),
        Val::Int(i) => Val::Int(*i),
        Val::Float(f) => Val::Float(*f),
        Val::Str(t) => Val::Str(Cow::Owned(t.to_string())),
        Val::Foreign(t) => Val::Foreign(Cow::Owned(t.to_string())),
        Val::List(items) => Val::List(items.iter().map(to_static).collect()),
        Val::Obj(pairs) => Val::Obj(
            pairs
                .iter()
                .map(|(k, x)| (Cow::Owned(k.to_string()), to_static(x)))
                .collect(),
        ),
    }
}

/// The swap of relation types (`relation_type_noise`) or node labels (`node_type_noise`,
/// spec §3): each present type goes to the most similar other (trigram cosine,
/// [`similar::nearest_table`]) or, without the similarity constraint, to a uniformly drawn
/// other.
struct SwapPlan {
    /// The types present in the graph (ids), in order.
    present: Vec<u32>,
    /// The position in `present` of each type id (`usize::MAX`: absent).
    pos_of: Vec<usize>,
    /// Per position, the most similar other position and its similarity; `None`: uniform.
    table: Option<Vec<Option<(usize, f64)>>>,
}

impl SwapPlan {
    /// The plan over `present` (ids of `names`); `None` when fewer than 2 are present.
    fn new(present: Vec<u32>, names: &Names, similar: bool) -> Option<SwapPlan> {
        if present.len() < 2 {
            return None;
        }
        let mut pos_of = vec![usize::MAX; names.names.len()];
        for (p, &t) in present.iter().enumerate() {
            pos_of[t as usize] = p;
        }
        let table = similar.then(|| {
            let text: Vec<String> = present.iter().map(|&t| names.name(t).to_string()).collect();
            similar::nearest_table(&text)
        });
        Some(SwapPlan {
            present,
            pos_of,
            table,
        })
    }

    /// The type that replaces `orig` and the similarity (0 for a uniform draw); `None` when
    /// the similarity table has no partner for it.
    fn pick(&self, orig: u32, rng: &mut Rng) -> Option<(u32, f64)> {
        let pos = self.pos_of[orig as usize];
        let (k, sim) = match &self.table {
            Some(t) => t[pos]?,
            None => {
                let mut k = rng.below(self.present.len() - 1);
                if k >= pos {
                    k += 1;
                }
                (k, 0.0)
            }
        };
        Some((self.present[k], sim))
    }
}

/// The summary of a swap noise type that cannot run: fewer than 2 `what` are present.
fn fewer_than_two(target: usize, what: &str) -> Summary {
    vec![
        ("modified_count", int(0)),
        ("target_count", int(target)),
        ("reason", s(format!("fewer than 2 {what}"))),
    ]
}
