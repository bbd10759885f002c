//! NGDBench noise injection (spec ngdbench.md §1–§3, §6 item 2, §7): from a clean SimpleKG
//! graph G* (`graph.json`, SPEC.md §2), the observed graph G̃ = Φ(G*) and a replayable log.
//!
//! [`inject`] reads the graph, runs the profile's noise types in profile order — each on the
//! **current** graph, `int(n · rate)` targets, its own seeded stream, candidates sorted by id —
//! and writes into the output directory:
//! - `graph.json`: G̃ in the same format (Python `json.dump(indent=2)` text). Its schema is the
//!   clean schema plus what the noise made appear (a relabelled node's properties under its new
//!   label, relation triples created by false edges or swaps), so G̃ still loads with
//!   `kgbench load`. No noise marker is written into it (no `is_noise`, `noise_similarity`,
//!   `original_name`: those stay in the log).
//! - `noise_log.json`: the repo's record layout plus seed, profile, order and the SHA-256 of
//!   both graphs ([`log`]).
//! - with opaque ids, `clean_graph.json`: G* with the same opaque ids as G̃ ([`ids`]); items of
//!   both graphs are then sorted by opaque id, so neither ids nor positions reveal the noise.
//!   Without opaque ids, ids keep the clean label (`Person#Q42`) and added relations get rids
//!   after the largest clean rid, appended at the end: use opaque ids for a release.
//!
//! The noise types ([`apply`]): `incomplete_edges` (delete; skip an edge whose end has degree
//! ≤ 1), `false_edges` (a uniform pair of distinct nodes without a u→v edge, a uniform current
//! relation type, ≤ 10 × target attempts), `relation_type_noise` and `node_type_noise` (the
//! most similar other type by character-trigram cosine, ties by name — [`similar`]),
//! `name_typos` and `attribute_noise` ([`typo`]; numbers × 10^±k).
//!
//! Deliberate differences from the repo (which never seeds this path): each type draws from a
//! SHA-256-derived SplitMix64 stream of `(seed, type)` ([`rng`]); a bool is not a number;
//! values declared `date` get no typo (it would make the date invalid) and a declared `int`
//! stays an int (rounded); 10^-k is a division; a field counts as changed only when its value
//! changed. Same seed and same input give byte-identical files.
//!
//! Files are written under temporary names and renamed at the end, the log last (an old log is
//! removed first): a directory whose `noise_log.json` exists holds a complete, matching set.

pub mod apply;
pub mod canon;
pub mod graph;
pub mod ids;
pub mod json;
pub mod log;
pub mod output;
pub mod profile;
pub mod rng;
pub mod similar;
pub mod typo;

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use sha2::{Digest, Sha256};

pub use profile::{named, Profile, ProfileError, NAMED_PROFILES, NOISE_TYPES};

use crate::neo4j::value::Val;
use crate::neo4j::{read_graph_file, ReadError};

/// Why [`inject`] failed.
#[derive(Debug)]
pub enum NoiseError {
    /// The graph file cannot be read or is not JSON.
    Read(ReadError),
    /// The graph is not a usable SimpleKG graph (the message names the file and the item).
    Graph(String),
    /// The profile is invalid (the message names the field).
    Profile(ProfileError),
    /// An output file cannot be written.
    Io {
        /// The file.
        path: String,
        /// The error.
        error: std::io::Error,
    },
    /// Stopped by [`crate::cancel::request`] (Ctrl-C): nothing was published.
    Interrupted,
}

impl NoiseError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, error: std::io::Error) -> NoiseError {
        NoiseError::Io {
            path: path.display().to_string(),
            error,
        }
    }
}

impl fmt::Display for NoiseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoiseError::Read(e) => e.fmt(f),
            NoiseError::Graph(m) => f.write_str(m),
            NoiseError::Profile(e) => e.fmt(f),
            NoiseError::Io { path, error } => write!(f, "{path}: cannot write: {error}"),
            NoiseError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for NoiseError {}

impl From<ProfileError> for NoiseError {
    fn from(e: ProfileError) -> Self {
        NoiseError::Profile(e)
    }
}

/// The settings of a run.
#[derive(Debug, Clone)]
pub struct Options {
    /// The checked profile.
    pub profile: Profile,
    /// The seed (spec default 42).
    pub seed: u64,
    /// Replace eids and rids by opaque ids in both graphs (spec §7).
    pub opaque_ids: bool,
}

/// The output file names in the output directory.
pub const GRAPH_FILE: &str = "graph.json";
/// The noise log's file name.
pub const LOG_FILE: &str = "noise_log.json";
/// The clean graph's file name (opaque ids only).
pub const CLEAN_FILE: &str = "clean_graph.json";

