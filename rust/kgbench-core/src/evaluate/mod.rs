//! Result comparison and metrics (SPEC.md §4).
//!
//! - [`value`]: the result value model (null, bool, int, float, string/date, list, map) and
//!   its canonical keys — equal keys iff equal values under SPEC.md §4.
//! - [`table`]: result tables of canonical keys, built from values or straight from JSON.
//! - [`ex`]: execution accuracy (exact, deterministic column-bijection search).
//! - [`score`]: EX over two JSONL result files (`kgbench score`), in parallel.
//! - [`ex_set`]: PIPE-Cypher's EX_set (row-key sets; how it differs from EX).
//! - [`informative`]: uninformative gold results (empty, all null, a single 0 / false /
//!   empty list), flagged beside EX (`shared/spec/test-suite.md`).
//! - [`metrics`]: answer-set P/R/F1/Jaccard, GTSQA and NGDBench metric families.
//!
//! - [`tolerance`]: the optional relative tolerance on numbers (off by default: floats
//!   are compared exactly, as the reference does).

pub mod ex;
pub mod ex_set;
pub mod informative;
pub mod json;
pub mod metrics;
pub mod score;
pub mod table;
pub mod tolerance;
pub mod value;

pub use ex::{compare_tables, execution_accuracy, order_matters, tables_equivalent, Verdict};
pub use informative::{uninformative, Uninformative};
pub use table::{RecordCells, Table, TableBuilder, TableError};
pub use value::Value;
