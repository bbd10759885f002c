//! Streaming Wikidata RDF → CypherBench property graph (SPEC.md §1–§2, §6;
//! seed cypherbench.txt §3.2 and Appendix B.6).
//!
//! The original CypherBench engine issues SPARQL against a Wikidata endpoint.
//! kgbench reads the dump itself, in one streaming pass: every triple is parsed
//! (oxttl), and only the facts the schema can use are kept ([`facts::Fact`]:
//! `P31`/`P279` and the schema's properties as `wdt:`/`p:`/`ps:`/`psv:`/`pq:`/
//! `pqv:` triples, deprecated ranks, quantity and time value nodes, English
//! labels / descriptions / aliases and English Wikipedia sitelinks). The graph is
//! then resolved in memory with the original's semantics:
//!
//! 1. class membership by `P31/P279*` (or `P279/P279*` for `wd_is_instance: false`,
//!    no closure with `wd_include_subclasses: false`), `$LINKED_TO` / `$HAS_PROPERTY`;
//! 2. `$FROM_RELATION` selective fetching: an item is kept only if a path of the
//!    named relations leads to it from a root item (roots need only their class
//!    pattern); hops are `wdt:P` for `highest` relations, `p:P/ps:P` (any rank)
//!    for `non_deprecated` ones, `p:P/pq:Q` with `wd_qualifier_pid`, `*` when
//!    transitive;
//! 3. `max_entities_per_root` sampling by the original's pseudo-random id;
//! 4. entities need an English label; properties from best-rank values with the
//!    datatype, unit, date-precision rules of [`values`] and [`units`];
//! 5. relations per (statement, subject, object), rank-filtered, properties from
//!    qualifiers or the main value, both ends kept, then merged as the original's
//!    `convert_wd_to_simple_kg` does.
//!
//! Wikidata's JSON entity format (the `latest-all.json` dump, JSON lines,
//! `Special:EntityData` / `wbgetentities`) is read by [`wdjson`], which maps it
//! to the same facts with Wikibase's RDF mapping, so both inputs feed this one
//! resolver. Compressed inputs are decoded in parallel by [`decompress`].
//!
//! Memory holds the kept facts, not the input: `P31`/`P279` edges, the schema's
//! property triples, English label texts and time/quantity value nodes.

pub mod decompress;
pub mod facts;
#[cfg(test)]
mod fuzz;
pub mod input;
pub mod langtag;
pub mod ntfast;
pub mod pyjson;
pub mod read;
pub mod schema;
pub mod tables;
pub mod turtle;
pub mod units;
pub mod values;
pub mod wdjson;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;

use facts::{Fact, ItemId, Key, Obj, Vocab};
use input::{Format, ReadStats};
use pyjson::{JKey, J};
use schema::{Constraint, DataType, Hop, PropSchema, PropSource, RankFilter, RelSource, Schema};
use values::PV;

pub use oxrdf;
pub use schema::{parse_schema, SchemaErrors};

/// Phase timer: with `KGBENCH_CONVERT_TIMING` set, prints each phase's wall
/// time to stderr (for profiling; no effect on the output).
struct Timer {
    on: bool,
    last: std::time::Instant,
    last_cpu: f64,
}

/// CPU seconds of the whole process (Linux `/proc/self/stat`; 0 elsewhere).
fn process_cpu_secs() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let rest = stat.rsplit_once(')').map_or("", |x| x.1);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // fields 14 and 15 (utime, stime) are 12 and 13 after the command name
    (ticks(11) + ticks(12)) / 100.0
}

impl Timer {
    fn new() -> Self {
        let on = std::env::var_os("KGBENCH_CONVERT_TIMING").is_some();
        Self {
            on,
            last: std::time::Instant::now(),
            last_cpu: if on { process_cpu_secs() } else { 0.0 },
        }
    }

    fn lap(&mut self, what: &str) {
        if self.on {
            let now = std::time::Instant::now();
            let cpu = process_cpu_secs();
            eprintln!(
                "[convert] {what}: wall {:.3}s, cpu {:.2}s",
                (now - self.last).as_secs_f64(),
                cpu - self.last_cpu
            );
            self.last = now;
            self.last_cpu = cpu;
        }
    }
}

/// Errors of a conversion.
#[derive(Debug, thiserror::Error)]
pub enum ConvertError {
    #[error("{0}")]
    Schema(SchemaErrors),
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error("{file}: line {line}, byte offset {offset}: {message}{}", if excerpt.is_empty() { String::new() } else { format!(" in: {excerpt}") })]
    Syntax {
        file: String,
        line: u64,
        offset: u64,
        message: String,
        excerpt: String,
    },
    #[error("{0}")]
    Options(String),
    /// Stopped by [`crate::cancel::request`] (Ctrl-C); nothing was returned.
    #[error("interrupted")]
    Interrupted,
}

crate::cancel::interrupted_from_cancelled!(ConvertError);

/// [`ConvertError::Interrupted`] once [`crate::cancel::request`] was called: polled
/// between groups of input blocks, between the conversion's phases, and (as
/// `cancel::requested`) per entity and per relation subject while resolving.
pub(crate) fn check_cancel() -> Result<(), ConvertError> {
    crate::cancel::check().map_err(ConvertError::from)
}

/// Options of [`convert`].
#[derive(Debug, Clone)]
pub struct Options {
    /// Keep at most this many entities of each root class (the original's
    /// reproducible sample); `None` keeps all.
    pub max_entities_per_root: Option<usize>,
    /// Count and skip malformed RDF instead of failing.
    pub skip_invalid: bool,
    /// Force the input syntax (default: detected from the content, [`input::sniff`]).
    pub format: Option<Format>,
    /// Draw a progress bar on stderr.
    pub progress: bool,
    /// Entity namespace (`http://www.wikidata.org/entity/`).
    pub entity_prefix: String,
    /// Property namespace root (`http://www.wikidata.org/prop/`).
    pub prop_prefix: String,
    /// Also produce the table rows of the Parquet form ([`Output::tables`]).
    pub tables: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_entities_per_root: None,
            skip_invalid: false,
            format: None,
            progress: false,
            entity_prefix: "http://www.wikidata.org/entity/".into(),
            prop_prefix: "http://www.wikidata.org/prop/".into(),
            tables: false,
        }
    }
}

/// Result of a conversion: the SimpleKG JSON text and the report JSON text.
#[derive(Debug)]
pub struct Output {
    /// `graph.json` (SPEC.md §2), as Python's `json.dump(indent=2)` writes it.
    pub graph_json: String,
    /// `report.json`.
    pub report_json: String,
    /// The graph's `schema` block as compact JSON text.
    pub schema_json: String,
    /// Table rows for the Parquet form, when [`Options::tables`] is set.
    pub tables: Option<tables::Tables>,
}

#[derive(Default)]
struct Node {
    amount: Option<Box<str>>,
    unit: Option<Obj>,
    time: Option<Box<str>>,
    precision: Option<i64>,
}

/// A multimap filled by `push`, then sorted by key (`finish`, stable: values keep
/// input order, duplicates removed) and read by binary search.
struct Multi<K, V> {
    keys: Vec<K>,
    vals: Vec<V>,
    pending: Vec<(K, V)>,
}

impl<K, V> Default for Multi<K, V> {
    fn default() -> Self {
        Self {
            keys: Vec::new(),
            vals: Vec::new(),
            pending: Vec::new(),
        }
    }
}

impl<K: Ord + Copy + Send, V: PartialEq + Send> Multi<K, V> {
    fn push(&mut self, k: K, v: V) {
        self.pending.push((k, v));
    }

    fn finish(&mut self) {
        let mut p = std::mem::take(&mut self.pending);
        p.par_sort_by_key(|a| a.0);
        self.keys.reserve(p.len());
        self.vals.reserve(p.len());
        let mut group_start = 0;
        for (k, v) in p {
            if self.keys.last() != Some(&k) {
                group_start = self.keys.len();
            } else if self.vals[group_start..].contains(&v) {
                continue;
            }
            self.keys.push(k);
            self.vals.push(v);
        }
    }

