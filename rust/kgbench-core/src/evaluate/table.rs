//! Result tables: rows × columns of canonical cell keys, stored flat (two allocations per
//! table), built from [`Value`]s, from Python objects (binding crate) or straight from JSON
//! text with serde (no intermediate value tree).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::value::{self, ListKeys, MapKeys, Value};

/// A query result: `nrows` rows of `ncols` cells, each cell a canonical key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    nrows: usize,
    ncols: usize,
    bytes: Vec<u8>,
    /// End offset in `bytes` of each cell, row-major.
    ends: Vec<u32>,
}

impl Table {
    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns (0 for a table without rows unless given).
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// The canonical key of cell (`row`, `col`).
    #[inline]
    pub fn cell(&self, row: usize, col: usize) -> &[u8] {
        self.cell_at(row * self.ncols + col)
    }

    #[inline]
    pub(crate) fn cell_at(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    /// Build a table from rows of values; every row must have the same length.
    ///
    /// Errors: [`TableError::Ragged`] naming the first row whose length differs from row 0.
    pub fn from_rows(rows: &[Vec<Value>]) -> Result<Table, TableError> {
        let mut b = TableBuilder::new();
        for row in rows {
            for v in row {
                v.write_key(b.cell_buf());
                b.end_cell();
            }
            b.end_row()?;
        }
        Ok(b.finish())
    }
}

/// Bad table shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// A row's length differs from the first row's.
    #[error("row {row} has {found} columns, expected {expected}")]
    Ragged {
        row: usize,
        found: usize,
        expected: usize,
    },
    /// A record row's keys differ from the first record's.
    #[error("row {row} has keys {found:?}, expected {expected:?} (as in row 0)")]
    Keys {
        row: usize,
        found: Vec<String>,
        expected: Vec<String>,
    },
}

/// Incremental table builder: write a cell key into [`TableBuilder::cell_buf`], call
/// [`TableBuilder::end_cell`]; close rows with [`TableBuilder::end_row`].
#[derive(Default)]
pub struct TableBuilder {
    t: Table,
    row_start: usize,
    expected_ncols: Option<usize>,
    /// Sorted keys of the first record row (rows given as maps).
    record_keys: Option<Vec<String>>,
}

impl TableBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder whose rows must have `ncols` cells (the `columns` field of a result line).
    pub fn with_ncols(ncols: usize) -> Self {
        TableBuilder {
            expected_ncols: Some(ncols),
            ..Self::default()
        }
    }

    /// The buffer the next cell key goes into.
    #[inline]
    pub fn cell_buf(&mut self) -> &mut Vec<u8> {
        &mut self.t.bytes
    }

    /// Mark the end of the cell just written.
    #[inline]
    pub fn end_cell(&mut self) {
        self.t.ends.push(self.t.bytes.len() as u32);
    }

    /// Close the current row. Errors if its width differs from the expected width.
    pub fn end_row(&mut self) -> Result<(), TableError> {
        let width = self.t.ends.len() - self.row_start;
        let expected = match self.expected_ncols {
            Some(n) => n,
            None => {
                self.expected_ncols = Some(width);
                width
            }
        };
        if width != expected {
            return Err(TableError::Ragged {
                row: self.t.nrows,
                found: width,
                expected,
            });
        }
        self.t.nrows += 1;
        self.row_start = self.t.ends.len();
        Ok(())
    }

    /// Add one record row given as (column name, cell key) pairs in any order. Cells are
    /// stored in column-name order (EX is invariant under column permutation); every record
    /// must have the same names.
    pub fn push_record(&mut self, mut cells: Vec<(String, Vec<u8>)>) -> Result<(), TableError> {
        cells.sort_by(|a, b| a.0.cmp(&b.0));
        match &self.record_keys {
            Some(keys) => {
                if keys.len() != cells.len() || keys.iter().zip(&cells).any(|(k, c)| *k != c.0) {
                    return Err(TableError::Keys {
                        row: self.t.nrows,
                        found: cells.into_iter().map(|c| c.0).collect(),
                        expected: keys.clone(),
                    });
                }
            }
            None => self.record_keys = Some(cells.iter().map(|c| c.0.clone()).collect()),
        }
        for (_, key) in &cells {
            self.t.bytes.extend_from_slice(key);
            self.end_cell();
        }
        self.end_row()
    }

    /// The finished table.
    pub fn finish(mut self) -> Table {
        self.t.ncols = self.expected_ncols.unwrap_or(0);
        self.t
    }
}

