//! The graph being perturbed: a `graph.json` document (SPEC.md §2) kept as its bytes, with a
//! compact index of its entities and relations.
//!
//! The items are located by [`split::split`] and parsed in parallel (rayon) once, to read their
//! ids, labels and ends; a document the splitter does not handle is parsed whole
//! ([`parse_graph_sequential`]). An item is parsed again when the noise touches it or when it
//! is written; a node the noise changed keeps its current tree and the slots whose values
//! changed ([`Graph::node_state`]), and is written by splicing the new values into its text
//! when that is canonical ([`canon::splice_values`]). Ids are copied into compact arenas
//! ([`Strs`]), so that looking them up does not read the document at random.

use std::borrow::Cow;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::canon::{self, Slot};
use super::NoiseError;
use crate::neo4j::split::{self, Member};
use crate::neo4j::value::Val;
use crate::neo4j::{parse_graph_sequential, Dtype};

/// Items per parallel chunk.
const CHUNK: usize = 8192;

/// Where the items of `entities` / `relations` are.
pub enum Items<'a> {
    /// Byte ranges into the document, parsed on demand.
    Ranges(Vec<(usize, usize)>),
    /// Parsed trees (the sequential fallback).
    Tree(Vec<Val<'a>>),
}

impl<'a> Items<'a> {
    fn len(&self) -> usize {
        match self {
            Items::Ranges(r) => r.len(),
            Items::Tree(t) => t.len(),
        }
    }
}

/// A top-level member of the document, in document order.
pub enum Top<'a> {
    /// `schema`
    Schema,
    /// `entities`
    Entities,
    /// `relations`
    Relations,
    /// Any other member, written back unchanged.
    Other(Cow<'a, str>, Val<'a>),
}

/// The document: bytes, member order, schema and items.
pub struct Doc<'a> {
    /// The whole file.
    pub bytes: &'a [u8],
    /// The members in order.
    pub members: Vec<Top<'a>>,
    /// The `schema` value.
    pub schema: Val<'a>,
    /// The entity items.
    pub entities: Items<'a>,
    /// The relation items.
    pub relations: Items<'a>,
}

impl<'a> Doc<'a> {
    /// Split (or parse) a graph document. Errors: not JSON, not an object with `schema`,
    /// `entities` and `relations`, or `entities` / `relations` not lists.
    pub fn read(bytes: &'a [u8], source: &str) -> Result<Doc<'a>, NoiseError> {
        let not_list = |k: &str| NoiseError::Graph(format!("{source}: {k} must be a list"));
        let mut members = Vec::new();
        let mut schema = None;
        let mut entities = None;
        let mut relations = None;
        if let Some(parts) = split::split(bytes) {
            for (k, m) in parts {
                match (k, m) {
                    ("schema", Member::Value(v)) => {
                        schema = Some(v);
                        members.push(Top::Schema);
                    }
                    ("entities", Member::Items(r)) => {
                        entities = Some(Items::Ranges(r));
                        members.push(Top::Entities);
                    }
                    ("relations", Member::Items(r)) => {
                        relations = Some(Items::Ranges(r));
                        members.push(Top::Relations);
                    }
                    ("entities" | "relations", Member::Value(_)) => return Err(not_list(k)),
                    (_, Member::Value(v)) => members.push(Top::Other(Cow::Borrowed(k), v)),
                    (_, Member::Items(_)) => unreachable!("only entities / relations are split"),
                }
            }
        } else {
            let root = parse_graph_sequential(bytes, source, true).map_err(NoiseError::Read)?;
            let Val::Obj(pairs) = root else {
                unreachable!("checked by parse_graph_sequential");
            };
            for (k, v) in pairs {
                match (k.as_ref(), v) {
                    ("schema", v) => {
                        schema = Some(v);
                        members.push(Top::Schema);
                    }
                    ("entities", Val::List(items)) => {
                        entities = Some(Items::Tree(items));
                        members.push(Top::Entities);
                    }
                    ("relations", Val::List(items)) => {
                        relations = Some(Items::Tree(items));
                        members.push(Top::Relations);
                    }
                    ("entities" | "relations", _) => return Err(not_list(&k)),
                    (_, v) => members.push(Top::Other(k, v)),
                }
            }
        }
        let (Some(schema), Some(entities), Some(relations)) = (schema, entities, relations) else {
            return Err(NoiseError::Graph(format!(
                "{source}: not a SimpleKG graph (needs schema, entities, relations)"
            )));
        };
        Ok(Doc {
            bytes,
            members,
            schema,
            entities,
            relations,
        })
    }

    /// The text of entity item `i` (not with the sequential fallback).
    pub fn entity_raw(&self, i: usize) -> Option<&'a [u8]> {
        match &self.entities {
            Items::Ranges(r) => Some(&self.bytes[r[i].0..r[i].1]),
            Items::Tree(_) => None,
        }
    }