/// What one noise type did.
#[derive(Debug, Clone)]
pub struct TypeReport {
    /// The type's name.
    pub kind: &'static str,
    /// Its rate.
    pub rate: f64,
    /// `int(n · rate)`.
    pub target: usize,
    /// Elements deleted / added / modified.
    pub applied: usize,
    /// Nodes and edges before and after it.
    pub before: (usize, usize),
    /// Nodes and edges after it.
    pub after: (usize, usize),
    /// Wall seconds.
    pub seconds: f64,
}

/// What [`inject`] did.
#[derive(Debug, Clone)]
pub struct Report {
    /// The graph file read.
    pub graph: PathBuf,
    /// The noisy graph written.
    pub graph_out: PathBuf,
    /// The noise log written.
    pub log_out: PathBuf,
    /// The clean graph written (opaque ids only).
    pub clean_out: Option<PathBuf>,
    /// Seed.
    pub seed: u64,
    /// Opaque ids.
    pub opaque_ids: bool,
    /// Nodes and edges of G*.
    pub before: (usize, usize),
    /// Nodes and edges of G̃.
    pub after: (usize, usize),
    /// Per noise type, in run order.
    pub types: Vec<TypeReport>,
    /// `noise_statistics` of the log: noisy nodes, noisy edges, deleted, added, modified
    /// edges, modified nodes.
    pub statistics: [usize; 6],
    /// SHA-256 of the input file.
    pub input_sha256: String,
    /// SHA-256 of the clean graph paired with G̃.
    pub clean_sha256: String,
    /// SHA-256 of G̃'s file.
    pub noisy_sha256: String,
    /// Relation triples and entity properties added to G̃'s schema.
    pub schema_added: (usize, usize),
    /// Wall seconds of the parts.
    pub timings: Vec<(&'static str, f64)>,
}

impl Report {
    /// The report as one line of JSON (the binding's return value): `graph`, `files`
    /// {`graph`, `noise_log`, `clean_graph`}, `seed`, `opaque_ids`, `before` / `after`
    /// {`nodes`, `edges`}, `types` [{`type`, `rate`, `target`, `applied`, `nodes_before`,
    /// `edges_before`, `edges_after`, `seconds`}], `noise_statistics`, the three SHA-256, `schema_added`
    /// {`relation_triples`, `entity_properties`}, `timings` {part: seconds}.
    pub fn to_json(&self) -> String {
        let s = |t: &str| Val::Str(Cow::Owned(t.to_string()));
        let n = |x: usize| Val::Int(x as i128);
        let o = |pairs: Vec<(&'static str, Val<'static>)>| {
            Val::Obj(
                pairs
                    .into_iter()
                    .map(|(k, v)| (Cow::Borrowed(k), v))
                    .collect(),
            )
        };
        let p = |x: &Path| s(&x.display().to_string());
        let size = |(a, b): (usize, usize)| o(vec![("nodes", n(a)), ("edges", n(b))]);
        let st = &self.statistics;
        let v = o(vec![
            ("graph", p(&self.graph)),
            (
                "files",
                o(vec![
                    ("graph", p(&self.graph_out)),
                    ("noise_log", p(&self.log_out)),
                    (
                        "clean_graph",
                        self.clean_out.as_deref().map_or(Val::Null, p),
                    ),
                ]),
            ),
            ("seed", Val::Int(i128::from(self.seed))),
            ("opaque_ids", Val::Bool(self.opaque_ids)),
            ("before", size(self.before)),
            ("after", size(self.after)),
            (
                "types",
                Val::List(
                    self.types
                        .iter()
                        .map(|t| {
                            o(vec![
                                ("type", s(t.kind)),
                                ("rate", Val::Float(t.rate)),
                                ("target", n(t.target)),
                                ("applied", n(t.applied)),
                                ("nodes_before", n(t.before.0)),
                                ("edges_before", n(t.before.1)),
                                ("edges_after", n(t.after.1)),
                                ("seconds", Val::Float((t.seconds * 1e3).round() / 1e3)),
                            ])
                        })
                        .collect(),
                ),
            ),
            (
                "noise_statistics",
                o(vec![
                    ("noisy_nodes_count", n(st[0])),
                    ("noisy_edges_count", n(st[1])),
                    ("deleted_edges_count", n(st[2])),
                    ("added_edges_count", n(st[3])),
                    ("modified_edges_count", n(st[4])),
                    ("modified_nodes_count", n(st[5])),
                ]),
            ),
            ("input_sha256", s(&self.input_sha256)),
            ("clean_sha256", s(&self.clean_sha256)),
            ("noisy_sha256", s(&self.noisy_sha256)),
            (
                "schema_added",
                o(vec![
                    ("relation_triples", n(self.schema_added.0)),
                    ("entity_properties", n(self.schema_added.1)),
                ]),
            ),
            (
                "timings",
                Val::Obj(
                    self.timings
                        .iter()
                        .map(|(k, t)| (Cow::Borrowed(*k), Val::Float((t * 1e3).round() / 1e3)))
                        .collect(),
                ),
            ),
        ]);
        let mut out = Vec::new();
        json::write_val(&mut out, &v, None);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Inject noise into the graph at `graph` (a `graph.json` file, or a directory holding one)
/// and write `graph.json`, `noise_log.json` (and with opaque ids `clean_graph.json`) into
/// `out_dir` (created if needed). See the module documentation for the semantics.
///
/// Errors: [`NoiseError::Read`] (unreadable file, not JSON), [`NoiseError::Graph`] (the output
/// directory holds the input `graph.json`; not a SimpleKG graph: missing members, an item
/// without string `eid`/`rid`/`label`/ends, a repeated id, a relation end that is not an
/// entity), [`NoiseError::Io`] (output not writable; no partial output is left under the final
/// names).
pub fn inject(graph: &Path, out_dir: &Path, opts: &Options) -> Result<Report, NoiseError> {
    let mut timings: Vec<(&'static str, f64)> = Vec::new();
    let mut t0 = Instant::now();
    let mut lap = |name: &'static str, timings: &mut Vec<(&'static str, f64)>| {
        timings.push((name, t0.elapsed().as_secs_f64()));
        t0 = Instant::now();
    };
    let path = if graph.is_dir() {
        graph.join(GRAPH_FILE)
    } else {
        graph.to_path_buf()
    };
    let source = path.display().to_string();
    let target = out_dir.join(GRAPH_FILE);
    if let (Ok(a), Ok(b)) = (path.canonicalize(), target.canonicalize()) {
        if a == b {
            return Err(NoiseError::Graph(format!(
                "{source}: the output directory holds the input graph (it would be replaced); \
                 choose another output directory"
            )));
        }
    }
    // read, not memory-mapped: a file truncated or rewritten by another process while the
    // run uses it then gives the bytes read (or a read error naming it), never a SIGBUS
    let input = read_graph_file(&path).map_err(NoiseError::Read)?;
    let bytes: &[u8] = &input;
    lap("read", &mut timings);
    let (input_sha256, built) = rayon::join(
        || output::hex(&Sha256::digest(bytes)),
        || -> Result<_, NoiseError> {
            let doc = graph::Doc::read(bytes, &source)?;
            let g = graph::Graph::build(&doc, &source)?;
            Ok((doc, g))
        },
    );
    let (doc, g) = built?;
    lap("parse + index", &mut timings);
    let opaque = if opts.opaque_ids {
        Some(ids::Opaque::new(&g, opts.seed, &input_sha256)?)
    } else {
        None
    };
    let before = (g.nodes.len(), g.edge_count());
    std::fs::create_dir_all(out_dir).map_err(|e| NoiseError::io(out_dir, e))?;
    let mut run = apply::Run {
        doc: &doc,
        g,
        opaque,
        log: apply::Log {
            spool: Some(apply::Spool::create(output::temp_path(
                out_dir,
                "noise_records",
            ))?),
            ..Default::default()
        },
        profile: &opts.profile,
        seed: opts.seed,
        pending: Vec::new(),
    };
    // Ctrl-C: stop between noise types, removing the log spool (nothing is published)
    let stop = |run: &mut apply::Run| -> Result<(), NoiseError> {
        if crate::cancel::requested() {
            if let Some(spool) = run.log.spool.take() {
                let _ = std::fs::remove_file(&spool.path);
            }
            return Err(NoiseError::Interrupted);
        }
        Ok(())
    };
    for &(kind, rate) in &opts.profile.rates {
        stop(&mut run)?;
        if rate > 0.0 {
            run.apply(kind, rate)?;
        }
    }
    stop(&mut run)?;
    lap("noise", &mut timings);
    let (schema, additions) = run.noisy_schema();
    let graph_tmp = output::Sink::create(output::temp_path(out_dir, GRAPH_FILE))?;
    let graph_tmp_path = graph_tmp.path.clone();
    let clean_tmp = if opts.opaque_ids {
        Some(output::Sink::create(output::temp_path(
            out_dir, CLEAN_FILE,
        ))?)
    } else {
        None
    };
    let clean_tmp_path = clean_tmp.as_ref().map(|s| s.path.clone());
    let cleanup = |paths: &[&Option<PathBuf>]| {
        for p in paths.iter().copied().flatten() {
            let _ = std::fs::remove_file(p);
        }
    };
    let head = log::LogHead {
        seed: opts.seed,
        clean_graph: opts.opaque_ids.then_some(CLEAN_FILE),
        additions: &additions,
        original: before,
    };
    let spool = run
        .log
        .spool
        .take()
        .expect("the log file is set up before the noise");
    let log_tmp_path = spool.path.clone();
    let run_ref = &run;
    let ((noisy, clean), log_body) = rayon::join(
        || {
            rayon::join(
                || run_ref.write_graph(graph_tmp, Some(&schema)),
                || clean_tmp.map(|s| run_ref.write_graph(s, None)).transpose(),
            )
        },
        || run_ref.write_log_body(spool, &head),
    );
    let finished = noisy
        .and_then(|n| clean.map(|c| (n, c)))
        .and_then(|(n, c)| {
            let mut log_file = log_body?;
            let clean_sha = c.unwrap_or_else(|| input_sha256.clone());
            log_file.text(&log::log_trailer(&input_sha256, &clean_sha, &n));
            log_file.finish()?;
            Ok((n, clean_sha))
        });
    let (noisy_sha256, clean_sha256) = match finished {
        Ok(x) => x,
        Err(e) => {
            cleanup(&[
                &Some(graph_tmp_path),
                &clean_tmp_path,
                &Some(log_tmp_path.clone()),
            ]);
            return Err(e);
        }
    };
    lap("write graphs + log", &mut timings);
    if crate::cancel::requested() {
        cleanup(&[
            &Some(graph_tmp_path),
            &clean_tmp_path,
            &Some(log_tmp_path.clone()),
        ]);
        return Err(NoiseError::Interrupted);
    }
    // publish: the old log goes first, the new log last
    let (graph_out, log_out, clean_out) = (
        out_dir.join(GRAPH_FILE),
        out_dir.join(LOG_FILE),
        out_dir.join(CLEAN_FILE),
    );
    let publish = || -> Result<(), NoiseError> {
        match std::fs::remove_file(&log_out) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(NoiseError::io(&log_out, e))
            }
            _ => {}
        }
        std::fs::rename(&graph_tmp_path, &graph_out).map_err(|e| NoiseError::io(&graph_out, e))?;
        match &clean_tmp_path {
            Some(p) => std::fs::rename(p, &clean_out).map_err(|e| NoiseError::io(&clean_out, e))?,
            None => match std::fs::remove_file(&clean_out) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(NoiseError::io(&clean_out, e))
                }
                _ => {}
            },
        }
        std::fs::rename(&log_tmp_path, &log_out).map_err(|e| NoiseError::io(&log_out, e))
    };
    if let Err(e) = publish() {
        cleanup(&[
            &Some(graph_tmp_path.clone()),
            &clean_tmp_path,
            &Some(log_tmp_path.clone()),
        ]);
        return Err(e);
    }
    let lg = &run.log;
    let report = Report {
        graph: path,
        graph_out,
        log_out,
        clean_out: opts.opaque_ids.then_some(clean_out),
        seed: opts.seed,
        opaque_ids: opts.opaque_ids,
        before,
        after: (run.g.nodes.len(), run.g.edge_count()),
        types: lg
            .types
            .iter()
            .map(|t| TypeReport {
                kind: t.kind.name(),
                rate: t.rate,
                target: t.target,
                applied: t.applied,
                before: t.before,
                after: t.after,
                seconds: t.seconds,
            })
            .collect(),
        statistics: [
            lg.noisy_nodes.len(),
            lg.noisy_edges.len(),
            lg.deleted_edges.len(),
            lg.added_edges.len(),
            lg.modified_edges.len(),
            lg.modified_nodes.len(),
        ],
        input_sha256,
        clean_sha256,
        noisy_sha256,
        schema_added: (
            additions.relation_triples.len(),
            additions.entity_properties.len(),
        ),
        timings: Vec::new(),
    };
    let mut report = report;
    lap("publish", &mut timings);
    report.timings = timings;
    // free the changed nodes' trees (hundreds of thousands of small allocations) on every
    // core, then the rest
    let states: Vec<graph::NodeState<'_>> = std::mem::take(&mut run.g.node_state)
        .into_values()
        .collect();
    drop(run);
    {
        use rayon::prelude::*;
        states.into_par_iter().with_min_len(1024).for_each(drop);
    }
    Ok(report)
}

#[cfg(test)]
mod tests;