    fn get(&self, k: &K) -> Option<&[V]> {
        let lo = self.keys.partition_point(|x| x < k);
        let mut hi = lo;
        while hi < self.keys.len() && self.keys[hi] == *k {
            hi += 1;
        }
        (hi > lo).then(|| &self.vals[lo..hi])
    }

    fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.keys.iter().zip(&self.vals)
    }
}

#[derive(Default)]
struct Store {
    direct: Multi<(ItemId, u32), Obj>,
    stmt_ids: FxHashMap<Key, u32>,
    /// The statement [`Store::stmt`] gave last, and its id.
    last_stmt: Option<(Key, u32)>,
    /// Statement IRIs by id (from the `p:` triple; empty if never seen).
    stmt_iris: Vec<Box<str>>,
    claims: Multi<(ItemId, u32), u32>,
    claim_list: FxHashMap<u32, Vec<(ItemId, u32)>>,
    stmt_values: Multi<(u32, u32), Obj>,
    stmt_nodes: Multi<(u32, u32), Key>,
    quals: Multi<(u32, u32), Obj>,
    qual_nodes: Multi<(u32, u32), Key>,
    deprecated: FxHashSet<u32>,
    nodes: FxHashMap<Key, Node>,
    labels: FxHashMap<ItemId, Box<str>>,
    descriptions: FxHashMap<ItemId, Box<str>>,
    aliases: FxHashMap<ItemId, Vec<Box<str>>>,
    about: FxHashMap<Box<str>, ItemId>,
    enwiki_parts: FxHashSet<Box<str>>,
    facts: u64,
    /// Per [`facts::NonItemKind`]: triples, distinct entities.
    non_items: [(u64, FxHashSet<Key>); 3],
}

impl Store {
    /// Free the store, its big parts in parallel (rayon).
    fn par_drop(self) {
        let Store {
            direct,
            stmt_ids,
            last_stmt: _,
            stmt_iris,
            claims,
            claim_list,
            stmt_values,
            stmt_nodes,
            quals,
            qual_nodes,
            deprecated,
            nodes,
            labels,
            descriptions,
            aliases,
            about,
            enwiki_parts,
            facts: _,
            non_items,
        } = self;
        rayon::scope(|s| {
            s.spawn(move |_| drop(direct));
            s.spawn(move |_| drop((stmt_ids, stmt_iris, claims, claim_list)));
            s.spawn(move |_| drop(stmt_values));
            s.spawn(move |_| drop((stmt_nodes, quals, qual_nodes, deprecated)));
            s.spawn(move |_| drop(nodes));
            s.spawn(move |_| drop((labels, descriptions)));
            s.spawn(move |_| drop((aliases, about, enwiki_parts, non_items)));
        });
    }

    /// Sort the multimaps; index claims by property.
    fn finish(&mut self) {
        // Independent multimaps, sorted in parallel (rayon; stable sorts, so the
        // result does not depend on the thread count).
        rayon::join(
            || rayon::join(|| self.direct.finish(), || self.claims.finish()),
            || {
                rayon::join(
                    || rayon::join(|| self.stmt_values.finish(), || self.stmt_nodes.finish()),
                    || rayon::join(|| self.quals.finish(), || self.qual_nodes.finish()),
                )
            },
        );
        for (&(s, p), &st) in self.claims.iter() {
            self.claim_list.entry(p).or_default().push((s, st));
        }
    }

    fn stmt(&mut self, k: Key) -> u32 {
        // The facts of one statement mostly come together (a JSON statement, the
        // triples of one `wds:` node): the last statement is looked up first.
        if let Some((last, id)) = self.last_stmt {
            if last == k {
                return id;
            }
        }
        let next = self.stmt_ids.len() as u32;
        let id = *self.stmt_ids.entry(k).or_insert(next);
        if id == next {
            self.stmt_iris.push(Box::from(""));
        }
        self.last_stmt = Some((k, id));
        id
    }

    fn add(&mut self, f: Fact) {
        if let Fact::NonItem { kind, entity } = f {
            let c = &mut self.non_items[kind as usize];
            c.0 += 1;
            c.1.insert(entity);
            return;
        }
        self.facts += 1;
        match f {
            Fact::NonItem { .. } => {}
            Fact::Direct { s, p, o } => self.direct.push((s, p), o),
            Fact::Claim { s, p, stmt, iri } => {
                let st = self.stmt(stmt);
                if self.stmt_iris[st as usize].is_empty() {
                    self.stmt_iris[st as usize] = iri;
                }
                self.claims.push((s, p), st);
            }
            Fact::StmtValue { stmt, p, o } => {
                let st = self.stmt(stmt);
                self.stmt_values.push((st, p), o)
            }
            Fact::StmtNode { stmt, p, node } => {
                let st = self.stmt(stmt);
                self.stmt_nodes.push((st, p), node)
            }
            Fact::Qualifier { stmt, p, o } => {
                let st = self.stmt(stmt);
                self.quals.push((st, p), o)
            }
            Fact::QualifierNode { stmt, p, node } => {
                let st = self.stmt(stmt);
                self.qual_nodes.push((st, p), node)
            }
            Fact::Deprecated { stmt } => {
                let st = self.stmt(stmt);
                self.deprecated.insert(st);
            }
            Fact::QuantityAmount { node, lex } => {
                self.nodes
                    .entry(node)
                    .or_default()
                    .amount
                    .get_or_insert(lex);
            }
            Fact::QuantityUnit { node, unit } => {
                self.nodes.entry(node).or_default().unit.get_or_insert(unit);
            }
            Fact::TimeValue { node, lex } => {
                self.nodes.entry(node).or_default().time.get_or_insert(lex);
            }
            Fact::TimePrecision { node, precision } => {
                self.nodes
                    .entry(node)
                    .or_default()
                    .precision
                    .get_or_insert(precision);
            }
            Fact::Label { s, text } => {
                self.labels.entry(s).or_insert(text);
            }
            Fact::Description { s, text } => {
                self.descriptions.entry(s).or_insert(text);
            }
            Fact::Alias { s, text } => self.aliases.entry(s).or_default().push(text),
            Fact::About { article, s } => {
                self.about.entry(article).or_insert(s);
            }
            Fact::EnwikiPart { article } => {
                self.enwiki_parts.insert(article);
            }
        }
    }

    fn direct_items(&self, s: ItemId, p: u32) -> impl Iterator<Item = ItemId> + '_ {
        self.direct
            .get(&(s, p))
            .into_iter()
            .flatten()
            .filter_map(|o| match o {
                Obj::Item(q) => Some(*q),
                _ => None,
            })
    }
}

fn push_unique<T: PartialEq>(v: &mut Vec<T>, x: T) {
    if !v.contains(&x) {
        v.push(x);
    }
}

/// Counters for report.json.
#[derive(Default)]
struct Counts {
    /// reason -> count
    dropped: BTreeMap<String, u64>,
    /// "Label.property" -> reason -> count
    dropped_by_prop: BTreeMap<String, BTreeMap<String, u64>>,
}

impl Counts {
    fn drop(&mut self, owner: &str, reason: &str) {
        bump(&mut self.dropped, reason);
        match self.dropped_by_prop.get_mut(owner) {
            Some(m) => bump(m, reason),
            None => {
                let mut m = BTreeMap::new();
                m.insert(reason.to_string(), 1);
                self.dropped_by_prop.insert(owner.to_string(), m);
            }
        }
    }
}

/// `m[k] += 1`, allocating the key only when it is new.
fn bump(m: &mut BTreeMap<String, u64>, k: &str) {
    match m.get_mut(k) {
        Some(c) => *c += 1,
        None => {
            m.insert(k.to_string(), 1);
        }
    }
}

/// The original's pseudo-random id: `floor(qid / 307)` as a string without its
/// first character (SPEC.md §1 `max_entities_per_root`).
pub fn rqid(q: ItemId) -> String {
    let s = (q / 307).to_string();
    s[1..].to_string()
}