    /// The text of relation item `i` (not with the sequential fallback).
    pub fn relation_raw(&self, i: usize) -> Option<&'a [u8]> {
        match &self.relations {
            Items::Ranges(r) => Some(&self.bytes[r[i].0..r[i].1]),
            Items::Tree(_) => None,
        }
    }

    /// Entity item `i` as a tree.
    pub fn entity(&self, i: usize) -> Cow<'_, Val<'a>> {
        self.item(&self.entities, i)
    }

    /// Relation item `i` as a tree.
    pub fn relation(&self, i: usize) -> Cow<'_, Val<'a>> {
        self.item(&self.relations, i)
    }

    fn item<'s>(&'s self, items: &'s Items<'a>, i: usize) -> Cow<'s, Val<'a>> {
        match items {
            Items::Ranges(r) => Cow::Owned(
                split::parse_item(self.bytes, r[i]).unwrap_or(Val::Null), // checked at load
            ),
            Items::Tree(t) => Cow::Borrowed(&t[i]),
        }
    }
}

/// Interned names (node labels or relation types).
#[derive(Debug, Default, Clone)]
pub struct Names {
    /// The names by id.
    pub names: Vec<String>,
    index: FxHashMap<String, u32>,
}

impl Names {
    /// The id of `name`, added when new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.to_string(), i);
        i
    }

    /// The name of id `i`.
    pub fn name(&self, i: u32) -> &str {
        &self.names[i as usize]
    }
}

/// Strings stored end to end in one buffer (the ids of the nodes or of the edges), read by
/// index: compact, so that looking ids up (the relation ends, the log's id lists, the records)
/// reads a few megabytes instead of the whole document.
#[derive(Debug, Default, Clone)]
pub struct Strs {
    buf: String,
    end: Vec<usize>,
}

impl Strs {
    /// Room for `n` strings of `bytes` bytes in all.
    pub fn with_capacity(n: usize, bytes: usize) -> Strs {
        Strs {
            buf: String::with_capacity(bytes),
            end: Vec::with_capacity(n),
        }
    }

    /// Append `s` (its index is the previous [`Strs::len`]).
    pub fn push(&mut self, s: &str) {
        self.buf.push_str(s);
        self.end.push(self.buf.len());
    }

    /// String `i`.
    #[inline]
    pub fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.end[i - 1] };
        let bytes = &self.buf.as_bytes()[start..self.end[i]];
        // SAFETY: `start` and `end[i]` are ends of whole strings pushed into `buf`, so the
        // bytes between them are one of those strings (UTF-8); not checking saves reading
        // the text when only its place is needed.
        unsafe { std::str::from_utf8_unchecked(bytes) }
    }

    /// The number of strings.
    pub fn len(&self) -> usize {
        self.end.len()
    }

    /// No strings.
    pub fn is_empty(&self) -> bool {
        self.end.is_empty()
    }
}

