//! `kgbench rdb`'s row work (spec `spider4sparql.md` §3): one SQLite database to N-Triples
//! (`<db_id>.nt`) and a SimpleKG property graph (`graph.json`, SPEC.md §2), by the rules the
//! module docstring of `kgbench.rdb.convert` states (column kinds, lexical forms, mismatches,
//! repairs, row naming, line order, graph shapes); tests/test_rdb_convert.py compares the
//! files with checked-in expected outputs of real databases (tests/data/rdb/).
//!
//! The Python side plans ([`Job`]: the SQL that reads each table and joins each foreign key,
//! the column kinds, predicate IRIs, property names, naming prefixes) and writes the ontology
//! and the report; [`convert`] runs the SQL on the system SQLite library (read-only, one
//! connection per task, tables and joins in parallel with rayon), applies the repairs, names
//! the rows, and writes both files atomically (temporary file beside the target, then a
//! rename), generating row chunks in parallel while a writer thread writes them in order.
//!
//! Submodules: [`lex`] (Python-identical lexical forms), [`naming`] (the IRI naming rule, also
//! the one `kgbench.rdb.naming` calls through the binding), [`sqlite`] (the FFI), [`table`]
//! (rows in memory, row naming), [`write`] (the two outputs).

pub mod lex;
pub mod naming;
pub mod sqlite;
pub mod table;
pub mod write;

use std::fmt;

use rayon::prelude::*;
use serde::Deserialize;

use table::TableData;

/// A column kind (`column_kind` of `kgbench.rdb.convert`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum Kind {
    #[serde(rename = "integer")]
    Integer,
    #[serde(rename = "double")]
    Double,
    #[serde(rename = "decimal")]
    Decimal,
    #[serde(rename = "boolean")]
    Boolean,
    #[serde(rename = "date")]
    Date,
    #[serde(rename = "dateTime")]
    DateTime,
    #[serde(rename = "time")]
    Time,
    #[serde(rename = "string")]
    String,
    #[serde(rename = "untyped")]
    Untyped,
}

impl Kind {
    /// The kind's name as Python spells it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Integer => "integer",
            Kind::Double => "double",
            Kind::Decimal => "decimal",
            Kind::Boolean => "boolean",
            Kind::Date => "date",
            Kind::DateTime => "dateTime",
            Kind::Time => "time",
            Kind::String => "string",
            Kind::Untyped => "untyped",
        }
    }
}

/// One column of a [`TableJob`].
#[derive(Debug, Deserialize)]
pub struct ColumnJob {
    /// The column's SQLite affinity (`INTEGER`, `TEXT`, `BLOB`, `REAL`, `NUMERIC`).
    pub affinity: String,
    /// Its kind before promotion.
    pub kind: Kind,
    /// The predicate term, `<base t#c>`.
    pub predicate: String,
    /// The property-graph property (None: the node's `name`).
    pub prop: Option<String>,
}

/// One table to convert.
#[derive(Debug, Deserialize)]
pub struct TableJob {
    /// The table name as declared.
    pub name: String,
    /// Its property-graph label.
    pub label: String,
    /// The class term `<base t>`.
    pub class_iri: String,
    /// The row IRI prefix without `<`: `base t/`.
    pub iri_base: String,
    /// `SELECT handles..., columns... FROM t ORDER BY handles`.
    pub select_sql: String,
    /// The number of handle columns in `select_sql`.
    pub nh: usize,
    pub columns: Vec<ColumnJob>,
    /// Primary-key column indexes in key order (empty: no key).
    pub key: Vec<usize>,
    /// The key columns' names as declared (for eids) ...
    pub key_names: Vec<String>,
    /// ... and as encoded in row IRIs.
    pub key_locals: Vec<String>,
    /// The first column named `name` in any case.
    pub name_idx: Option<usize>,
}

/// One foreign key with both tables present.
#[derive(Debug, Deserialize)]
pub struct FkJob {
    /// Child and parent table indexes in [`Job::tables`].
    pub child: usize,
    pub parent: usize,
    /// `SELECT c.handles..., p.handles... FROM child c JOIN parent p ON ... ORDER BY ...`.
    pub sql: String,
    /// Handle columns of the child and the parent in `sql`.
    pub nc: usize,
    pub np: usize,
    /// The predicate term `<base t#ref-c>`.
    pub predicate: String,
    /// The relationship type.
    pub label: String,
    /// `child(columns) -> parent`, for error messages.
    pub describe: String,
}