fn qid(q: ItemId) -> String {
    format!("Q{q}")
}

/// All schema property ids whose triples may matter.
fn relevant_pids(s: &Schema) -> FxHashSet<u32> {
    let mut p: FxHashSet<u32> = [31, 279].into_iter().collect();
    let props = |props: &[PropSchema], p: &mut FxHashSet<u32>| {
        for ps in props {
            match ps.source {
                PropSource::Pid(x) => {
                    p.insert(x);
                }
                PropSource::LinkedTo(x, _) => {
                    p.insert(x);
                }
            }
            for (x, _) in &ps.qualifier_filters {
                p.insert(*x);
            }
        }
    };
    for e in &s.entities {
        for c in &e.constraints {
            match c {
                Constraint::LinkedTo(x, _) | Constraint::HasProperty(x) => {
                    p.insert(*x);
                }
            }
        }
        props(&e.properties, &mut p);
    }
    for r in &s.relations {
        if let RelSource::Pid(x) = r.source {
            p.insert(x);
        }
        if let Some(q) = r.qualifier_pid {
            p.insert(q);
        }
        for st in r.suffix.iter().flatten() {
            p.insert(st.pid);
        }
        props(&r.properties, &mut p);
    }
    p
}

/// Convert `inputs` (paths, `-` for stdin) with the schema text `schema_json`.
///
/// Inputs are N-Triples, Turtle or Wikidata entity JSON ([`wdjson`]), plain,
/// gzip or bzip2, each detected from its content unless [`Options::format`].
///
/// Errors: [`ConvertError::Schema`] with every problem and its JSON path;
/// [`ConvertError::Syntax`] with file, line, byte offset (of the decompressed
/// stream) and an excerpt (RDF, or a JSON entity line), unless `skip_invalid`;
/// [`ConvertError::Io`] for unreadable input, or truncated / corrupt compressed
/// input (with the compressed byte offset).
pub fn convert(
    schema_json: &str,
    inputs: &[String],
    opts: &Options,
) -> Result<Output, ConvertError> {
    let t0 = std::time::Instant::now();
    let mut timer = Timer::new();
    let schema = parse_schema(schema_json).map_err(ConvertError::Schema)?;
    if inputs.is_empty() {
        return Err(ConvertError::Options("no input given".into()));
    }
    if inputs.iter().filter(|p| p.as_str() == "-").count() > 1 {
        return Err(ConvertError::Options(
            "stdin ('-') can be given once".into(),
        ));
    }
    let vocab = Vocab::new(
        &opts.entity_prefix,
        &opts.prop_prefix,
        relevant_pids(&schema),
    )
    .with_statement_iris(
        schema
            .relations
            .iter()
            .filter_map(|r| match r.source {
                RelSource::Pid(p) => Some(p),
                _ => None,
            })
            .collect(),
    );
    let mut stats = ReadStats::default();
    let extract = |t: oxrdf::TripleRef<'_>| vocab.extract(t);
    let mapper = wdjson::Mapper::new(&vocab);
    let json =
        |text: &str, out: &mut Vec<Fact>, c: &mut input::EntityCounts| mapper.map(text, out, c);
    // Facts are added to the store on their own thread while parsing goes on.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Fact>>(16);
    let (store, read) = std::thread::scope(|scope| {
        let merger = scope.spawn(move || {
            let mut store = Store::default();
            for batch in rx {
                for f in batch {
                    store.add(f);
                }
            }
            store
        });
        let read = read::read_all_with_json(
            inputs,
            opts.format,
            &extract,
            Some(&json),
            opts.skip_invalid,
            opts.progress,
            &mut stats,
            &mut |batch| {
                let _ = tx.send(batch);
            },
        );
        drop(tx);
        (merger.join().expect("fact merger thread panicked"), read)
    });
    read?;
    check_cancel()?;
    timer.lap("read+parse+store");
    let mut store = store;
    store.finish();
    let read_secs = t0.elapsed().as_secs_f64();
    timer.lap("store finish (sort the multimaps, in parallel)");
    let mut item_edges: FxHashMap<u32, Vec<(ItemId, ItemId)>> = FxHashMap::default();
    for (&(s, p), o) in store.direct.iter() {
        if let Obj::Item(o) = o {
            item_edges.entry(p).or_default().push((s, *o));
        }
    }
    for v in item_edges.values_mut() {
        v.sort_unstable();
    }
    timer.lap("item edges");
    let mut r = Resolver {
        s: &schema,
        st: &store,
        counts: Counts::default(),
        opts,
        item_edges,
    };
    let (graph, mut report) = r.run();
    check_cancel()?;
    timer.lap("resolve");
    drop(r);
    let facts_kept = store.facts;
    let non_items = J::Obj(
        facts::NonItemKind::ALL
            .iter()
            .map(|k| {
                let (triples, entities) = &store.non_items[*k as usize];
                (
                    k.as_str().into(),
                    J::Obj(vec![
                        ("triples".into(), J::Int(*triples as i64)),
                        ("entities".into(), J::Int(entities.len() as i64)),
                    ]),
                )
            })
            .collect(),
    );
    // The fact store is freed (in parallel) while the outputs are written; the
    // graph tree after them. Both before returning, so that the caller's memory
    // use starts from what is kept.
    let ((graph_json, tables), ()) = rayon::join(
        || {
            rayon::join(
                || pyjson::write_top_parallel(&graph),
                || opts.tables.then(|| tables::tables(&graph)),
            )
        },
        || store.par_drop(),
    );
    let schema_json = match &graph {
        J::Obj(g) => g
            .iter()
            .find(|(k, _)| k == "schema")
            .map(|(_, v)| pyjson::compact(v))
            .unwrap_or_default(),
        _ => String::new(),
    };
    timer.lap("write graph.json + tables (and free the store)");
    pyjson::par_drop(graph);
    timer.lap("free the graph tree");
    report.insert(
        0,
        (
            "inputs".into(),
            J::Arr(inputs.iter().map(|s| J::Str(s.clone())).collect()),
        ),
    );
    report.insert(1, ("triples_read".into(), J::Int(stats.triples as i64)));
    report.insert(
        2,
        (
            "bytes_read_decompressed_ntriples".into(),
            J::Int(stats.bytes as i64),
        ),
    );
    report.insert(
        3,
        (
            "invalid_skipped".into(),
            J::Int(stats.skipped_invalid as i64),
        ),
    );
    report.insert(
        4,
        (
            "invalid_examples".into(),
            J::Arr(
                stats
                    .skipped_examples
                    .iter()
                    .map(|s| J::Str(s.clone()))
                    .collect(),
            ),
        ),
    );
    report.insert(5, ("facts_kept".into(), J::Int(facts_kept as i64)));
    report.insert(6, ("non_item_subjects_ignored".into(), non_items));
    report.push((
        "entities_read".into(),
        J::Int(stats.entities.entities as i64),
    ));
    report.push((
        "unknown_datavalue_types".into(),
        J::Obj(
            stats
                .entities
                .unknown_types
                .iter()
                .map(|(k, v)| (k.clone().into(), J::Int(*v as i64)))
                .collect(),
        ),
    ));
    report.push((
        "input_notes".into(),
        J::Arr(stats.notes.iter().map(|s| J::Str(s.clone())).collect()),
    ));
    report.push((
        "seconds_reading".into(),
        J::Float((read_secs * 1000.0).round() / 1000.0),
    ));
    report.push((
        "seconds_total".into(),
        J::Float((t0.elapsed().as_secs_f64() * 1000.0).round() / 1000.0),
    ));
    let mut report_json = String::new();
    pyjson::write(&mut report_json, &J::Obj(report), 0);
    Ok(Output {
        graph_json,
        report_json,
        schema_json,
        tables,
    })
}

/// Classes listed per empty entity label in the report's `empty_entity_classes`.
pub const FREQUENT_CLASSES: usize = 10;