/// A well-mixed 64-bit hash of a string's bytes (FxHash, then SplitMix64's finaliser so that
/// the low bits the index uses are mixed too).
#[inline]
fn id_hash(s: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(s);
    let mut z = h.finish();
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The first 16 bytes of an id, zero-padded.
#[inline]
fn id_head(s: &[u8]) -> [u64; 2] {
    let mut k = [0u8; 16];
    let n = s.len().min(16);
    k[..n].copy_from_slice(&s[..n]);
    let (a, b) = k.split_at(8);
    [
        u64::from_le_bytes(a.try_into().unwrap_or_default()),
        u64::from_le_bytes(b.try_into().unwrap_or_default()),
    ]
}

/// A slot of [`IdIndex`]: the id's first 16 bytes and length (an id of up to 16 bytes is
/// compared without reading anything else), and its position + 1 (0: an empty slot).
#[derive(Clone, Copy, Default)]
struct IxSlot {
    head: [u64; 2],
    len: u32,
    pos: u32,
}

/// The position of each id of a [`Strs`] (open addressing, linear probing, half full): one
/// lookup reads one slot, plus the id's tail in the compact strings when it is longer than
/// 16 bytes; nothing in the document.
struct IdIndex<'s> {
    ids: &'s Strs,
    slots: Vec<IxSlot>,
    mask: usize,
}

impl<'s> IdIndex<'s> {
    /// The index of `ids` (for a repeated id the first position is found).
    fn new(ids: &'s Strs) -> IdIndex<'s> {
        let size = (ids.len() * 2).next_power_of_two().max(16);
        let mut ix = IdIndex {
            ids,
            slots: vec![IxSlot::default(); size],
            mask: size - 1,
        };
        for i in 0..ids.len() {
            let s = ids.get(i).as_bytes();
            let head = id_head(s);
            let mut at = id_hash(s) as usize & ix.mask;
            loop {
                let slot = ix.slots[at];
                if slot.pos == 0 {
                    ix.slots[at] = IxSlot {
                        head,
                        len: s.len() as u32,
                        pos: i as u32 + 1,
                    };
                    break;
                }
                if ix.holds(&slot, head, s) {
                    break;
                }
                at = (at + 1) & ix.mask;
            }
        }
        ix
    }

    /// Whether `slot` (not empty) holds the id `s` whose head is `head`.
    #[inline]
    fn holds(&self, slot: &IxSlot, head: [u64; 2], s: &[u8]) -> bool {
        slot.head == head
            && slot.len == s.len() as u32
            && (s.len() <= 16 || self.ids.get(slot.pos as usize - 1).as_bytes()[16..] == s[16..])
    }

    /// The first slot to probe for `s`.
    #[inline]
    fn home(&self, s: &str) -> usize {
        id_hash(s.as_bytes()) as usize & self.mask
    }

    /// Ask the processor to bring slot `at` into the cache (a hint; lookups a few ids ahead
    /// then overlap their memory accesses).
    #[inline]
    fn prefetch(&self, at: usize) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = self.slots[at..].as_ptr() as *const i8;
            // SAFETY: a prefetch is a hint that never faults; `p` points into `slots`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = at;
    }

    /// The position of `s`, if it is one of the ids; `home` is [`IdIndex::home`]`(s)`.
    #[inline]
    fn get_from(&self, s: &str, home: usize) -> Option<u32> {
        let s = s.as_bytes();
        let head = id_head(s);
        let mut at = home;
        loop {
            let slot = &self.slots[at];
            if slot.pos == 0 {
                return None;
            }
            if self.holds(slot, head, s) {
                return Some(slot.pos - 1);
            }
            at = (at + 1) & self.mask;
        }
    }
}

/// A node: its current and clean label (its id is [`Graph::node_ids`]).
pub struct Node {
    /// Current label (a [`Names`] id of [`Graph::labels`]).
    pub label: u32,
    /// Label in the clean graph.
    pub clean_label: u32,
}

/// An edge: ends, current and clean type, whether it is still in the graph (its id is
/// [`Graph::edge_rids`]).
pub struct Edge {
    /// Current type (a [`Names`] id of [`Graph::types`]).
    pub label: u32,
    /// Type in the clean graph (for an added edge: its type when added).
    pub clean_label: u32,
    /// Subject node.
    pub src: u32,
    /// Object node.
    pub dst: u32,
    /// Not deleted.
    pub alive: bool,
    /// Added by `false_edges` (no item in the document).
    pub added: bool,
}

