//! One pass over a graph document: validation (and the import tool's CSV rows) in parallel.
//!
//! The document is split into its members ([`split::split`]); the entity items are parsed,
//! checked ([`validate::check_entity`] with a problem count) and formatted as CSV rows
//! ([`csv::node_row`]) in parallel chunks (rayon), each item's tree freed right after; then the
//! eids are indexed (duplicates counted); then the relation items likewise, their ends looked
//! up in that index; then the rids are checked for duplicates. A graph with no problem at all is
//! valid and its CSV rows are complete. Otherwise the document is parsed whole and
//! [`validate::validate`] lists the problems in order — the same check functions, so the same
//! verdict. Rows are formatted with the default array delimiter; when a string list element
//! contains it, the rows are formatted again with the first free one. Chunks have a fixed size
//! and are concatenated in graph order: the files do not depend on the number of threads.

use std::borrow::Cow;
use std::path::Path;
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::csv::{self, CsvError, FileRows, IdType, ImportCsv, RowLayout};
use super::split::{self, Member};
use super::validate::{self, Checked, Count, Problems, Schema};
use super::value::{self, Val};
use super::ReadError;

/// Items per parallel chunk.
const CHUNK: usize = 4096;
/// Shards of the eid and rid indexes (built in parallel, one map per shard).
const SHARDS: usize = 64;

/// The index shard of a key hash: bits 32..38, which the maps use neither for the bucket
/// (low bits) nor for the tag (top bits).
fn shard_of(hash: u64) -> usize {
    (hash >> 32) as usize & (SHARDS - 1)
}

/// One shard of the eid index: eid -> (label index or NO_LABEL, entity index), and the number of
/// duplicate eids found while building it.
type EidShard<'s> = (FxHashMap<&'s str, (u32, u32)>, usize);

fn hash_str(s: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(s)
}

/// What [`check_graph`] found and wrote.
#[derive(Debug)]
pub struct Report {
    /// The problems, the schema's declared properties and the counts per label / key.
    pub checked: Checked,
    /// Number of entities (0 when `entities` is not a list).
    pub entities: usize,
    /// Number of relations (0 when `relations` is not a list).
    pub relations: usize,
    /// The CSV files' import arguments, when asked for and the graph is valid.
    pub csv: Option<ImportCsv>,
    /// Wall seconds of the parts.
    pub timings: Vec<(&'static str, f64)>,
}

/// Why [`check_graph`] failed.
#[derive(Debug)]
pub enum GraphError {
    /// The text is not JSON / not a graph object.
    Read(ReadError),
    /// The CSV files could not be written.
    Csv(CsvError),
    /// Stopped by [`crate::cancel::request`] (Ctrl-C): no CSV file is left.
    Interrupted,
}

crate::cancel::interrupted_from_cancelled!(GraphError);

impl std::fmt::Display for GraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GraphError::Read(e) => e.fmt(f),
            GraphError::Csv(e) => e.fmt(f),
            GraphError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for GraphError {}

/// The items of `entities` / `relations`: unparsed slices of the text, or parsed values.
enum Items<'t, 'a> {
    Slices(&'a [u8], &'t [(usize, usize)]),
    Tree(&'t [Val<'a>]),
}

impl<'a> Items<'_, 'a> {
    fn len(&self) -> usize {
        match self {
            Items::Slices(_, r) => r.len(),
            Items::Tree(v) => v.len(),
        }
    }

    /// Run `f` on item `i`; `None` when a slice is not JSON.
    fn with<R>(&self, i: usize, f: impl FnOnce(&Val<'a>) -> R) -> Option<R> {
        match self {
            Items::Slices(b, r) => split::parse_item(b, r[i]).map(|v| f(&v)),
            Items::Tree(v) => Some(f(&v[i])),
        }
    }
}

/// The document's parts.
struct Doc<'t, 'a> {
    schema: Option<&'t Val<'a>>,
    entities: Option<Items<'t, 'a>>,
    relations: Option<Items<'t, 'a>>,
}

/// CSV formatting of the rows during the pass.
#[derive(Clone, Copy)]
struct Format<'l, 's> {
    nodes: &'l [RowLayout<'s>],
    relationships: &'l [RowLayout<'s>],
    delim: u8,
    id_type: IdType,
}

