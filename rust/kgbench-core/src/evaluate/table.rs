//! Result tables: rows × columns of canonical cell keys, stored flat (two allocations per
//! table), built from [`Value`]s, from Python objects (binding crate) or straight from JSON
//! text with serde (no intermediate value tree).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::value::{self, ListKeys, MapKeys, Value};

/// Storage for many tables: the cell keys of all of them, back to back. Tables built into
/// one arena are addressed by [`TableSpan`]s (no allocation per table).
#[derive(Debug, Clone, Default)]
pub struct TableArena {
    bytes: Vec<u8>,
    /// End offset in `bytes` of each cell, row-major, tables back to back.
    ends: Vec<u32>,
    /// Scratch of record rows (not part of any table): kept here so that reading many
    /// tables of records into one arena allocates nothing per row or per table.
    records: RecordScratch,
}

/// Arenas are equal when they hold the same tables (their scratch space does not count).
impl PartialEq for TableArena {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes && self.ends == other.ends
    }
}

impl Eq for TableArena {}

/// The record row being built, and its table's first record: its column names sorted,
/// as given, and its cells' column-name order.
#[derive(Debug, Clone, Default)]
struct RecordScratch {
    row: RecordCells,
    first_sorted: RecordCells,
    first: RecordCells,
    first_order: Vec<u32>,
    /// Cells of `row` in column-name order (when its names differ from the first's).
    order: Vec<u32>,
    /// The last table built had record rows (`first_sorted` holds its names).
    has_names: bool,
}

/// The cells of one record row (a row given as a map from column name to value), in the
/// record's own order: each column name with its cell's canonical key. Filled by
/// [`RecordCells::cell`] + [`RecordCells::end_cell`] per column; see
/// [`TableBuilder::record`].
#[derive(Debug, Clone, Default)]
pub struct RecordCells {
    names: String,
    name_ends: Vec<u32>,
    keys: Vec<u8>,
    key_ends: Vec<u32>,
}

impl RecordCells {
    fn clear(&mut self) {
        self.names.clear();
        self.name_ends.clear();
        self.keys.clear();
        self.key_ends.clear();
    }

    /// Start the cell of column `name`: its canonical key goes into the returned buffer,
    /// then call [`RecordCells::end_cell`].
    #[inline]
    pub fn cell(&mut self, name: &str) -> &mut Vec<u8> {
        self.names.push_str(name);
        self.name_ends.push(self.names.len() as u32);
        &mut self.keys
    }

    /// Mark the end of the cell just written.
    #[inline]
    pub fn end_cell(&mut self) {
        self.key_ends.push(self.keys.len() as u32);
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.name_ends.len()
    }

    /// True without cells.
    pub fn is_empty(&self) -> bool {
        self.name_ends.is_empty()
    }

    /// The same column names in the same order as `other`.
    #[inline]
    fn same_names(&self, other: &RecordCells) -> bool {
        self.names == other.names && self.name_ends == other.name_ends
    }

    #[inline]
    fn name(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.name_ends[i - 1] as usize
        };
        &self.names[start..self.name_ends[i] as usize]
    }

    #[inline]
    fn key(&self, i: usize) -> &[u8] {
        let start = if i == 0 {
            0
        } else {
            self.key_ends[i - 1] as usize
        };
        &self.keys[start..self.key_ends[i] as usize]
    }
}

impl TableArena {
    /// The column names of the table built last, in its cell order, when its rows were
    /// records (objects): their sorted keys. `None` for array rows.
    pub fn record_names(&self) -> Option<impl Iterator<Item = &str>> {
        let r = &self.records;
        r.has_names
            .then(|| (0..r.first_sorted.len()).map(|i| r.first_sorted.name(i)))
    }

    /// An empty arena with room for about `cells` cells of `bytes` bytes.
    pub fn with_capacity(cells: usize, bytes: usize) -> Self {
        TableArena {
            bytes: Vec::with_capacity(bytes),
            ends: Vec::with_capacity(cells),
            records: RecordScratch::default(),
        }
    }

    /// Drop all tables (keeps the buffers).
    #[inline]
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }

    /// The table at `span`.
    #[inline]
    pub fn get(&self, span: TableSpan) -> TableRef<'_> {
        let c0 = span.first_cell as usize;
        let ncells = span.nrows as usize * span.ncols as usize;
        TableRef {
            nrows: span.nrows as usize,
            ncols: span.ncols as usize,
            base: span.first_byte,
            bytes: &self.bytes,
            ends: &self.ends[c0..c0 + ncells],
        }
    }
}