/// The graph under perturbation.
pub struct Graph<'a> {
    /// Nodes in document order.
    pub nodes: Vec<Node>,
    /// The `eid` of each node.
    pub node_ids: Strs,
    /// Edges in document order, then the added ones in order of addition.
    pub edges: Vec<Edge>,
    /// The `rid` of each edge.
    pub edge_rids: Strs,
    /// Number of edges in the document.
    pub raw_edges: usize,
    /// Node labels.
    pub labels: Names,
    /// Relation types.
    pub types: Names,
    /// In + out degree of each node in the current graph (a self-loop counts twice).
    pub degree: Vec<u32>,
    /// All nodes, sorted by id (the candidate order).
    pub node_order: Vec<u32>,
    /// The current edges, sorted by rid (the candidate order).
    pub edge_order: Vec<u32>,
    /// The current item of every node the noise changed.
    pub node_state: FxHashMap<u32, NodeState<'a>>,
    /// The next rid of an added edge (one more than the largest decimal rid).
    pub next_rid: u64,
    /// Declared datatypes of entity properties: clean label id -> property -> datatype.
    pub entity_dtypes: FxHashMap<u32, FxHashMap<String, Dtype>>,
    /// Entity items whose text is canonical ([`canon::is_canonical`] at level 2).
    pub entity_canon: Vec<bool>,
    /// Relation items whose text is canonical.
    pub relation_canon: Vec<bool>,
}

/// The current item of a node the noise changed.
pub struct NodeState<'a> {
    /// The item.
    pub item: Val<'a>,
    /// The slots whose values the noise replaced (by scalars), or `None` after a change of
    /// the item's shape (a key added): with the slots, an item whose document text is
    /// canonical is written by splicing its new values into that text.
    pub changed: Option<Vec<Slot>>,
}

/// The fields of an entity item that indexing needs (other fields are skipped unparsed).
#[derive(serde::Deserialize)]
struct EntityHead<'a> {
    #[serde(borrow)]
    eid: Cow<'a, str>,
    #[serde(borrow)]
    label: Cow<'a, str>,
}

/// The fields of a relation item that indexing needs.
#[derive(serde::Deserialize)]
struct RelationHead<'a> {
    #[serde(borrow)]
    rid: Cow<'a, str>,
    #[serde(borrow)]
    label: Cow<'a, str>,
    #[serde(borrow)]
    subj_id: Cow<'a, str>,
    #[serde(borrow)]
    obj_id: Cow<'a, str>,
}

/// The first 16 bytes of `s`, zero-padded, as a big-endian number: ordering by it agrees with
/// the byte order of the strings except on ties (then the strings are compared).
pub(crate) fn prefix_key(s: &str) -> u128 {
    let mut k = [0u8; 16];
    let n = s.len().min(16);
    k[..n].copy_from_slice(&s.as_bytes()[..n]);
    u128::from_be_bytes(k)
}

/// The indices of `ids` in byte order of the strings (in parallel), and the first repeated id.
fn sorted_order(ids: &Strs) -> (Vec<u32>, Option<&str>) {
    let mut keyed: Vec<(u128, u32)> = (0..ids.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| (prefix_key(ids.get(i)), i as u32))
        .collect();
    let id = |i: u32| ids.get(i as usize);
    keyed.par_sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| id(a.1).cmp(id(b.1))));
    let repeated = keyed
        .windows(2)
        .find(|w| w[0].0 == w[1].0 && id(w[0].1) == id(w[1].1))
        .map(|w| id(w[0].1));
    (keyed.into_iter().map(|(_, i)| i).collect(), repeated)
}