/// What one chunk of items (entities or relations) gave.
struct ItemChunk<Id> {
    /// Per index shard: the identifiers to check for repetition — entities: (eid, label
    /// index or NO_LABEL, entity index) of every entity with a valid eid; relations: the
    /// rids.
    ids: Vec<Vec<Id>>,
    problems: usize,
    bad_json: bool,
    bits: u8,
    newline: bool,
    /// Items per label (entities) or relation key (relations).
    counts: Vec<usize>,
    /// CSV rows per label or relation key (when formatting).
    rows: Vec<Vec<u8>>,
}

type EntityChunk<'a> = ItemChunk<(Cow<'a, str>, u32, u32)>;
type RelationChunk<'a> = ItemChunk<Cow<'a, str>>;

impl<Id> Default for ItemChunk<Id> {
    fn default() -> Self {
        ItemChunk {
            ids: Vec::new(),
            problems: 0,
            bad_json: false,
            bits: 0,
            newline: false,
            counts: Vec::new(),
            rows: Vec::new(),
        }
    }
}

/// Check (and format) `items` in parallel chunks: `check(i, item, chunk)` validates item
/// `i` into its chunk (ids, problems, counts, rows); every item is also scanned for the
/// CSV quoting needs. A chunk stops at an item that is not valid JSON (`bad_json`).
fn item_chunks<'a, Id: Send>(
    items: &Items<'_, 'a>,
    kinds: usize,
    rows: bool,
    list_keys: &[&str],
    check: impl Fn(usize, &Val<'a>, &mut ItemChunk<Id>) + Sync,
) -> Vec<ItemChunk<Id>> {
    chunks(items.len())
        .into_par_iter()
        .map(|(lo, hi)| {
            let mut c = ItemChunk {
                ids: (0..SHARDS).map(|_| Vec::new()).collect(),
                counts: vec![0; kinds],
                rows: vec![Vec::new(); if rows { kinds } else { 0 }],
                ..Default::default()
            };
            if crate::cancel::requested() {
                return c; // the caller reports it (`run`)
            }
            for i in lo..hi {
                let done = items.with(i, |item| {
                    check(i, item, &mut c);
                    let (bits, newline) = csv::scan_item(item, list_keys);
                    c.bits |= bits;
                    c.newline |= newline;
                });
                if done.is_none() {
                    c.bad_json = true;
                    break;
                }
            }
            c
        })
        .collect()
}

/// Totals of a pass's chunks into `p`: problems, JSON, CSV needs; returns the counts per
/// label or relation key.
fn merge<Id>(chunks: &[ItemChunk<Id>], kinds: usize, p: &mut Totals) -> Vec<usize> {
    let mut counts = vec![0; kinds];
    for c in chunks {
        p.problems += c.problems;
        p.bad_json |= c.bad_json;
        p.bits |= c.bits;
        p.newline |= c.newline;
        for (n, k) in counts.iter_mut().zip(&c.counts) {
            *n += k;
        }
    }
    counts
}

/// Problems, JSON validity and CSV needs summed over a pass.
#[derive(Default)]
struct Totals {
    problems: usize,
    bad_json: bool,
    bits: u8,
    newline: bool,
}

/// The result of one parallel pass.
struct Pass<'a> {
    problems: usize,
    bad_json: bool,
    bits: u8,
    newline: bool,
    node_counts: Vec<usize>,
    relation_counts: Vec<usize>,
    entity_chunks: Vec<EntityChunk<'a>>,
    relation_chunks: Vec<RelationChunk<'a>>,
    timings: Vec<(&'static str, f64)>,
}

fn chunks(n: usize) -> Vec<(usize, usize)> {
    (0..n.div_ceil(CHUNK))
        .map(|c| (c * CHUNK, ((c + 1) * CHUNK).min(n)))
        .collect()
}