// ---------------------------------------------------------------------------------------
// serde: JSON text -> canonical keys without an intermediate tree

/// Deserialize seed writing the canonical key of any JSON value into a buffer.
pub struct CellSeed<'b>(pub &'b mut Vec<u8>);

impl<'de> DeserializeSeed<'de> for CellSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(CellVisitor(self.0))
    }
}

struct CellVisitor<'b>(&'b mut Vec<u8>);

impl<'de> Visitor<'de> for CellVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a result value")
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        value::push_null(self.0);
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        value::push_null(self.0);
        Ok(())
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        value::push_bool(self.0, v);
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        value::push_int(self.0, v);
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        value::push_u64(self.0, v);
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        value::push_float(self.0, v);
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        value::push_str(self.0, v);
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut list = ListKeys::default();
        while seq.next_element_seed(CellSeed(list.item_buf()))?.is_some() {
            list.end_item();
        }
        list.finish_list(self.0);
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut keys = MapKeys::default();
        while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            map.next_value_seed(CellSeed(keys.entry_buf(&k)))?;
            keys.end_entry();
        }
        keys.finish(self.0);
        Ok(())
    }
}

/// Deserialize seed for the `rows` field: an array of rows, each an array of values or an
/// object (record) whose keys name the columns.
pub struct RowsSeed(pub Option<usize>);

impl<'de> DeserializeSeed<'de> for RowsSeed {
    type Value = Table;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Table, D::Error> {
        d.deserialize_seq(RowsVisitor(self.0))
    }
}

struct RowsVisitor(Option<usize>);

impl<'de> Visitor<'de> for RowsVisitor {
    type Value = Table;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Table, A::Error> {
        let mut b = match self.0 {
            Some(n) => TableBuilder::with_ncols(n),
            None => TableBuilder::new(),
        };
        while seq.next_element_seed(RowSeed(&mut b))?.is_some() {}
        Ok(b.finish())
    }
}

struct RowSeed<'b>(&'b mut TableBuilder);

impl<'de> DeserializeSeed<'de> for RowSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(RowVisitor(self.0))
    }
}

struct RowVisitor<'b>(&'b mut TableBuilder);

impl<'de> Visitor<'de> for RowVisitor<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a row (array of values or object)")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let b = self.0;
        while seq.next_element_seed(CellSeed(b.cell_buf()))?.is_some() {
            b.end_cell();
        }
        b.end_row().map_err(de::Error::custom)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut cells = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            let mut key = Vec::new();
            map.next_value_seed(CellSeed(&mut key))?;
            cells.push((k, key));
        }
        self.0.push_record(cells).map_err(de::Error::custom)
    }
}

/// Parse a JSON array of rows (arrays or records) into a table.
pub fn table_from_json(text: &str) -> Result<Table, serde_json::Error> {
    let mut d = serde_json::Deserializer::from_str(text);
    let t = RowsSeed(None).deserialize(&mut d)?;
    d.end()?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_values_agree() {
        let t =
            table_from_json(r#"[[1, "a", [3, 1.0, {"y": null, "x": [true]}]], [2.5, null, {}]]"#)
                .unwrap();
        let v = Table::from_rows(&[
            vec![
                Value::Int(1),
                Value::Str("a".into()),
                Value::List(vec![
                    Value::Int(1),
                    Value::Int(3),
                    Value::Map(vec![
                        ("x".into(), Value::List(vec![Value::Bool(true)])),
                        ("y".into(), Value::Null),
                    ]),
                ]),
            ],
            vec![Value::Float(2.5), Value::Null, Value::Map(vec![])],
        ])
        .unwrap();
        assert_eq!(t, v);
        assert_eq!(t.nrows(), 2);
        assert_eq!(t.ncols(), 3);
    }

    #[test]
    fn records_and_ragged() {
        let a = table_from_json(r#"[{"b": 2, "a": 1}, {"a": 3, "b": 4}]"#).unwrap();
        let b = table_from_json(r#"[[1, 2], [3, 4]]"#).unwrap();
        assert_eq!(a, b);
        let e = table_from_json(r#"[{"a": 1}, {"b": 1}]"#).unwrap_err();
        assert!(e.to_string().contains("row 1 has keys"), "{e}");
        let e = table_from_json(r#"[[1, 2], [3]]"#).unwrap_err();
        assert!(
            e.to_string().contains("row 1 has 1 columns, expected 2"),
            "{e}"
        );
    }
}