/// Where a table lives in its [`TableArena`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableSpan {
    first_cell: u32,
    first_byte: u32,
    nrows: u32,
    ncols: u32,
}

impl TableSpan {
    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows as usize
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols as usize
    }
}

/// A borrowed result table: `nrows` rows of `ncols` cells, each a canonical key.
#[derive(Debug, Clone, Copy)]
pub struct TableRef<'a> {
    nrows: usize,
    ncols: usize,
    base: u32,
    bytes: &'a [u8],
    ends: &'a [u32],
}

impl<'a> TableRef<'a> {
    /// Number of rows.
    #[inline]
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns (for a table without rows: as declared, else 0).
    #[inline]
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// The canonical key of cell (`row`, `col`).
    #[inline]
    pub fn cell(&self, row: usize, col: usize) -> &'a [u8] {
        self.cell_at(row * self.ncols + col)
    }

    /// The EX verdict SPEC.md §4 gives from the shapes alone, with `self` the gold table:
    /// both results empty → equal (`Some(true)`); exactly one empty, or different row or
    /// column counts → different (`Some(false)`). `None` when the cells must be compared.
    pub fn shape_verdict(&self, pred: TableRef<'_>) -> Option<bool> {
        let n = self.nrows;
        if n == 0 && pred.nrows() == 0 {
            return Some(true);
        }
        if n == 0 || pred.nrows() != n || self.ncols != pred.ncols() {
            return Some(false);
        }
        None
    }

    /// True iff both tables hold the same cell keys in the same order (same shape).
    pub fn identical(&self, other: &TableRef<'_>) -> bool {
        if self.nrows != other.nrows || self.ncols != other.ncols {
            return false;
        }
        let a =
            &self.bytes[self.base as usize..self.ends.last().map_or(self.base, |&e| e) as usize];
        let b = &other.bytes
            [other.base as usize..other.ends.last().map_or(other.base, |&e| e) as usize];
        a == b
            && self
                .ends
                .iter()
                .zip(other.ends)
                .all(|(&x, &y)| x - self.base == y - other.base)
    }

    /// Total length of all cell keys, in bytes.
    #[inline]
    pub fn key_bytes(&self) -> usize {
        (self.ends.last().map_or(self.base, |&e| e) - self.base) as usize
    }

    /// The canonical key of the `i`-th cell in row-major order.
    #[inline]
    pub fn cell_at(&self, i: usize) -> &'a [u8] {
        let start = if i == 0 { self.base } else { self.ends[i - 1] };
        &self.bytes[start as usize..self.ends[i] as usize]
    }
}

/// An owned result table (one arena holding one table).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    arena: TableArena,
    span: TableSpan,
}

impl Table {
    /// Borrow the table.
    #[inline]
    pub fn as_ref(&self) -> TableRef<'_> {
        self.arena.get(self.span)
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.span.nrows as usize
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.span.ncols as usize
    }

    /// Build a table from rows of values; every row must have the same length.
    ///
    /// Errors: [`TableError::Ragged`] naming the first row whose length differs from row 0.
    pub fn from_rows(rows: &[Vec<Value>]) -> Result<Table, TableError> {
        let mut arena = TableArena::default();
        let mut b = TableBuilder::new(&mut arena, None);
        for row in rows {
            for v in row {
                v.write_key(b.cell_buf());
                b.end_cell();
            }
            b.end_row()?;
        }
        let span = b.finish();
        Ok(Table { arena, span })
    }

    /// Build a table with `f`, which fills a [`TableBuilder`].
    pub fn build<E>(
        ncols: Option<usize>,
        f: impl FnOnce(&mut TableBuilder<'_>) -> Result<(), E>,
    ) -> Result<Table, E> {
        let mut arena = TableArena::default();
        let mut b = TableBuilder::new(&mut arena, ncols);
        f(&mut b)?;
        let span = b.finish();
        Ok(Table { arena, span })
    }
}

/// Bad table shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// A row's length differs from the first row's (or from the declared columns).
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

/// Incremental builder of one table in an arena: write a cell key into
/// [`TableBuilder::cell_buf`], call [`TableBuilder::end_cell`]; close rows with
/// [`TableBuilder::end_row`]; [`TableBuilder::finish`] returns the table's span.
pub struct TableBuilder<'a> {
    arena: &'a mut TableArena,
    first_cell: usize,
    first_byte: usize,
    nrows: usize,
    row_start: usize,
    expected_ncols: Option<usize>,
    /// A record row was added (the arena's scratch holds its sorted column names).
    had_record: bool,
}