/// `(eid, label)` of an entity item: the fast typed parse, else (repeated keys, a wrong
/// type) the general tree with Python's last-value-wins semantics.
fn entity_head<'a>(doc: &Doc<'a>, i: usize) -> Result<(Cow<'a, str>, Cow<'a, str>, bool), String> {
    if let Some(raw) = doc.entity_raw(i) {
        if let Some([Some(e), Some(l)]) = canon::canonical_top_strings(raw, 2, ["eid", "label"]) {
            return Ok((e, l, true));
        }
    }
    let (e, l) = entity_head_general(doc, i)?;
    Ok((e, l, false))
}

fn entity_head_general<'a>(
    doc: &Doc<'a>,
    i: usize,
) -> Result<(Cow<'a, str>, Cow<'a, str>), String> {
    if let Items::Ranges(r) = &doc.entities {
        let (lo, hi) = r[i];
        if let Ok(h) = serde_json::from_slice::<EntityHead<'a>>(&doc.bytes[lo..hi]) {
            return Ok((h.eid, h.label));
        }
    }
    let mut item = doc.entity(i).into_owned();
    if !matches!(item, Val::Obj(_)) {
        return Err(format!("entities[{i}] is not an object"));
    }
    let eid =
        take_str(&mut item, "eid").ok_or_else(|| format!("entities[{i}]: eid must be a string"))?;
    let label = take_str(&mut item, "label")
        .ok_or_else(|| format!("entities[{i}]: label must be a string"))?;
    Ok((eid, label))
}

type RelStrs<'a> = (Cow<'a, str>, Cow<'a, str>, Cow<'a, str>, Cow<'a, str>);

/// `(rid, label, subj_id, obj_id)` of a relation item (as [`entity_head`]), and whether its
/// text is canonical.
fn relation_head<'a>(doc: &Doc<'a>, i: usize) -> Result<(RelStrs<'a>, bool), String> {
    if let Some(raw) = doc.relation_raw(i) {
        if let Some([Some(a), Some(b), Some(c), Some(d)]) =
            canon::canonical_top_strings(raw, 2, ["rid", "label", "subj_id", "obj_id"])
        {
            return Ok(((a, b, c, d), true));
        }
    }
    Ok((relation_head_general(doc, i)?, false))
}

fn relation_head_general<'a>(doc: &Doc<'a>, i: usize) -> Result<RelStrs<'a>, String> {
    if let Items::Ranges(r) = &doc.relations {
        let (lo, hi) = r[i];
        if let Ok(h) = serde_json::from_slice::<RelationHead<'a>>(&doc.bytes[lo..hi]) {
            return Ok((h.rid, h.label, h.subj_id, h.obj_id));
        }
    }
    let mut item = doc.relation(i).into_owned();
    if !matches!(item, Val::Obj(_)) {
        return Err(format!("relations[{i}] is not an object"));
    }
    let mut field = |k: &str| {
        take_str(&mut item, k).ok_or_else(|| format!("relations[{i}]: {k} must be a string"))
    };
    Ok((
        field("rid")?,
        field("label")?,
        field("subj_id")?,
        field("obj_id")?,
    ))
}

/// A string field of an item, borrowed from the document when it has no escapes.
fn take_str<'a>(item: &mut Val<'a>, key: &str) -> Option<Cow<'a, str>> {
    let Val::Obj(pairs) = item else { return None };
    let pos = pairs.iter().rposition(|(k, _)| k == key)?;
    match std::mem::replace(&mut pairs[pos].1, Val::Null) {
        Val::Str(s) => Some(s),
        _ => None,
    }
}