fn pass<'a>(doc: &Doc<'_, 'a>, schema: &Schema, fmt: Option<Format<'_, '_>>) -> Pass<'a> {
    let mut timings = Vec::new();
    let mut t = Instant::now();
    let list_keys = csv::list_keys(schema);
    let n_labels = schema.entities.len();
    let n_keys = schema.relations.len();

    let mut top = Count(0);
    validate::check_top(
        doc.schema,
        doc.entities.is_some(),
        doc.relations.is_some(),
        &mut top,
    );
    let empty = Items::Tree(&[]);
    let entities = doc.entities.as_ref().unwrap_or(&empty);
    let relations = doc.relations.as_ref().unwrap_or(&empty);

    let mut entity_chunks: Vec<EntityChunk<'a>> = item_chunks(
        entities,
        n_labels,
        fmt.is_some(),
        &list_keys,
        |i, ent, c| {
            let mut count = Count(0);
            let mut register = |eid: &Cow<'a, str>, label: u32| {
                c.ids[shard_of(hash_str(eid))].push((eid.clone(), label, i as u32));
                false
            };
            let li = validate::check_entity(i, ent, schema, &mut count, &mut register);
            c.problems += count.0;
            if let Some(li) = li {
                c.counts[li] += 1;
                if let (Some(f), 0) = (fmt, c.problems) {
                    csv::node_row(&mut c.rows[li], i, ent, &f.nodes[li], f.delim, f.id_type);
                }
            }
        },
    );
    timings.push(("entities_s", t.elapsed().as_secs_f64()));
    t = Instant::now();

    let mut problems = top.0;
    // shard by shard in parallel; within a shard in graph order (the first entity of an eid wins)
    let eid_index: Vec<EidShard<'_>> = (0..SHARDS)
        .into_par_iter()
        .map(|s| {
            let mut map: FxHashMap<&str, (u32, u32)> = FxHashMap::default();
            map.reserve(entity_chunks.iter().map(|c| c.ids[s].len()).sum());
            let mut dups = 0;
            for c in &entity_chunks {
                for (eid, label, i) in &c.ids[s] {
                    let mut known = true;
                    map.entry(eid).or_insert_with(|| {
                        known = false;
                        (*label, *i)
                    });
                    dups += usize::from(known);
                }
            }
            (map, dups)
        })
        .collect();
    problems += eid_index.iter().map(|(_, d)| d).sum::<usize>();
    timings.push(("eid_index_s", t.elapsed().as_secs_f64()));
    t = Instant::now();

    let find = |e: &str| eid_index[shard_of(hash_str(e))].0.get(e).copied();
    let mut relation_chunks: Vec<RelationChunk<'a>> =
        item_chunks(relations, n_keys, fmt.is_some(), &list_keys, |i, rel, c| {
            let mut count = Count(0);
            let mut seen = |rid: &Cow<'a, str>| {
                c.ids[shard_of(hash_str(rid))].push(rid.clone());
                false
            };
            let r = validate::check_relation(i, rel, schema, &mut count, &mut seen, &find);
            c.problems += count.0;
            if let Some((key, ends)) = r {
                c.counts[key] += 1;
                if let (Some(f), 0) = (fmt, c.problems) {
                    csv::relationship_row(
                        &mut c.rows[key],
                        rel,
                        ends,
                        &f.relationships[key],
                        f.delim,
                        f.id_type,
                    );
                }
            }
        });
    timings.push(("relations_s", t.elapsed().as_secs_f64()));
    t = Instant::now();

    problems += (0..SHARDS)
        .into_par_iter()
        .map(|s| {
            let mut seen: FxHashSet<&str> = FxHashSet::default();
            seen.reserve(relation_chunks.iter().map(|c| c.ids[s].len()).sum());
            relation_chunks
                .iter()
                .flat_map(|c| &c.ids[s])
                .filter(|rid| !seen.insert(rid))
                .count()
        })
        .sum::<usize>();
    timings.push(("rid_index_s", t.elapsed().as_secs_f64()));

    let mut totals = Totals {
        problems,
        ..Default::default()
    };
    let node_counts = merge(&entity_chunks, n_labels, &mut totals);
    let relation_counts = merge(&relation_chunks, n_keys, &mut totals);
    let Totals {
        problems,
        bad_json,
        bits,
        newline,
    } = totals;
    drop(eid_index);
    entity_chunks
        .par_iter_mut()
        .for_each(|c| c.ids = Vec::new());
    relation_chunks
        .par_iter_mut()
        .for_each(|c| c.ids = Vec::new());
    Pass {
        problems,
        bad_json,
        bits,
        newline,
        node_counts,
        relation_counts,
        entity_chunks,
        relation_chunks,
        timings,
    }
}