impl<'a> TableBuilder<'a> {
    /// Start a table at the end of `arena`; rows must have `ncols` cells when given (the
    /// `columns` field of a result line), else as many as the first row.
    pub fn new(arena: &'a mut TableArena, ncols: Option<usize>) -> Self {
        arena.records.has_names = false;
        let first_cell = arena.ends.len();
        let first_byte = arena.bytes.len();
        TableBuilder {
            arena,
            first_cell,
            first_byte,
            nrows: 0,
            row_start: first_cell,
            expected_ncols: ncols,
            had_record: false,
        }
    }

    /// The buffer the next cell key goes into.
    #[inline]
    pub fn cell_buf(&mut self) -> &mut Vec<u8> {
        &mut self.arena.bytes
    }

    /// Mark the end of the cell just written.
    #[inline]
    pub fn end_cell(&mut self) {
        self.arena.ends.push(self.arena.bytes.len() as u32);
    }

    /// Close the current row. Errors if its width differs from the expected width.
    pub fn end_row(&mut self) -> Result<(), TableError> {
        let width = self.arena.ends.len() - self.row_start;
        let expected = *self.expected_ncols.get_or_insert(width);
        if width != expected {
            return Err(TableError::Ragged {
                row: self.nrows,
                found: width,
                expected,
            });
        }
        self.nrows += 1;
        self.row_start = self.arena.ends.len();
        Ok(())
    }

    /// The buffer of the next record row (a row given as a map from column name to value),
    /// emptied: fill it with [`RecordCells::cell`] + [`RecordCells::end_cell`] per column in
    /// any order, then call [`TableBuilder::end_record`].
    #[inline]
    pub fn record(&mut self) -> &mut RecordCells {
        let row = &mut self.arena.records.row;
        row.clear();
        row
    }

    /// Add the record row filled through [`TableBuilder::record`]. Cells are stored in
    /// column-name order (EX is invariant under column permutation); every record must have
    /// the same names. Errors: [`TableError::Keys`] naming both sets of names, or
    /// [`TableError::Ragged`] against declared columns or earlier array rows.
    pub fn end_record(&mut self) -> Result<(), TableError> {
        let TableArena {
            bytes,
            ends,
            records,
        } = &mut *self.arena;
        let RecordScratch {
            row,
            first_sorted,
            first,
            first_order,
            order,
            has_names,
        } = records;
        let order = if self.had_record && row.same_names(first) {
            // the usual case: the names of the first record, in the same order
            &*first_order
        } else {
            order.clear();
            order.extend(0..row.len() as u32);
            // stable: a repeated name keeps its cells in record order
            order.sort_by(|&a, &b| row.name(a as usize).cmp(row.name(b as usize)));
            if !self.had_record {
                self.had_record = true;
                *has_names = true;
                first.clear();
                first_sorted.clear();
                for i in 0..row.len() {
                    first.cell(row.name(i));
                    first.end_cell();
                }
                for &i in order.iter() {
                    first_sorted.cell(row.name(i as usize));
                    first_sorted.end_cell();
                }
                first_order.clone_from(order);
            } else if first_sorted.len() != row.len()
                || order
                    .iter()
                    .enumerate()
                    .any(|(j, &i)| first_sorted.name(j) != row.name(i as usize))
            {
                return Err(TableError::Keys {
                    row: self.nrows,
                    found: order
                        .iter()
                        .map(|&i| row.name(i as usize).to_owned())
                        .collect(),
                    expected: (0..first_sorted.len())
                        .map(|j| first_sorted.name(j).to_owned())
                        .collect(),
                });
            }
            &*order
        };
        for &i in order {
            bytes.extend_from_slice(row.key(i as usize));
            ends.push(bytes.len() as u32);
        }
        self.end_row()
    }

    /// Close the table and return its span.
    pub fn finish(self) -> TableSpan {
        TableSpan {
            first_cell: self.first_cell as u32,
            first_byte: self.first_byte as u32,
            nrows: self.nrows as u32,
            ncols: self.expected_ncols.unwrap_or(0) as u32,
        }
    }

    /// Drop everything written for this table (after an error).
    pub fn rollback(self) {
        self.arena.ends.truncate(self.first_cell);
        self.arena.bytes.truncate(self.first_byte);
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
        while map.next_key_seed(MapKeySeed(&mut keys))?.is_some() {
            map.next_value_seed(CellSeed(keys.value_buf()))?;
            keys.end_entry();
        }
        keys.finish(self.0);
        Ok(())
    }
}

