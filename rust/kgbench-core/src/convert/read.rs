//! The public reader of a conversion's inputs: each file is opened (decompressed, its format
//! sniffed or given), then read by the reader of its format — N-Triples blocks in parallel
//! ([`super::input`]), Turtle ([`super::turtle`]), Wikidata entity JSON ([`super::wdjson`]) —
//! with the values extracted from it passed to a sink in input order. Above the three
//! readers, which share [`super::input`]'s line blocks and counters.

use std::io;
use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::input::{
    open, parse_block, read_line_blocks, skip_bom, Extract, Format, JsonExtract, Rate, ReadStats,
};
use super::ConvertError;

/// Read every RDF input, calling `sink` with each batch of extracted values in
/// input order (N-Triples blocks are parsed in parallel, merged in order). A JSON
/// input is an error ([`read_all_with_json`] reads both).
#[allow(clippy::too_many_arguments)]
pub fn read_all<T: Send>(
    inputs: &[String],
    format: Option<Format>,
    extract: &Extract<'_, T>,
    skip_invalid: bool,
    progress: bool,
    stats: &mut ReadStats,
    sink: &mut dyn FnMut(Vec<T>),
) -> Result<(), ConvertError> {
    read_all_with_json(
        inputs,
        format,
        extract,
        None,
        skip_invalid,
        progress,
        stats,
        sink,
    )
}

/// [`read_all`], with Wikidata entity JSON inputs mapped by `json`.
#[allow(clippy::too_many_arguments)]
pub fn read_all_with_json<T: Send>(
    inputs: &[String],
    format: Option<Format>,
    extract: &Extract<'_, T>,
    json: Option<&JsonExtract<'_, T>>,
    skip_invalid: bool,
    progress: bool,
    stats: &mut ReadStats,
    sink: &mut dyn FnMut(Vec<T>),
) -> Result<(), ConvertError> {
    let total: u64 = inputs
        .iter()
        .filter(|p| p.as_str() != "-")
        .filter_map(|p| std::fs::metadata(Path::new(p)).ok())
        .map(|m| m.len())
        .sum();
    let bar = if progress {
        // Unknown length (spinner) when reading stdin.
        let len = (!inputs.iter().any(|p| p == "-")).then_some(total);
        let b = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
        b.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} ({bytes_per_sec}, eta {eta}) {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let t0 = std::time::Instant::now();
    for path in inputs {
        let (mut reader, fmt, note) = open(path, format, bar.clone())?;
        stats.notes.extend(note);
        let io_err = |e: io::Error| ConvertError::Io {
            file: path.clone(),
            message: if e.kind() == io::ErrorKind::UnexpectedEof {
                format!("truncated or corrupt compressed input: {e}")
            } else {
                e.to_string()
            },
        };
        let bom = skip_bom(&mut *reader).map_err(io_err)?;
        match fmt {
            Format::Json => {
                let Some(json) = json else {
                    return Err(ConvertError::Io {
                        file: path.clone(),
                        message: "Wikidata JSON input where RDF is expected".into(),
                    });
                };
                super::wdjson::read(
                    &mut reader,
                    path,
                    bom,
                    json,
                    skip_invalid,
                    stats,
                    sink,
                    &io_err,
                    bar.as_ref().map(|b| (b, t0)),
                )?;
            }
            Format::NTriples => {
                let parse = |b: &[u8], stop: bool| parse_block(b, extract, stop);
                read_line_blocks(
                    &mut *reader,
                    path,
                    bom,
                    skip_invalid,
                    &parse,
                    stats,
                    sink,
                    &io_err,
                    bar.as_ref().map(|b| (b, t0, triples_rate as Rate)),
                )?;
            }
            Format::Turtle => {
                super::turtle::read(&mut *reader, path, bom, extract, skip_invalid, stats, sink)?;
            }
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(())
}

fn triples_rate(stats: &ReadStats, secs: f64) -> String {
    format!("{:.2}M triples/s", stats.triples as f64 / secs / 1e6)
}
