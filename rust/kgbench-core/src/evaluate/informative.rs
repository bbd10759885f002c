//! Uninformative gold results (`shared/spec/test-suite.md`, "Uninformative tasks").
//!
//! Execution accuracy compares a prediction's result with the gold's on one database. When
//! the gold result is empty, all null, or a single `0` / `false` / empty list, many wrong
//! queries return the same thing there (any query over a join that matches nothing, any
//! `count` of a filter nothing passes), so EX 1 tells little. Such a task is *uninformative*:
//! kgbench flags it with the reason and reports EX on the informative tasks beside EX on all.
//!
//! The rules, on the gold result table (rows x columns of canonical cell keys, see
//! [`super::value`]), first match wins:
//!
//! | reason | the gold result |
//! | --- | --- |
//! | `empty` | has no row |
//! | `all_null` | has rows, and every cell is `null` |
//! | `single_zero` | is one row of one cell, a number equal to 0 (`0`, `0.0`, `-0.0`) |
//! | `single_false` | is one row of one cell, `false` |
//! | `single_empty_list` | is one row of one cell, an empty list |
//!
//! A single non-zero number, `true`, a non-empty list or any string is informative; so is a
//! one-row result with several columns unless all of them are null.

use super::table::TableRef;
use super::value::{push_bool, push_int, push_null, ListKeys};

/// Why a gold result cannot tell a right prediction from many wrong ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Uninformative {
    /// No row.
    Empty,
    /// Rows whose every cell is null.
    AllNull,
    /// One cell holding a number equal to 0.
    SingleZero,
    /// One cell holding `false`.
    SingleFalse,
    /// One cell holding an empty list.
    SingleEmptyList,
}

impl Uninformative {
    /// Every reason, in the order of the rules (module documentation).
    pub const ALL: [Uninformative; 5] = [
        Uninformative::Empty,
        Uninformative::AllNull,
        Uninformative::SingleZero,
        Uninformative::SingleFalse,
        Uninformative::SingleEmptyList,
    ];

    /// The reason as written in result files: `"empty"`, `"all_null"`, `"single_zero"`,
    /// `"single_false"` or `"single_empty_list"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Uninformative::Empty => "empty",
            Uninformative::AllNull => "all_null",
            Uninformative::SingleZero => "single_zero",
            Uninformative::SingleFalse => "single_false",
            Uninformative::SingleEmptyList => "single_empty_list",
        }
    }
}

/// Whether a gold result table is uninformative, and why (`None`: informative). The rules are
/// in the module documentation. Runs in time linear in the number of cells.
pub fn uninformative(table: TableRef<'_>) -> Option<Uninformative> {
    if table.nrows() == 0 {
        return Some(Uninformative::Empty);
    }
    let mut null = Vec::with_capacity(1);
    push_null(&mut null);
    let cells = table.nrows() * table.ncols();
    if cells > 0 && (0..cells).all(|i| table.cell_at(i) == null.as_slice()) {
        return Some(Uninformative::AllNull);
    }
    if table.nrows() != 1 || table.ncols() != 1 {
        return None;
    }
    let cell = table.cell(0, 0);
    let mut key = Vec::with_capacity(16);
    push_int(&mut key, 0); // 0.0 and -0.0 have the key of the integer 0
    if cell == key.as_slice() {
        return Some(Uninformative::SingleZero);
    }
    key.clear();
    push_bool(&mut key, false);
    if cell == key.as_slice() {
        return Some(Uninformative::SingleFalse);
    }
    key.clear();
    ListKeys::default().finish_list(&mut key);
    if cell == key.as_slice() {
        return Some(Uninformative::SingleEmptyList);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluate::{Table, Value};

    fn reason(rows: Vec<Vec<Value>>) -> Option<&'static str> {
        let t = Table::from_rows(&rows).expect("rectangular rows");
        uninformative(t.as_ref()).map(Uninformative::as_str)
    }

    #[test]
    fn the_five_reasons() {
        assert_eq!(reason(vec![]), Some("empty"));
        assert_eq!(reason(vec![vec![Value::Null]]), Some("all_null"));
        assert_eq!(
            reason(vec![
                vec![Value::Null, Value::Null],
                vec![Value::Null, Value::Null]
            ]),
            Some("all_null")
        );
        assert_eq!(reason(vec![vec![Value::Int(0)]]), Some("single_zero"));
        assert_eq!(reason(vec![vec![Value::Float(0.0)]]), Some("single_zero"));
        assert_eq!(reason(vec![vec![Value::Float(-0.0)]]), Some("single_zero"));
        assert_eq!(reason(vec![vec![Value::Bool(false)]]), Some("single_false"));
        assert_eq!(
            reason(vec![vec![Value::List(vec![])]]),
            Some("single_empty_list")
        );
    }

    #[test]
    fn informative_results() {
        assert_eq!(reason(vec![vec![Value::Int(1)]]), None);
        assert_eq!(reason(vec![vec![Value::Float(0.5)]]), None);
        assert_eq!(reason(vec![vec![Value::Bool(true)]]), None);
        assert_eq!(reason(vec![vec![Value::Str("0".into())]]), None);
        assert_eq!(reason(vec![vec![Value::Str(String::new())]]), None);
        assert_eq!(reason(vec![vec![Value::List(vec![Value::Int(0)])]]), None);
        assert_eq!(reason(vec![vec![Value::Map(vec![])]]), None);
        // one row of several cells: only all-null makes it uninformative
        assert_eq!(reason(vec![vec![Value::Int(0), Value::Int(0)]]), None);
        assert_eq!(reason(vec![vec![Value::Null, Value::Int(0)]]), None);
        // two rows of a single 0 each
        assert_eq!(reason(vec![vec![Value::Int(0)], vec![Value::Int(0)]]), None);
    }
}