/// Starts a map entry with the key read from JSON (no allocation for unescaped keys).
struct MapKeySeed<'b>(&'b mut MapKeys);

impl<'de> DeserializeSeed<'de> for MapKeySeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for MapKeySeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map key")
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.entry_buf(v);
        Ok(())
    }
}

/// Deserialize seed for the `rows` field: an array of rows, each an array of values or an
/// object (record) whose keys name the columns. Writes into the arena; returns the span.
pub struct RowsSeed<'b> {
    pub arena: &'b mut TableArena,
    pub ncols: Option<usize>,
}

impl<'de> DeserializeSeed<'de> for RowsSeed<'_> {
    type Value = TableSpan;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<TableSpan, D::Error> {
        d.deserialize_seq(RowsVisitor(TableBuilder::new(self.arena, self.ncols)))
    }
}

struct RowsVisitor<'b>(TableBuilder<'b>);

impl<'de> Visitor<'de> for RowsVisitor<'_> {
    type Value = TableSpan;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of rows")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TableSpan, A::Error> {
        let mut b = self.0;
        while seq.next_element_seed(RowSeed(&mut b))?.is_some() {}
        Ok(b.finish())
    }
}

struct RowSeed<'b, 'a>(&'b mut TableBuilder<'a>);

impl<'de> DeserializeSeed<'de> for RowSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(RowVisitor(self.0))
    }
}

struct RowVisitor<'b, 'a>(&'b mut TableBuilder<'a>);

impl<'de> Visitor<'de> for RowVisitor<'_, '_> {
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
        let record = self.0.record();
        while let Some(k) = map.next_key::<String>()? {
            map.next_value_seed(CellSeed(record.cell(&k)))?;
            record.end_cell();
        }
        self.0.end_record().map_err(de::Error::custom)
    }
}

/// Parse a JSON array of rows (arrays or records) into a table.
pub fn table_from_json(text: &str) -> Result<Table, serde_json::Error> {
    let mut d = serde_json::Deserializer::from_str(text);
    let mut arena = TableArena::default();
    let span = RowsSeed {
        arena: &mut arena,
        ncols: None,
    }
    .deserialize(&mut d)?;
    d.end()?;
    Ok(Table { arena, span })
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
        assert_eq!(t.as_ref().cell(1, 0), Value::Float(2.5).canonical_key());
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

    /// Records whose names come in the first record's order, in another order, or differ;
    /// the JSON reader and serde agree on all of them.
    #[test]
    fn record_names_in_any_order() {
        let text = r#"[{"b": 2, "a": 1, "c": [1]}, {"b": 4, "a": 3, "c": []},
            {"c": null, "a": 5, "b": 6}, {"b": 8, "c": "x", "a": 7}]"#;
        let expected =
            table_from_json(r#"[[1, 2, [1]], [3, 4, []], [5, 6, null], [7, 8, "x"]]"#).unwrap();
        assert_eq!(table_from_json(text).unwrap(), expected);
        let mut arena = TableArena::default();
        let mut r = crate::evaluate::json::Reader::new(text);
        let span = r.rows(&mut arena, None).unwrap().unwrap();
        let t = arena.get(span);
        assert!(t.identical(&expected.as_ref()));
        // a second table in the same arena starts its own names
        let mut r = crate::evaluate::json::Reader::new(r#"[{"z": 1}, {"z": 2}]"#);
        let span = r.rows(&mut arena, None).unwrap().unwrap();
        assert_eq!((arena.get(span).nrows(), arena.get(span).ncols()), (2, 1));
        for (bad, found) in [
            (r#"[{"b": 2, "a": 1}, {"a": 3, "c": 4}]"#, r#"["a", "c"]"#),
            (
                r#"[{"b": 2, "a": 1}, {"b": 3, "a": 4, "c": 5}]"#,
                r#"["a", "b", "c"]"#,
            ),
            (r#"[{"a": 1}, {"b": 2, "a": 1}]"#, r#"["a", "b"]"#),
        ] {
            let e = table_from_json(bad).unwrap_err().to_string();
            assert!(e.contains(&format!("row 1 has keys {found}")), "{e}");
            let mut arena = TableArena::default();
            let e = crate::evaluate::json::Reader::new(bad)
                .rows(&mut arena, None)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("row 1 has keys {found}")), "{e}");
        }
    }
}