/// The import-tool files of a valid graph from a pass's rows.
fn files<'r>(
    schema: &Schema,
    p: &'r Pass<'_>,
    nodes: &[RowLayout<'_>],
    relationships: &[RowLayout<'_>],
    id_type: IdType,
) -> Vec<FileRows<'r>> {
    let mut labels: Vec<usize> = (0..schema.entities.len())
        .filter(|&l| p.node_counts[l] > 0)
        .collect();
    labels.sort_by(|&a, &b| schema.entities[a].0.cmp(&schema.entities[b].0));
    let mut keys: Vec<usize> = (0..schema.relations.len())
        .filter(|&k| p.relation_counts[k] > 0)
        .collect();
    keys.sort_by(|&a, &b| schema.relations[a].0.cmp(&schema.relations[b].0));
    let mut out = Vec::new();
    for (n, &l) in labels.iter().enumerate() {
        out.push(FileRows {
            arg: format!("--nodes={}", schema.entities[l].0),
            name: format!("nodes_{n}.csv"),
            header: csv::node_header(&nodes[l], id_type),
            pieces: p
                .entity_chunks
                .iter()
                .map(|c| c.rows[l].as_slice())
                .collect(),
        });
    }
    for (n, &k) in keys.iter().enumerate() {
        out.push(FileRows {
            arg: format!("--relationships={}", schema.relations[k].0 .0),
            name: format!("relationships_{n}.csv"),
            header: csv::relationship_header(&relationships[k]),
            pieces: p
                .relation_chunks
                .iter()
                .map(|c| c.rows[k].as_slice())
                .collect(),
        });
    }
    out
}

fn run<'a>(
    doc: &Doc<'_, 'a>,
    bytes: &'a [u8],
    tree: Option<&Val<'_>>,
    csv_target: Option<(&Path, IdType)>,
    timings: &mut Vec<(&'static str, f64)>,
) -> Result<Option<Report>, GraphError> {
    let mut schema_count = Count(0);
    let schema = validate::check_schema(doc.schema, &mut schema_count);
    let nodes: Vec<RowLayout<'_>> = schema
        .entities
        .iter()
        .map(|(_, p)| RowLayout::new(p))
        .collect();
    let relationships: Vec<RowLayout<'_>> = schema
        .relations
        .iter()
        .map(|(_, p)| RowLayout::new(p))
        .collect();
    let format = |delim| {
        csv_target.map(|(_, id_type)| Format {
            nodes: &nodes,
            relationships: &relationships,
            delim,
            id_type,
        })
    };
    let mut p = pass(doc, &schema, format(csv::ARRAY_DELIMITERS[0]));
    timings.append(&mut p.timings);
    crate::cancel::check()?;
    if p.bad_json {
        return Ok(None); // an item is not JSON: the caller parses the whole text for the error
    }
    let count = |items: &Option<Items<'_, '_>>| items.as_ref().map_or(0, Items::len);
    let (entities, relations) = (count(&doc.entities), count(&doc.relations));
    if p.problems + schema_count.0 > 0 {
        let t = Instant::now();
        let parsed;
        let tree = match tree {
            Some(t) => t,
            None => {
                parsed = value::parse(bytes).map_err(|error| {
                    GraphError::Read(ReadError::Json {
                        source: String::new(),
                        error,
                    })
                })?;
                &parsed
            }
        };
        let checked = validate::validate(tree);
        timings.push(("messages_s", t.elapsed().as_secs_f64()));
        debug_assert_eq!(checked.problems.total, p.problems + schema_count.0);
        return Ok(Some(Report {
            checked,
            entities,
            relations,
            csv: None,
            timings: Vec::new(),
        }));
    }
    let mut written = None;
    if let Some((dir, id_type)) = csv_target {
        let delim =
            csv::pick_delimiter(p.bits).ok_or(GraphError::Csv(CsvError::NoArrayDelimiter))?;
        if delim != csv::ARRAY_DELIMITERS[0] {
            let mut again = pass(doc, &schema, format(delim));
            again
                .timings
                .iter_mut()
                .for_each(|(k, _)| *k = "reformat_s");
            timings.append(&mut again.timings);
            p = again;
            crate::cancel::check()?;
        }
        let t = Instant::now();
        let fs = files(&schema, &p, &nodes, &relationships, id_type);
        written = Some(
            csv::write_files(dir, &fs, delim, p.newline, id_type).map_err(|e| match e {
                CsvError::Interrupted => GraphError::Interrupted,
                e => GraphError::Csv(e),
            })?,
        );
        timings.push(("write_s", t.elapsed().as_secs_f64()));
    }
    let t = Instant::now();
    let (entity_chunks, relation_chunks) = (
        std::mem::take(&mut p.entity_chunks),
        std::mem::take(&mut p.relation_chunks),
    );
    rayon::join(|| drop(entity_chunks), || drop(relation_chunks));
    timings.push(("free_s", t.elapsed().as_secs_f64()));
    Ok(Some(Report {
        checked: Checked {
            problems: Problems::default(),
            schema,
            node_counts: p.node_counts,
            relation_counts: p.relation_counts,
        },
        entities,
        relations,
        csv: written,
        timings: Vec::new(),
    }))
}