struct Resolver<'a> {
    s: &'a Schema,
    st: &'a Store,
    counts: Counts,
    opts: &'a Options,
    /// Truthy item-to-item edges per property, sorted.
    item_edges: FxHashMap<u32, Vec<(ItemId, ItemId)>>,
}

struct Row<'a> {
    value: &'a Obj,
    quantity: Option<(&'a str, Option<ItemId>, String)>,
    time: Option<(&'a str, i64)>,
}

/// Scalar properties `(key, value, is_list)` and list properties of one statement.
type PropMaps = (Vec<(String, PV, bool)>, Vec<(String, Vec<PV>)>);

/// Relations found from one subject item, with what was dropped on the way.
#[derive(Default)]
struct SubjectRels {
    found: Vec<((String, String, String), PropMaps)>,
    /// Relations whose ends were not kept.
    dropped: u64,
    /// Statements skipped for their deprecated rank (subject kept).
    deprecated: u64,
    /// (property index, reason) of dropped relation property values.
    drops: Vec<(usize, &'static str)>,
}

struct Rel {
    label: String,
    subj_id: String,
    obj_id: String,
    props: Vec<(String, PV, bool)>,
    rid: usize,
}

impl Resolver<'_> {
    fn english_name(&self, q: ItemId) -> Option<&str> {
        let l = self.st.labels.get(&q)?;
        let l: &str = l;
        // `l != qid(q)` without formatting the QID
        let is_qid = l
            .strip_prefix('Q')
            .is_some_and(|d| facts::parse_item_num(d) == Some(q));
        (!l.is_empty() && !is_qid).then_some(l)
    }

    /// Items in class `class` per the entity's membership pattern.
    fn members(&self, e: &schema::EntitySchema) -> FxHashSet<ItemId> {
        let mut classes: FxHashSet<ItemId> = FxHashSet::default();
        classes.insert(e.class_qid);
        if e.include_subclasses {
            let mut children: FxHashMap<ItemId, Vec<ItemId>> = FxHashMap::default();
            for &(s, c) in self.item_edges.get(&279).into_iter().flatten() {
                children.entry(c).or_default().push(s);
            }
            let mut stack = vec![e.class_qid];
            while let Some(c) = stack.pop() {
                for &k in children.get(&c).into_iter().flatten() {
                    if classes.insert(k) {
                        stack.push(k);
                    }
                }
            }
        }
        let pred = if e.is_instance { 31 } else { 279 };
        let mut out = FxHashSet::default();
        for &(s, c) in self.item_edges.get(&pred).into_iter().flatten() {
            if classes.contains(&c) {
                out.insert(s);
            }
        }
        out
    }

    fn satisfies(&self, q: ItemId, e: &schema::EntitySchema) -> bool {
        e.constraints.iter().all(|c| match *c {
            Constraint::LinkedTo(p, v) => self.st.direct_items(q, p).any(|x| x == v),
            Constraint::HasProperty(p) => {
                self.st.direct.get(&(q, p)).is_some_and(|v| !v.is_empty())
            }
        })
    }

    /// (parent, child) item pairs of a `$FROM_RELATION` hop.
    fn hop_pairs(&self, hop: &Hop) -> Vec<(ItemId, ItemId)> {
        let r = &self.s.relations[hop.relation];
        let RelSource::Pid(p) = r.source else {
            return Vec::new();
        };
        let mut pairs = Vec::new();
        if let Some(qp) = r.qualifier_pid {
            for &(s, st) in self.st.claim_list.get(&p).into_iter().flatten() {
                for o in self.st.quals.get(&(st, qp)).into_iter().flatten() {
                    if let Obj::Item(o) = o {
                        pairs.push((s, *o));
                    }
                }
            }
        } else if r.rank == RankFilter::Highest {
            pairs.extend(self.item_edges.get(&p).into_iter().flatten().copied());
        } else {
            for &(s, st) in self.st.claim_list.get(&p).into_iter().flatten() {
                for o in self.st.stmt_values.get(&(st, p)).into_iter().flatten() {
                    if let Obj::Item(o) = o {
                        pairs.push((s, *o));
                    }
                }
            }
        }
        if !hop.forward {
            for x in pairs.iter_mut() {
                *x = (x.1, x.0);
            }
        }
        pairs
    }

    fn walk(&self, path: &[Hop], start: &FxHashSet<ItemId>) -> FxHashSet<ItemId> {
        let mut cur = start.clone();
        for hop in path {
            let pairs = self.hop_pairs(hop);
            let mut adj: FxHashMap<ItemId, Vec<ItemId>> = FxHashMap::default();
            for (a, b) in pairs {
                adj.entry(a).or_default().push(b);
            }
            let transitive = self.s.relations[hop.relation].transitive;
            let mut next: FxHashSet<ItemId> = if transitive {
                cur.clone()
            } else {
                FxHashSet::default()
            };
            let mut stack: Vec<ItemId> = cur.iter().copied().collect();
            while let Some(x) = stack.pop() {
                for &y in adj.get(&x).into_iter().flatten() {
                    if next.insert(y) && transitive {
                        stack.push(y);
                    }
                }
            }
            cur = next;
        }
        cur
    }

    fn unit_label(&self, unit: &Obj) -> Option<(Option<ItemId>, String)> {
        match unit {
            Obj::Item(q) => {
                if let Some(l) = self.st.labels.get(q) {
                    return Some((Some(*q), l.to_string()));
                }
                units::by_qid(&qid(*q)).map(|u| (Some(*q), u.label.to_string()))
            }
            _ => None,
        }
    }

    /// Rows (value with its value node data) of a statement's `values` / `nodes`.
    fn rows<'b>(
        &'b self,
        values: impl IntoIterator<Item = &'b Obj>,
        nodes: &'b [Key],
    ) -> Vec<Row<'b>> {
        let mut rows = Vec::new();
        for v in values {
            let lex = match v {
                Obj::Lit(l) => Some(&**l),
                _ => None,
            };
            let mut quantity = None;
            let mut time = None;
            for n in nodes {
                let Some(node) = self.st.nodes.get(n) else {
                    continue;
                };
                if let (Some(a), Some(u)) = (&node.amount, &node.unit) {
                    if lex == Some(&**a) {
                        if let Some((uq, ul)) = self.unit_label(u) {
                            quantity = Some((&**a, uq, ul));
                        }
                    }
                }
                if let (Some(t), Some(p)) = (&node.time, node.precision) {
                    if lex == Some(&**t) {
                        time = Some((&**t, p));
                    }
                }
            }
            rows.push(Row {
                value: v,
                quantity,
                time,
            });
        }
        rows
    }

    fn cast(&self, s: String, prim: DataType) -> Result<PV, &'static str> {
        match prim {
            DataType::Str => Ok(PV::Str(s)),
            DataType::Int => values::py_int(&s)
                .map(PV::Int)
                .ok_or("datatype conversion failure"),
            DataType::Float => values::py_float(&s)
                .map(PV::Float)
                .ok_or("datatype conversion failure"),
            DataType::Bool => Ok(PV::Bool(!s.is_empty())),
            _ => Err("datatype conversion failure"),
        }
    }

    /// One row → value, with the original engine's order of checks.
    fn value(&self, row: &Row, p: &PropSchema) -> Result<PV, &'static str> {
        let prim = p.datatype.primitive();
        if p.quantity_unit.is_some() && row.quantity.is_none() {
            return Err("not a quantity");
        }
        if p.is_year && row.time.is_none() {
            return Err("not a date");
        }
        if let Some((lex, prec)) = row.time {
            if p.is_year && prec < 9 {
                return Err("precision too coarse");
            }
            if lex.starts_with('-') {
                return Err("BCE date");
            }
            let Some((y, m, d)) = values::parse_time(lex) else {
                return Err("invalid date");
            };
            if p.is_year {
                if !(1000..=9999).contains(&y) {
                    return Err("year not 4 digits");
                }
                return self.cast(y.to_string(), prim);
            }
            if prim == DataType::Date {
                if prec >= 11 {
                    return Ok(PV::Date(format!("{y:04}-{m:02}-{d:02}")));
                }
                return Err("precision too coarse");
            }
            let Some(text) = values::date_text(y, m, d, prec) else {
                return Err("precision too coarse");
            };
            return self.cast(text, prim);
        }
        if let Some((amount, uq, ref ulabel)) = row.quantity {
            match &p.quantity_unit {
                None => {
                    let mut s = amount.strip_prefix('+').unwrap_or(amount).to_string();
                    if ulabel != "1" {
                        s.push(' ');
                        s.push_str(ulabel);
                    }
                    return self.cast(s, prim);
                }
                Some((tq, tu)) => {
                    let Some(v) = values::py_float(amount) else {
                        return Err("datatype conversion failure");
                    };
                    // `qid(uq) == tq or ulabel.lower() == tu.label.lower()`, no allocation
                    let same = uq.is_some_and(|u| {
                        tq.strip_prefix('Q')
                            .is_some_and(|d| facts::parse_item_num(d) == Some(u))
                    }) || if ulabel.is_ascii() && tu.label.is_ascii() {
                        ulabel.eq_ignore_ascii_case(tu.label)
                    } else {
                        ulabel.to_lowercase() == tu.label.to_lowercase()
                    };
                    if !p.quantity_convert_unit {
                        return if same {
                            Ok(PV::Float(v))
                        } else {
                            Err("unit mismatch")
                        };
                    }
                    if same {
                        return Ok(PV::Float(v));
                    }
                    let src = uq
                        .and_then(|q| units::by_qid(&qid(q)))
                        .or_else(|| units::by_label(ulabel).map(|x| x.1));
                    let Some(src) = src else {
                        return Err("unknown unit");
                    };
                    return match units::convert(v, src, tu) {
                        Ok(x) if x.is_finite() => Ok(PV::Float(x)),
                        Ok(_) => Err("datatype conversion failure"),
                        Err(units::ConvertError::Unitless) => Err("unitless quantity"),
                        Err(units::ConvertError::DimensionMismatch) => {
                            Err("unit dimension mismatch")
                        }
                    };
                }
            }
        }
        match row.value {
            Obj::Item(q) => match self.english_name(*q) {
                Some(l) => self.cast(l.to_string(), prim),
                None => Err("value item has no English label"),
            },
            Obj::SomeValue => Err("unknown value (somevalue)"),
            Obj::Lit(s) | Obj::Iri(s) => self.cast(s.to_string(), prim),
        }
    }

    /// Fold one value into an entity's / statement's property map.
    fn fold(
        props: &mut Vec<(String, PV, bool)>,
        list: &mut Vec<(String, Vec<PV>)>,
        p: &PropSchema,
        v: PV,
    ) {
        if p.datatype.is_list() {
            match list.iter_mut().find(|(k, _)| *k == p.label) {
                Some((_, vs)) => push_unique(vs, v),
                None => list.push((p.label.clone(), vec![v])),
            }
        } else {
            match props.iter_mut().find(|(k, _, _)| *k == p.label) {
                Some((_, old, _)) => {
                    if v.better_than(old) {
                        *old = v;
                    }
                }
                None => props.push((p.label.clone(), v, false)),
            }
        }
    }

    /// Resolve the graph and the report's counts. Once [`crate::cancel::request`] was
    /// called it skips the remaining work (per entity, per subject, between phases) and
    /// returns an incomplete result, which [`convert`] discards with
    /// [`ConvertError::Interrupted`].
    fn run(&mut self) -> (J, Vec<(JKey, J)>) {
        let mut timer = Timer::new();
        let s = self.s;
        let st = self.st;
        let n = s.entities.len();
        // 1-3: candidates per entity.
        let mut base: Vec<FxHashSet<ItemId>> = Vec::with_capacity(n);
        let mut class_members: Vec<usize> = Vec::with_capacity(n);
        for e in &s.entities {
            let m = self.members(e);
            class_members.push(m.len());
            base.push(m.into_iter().filter(|&q| self.satisfies(q, e)).collect());
        }
        let mut kept: Vec<Vec<ItemId>> = vec![Vec::new(); n];
        let mut candidates: Vec<usize> = vec![0; n];
        let mut cand_sets: Vec<FxHashSet<ItemId>> = vec![FxHashSet::default(); n];
        let mut max_rqid: Vec<Option<String>> = vec![None; n];
        let mut no_label: BTreeMap<String, u64> = BTreeMap::new();
        for i in 0..n {
            let e = &s.entities[i];
            let cand: Vec<ItemId> = if s.roots[i].is_empty() {
                base[i].iter().copied().collect()
            } else {
                let bound: Option<String> = if self.opts.max_entities_per_root.is_some() {
                    s.roots[i]
                        .iter()
                        .filter_map(|(r, _)| max_rqid[*r].clone())
                        .max()
                } else {
                    None
                };
                let mut reach = FxHashSet::default();
                for (r, paths) in &s.roots[i] {
                    let start: FxHashSet<ItemId> = match (&bound, self.opts.max_entities_per_root) {
                        (Some(b), Some(_)) => base[*r]
                            .iter()
                            .copied()
                            .filter(|&q| rqid(q) <= *b)
                            .collect(),
                        (None, Some(_)) => FxHashSet::default(),
                        _ => base[*r].clone(),
                    };
                    for p in paths {
                        reach.extend(self.walk(p, &start));
                    }
                }
                base[i]
                    .iter()
                    .copied()
                    .filter(|q| reach.contains(q))
                    .collect()
            };
            candidates[i] = cand.len();
            cand_sets[i] = cand.iter().copied().collect();
            let mut named: Vec<ItemId> = Vec::with_capacity(cand.len());
            for q in cand {
                if self.english_name(q).is_some() {
                    named.push(q);
                } else {
                    *no_label.entry(e.label.clone()).or_default() += 1;
                }
            }
            if let (true, Some(limit)) = (s.roots[i].is_empty(), self.opts.max_entities_per_root) {
                named.sort_by_cached_key(|&q| (rqid(q), q));
                named.truncate(limit);
                max_rqid[i] = named.last().map(|&q| rqid(q));
            }
            named.sort_by_cached_key(|&q| qid(q));
            kept[i] = named;
        }
        timer.lap("  candidates");
        if crate::cancel::requested() {
            return (J::Null, Vec::new());
        }
        let kept_sets: Vec<FxHashSet<ItemId>> =
            kept.iter().map(|v| v.iter().copied().collect()).collect();
        let enabled: Vec<bool> = s.entities.iter().map(|e| !e.disable).collect();

        let mut enwiki: FxHashMap<ItemId, Vec<&str>> = FxHashMap::default();
        for (a, q) in &st.about {
            if st.enwiki_parts.contains(a) {
                enwiki.entry(*q).or_default().push(a);
            }
        }
        // Entities.
        let mut entities_json = Vec::new();
        let mut ent_counts = Vec::new();
        for (i, e) in s.entities.iter().enumerate() {
            if e.disable {
                continue;
            }
            ent_counts.push((e.label.clone().into(), J::Int(kept[i].len() as i64)));
            let owners: Vec<String> = e
                .properties
                .iter()
                .map(|p| format!("{}.{}", e.label, p.label))
                .collect();
            // Per entity in parallel (rayon); results and dropped-value counts are
            // gathered in `kept` order, so the output does not depend on threads.
            let this: &Resolver = self;
            let done: Vec<(J, Vec<(usize, &'static str)>)> = kept[i]
                .par_iter()
                .map(|&q| {
                    if crate::cancel::requested() {
                        return (J::Null, Vec::new()); // discarded: `convert` checks after `run`
                    }
                    let mut drops: Vec<(usize, &'static str)> = Vec::new();
                    let mut props: Vec<(String, PV, bool)> = Vec::new();
                    let mut lists: Vec<(String, Vec<PV>)> = Vec::new();
                    for (oi, p) in e.properties.iter().enumerate().filter(|(_, p)| !p.disable) {
                        match p.source {
                            PropSource::LinkedTo(pp, v) => {
                                let b = st.direct_items(q, pp).any(|x| x == v);
                                let val = match p.datatype.primitive() {
                                    DataType::Bool => Ok(PV::Bool(b)),
                                    DataType::Str => {
                                        Ok(PV::Str(if b { "True" } else { "False" }.into()))
                                    }
                                    DataType::Int => Ok(PV::Int(b as i64)),
                                    DataType::Float => Ok(PV::Float(if b { 1.0 } else { 0.0 })),
                                    DataType::Date => Err("datatype conversion failure"),
                                    _ => Err("datatype conversion failure"),
                                };
                                match val {
                                    Ok(v) => Resolver::fold(&mut props, &mut lists, p, v),
                                    Err(r) => drops.push((oi, r)),
                                }
                            }
                            PropSource::Pid(pp) => {
                                let truthy = st.direct.get(&(q, pp));
                                for &sid in st.claims.get(&(q, pp)).into_iter().flatten() {
                                    if !p.qualifier_filters.iter().all(|&(fp, fq)| {
                                        st.quals
                                            .get(&(sid, fp))
                                            .is_some_and(|v| v.contains(&Obj::Item(fq)))
                                    }) {
                                        continue;
                                    }
                                    let vals: Vec<&Obj> = st
                                        .stmt_values
                                        .get(&(sid, pp))
                                        .into_iter()
                                        .flatten()
                                        .filter(|v| truthy.is_some_and(|t| t.contains(v)))
                                        .collect();
                                    let nodes = st.stmt_nodes.get(&(sid, pp)).unwrap_or(&[]);
                                    let results: Vec<Result<PV, &str>> = self
                                        .rows(vals, nodes)
                                        .iter()
                                        .map(|row| this.value(row, p))
                                        .collect();
                                    for res in results {
                                        match res {
                                            Ok(v) => Resolver::fold(&mut props, &mut lists, p, v),
                                            Err(r) => drops.push((oi, r)),
                                        }
                                    }
                                }
                            }
                        }
                    }
                    let obj = entity_json(
                        e,
                        q,
                        props,
                        lists,
                        enwiki.get(&q).map_or(&[], |v| v.as_slice()),
                        st,
                        this,
                    );
                    (obj, drops)
                })
                .collect();
            for (obj, drops) in done {
                for (oi, r) in drops {
                    self.counts.drop(&owners[oi], r);
                }
                entities_json.push(obj);
            }
        }

        timer.lap("  entities");
        if crate::cancel::requested() {
            return (J::Null, Vec::new());
        }
        // Relations.
        let mut rels: Vec<Rel> = Vec::new();
        let mut rel_counts_raw: Vec<(String, usize)> = Vec::new();
        let mut out_of_scope: Vec<(JKey, J)> = Vec::new();
        for r in &s.relations {
            let key = format!("{}({}->{})", r.label, r.subj_label, r.obj_label);
            let (Some(si), Some(oi)) =
                (s.entity_index(&r.subj_label), s.entity_index(&r.obj_label))
            else {
                continue;
            };
            if r.disable || !enabled[si] || !enabled[oi] {
                continue;
            }
            let rel_owners: Vec<String> = r
                .properties
                .iter()
                .map(|pr| format!("{}.{}", r.label, pr.label))
                .collect();
            let subj_pool: Vec<ItemId> = {
                let mut v: Vec<ItemId> = cand_sets[si].iter().copied().collect();
                v.sort_unstable();
                v
            };
            // Per subject in parallel (rayon); every key holds its subject, so the
            // per-subject results are disjoint and the sorted map below does not
            // depend on the thread count. Dropped-value counts are summed after.
            let this: &Resolver = self;
            let per_subject: Vec<SubjectRels> = subj_pool
                .par_iter()
                .map(|&a| {
                    if crate::cancel::requested() {
                        SubjectRels::default() // discarded: `convert` checks after `run`
                    } else {
                        this.relations_of(r, si, oi, a, &cand_sets, &kept_sets)
                    }
                })
                .collect();
            // (subj, obj, statement iri) -> props
            let mut found: BTreeMap<(String, String, String), PropMaps> = BTreeMap::new();
            let mut dropped = 0u64;
            for sr in per_subject {
                dropped += sr.dropped;
                for _ in 0..sr.deprecated {
                    bump(&mut self.counts.dropped, "deprecated rank (relation)");
                }
                for (pi, reason) in sr.drops {
                    self.counts.drop(&rel_owners[pi], reason);
                }
                for (k, v) in sr.found {
                    found.entry(k).or_insert(v);
                }
            }
            rel_counts_raw.push((key.clone(), found.len()));
            out_of_scope.push((key.into(), J::Int(dropped as i64)));
            for ((a, b, _), (props, lists)) in found {
                let mut all: Vec<(String, PV, bool)> = Vec::new();
                // Keep schema order of properties.
                for pr in r.properties.iter().filter(|x| !x.disable) {
                    if let Some(x) = props.iter().find(|x| x.0 == pr.label) {
                        all.push(x.clone());
                    }
                    if let Some((k, vs)) = lists.iter().find(|x| x.0 == pr.label) {
                        let mut vs = vs.clone();
                        vs.sort_by(|x, y| x.py_cmp(y));
                        for v in vs {
                            all.push((k.clone(), v, true));
                        }
                    }
                }
                let rid = rels.len();
                rels.push(Rel {
                    label: r.label.clone(),
                    subj_id: format!("{}#{}", r.subj_label, a),
                    obj_id: format!("{}#{}", r.obj_label, b),
                    props: all,
                    rid,
                });
            }
        }
        timer.lap("  relations");
        if crate::cancel::requested() {
            return (J::Null, Vec::new());
        }
        // Merge (the original's convert_wd_to_simple_kg).
        let before_merge = rels.len();
        // Relations of one (label, subj_id, obj_id) are adjacent in `rels`: they come
        // from one schema relation ((label, subj, obj) is unique, schema::parse_schema)
        // whose `found` map is ordered by (subject, object, statement). So groups
        // are runs, in the order of their first relation.
        let mut groups: Vec<Vec<Rel>> = Vec::new();
        for rel in rels {
            let same = groups.last().and_then(|g| g.first()).is_some_and(|r0| {
                r0.label == rel.label && r0.subj_id == rel.subj_id && r0.obj_id == rel.obj_id
            });
            if !same {
                groups.push(vec![rel]);
                continue;
            }
            let group = groups.last_mut().expect("a group");
            match group.iter_mut().find(|r0| mergeable(r0, &rel)) {
                Some(r0) => merge_into(r0, &rel),
                None => group.push(rel),
            }
        }
        let mut relations_json = Vec::new();
        let mut rel_counts: Vec<(JKey, J)> = Vec::new();
        let mut per_key: FxHashMap<String, i64> = FxHashMap::default();
        for rel in groups.into_iter().flatten() {
            let sl = rel.subj_id.split('#').next().unwrap_or("");
            let ol = rel.obj_id.split('#').next().unwrap_or("");
            let k = format!("{}({}->{})", rel.label, sl, ol);
            match per_key.get_mut(&k) {
                Some(c) => *c += 1,
                None => {
                    per_key.insert(k, 1);
                }
            }
            relations_json.push(relation_json(rel));
        }
        for (k, _) in &rel_counts_raw {
            rel_counts.push((k.clone().into(), J::Int(*per_key.get(k).unwrap_or(&0))));
        }

        timer.lap("  merge");
        // Schema block: enabled properties as {label: datatype}.
        let schema_properties = |props: &[schema::PropSchema]| {
            J::Obj(
                props
                    .iter()
                    .filter(|p| !p.disable)
                    .map(|p| (p.label.clone().into(), J::Str(p.datatype.as_str().into())))
                    .collect(),
            )
        };
        let ents_schema: Vec<J> = s
            .entities
            .iter()
            .filter(|e| !e.disable)
            .map(|e| {
                J::Obj(vec![
                    ("label".into(), J::Str(e.label.clone())),
                    ("description".into(), J::Null),
                    ("properties".into(), schema_properties(&e.properties)),
                ])
            })
            .collect();
        let rels_schema: Vec<J> = s
            .relations
            .iter()
            .filter(|r| {
                !r.disable
                    && s.entity_index(&r.subj_label).is_some_and(|i| enabled[i])
                    && s.entity_index(&r.obj_label).is_some_and(|i| enabled[i])
            })
            .map(|r| {
                J::Obj(vec![
                    ("label".into(), J::Str(r.label.clone())),
                    ("subj_label".into(), J::Str(r.subj_label.clone())),
                    ("obj_label".into(), J::Str(r.obj_label.clone())),
                    ("properties".into(), schema_properties(&r.properties)),
                ])
            })
            .collect();
        let n_ent = entities_json.len();
        let n_rel = relations_json.len();
        let graph = J::Obj(vec![
            (
                "schema".into(),
                J::Obj(vec![
                    ("name".into(), J::Str(s.name.clone())),
                    ("entities".into(), J::Arr(ents_schema)),
                    ("relations".into(), J::Arr(rels_schema)),
                ]),
            ),
            ("entities".into(), J::Arr(entities_json)),
            ("relations".into(), J::Arr(relations_json)),
        ]);
        let to_obj = |m: &BTreeMap<String, u64>| {
            J::Obj(
                m.iter()
                    .map(|(k, v)| (k.clone().into(), J::Int(*v as i64)))
                    .collect(),
            )
        };
        let empty_classes = self.empty_entity_classes(&kept, &class_members);
        let mut report = vec![
            ("schema".into(), J::Str(s.name.clone())),
            ("entities_total".into(), J::Int(n_ent as i64)),
            ("relations_total".into(), J::Int(n_rel as i64)),
            ("entities".into(), J::Obj(ent_counts)),
            (
                "entity_candidates".into(),
                J::Obj(
                    s.entities
                        .iter()
                        .enumerate()
                        .filter(|(_, e)| !e.disable)
                        .map(|(i, e)| (e.label.clone().into(), J::Int(candidates[i] as i64)))
                        .collect(),
                ),
            ),
            (
                "entities_dropped_no_english_label".into(),
                to_obj(&no_label),
            ),
            ("relations".into(), J::Obj(rel_counts)),
            ("relations_before_merge".into(), J::Int(before_merge as i64)),
            (
                "relations_merged".into(),
                J::Int((before_merge - n_rel) as i64),
            ),
            (
                "relations_dropped_out_of_scope".into(),
                J::Obj(out_of_scope),
            ),
            ("dropped_values".into(), to_obj(&self.counts.dropped)),
            (
                "dropped_values_by_property".into(),
                J::Obj(
                    self.counts
                        .dropped_by_prop
                        .iter()
                        .map(|(k, m)| (k.clone().into(), to_obj(m)))
                        .collect(),
                ),
            ),
        ];
        if let Some(classes) = empty_classes {
            report.push(("empty_entity_classes".into(), classes));
        }
        (graph, report)
    }

    /// The report's `empty_entity_classes` (`None` when every enabled schema entity label kept
    /// an entity): per label that kept none, `class_members`, the items its class pattern
    /// matches (`P31/P279*` as in [`Resolver::members`], before constraints, roots and the
    /// English-label rule), and when that is 0, `frequent_classes`: the
    /// [`FREQUENT_CLASSES`] most frequent objects of the truthy item edges of its pattern's
    /// predicate (`wdt:P31`, or `wdt:P279` for `wd_is_instance: false`) as
    /// `[qid, English label or null, items]`, by items (descending) then QID number; an
    /// empty list when the input has no such edge. What `kgbench convert` says when it kept
    /// nothing (`kgbench.convert.explain_empty_entities`).
    fn empty_entity_classes(&self, kept: &[Vec<ItemId>], class_members: &[usize]) -> Option<J> {
        let mut frequent: [Option<J>; 2] = [None, None];
        let mut out = Vec::new();
        for (i, e) in self.s.entities.iter().enumerate() {
            if e.disable || !kept[i].is_empty() {
                continue;
            }
            let mut fields = vec![("class_members".into(), J::Int(class_members[i] as i64))];
            if class_members[i] == 0 {
                let (slot, pred) = if e.is_instance { (0, 31) } else { (1, 279) };
                let classes = frequent[slot].get_or_insert_with(|| self.frequent_classes(pred));
                fields.push(("frequent_classes".into(), classes.clone()));
            }
            out.push((e.label.clone().into(), J::Obj(fields)));
        }
        (!out.is_empty()).then_some(J::Obj(out))
    }

    /// The [`FREQUENT_CLASSES`] most frequent objects of the truthy item edges of property
    /// `pred`, as `[[qid, English label or null, subjects], ...]` (see
    /// [`Resolver::empty_entity_classes`]).
    fn frequent_classes(&self, pred: u32) -> J {
        let mut counts: FxHashMap<ItemId, i64> = FxHashMap::default();
        for &(_, c) in self.item_edges.get(&pred).into_iter().flatten() {
            *counts.entry(c).or_default() += 1;
        }
        let mut ranked: Vec<(ItemId, i64)> = counts.into_iter().collect();
        ranked.sort_unstable_by_key(|&(q, n)| (std::cmp::Reverse(n), q));
        ranked.truncate(FREQUENT_CLASSES);
        J::Arr(
            ranked
                .into_iter()
                .map(|(q, n)| {
                    let label = match self.st.labels.get(&q) {
                        Some(l) if !l.is_empty() => J::Str(l.to_string()),
                        _ => J::Null,
                    };
                    J::Arr(vec![J::Str(qid(q)), label, J::Int(n)])
                })
                .collect(),
        )
    }

    /// Relations of schema relation `r` from one subject item `a` (step 5 of
    /// the module docs), in the sequential engine's order.
    fn relations_of(
        &self,
        r: &schema::RelationSchema,
        si: usize,
        oi: usize,
        a: ItemId,
        cand_sets: &[FxHashSet<ItemId>],
        kept_sets: &[FxHashSet<ItemId>],
    ) -> SubjectRels {
        let st = self.st;
        let mut out = SubjectRels::default();
        let keep = |a: ItemId, b: ItemId| kept_sets[si].contains(&a) && kept_sets[oi].contains(&b);
        match (&r.source, r.transitive, &r.suffix) {
            (RelSource::Identical, _, _) => {
                if cand_sets[oi].contains(&a) {
                    if keep(a, a) {
                        out.found
                            .push(((qid(a), qid(a), "IDENTICAL".into()), Default::default()));
                    } else {
                        out.dropped += 1;
                    }
                }
            }
            (RelSource::Pid(p), true, _) | (RelSource::Pid(p), false, Some(_)) => {
                let mut steps = vec![schema::PathStep {
                    pid: *p,
                    modifier: if r.transitive { '*' } else { '1' },
                }];
                steps.extend(r.suffix.iter().flatten().copied());
                let tag = if r.transitive {
                    "TRANSITIVE"
                } else {
                    "WITH_SUFFIX"
                };
                let mut cur: FxHashSet<ItemId> = [a].into_iter().collect();
                for stp in &steps {
                    cur = self.path_step(&cur, stp);
                }
                let mut objs: Vec<ItemId> = cur.into_iter().collect();
                objs.sort_unstable();
                for b in objs {
                    if keep(a, b) {
                        out.found
                            .push(((qid(a), qid(b), tag.into()), Default::default()));
                    } else if cand_sets[oi].contains(&b) || kept_sets[si].contains(&a) {
                        out.dropped += 1;
                    }
                }
            }
            (RelSource::Pid(p), false, None) => {
                let mut seen: FxHashSet<(ItemId, &str)> = FxHashSet::default();
                for &sid in st.claims.get(&(a, *p)).into_iter().flatten() {
                    if r.rank == RankFilter::NonDeprecated && st.deprecated.contains(&sid) {
                        if kept_sets[si].contains(&a) {
                            out.deprecated += 1;
                        }
                        continue;
                    }
                    let objs = match r.qualifier_pid {
                        Some(qp) => st.quals.get(&(sid, qp)),
                        None => st.stmt_values.get(&(sid, *p)),
                    };
                    for o in objs.into_iter().flatten() {
                        let Obj::Item(b) = o else { continue };
                        if r.rank == RankFilter::Highest && !st.direct_items(a, *p).any(|x| x == *b)
                        {
                            continue;
                        }
                        if !keep(a, *b) {
                            out.dropped += 1;
                            continue;
                        }
                        let iri: &str = &st.stmt_iris[sid as usize];
                        if !seen.insert((*b, iri)) {
                            continue;
                        }
                        let mut props = Vec::new();
                        let mut lists = Vec::new();
                        for (pi, pr) in r.properties.iter().enumerate().filter(|(_, x)| !x.disable)
                        {
                            let PropSource::Pid(pp) = pr.source else {
                                continue;
                            };
                            let (vals, nodes) = if pr.is_qualifier {
                                (st.quals.get(&(sid, pp)), st.qual_nodes.get(&(sid, pp)))
                            } else {
                                (
                                    st.stmt_values.get(&(sid, pp)),
                                    st.stmt_nodes.get(&(sid, pp)),
                                )
                            };
                            let vals = vals.unwrap_or(&[]);
                            let nodes = nodes.unwrap_or(&[]);
                            for row in self.rows(vals, nodes) {
                                match self.value(&row, pr) {
                                    Ok(v) => Self::fold(&mut props, &mut lists, pr, v),
                                    Err(reason) => out.drops.push((pi, reason)),
                                }
                            }
                        }
                        out.found
                            .push(((qid(a), qid(*b), iri.to_string()), (props, lists)));
                    }
                }
            }
        }
        out
    }

    fn path_step(&self, cur: &FxHashSet<ItemId>, stp: &schema::PathStep) -> FxHashSet<ItemId> {
        let step1 = |xs: &FxHashSet<ItemId>| -> FxHashSet<ItemId> {
            let mut out = FxHashSet::default();
            for &x in xs {
                out.extend(self.st.direct_items(x, stp.pid));
            }
            out
        };
        match stp.modifier {
            '1' => step1(cur),
            '?' => {
                let mut out = step1(cur);
                out.extend(cur.iter().copied());
                out
            }
            _ => {
                let mut seen: FxHashSet<ItemId> = if stp.modifier == '*' {
                    cur.clone()
                } else {
                    FxHashSet::default()
                };
                let mut frontier = step1(cur);
                loop {
                    let new: FxHashSet<ItemId> =
                        frontier.into_iter().filter(|x| seen.insert(*x)).collect();
                    if new.is_empty() {
                        break;
                    }
                    frontier = step1(&new);
                }
                seen
            }
        }
    }
}

fn mergeable(r0: &Rel, rel: &Rel) -> bool {
    // Common non-list keys must have equal values.
    for (k, v, is_list) in &rel.props {
        if *is_list {
            continue;
        }
        if let Some((_, v0, _)) = r0.props.iter().find(|(k0, _, _)| k0 == k) {
            if v0 != v {
                return false;
            }
        }
    }
    true
}

fn merge_into(r0: &mut Rel, rel: &Rel) {
    let keys0: FxHashSet<String> = r0.props.iter().map(|x| x.0.clone()).collect();
    for (k, v, is_list) in &rel.props {
        if !keys0.contains(k) {
            r0.props.push((k.clone(), v.clone(), *is_list));
        } else if *is_list && !r0.props.iter().any(|(k0, v0, _)| k0 == k && v0 == v) {
            r0.props.push((k.clone(), v.clone(), true));
        }
    }
    // Re-sort list values of each key, keeping first-key order.
    let mut order: Vec<String> = Vec::new();
    for (k, _, _) in &r0.props {
        if !order.contains(k) {
            order.push(k.clone());
        }
    }
    let mut out = Vec::with_capacity(r0.props.len());
    for k in order {
        let mut vs: Vec<(String, PV, bool)> =
            r0.props.iter().filter(|x| x.0 == k).cloned().collect();
        if vs.first().is_some_and(|x| x.2) {
            vs.sort_by(|a, b| a.1.py_cmp(&b.1));
        }
        out.extend(vs);
    }
    r0.props = out;
}

fn pv_json(v: &PV) -> J {
    match v {
        PV::Str(s) | PV::Date(s) => J::Str(s.clone()),
        PV::Int(i) => J::Int(*i),
        PV::Float(f) => J::Float(*f),
        PV::Bool(b) => J::Bool(*b),
    }
}

fn props_json(props: &[(String, PV, bool)]) -> J {
    let mut out: Vec<(JKey, J)> = Vec::new();
    for (k, v, is_list) in props {
        if *is_list {
            match out.iter_mut().find(|(k0, _)| k0 == k) {
                Some((_, J::Arr(a))) => a.push(pv_json(v)),
                _ => out.push((k.clone().into(), J::Arr(vec![pv_json(v)]))),
            }
        } else {
            out.push((k.clone().into(), pv_json(v)));
        }
    }
    J::Obj(out)
}

fn relation_json(r: Rel) -> J {
    J::Obj(vec![
        ("rid".into(), J::Str(r.rid.to_string())),
        ("label".into(), J::Str(r.label)),
        ("subj_id".into(), J::Str(r.subj_id)),
        ("obj_id".into(), J::Str(r.obj_id)),
        ("properties".into(), props_json(&r.props)),
        ("provenance".into(), J::Arr(vec![])),
    ])
}

/// Percent-decode (UTF-8) as Python's `urllib.parse.unquote`.
fn unquote(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (
                (b[i + 1] as char).to_digit(16),
                (b[i + 2] as char).to_digit(16),
            ) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn entity_json(
    e: &schema::EntitySchema,
    q: ItemId,
    props: Vec<(String, PV, bool)>,
    lists: Vec<(String, Vec<PV>)>,
    articles: &[&str],
    st: &Store,
    r: &Resolver,
) -> J {
    let name = r.english_name(q).unwrap_or_default().to_string();
    let mut aliases: Vec<String> = st
        .aliases
        .get(&q)
        .into_iter()
        .flatten()
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    aliases.sort();
    aliases.dedup();
    let description = st
        .descriptions
        .get(&q)
        .map(|d| J::Str(d.to_string()))
        .unwrap_or(J::Null);
    // English Wikipedia sitelink: an article about q that is part of enwiki.
    let mut titles: Vec<String> = articles
        .iter()
        .map(|a| unquote(a.split("en.wikipedia.org/wiki/").last().unwrap_or("")).replace('_', " "))
        .collect();
    titles.sort();
    let provenance: Vec<J> = titles
        .first()
        .map(|t| {
            J::Str(format!(
                "https://en.wikipedia.org/wiki/{}",
                t.replace(' ', "_")
            ))
        })
        .into_iter()
        .collect();
    let mut all: Vec<(String, PV, bool)> = Vec::new();
    for p in e.properties.iter().filter(|p| !p.disable) {
        if let Some(x) = props.iter().find(|x| x.0 == p.label) {
            all.push(x.clone());
        }
        if let Some((k, vs)) = lists.iter().find(|x| x.0 == p.label) {
            let mut vs = vs.clone();
            vs.sort_by(|x, y| x.py_cmp(y));
            for v in vs {
                all.push((k.clone(), v, true));
            }
        }
    }
    J::Obj(vec![
        ("eid".into(), J::Str(format!("{}#Q{}", e.label, q))),
        ("label".into(), J::Str(e.label.clone())),
        ("name".into(), J::Str(name)),
        (
            "aliases".into(),
            J::Arr(aliases.into_iter().map(J::Str).collect()),
        ),
        ("description".into(), description),
        ("properties".into(), props_json(&all)),
        ("provenance".into(), J::Arr(provenance)),
    ])
}