/// Everything [`convert`] needs (built by `kgbench.rdb.convert`, passed as JSON).
#[derive(Debug, Deserialize)]
pub struct Job {
    /// The SQLite file.
    pub db: String,
    /// graph.json's schema name.
    pub db_id: String,
    pub nt_path: String,
    pub graph_path: String,
    /// `pk_less="s4s"`: key-less tables as blank nodes.
    pub pk_less_blank: bool,
    pub trim: bool,
    pub promote: bool,
    pub tables: Vec<TableJob>,
    pub fks: Vec<FkJob>,
    /// `json.dumps` of graph.json's relation schema list.
    pub relation_schema_json: String,
}

/// A value given back to Python (a mismatch example).
#[derive(Debug, Clone, PartialEq)]
pub enum PyValue {
    Int(i64),
    /// An integer beyond i64, in decimal.
    BigInt(String),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
}

/// Cells of one column that do not fit its kind.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub column: usize,
    pub count: usize,
    /// The first three, in row order.
    pub examples: Vec<PyValue>,
}

/// One column's outcome.
#[derive(Debug, Clone)]
pub struct ColumnOutcome {
    /// Final kind (after promotion).
    pub kind: Kind,
    pub promoted: bool,
    pub trimmed: usize,
    /// Non-NULL cells.
    pub cells: usize,
}

/// The property of one column in graph.json.
#[derive(Debug, Clone)]
pub struct PgColumn {
    pub column: usize,
    pub dtype: &'static str,
    pub widened_from: Option<&'static str>,
}

/// One table's outcome.
#[derive(Debug, Clone)]
pub struct TableOutcome {
    pub rows: usize,
    pub nodes: usize,
    /// `key`, `rowid` or `blank`.
    pub row_naming: &'static str,
    pub merged: usize,
    pub columns: Vec<ColumnOutcome>,
    pub mismatches: Vec<Mismatch>,
    pub pg_columns: Vec<PgColumn>,
}

/// What [`convert`] did: the counts of the report.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub tables: Vec<TableOutcome>,
    /// Join rows per foreign key.
    pub fk_matches: Vec<usize>,
    pub type_triples: usize,
    pub data_triples: usize,
    pub ref_triples: usize,
    pub relationships: usize,
}

/// Why [`convert`] failed.
#[derive(Debug)]
pub enum RdbError {
    /// The database cannot be opened.
    Open(String),
    /// Reading table `0` failed with SQLite's message `1`.
    Read(usize, String),
    /// The join of foreign key `0` failed with message `1`.
    Join(usize, String),
    /// An output file cannot be written.
    Io { path: String, error: std::io::Error },
    /// Stopped by [`crate::cancel::request`] (Ctrl-C): neither output file was published
    /// (the temporary files are removed).
    Interrupted,
}

crate::cancel::interrupted_from_cancelled!(RdbError);

impl fmt::Display for RdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RdbError::Open(m) => write!(f, "cannot open: {m}"),
            RdbError::Read(t, m) => write!(f, "table {t}: cannot read: {m}"),
            RdbError::Join(k, m) => write!(f, "foreign key {k}: join failed: {m}"),
            RdbError::Io { path, error } => write!(f, "{path}: cannot write: {error}"),
            RdbError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for RdbError {}

/// The environment variable that makes [`convert`] print the seconds of its phases to
/// standard error (one line, `kgbench rdb timing: {...}` in JSON): `read` (tables and joins),
/// `name`, `resolve`, `plan`, `ntriples` (generated and written), `graph_json`, and
/// `ntriples_done_unix` (when the N-Triples file was complete, seconds since the Unix epoch,
/// so that a caller can time "to N-Triples" from its own start).
pub const TIMING_ENV: &str = "KGBENCH_RDB_TIMING";