fn tree_doc<'t, 'a>(tree: &'t Val<'a>) -> Doc<'t, 'a> {
    let items = |k: &str| match tree.get(k) {
        Some(Val::List(items)) => Some(Items::Tree(items.as_slice())),
        _ => None,
    };
    Doc {
        schema: tree.get("schema"),
        entities: items("entities"),
        relations: items("relations"),
    }
}

/// Validate a graph document (JSON text) and, with `csv_target`, write the import tool's CSV
/// files of a valid graph (see [`csv`]). `source` names the text in errors; with
/// `require_keys` it must be an object with `schema`, `entities` and `relations` (a
/// `graph.json` file), else any JSON value is validated.
///
/// Errors: [`GraphError::Read`] for text that is not JSON (line and column) or not a graph
/// object; [`GraphError::Csv`] when no array delimiter is free or writing fails;
/// [`GraphError::Interrupted`] once [`crate::cancel::request`] was called (polled per chunk of
/// items and per CSV row piece; no CSV file is left). Invalid graphs are no error: their
/// problems are in the report (and nothing is written).
pub fn check_graph(
    bytes: &[u8],
    source: &str,
    require_keys: bool,
    csv_target: Option<(&Path, IdType)>,
) -> Result<Report, GraphError> {
    let mut timings = Vec::new();
    let t = Instant::now();
    let members = split::split(bytes);
    timings.push(("split_s", t.elapsed().as_secs_f64()));
    crate::cancel::check()?;
    let name_source = |e: GraphError| match e {
        GraphError::Read(ReadError::Json { error, .. }) => GraphError::Read(ReadError::Json {
            source: source.to_string(),
            error,
        }),
        other => other,
    };
    let has_keys = |members: &[(&str, Member<'_>)]| {
        ["schema", "entities", "relations"]
            .iter()
            .all(|k| members.iter().any(|(m, _)| m == k))
    };
    // Without the keys: the sequential parse below reports a JSON error first, as Python does.
    if let Some(members) = members.as_ref().filter(|m| !require_keys || has_keys(m)) {
        let get = |k: &str| members.iter().find(|(m, _)| *m == k).map(|(_, v)| v);
        let items = |k: &str| match get(k) {
            Some(Member::Items(r)) => Some(Items::Slices(bytes, r.as_slice())),
            Some(Member::Value(Val::List(v))) => Some(Items::Tree(v.as_slice())),
            _ => None,
        };
        let doc = Doc {
            schema: match get("schema") {
                Some(Member::Value(v)) => Some(v),
                _ => None,
            },
            entities: items("entities"),
            relations: items("relations"),
        };
        if let Some(mut report) =
            run(&doc, bytes, None, csv_target, &mut timings).map_err(name_source)?
        {
            report.timings = timings;
            return Ok(report);
        }
    }
    // Not a plain document, or an item is not JSON: parse it whole (the error, if any).
    crate::cancel::check()?;
    let t = Instant::now();
    let tree =
        super::parse_graph_sequential(bytes, source, require_keys).map_err(GraphError::Read)?;
    timings.push(("parse_s", t.elapsed().as_secs_f64()));
    let doc = tree_doc(&tree);
    match run(&doc, bytes, Some(&tree), csv_target, &mut timings).map_err(name_source)? {
        Some(mut report) => {
            report.timings = timings;
            super::par_drop(tree);
            Ok(report)
        }
        None => unreachable!("a parsed tree has no unparsed items"),
    }
}