impl<'a> Graph<'a> {
    /// Index the document's items. Errors: an item that is not an object with string ids and
    /// labels, a repeated eid or rid, a relation end that is not an entity.
    pub fn build(doc: &Doc<'a>, source: &str) -> Result<Graph<'a>, NoiseError> {
        let bad = |what: String| NoiseError::Graph(format!("{source}: {what}"));
        // entities: (eid, label) in parallel chunks
        let n = doc.entities.len();
        type Ent<'a> = (Cow<'a, str>, Cow<'a, str>, bool);
        let ents: Vec<Result<Vec<Ent<'a>>, String>> = chunks(n)
            .into_par_iter()
            .map(|(lo, hi)| {
                let mut out = Vec::with_capacity(hi - lo);
                for i in lo..hi {
                    out.push(entity_head(doc, i)?);
                }
                Ok(out)
            })
            .collect();
        let ents: Vec<Vec<Ent<'a>>> = ents.into_iter().collect::<Result<_, _>>().map_err(bad)?;
        let id_bytes: usize = ents.iter().flatten().map(|e| e.0.len()).sum();
        let mut labels = Names::default();
        let mut nodes = Vec::with_capacity(n);
        let mut node_ids = Strs::with_capacity(n, id_bytes);
        let mut entity_canon = Vec::with_capacity(n);
        let mut last: Option<(Cow<'a, str>, u32)> = None;
        for (id, label, canonical) in ents.into_iter().flatten() {
            entity_canon.push(canonical);
            let l = match &last {
                Some((name, l)) if *name == label => *l,
                _ => {
                    let l = labels.intern(&label);
                    last = Some((label, l));
                    l
                }
            };
            node_ids.push(&id);
            nodes.push(Node {
                label: l,
                clean_label: l,
            });
        }
        let (node_order, repeated) = sorted_order(&node_ids);
        if let Some(id) = repeated {
            return Err(bad(format!("repeated eid {id:?}")));
        }
        let index = IdIndex::new(&node_ids);
        // relations: (rid, label, subject, object)
        let m = doc.relations.len();
        type Rel<'a> = (Cow<'a, str>, Cow<'a, str>, u32, u32, bool);
        let rels: Vec<Result<Vec<Rel<'a>>, String>> = chunks(m)
            .into_par_iter()
            .map(|(lo, hi)| {
                // the chunk's heads first, then its ends looked up in a tight loop (the
                // lookups' memory accesses overlap)
                let mut heads = Vec::with_capacity(hi - lo);
                let mut bad_head = None;
                for i in lo..hi {
                    match relation_head(doc, i) {
                        Ok(h) => heads.push(h),
                        Err(e) => {
                            bad_head = Some(e); // reported after the ends before it
                            break;
                        }
                    }
                }
                let homes: Vec<(usize, usize)> = heads
                    .iter()
                    .map(|((_, _, s, o), _)| (index.home(s), index.home(o)))
                    .collect();
                const AHEAD: usize = 8;
                for &(a, b) in homes.iter().take(AHEAD) {
                    index.prefetch(a);
                    index.prefetch(b);
                }
                let mut out = Vec::with_capacity(hi - lo);
                for (n, ((rid, label, s, o), canonical)) in heads.into_iter().enumerate() {
                    let i = lo + n;
                    if let Some(&(a, b)) = homes.get(n + AHEAD) {
                        index.prefetch(a);
                        index.prefetch(b);
                    }
                    let end = |e: &str, home: usize, k: &str| {
                        index.get_from(e, home).ok_or_else(|| {
                            format!("relations[{i}]: {k} {e:?} is not the eid of an entity")
                        })
                    };
                    out.push((
                        rid,
                        label,
                        end(&s, homes[n].0, "subj_id")?,
                        end(&o, homes[n].1, "obj_id")?,
                        canonical,
                    ));
                }
                match bad_head {
                    Some(e) => Err(e),
                    None => Ok(out),
                }
            })
            .collect();
        drop(index);
        let rels: Vec<Vec<Rel<'a>>> = rels.into_iter().collect::<Result<_, _>>().map_err(bad)?;
        let rid_bytes: usize = rels.iter().flatten().map(|r| r.0.len()).sum();
        let mut types = Names::default();
        let mut edges = Vec::with_capacity(m);
        let mut edge_rids = Strs::with_capacity(m, rid_bytes);
        let mut degree = vec![0u32; nodes.len()];
        let mut max_rid: Option<u64> = None;
        let mut relation_canon = Vec::with_capacity(m);
        let mut last: Option<(Cow<'a, str>, u32)> = None;
        for (rid, label, src, dst, canonical) in rels.into_iter().flatten() {
            relation_canon.push(canonical);
            let t = match &last {
                Some((name, t)) if *name == label => *t,
                _ => {
                    let t = types.intern(&label);
                    last = Some((label, t));
                    t
                }
            };
            degree[src as usize] += 1;
            degree[dst as usize] += 1;
            if let Ok(v) = rid.parse::<u64>() {
                max_rid = Some(max_rid.map_or(v, |m| m.max(v)));
            }
            edge_rids.push(&rid);
            edges.push(Edge {
                label: t,
                clean_label: t,
                src,
                dst,
                alive: true,
                added: false,
            });
        }
        let (edge_order, repeated) = sorted_order(&edge_rids);
        if let Some(id) = repeated {
            return Err(bad(format!("repeated rid {id:?}")));
        }
        let entity_dtypes = declared_entity_dtypes(&doc.schema, &mut labels);
        Ok(Graph {
            raw_edges: edges.len(),
            nodes,
            node_ids,
            edges,
            edge_rids,
            labels,
            types,
            degree,
            node_order,
            edge_order,
            node_state: FxHashMap::default(),
            next_rid: max_rid.map_or(0, |m| m + 1),
            entity_dtypes,
            entity_canon,
            relation_canon,
        })
    }

    /// The current item of node `i` (its changed tree, else the document's).
    pub fn node_item<'s>(&'s self, doc: &'s Doc<'a>, i: u32) -> Cow<'s, Val<'a>> {
        match self.node_state.get(&i) {
            Some(v) => Cow::Borrowed(&v.item),
            None => doc.entity(i as usize),
        }
    }

    /// The number of current edges.
    pub fn edge_count(&self) -> usize {
        self.edge_order.len()
    }

    /// Drop deleted edges from the candidate order.
    pub fn refresh_edge_order(&mut self) {
        let edges = &self.edges;
        self.edge_order.retain(|&e| edges[e as usize].alive);
    }

    /// Merge the edges `from..` (just added) into the candidate order.
    pub fn merge_added(&mut self, from: usize) {
        let rids = &self.edge_rids;
        let rid = |e: u32| rids.get(e as usize);
        let mut new: Vec<u32> = (from as u32..self.edges.len() as u32).collect();
        if new.is_empty() {
            return;
        }
        new.sort_unstable_by(|&a, &b| rid(a).cmp(rid(b)));
        let old = std::mem::take(&mut self.edge_order);
        let mut merged = Vec::with_capacity(old.len() + new.len());
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < new.len() {
            if rid(old[i]) <= rid(new[j]) {
                merged.push(old[i]);
                i += 1;
            } else {
                merged.push(new[j]);
                j += 1;
            }
        }
        merged.extend_from_slice(&old[i..]);
        merged.extend_from_slice(&new[j..]);
        self.edge_order = merged;
    }
}

/// `(lo, hi)` item ranges of the parallel chunks.
pub fn chunks(n: usize) -> Vec<(usize, usize)> {
    (0..n.div_ceil(CHUNK))
        .map(|c| (c * CHUNK, ((c + 1) * CHUNK).min(n)))
        .collect()
}

/// The schema's declared entity property datatypes by label (labels interned into `labels`).
fn declared_entity_dtypes(
    schema: &Val<'_>,
    labels: &mut Names,
) -> FxHashMap<u32, FxHashMap<String, Dtype>> {
    let mut out: FxHashMap<u32, FxHashMap<String, Dtype>> = FxHashMap::default();
    if let Some(Val::List(ents)) = schema.get("entities") {
        for e in ents {
            let Some(label) = e.get("label").and_then(Val::as_str) else {
                continue;
            };
            let props = out.entry(labels.intern(label)).or_default();
            if let Some(Val::Obj(pairs)) = e.get("properties") {
                for (k, v) in pairs {
                    if let Some(d) = v.as_str().and_then(Dtype::parse) {
                        props.insert(k.to_string(), d);
                    }
                }
            }
        }
    }
    out
}