/// Phase timing for [`TIMING_ENV`].
pub(crate) struct Timer {
    on: bool,
    last: std::time::Instant,
    parts: Vec<(&'static str, f64)>,
}

impl Timer {
    fn new() -> Timer {
        Timer {
            on: std::env::var_os(TIMING_ENV).is_some_and(|v| !v.is_empty() && v != "0"),
            last: std::time::Instant::now(),
            parts: Vec::new(),
        }
    }

    /// End phase `name`.
    pub(crate) fn lap(&mut self, name: &'static str) {
        if self.on {
            let now = std::time::Instant::now();
            self.parts
                .push((name, now.duration_since(self.last).as_secs_f64()));
            self.last = now;
        }
    }

    /// Record the current wall-clock time as `name` (seconds since the Unix epoch).
    pub(crate) fn stamp(&mut self, name: &'static str) {
        if self.on {
            let t = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs_f64());
            self.parts.push((name, t));
        }
    }

    fn print(&self) {
        if self.on {
            let fields: Vec<String> = self
                .parts
                .iter()
                .map(|(k, v)| format!("\"{k}\": {v:.6}"))
                .collect();
            eprintln!("kgbench rdb timing: {{{}}}", fields.join(", "));
        }
    }
}

enum Task {
    Table(usize),
    Join(usize),
}

enum Done {
    Table(Box<TableData>),
    Join(write::JoinRows),
}

/// Convert `job` (module docs): write `job.nt_path` and `job.graph_path`, return the counts.
///
/// Errors: [`RdbError`] (the database cannot be opened or a statement fails, naming the
/// table or foreign key by index; an output file cannot be written, naming it;
/// [`RdbError::Interrupted`] once [`crate::cancel::request`] was called, polled while rows are
/// read and between output chunks). Nothing is left at the targets on error (a previous file
/// stays, except that an interrupted run removes the N-Triples file it already published: the
/// pair is published whole or not at all).
pub fn convert(job: &Job) -> Result<Outcome, RdbError> {
    convert_inner(job).map_err(|e| {
        if crate::cancel::requested() {
            RdbError::Interrupted
        } else {
            e
        }
    })
}

fn convert_inner(job: &Job) -> Result<Outcome, RdbError> {
    let mut timer = Timer::new();
    // read the tables and run the joins, biggest work first
    let tasks: Vec<Task> = (0..job.tables.len())
        .map(Task::Table)
        .chain((0..job.fks.len()).map(Task::Join))
        .collect();
    let done: Vec<Done> = tasks
        .par_iter()
        .with_max_len(1)
        .map(|task| -> Result<Done, RdbError> {
            crate::cancel::check()?;
            let conn = sqlite::Connection::open(&job.db).map_err(RdbError::Open)?;
            match *task {
                Task::Table(t) => table::read(&conn, &job.tables[t], job.trim, job.promote)
                    .map(|t| Done::Table(Box::new(t)))
                    .map_err(|m| RdbError::Read(t, m)),
                Task::Join(k) => write::join(&conn, &job.fks[k])
                    .map(Done::Join)
                    .map_err(|m| RdbError::Join(k, m)),
            }
        })
        .collect::<Result<_, _>>()?;
    let mut tables = Vec::with_capacity(job.tables.len());
    let mut joins = Vec::with_capacity(job.fks.len());
    for d in done {
        match d {
            Done::Table(t) => tables.push(*t),
            Done::Join(j) => joins.push(j),
        }
    }
    timer.lap("read");
    crate::cancel::check()?;
    tables
        .par_iter_mut()
        .zip(&job.tables)
        .for_each(|(t, tj)| table::name_rows(t, tj, job.pk_less_blank));
    timer.lap("name");
    let matches: Vec<Vec<(u32, u32)>> = joins
        .into_par_iter()
        .zip(&job.fks)
        .enumerate()
        .map(|(k, (rows, fk))| {
            rows.resolve(&tables[fk.child], &tables[fk.parent])
                .map_err(|m| RdbError::Join(k, m))
        })
        .collect::<Result<_, _>>()?;
    timer.lap("resolve");
    crate::cancel::check()?;
    let out = write::write_outputs(job, &tables, &matches, &mut timer);
    timer.print();
    out
}
