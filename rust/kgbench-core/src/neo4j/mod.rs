//! Loading SimpleKG graphs (SPEC.md §2) into Neo4j: reading, validation, import-tool CSV.
//!
//! - [`value`]: the graph as a borrowed JSON tree ([`Val`]) and Python's `repr` of values.
//! - [`validate`]: the loader's validation ([`validate::validate`]) with the Python loader's
//!   exact checks and messages, and the schema's declared properties.
//! - [`split`]: splitting a graph document into its entity and relation items.
//! - [`csv`]: the CSV rows and files of Neo4j's import tool for a valid graph.
//! - [`graph`]: [`check_graph`], the parallel pass over a document (validation, CSV rows).
//!
//! Both loaders of the Python package (`kgbench.neo4j.load_graph` over Bolt and the offline
//! `kgbench.neo4j.import_graph`) validate through this module; the offline import also writes
//! its CSV files here, straight from `graph.json` (no Python objects).

pub mod csv;
pub mod graph;
pub mod split;
pub mod validate;
pub mod value;

use std::fmt;
use std::path::Path;

pub use csv::{CsvError, IdType, ImportCsv};
pub use graph::{check_graph, GraphError, Report};
pub use validate::{validate, Checked, Dtype, Problems, Schema, MAX_PROBLEMS};
pub use value::{parse, JsonError, Val};

/// Why a graph could not be read (before any validation).
#[derive(Debug)]
pub enum ReadError {
    /// The file cannot be read.
    Io {
        /// The file as given.
        source: String,
        /// The error.
        error: std::io::Error,
    },
    /// The text is not JSON.
    Json {
        /// The file (or `"graph"`).
        source: String,
        /// Where and what.
        error: JsonError,
    },
    /// The JSON is not an object with `schema`, `entities` and `relations`.
    NotGraph {
        /// The file.
        source: String,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io { source, error } => {
                // Like Python's `OSError.strerror`: without the " (os error N)" suffix.
                let text = error.to_string();
                let text = match (text.rfind(" (os error "), error.raw_os_error()) {
                    (Some(i), Some(_)) => &text[..i],
                    _ => &text,
                };
                write!(f, "{source}: cannot read graph: {text}")
            }
            ReadError::Json { source, error } => write!(f, "{source}: not JSON: {error}"),
            ReadError::NotGraph { source } => write!(
                f,
                "{source}: not a SimpleKG graph (needs schema, entities, relations)"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// Read a `graph.json` file into memory (its bytes; check with [`check_graph`]), big files in
/// parallel 64 MiB pieces (rayon).
pub fn read_graph_file(path: &Path) -> Result<Vec<u8>, ReadError> {
    use rayon::prelude::*;
    use std::os::unix::fs::FileExt;
    const PIECE: usize = 64 << 20;
    let err = |error| ReadError::Io {
        source: path.display().to_string(),
        error,
    };
    let file = std::fs::File::open(path).map_err(err)?;
    let len = file.metadata().map_err(err)?.len() as usize;
    if len < 2 * PIECE {
        return std::fs::read(path).map_err(err);
    }
    let mut buf = vec![0u8; len];
    buf.par_chunks_mut(PIECE)
        .enumerate()
        .try_for_each(|(i, piece)| file.read_exact_at(piece, (i * PIECE) as u64))
        .map_err(err)?;
    let mut probe = [0u8; 1];
    if file.read_at(&mut probe, len as u64).map_err(err)? != 0 {
        return std::fs::read(path).map_err(err); // the file grew while read: read it whole
    }
    Ok(buf)
}

/// Parse graph JSON text sequentially into one tree. `source` names it in errors; with
/// `require_keys` the value must be an object holding `schema`, `entities` and `relations`
/// (as a `graph.json` file must), else any JSON value is returned (validation then reports
/// what is missing).
pub fn parse_graph_sequential<'a>(
    bytes: &'a [u8],
    source: &str,
    require_keys: bool,
) -> Result<Val<'a>, ReadError> {
    let graph = parse(bytes).map_err(|error| ReadError::Json {
        source: source.to_string(),
        error,
    })?;
    if require_keys
        && ["schema", "entities", "relations"]
            .iter()
            .any(|k| graph.get(k).is_none())
    {
        return Err(ReadError::NotGraph {
            source: source.to_string(),
        });
    }
    Ok(graph)
}

/// Free a parsed graph's entity and relation trees in parallel (rayon); freeing millions of
/// small allocations on one thread takes a noticeable part of a second.
pub fn par_drop(graph: Val<'_>) {
    use rayon::prelude::*;
    if let Val::Obj(pairs) = graph {
        pairs.into_par_iter().for_each(|(_, v)| {
            if let Val::List(items) = v {
                items.into_par_iter().with_min_len(4096).for_each(drop);
            }
        });
    }
}

#[cfg(test)]
mod tests;
