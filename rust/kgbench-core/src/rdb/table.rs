//! One table's rows in memory (column-wise, text in one arena per column), read from SQLite
//! with the repairs applied, and the per-row names: subjects, eids and node names
//! (`_read_table`, `_name_rows` of `kgbench.rdb.convert`).

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::lex;
use super::naming::{self, KeyValue, KEY_SEP};
use super::sqlite::{Connection, Value};
use super::{Kind, TableJob};

/// One stored cell; `Text`, `Blob` and `Big` (an integer beyond `i64`, from promotion) are
/// `(start, len)` in their column's arena.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Text(u32, u32),
    Blob(u32, u32),
    Big(u32, u32),
}

/// One column's cells in row order.
#[derive(Default)]
pub struct Column {
    pub cells: Vec<Cell>,
    pub arena: Vec<u8>,
    /// Text cells changed by `trim`.
    pub trimmed: usize,
    /// `integer` or `decimal` when promoted.
    pub promoted: Option<Kind>,
}

impl Column {
    /// The bytes of a `Text`, `Blob` or `Big` cell.
    #[inline]
    pub fn bytes(&self, start: u32, len: u32) -> &[u8] {
        &self.arena[start as usize..start as usize + len as usize]
    }

    fn push_bytes(&mut self, b: &[u8]) -> Result<(u32, u32), String> {
        let start = u32::try_from(self.arena.len()).map_err(|_| "column over 4 GiB".to_string())?;
        let len = u32::try_from(b.len()).map_err(|_| "value over 4 GiB".to_string())?;
        self.arena.extend_from_slice(b);
        Ok((start, len))
    }

    /// `literal_text(v)` of a cell (`None` for NULL).
    pub fn literal(&self, c: Cell, out: &mut Vec<u8>) {
        let v = match c {
            Cell::Null => KeyValue::Null,
            Cell::Int(v) => KeyValue::Int(v),
            Cell::Float(v) => KeyValue::Float(v),
            Cell::Text(s, l) | Cell::Big(s, l) => KeyValue::Text(self.bytes(s, l)),
            Cell::Blob(s, l) => KeyValue::Bytes(self.bytes(s, l)),
        };
        naming::literal_text(v, out);
    }
}

/// The row handles: rowids, or the key values of a WITHOUT ROWID table.
pub enum Handles {
    /// One integer per row, ascending (read `ORDER BY rowid`).
    Ints(Vec<i64>),
    /// Per row: the canonical key bytes and `literal_text` of the handle (the `_row=` value;
    /// None for a NULL single handle).
    General(Vec<Vec<u8>>, Vec<Option<Vec<u8>>>),
}

/// A table as read and named.
pub struct TableData {
    pub n: usize,
    pub columns: Vec<Column>,
    pub handles: Handles,
    /// Concatenated subject terms (`<...>` or `_:b...`), `subj_end[i]` the end of row `i`.
    pub subjects: Vec<u8>,
    pub subj_end: Vec<usize>,
    pub eids: Vec<u8>,
    pub eid_end: Vec<usize>,
    pub names: Vec<u8>,
    pub name_end: Vec<usize>,
    /// `key`, `rowid` or `blank`.
    pub row_naming: &'static str,
    pub merged: usize,
    /// Every eid differs from the others.
    pub unique_eids: bool,
}

#[inline]
fn slice<'a>(buf: &'a [u8], ends: &[usize], i: usize) -> &'a [u8] {
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &buf[start..ends[i]]
}

impl TableData {
    #[inline]
    pub fn subject(&self, i: usize) -> &[u8] {
        slice(&self.subjects, &self.subj_end, i)
    }
    #[inline]
    pub fn eid(&self, i: usize) -> &[u8] {
        slice(&self.eids, &self.eid_end, i)
    }
    #[inline]
    pub fn name(&self, i: usize) -> &[u8] {
        slice(&self.names, &self.name_end, i)
    }
}

/// Canonical bytes of a handle value (Python equality: an integral float equals its int).
fn handle_key(v: &Value<'_>, text: &[u8], out: &mut Vec<u8>) {
    match *v {
        Value::Null => out.push(b'n'),
        Value::Int(i) => {
            out.push(b'i');
            out.extend_from_slice(&i.to_le_bytes());
        }
        Value::Float(f) => {
            if f.fract() == 0.0 && f.abs() < 9.2e18 {
                out.push(b'i');
                out.extend_from_slice(&(f as i64).to_le_bytes());
            } else {
                out.push(b'f');
                out.extend_from_slice(&f.to_bits().to_le_bytes());
            }
        }
        Value::Text(_) => {
            out.push(b't');
            out.extend_from_slice(&(text.len() as u64).to_le_bytes());
            out.extend_from_slice(text);
        }
        Value::Blob(b) => {
            out.push(b'b');
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(b);
        }
    }
}

/// The canonical key of one handle tuple (values as SQLite returns them).
pub fn handle_tuple_key(values: &[Value<'_>], out: &mut Vec<u8>) {
    for v in values {
        let text = match v {
            Value::Text(t) => String::from_utf8_lossy(t),
            _ => std::borrow::Cow::Borrowed(""),
        };
        handle_key(v, text.as_bytes(), out);
    }
}

fn handle_literal(v: &Value<'_>, out: &mut Vec<u8>) {
    let text;
    let v = match *v {
        Value::Null => KeyValue::Null,
        Value::Int(i) => KeyValue::Int(i),
        Value::Float(f) => KeyValue::Float(f),
        Value::Text(t) => {
            text = String::from_utf8_lossy(t);
            KeyValue::Text(text.as_bytes())
        }
        Value::Blob(b) => KeyValue::Bytes(b),
    };
    naming::literal_text(v, out);
}

const TRIM: &[u8] = b" \t\r\n";

/// Read `job`'s rows (its `select_sql`: `nh` handle columns, then the columns) with `trim`
/// applied to every text value, then `promote` (module docs of `kgbench.rdb.convert`).
///
/// Errors: SQLite's message.
pub fn read(
    conn: &Connection,
    job: &TableJob,
    trim: bool,
    promote: bool,
) -> Result<TableData, String> {
    let ncols = job.columns.len();
    let nh = job.nh;
    let mut columns: Vec<Column> = (0..ncols).map(|_| Column::default()).collect();
    let mut ints: Vec<i64> = Vec::new();
    let mut keys: Vec<Vec<u8>> = Vec::new();
    let mut lits: Vec<Option<Vec<u8>>> = Vec::new();
    let mut general = false;
    let mut n = 0usize;
    conn.query(&job.select_sql, |row| {
        if row.len() != nh + ncols {
            return Err(format!(
                "expected {} columns, got {}",
                nh + ncols,
                row.len()
            ));
        }
        // handles
        match (&row[0], nh, general) {
            (Value::Int(i), 1, false) if ints.last().is_none_or(|l| l < i) => ints.push(*i),
            _ => {
                if !general {
                    general = true;
                    for &i in &ints {
                        let v = Value::Int(i);
                        let mut k = Vec::new();
                        handle_tuple_key(std::slice::from_ref(&v), &mut k);
                        keys.push(k);
                        let mut l = Vec::new();
                        lex::int(i, &mut l);
                        lits.push(Some(l));
                    }
                }
                let mut k = Vec::new();
                handle_tuple_key(&row[..nh], &mut k);
                keys.push(k);
                if nh == 1 {
                    if matches!(row[0], Value::Null) {
                        lits.push(None);
                    } else {
                        let mut l = Vec::new();
                        handle_literal(&row[0], &mut l);
                        lits.push(Some(l));
                    }
                } else {
                    let mut l = Vec::new();
                    for (x, v) in row[..nh].iter().enumerate() {
                        if x > 0 {
                            l.push(b',');
                        }
                        handle_literal(v, &mut l);
                    }
                    lits.push(Some(l));
                }
            }
        }
        for (col, v) in columns.iter_mut().zip(&row[nh..]) {
            let cell = match *v {
                Value::Null => Cell::Null,
                Value::Int(i) => Cell::Int(i),
                Value::Float(f) => Cell::Float(f),
                Value::Text(t) => {
                    let text = match std::str::from_utf8(t) {
                        Ok(_) => std::borrow::Cow::Borrowed(t),
                        Err(_) => std::borrow::Cow::Owned(
                            String::from_utf8_lossy(t).into_owned().into_bytes(),
                        ),
                    };
                    let mut t: &[u8] = &text;
                    if trim {
                        let a = t.iter().position(|c| !TRIM.contains(c)).unwrap_or(t.len());
                        let b = t
                            .iter()
                            .rposition(|c| !TRIM.contains(c))
                            .map_or(a, |p| p + 1);
                        if (a, b) != (0, t.len()) {
                            col.trimmed += 1;
                            t = &t[a..b.max(a)];
                        }
                    }
                    let (s, l) = col.push_bytes(t)?;
                    Cell::Text(s, l)
                }
                Value::Blob(b) => {
                    let (s, l) = col.push_bytes(b)?;
                    Cell::Blob(s, l)
                }
            };
            col.cells.push(cell);
        }
        n += 1;
        Ok(())
    })?;
    if promote {
        for (col, cj) in columns.iter_mut().zip(&job.columns) {
            if matches!(cj.kind, Kind::String | Kind::Untyped) {
                promote_column(col);
            }
        }
    }
    let handles = if general {
        Handles::General(keys, lits)
    } else {
        Handles::Ints(ints)
    };
    Ok(TableData {
        n,
        columns,
        handles,
        subjects: Vec::new(),
        subj_end: Vec::new(),
        eids: Vec::new(),
        eid_end: Vec::new(),
        names: Vec::new(),
        name_end: Vec::new(),
        row_naming: "key",
        merged: 0,
        unique_eids: true,
    })
}

/// `promote_numeric_text` on one text or untyped column: all non-NULL values plain numerals
/// (at least one) -> integers (`int(s)`, beyond i64 kept as digits) or, with a decimal among
/// them, `float(s)` for those with a `.`.
fn promote_column(col: &mut Column) {
    let mut seen = 0;
    let mut worst = 1;
    for c in &col.cells {
        match *c {
            Cell::Null => continue,
            Cell::Text(s, l) => match lex::numeral(col.bytes(s, l)) {
                0 => return,
                k => worst = worst.max(k),
            },
            _ => return,
        }
        seen += 1;
    }
    if seen == 0 {
        return;
    }
    col.promoted = Some(if worst == 1 {
        Kind::Integer
    } else {
        Kind::Decimal
    });
    for i in 0..col.cells.len() {
        if let Cell::Text(s, l) = col.cells[i] {
            let text = std::str::from_utf8(col.bytes(s, l)).unwrap_or("");
            col.cells[i] = if text.contains('.') {
                Cell::Float(text.parse::<f64>().unwrap_or(f64::NAN))
            } else if let Ok(v) = text.parse::<i64>() {
                Cell::Int(v)
            } else {
                Cell::Big(s, l)
            };
        }
    }
}

struct Names {
    subjects: Vec<u8>,
    subj_end: Vec<usize>,
    eids: Vec<u8>,
    eid_end: Vec<usize>,
    keytexts: Vec<u8>,
    key_end: Vec<usize>,
}

impl Names {
    fn with_capacity(n: usize) -> Names {
        Names {
            subjects: Vec::with_capacity(n * 32),
            subj_end: Vec::with_capacity(n),
            eids: Vec::with_capacity(n * 16),
            eid_end: Vec::with_capacity(n),
            keytexts: Vec::with_capacity(n * 8),
            key_end: Vec::with_capacity(n),
        }
    }
    fn end_row(&mut self) {
        self.subj_end.push(self.subjects.len());
        self.eid_end.push(self.eids.len());
        self.key_end.push(self.keytexts.len());
    }
}

fn unique(buf: &[u8], ends: &[usize]) -> bool {
    let mut seen: FxHashSet<&[u8]> = FxHashSet::default();
    seen.reserve(ends.len());
    (0..ends.len()).all(|i| seen.insert(slice(buf, ends, i)))
}

/// Whether the key texts of a one-column key differ (integers compared as numbers: their
/// texts differ exactly when they do).
fn unique_single(col: &Column, texts: &[u8], ends: &[usize]) -> bool {
    let mut ints: Vec<i64> = Vec::with_capacity(col.cells.len());
    for c in &col.cells {
        match *c {
            Cell::Int(v) => ints.push(v),
            _ => return unique(texts, ends),
        }
    }
    if ints.windows(2).all(|w| w[0] < w[1]) {
        return true;
    }
    ints.par_sort_unstable();
    ints.windows(2).all(|w| w[0] != w[1])
}

/// Name the rows of `t` (`_name_rows`): subjects, eids and names; sets `row_naming`,
/// `merged` and `unique_eids`.
pub fn name_rows(t: &mut TableData, job: &TableJob, blank: bool) {
    let n = t.n;
    let mut naming = "key";
    let mut names = None;
    if !job.key.is_empty() {
        let mut nm = Names::with_capacity(n);
        let mut ok = true;
        'rows: for i in 0..n {
            nm.subjects.push(b'<');
            nm.subjects.extend_from_slice(job.iri_base.as_bytes());
            nm.eids.extend_from_slice(job.name.as_bytes());
            nm.eids.push(b'#');
            for (x, &j) in job.key.iter().enumerate() {
                let col = &t.columns[j];
                let c = col.cells[i];
                if c == Cell::Null {
                    ok = false;
                    break 'rows;
                }
                if x > 0 {
                    nm.subjects.push(KEY_SEP);
                    nm.eids.push(KEY_SEP);
                    nm.keytexts.push(KEY_SEP);
                }
                let start = nm.keytexts.len();
                col.literal(c, &mut nm.keytexts);
                let lit = &nm.keytexts[start..];
                naming::push_row_key(job.key_locals[x].as_bytes(), lit, &mut nm.subjects);
                naming::push_eid_key(job.key_names[x].as_bytes(), lit, &mut nm.eids);
            }
            nm.subjects.push(b'>');
            nm.end_row();
        }
        // one key column: subjects and eids are injective in the key's literal text
        let distinct = ok
            && if job.key.len() == 1 {
                unique_single(&t.columns[job.key[0]], &nm.keytexts, &nm.key_end)
            } else {
                unique(&nm.subjects, &nm.subj_end) && unique(&nm.eids, &nm.eid_end)
            };
        if distinct {
            names = Some(nm);
        } else {
            naming = "rowid";
        }
    } else {
        naming = if blank { "blank" } else { "rowid" };
    }
    let mut merged = 0;
    let mut unique_eids = true;
    let nm = match names {
        Some(nm) => nm,
        None if naming == "rowid" => {
            let mut nm = Names::with_capacity(n);
            let mut lit = Vec::new();
            for i in 0..n {
                lit.clear();
                match &t.handles {
                    Handles::Ints(v) => lex::int(v[i], &mut lit),
                    Handles::General(_, lits) => match &lits[i] {
                        Some(l) => lit.extend_from_slice(l),
                        // `_name_single` stops at a NULL handle (never in SQLite)
                        None => break,
                    },
                }
                nm.subjects.push(b'<');
                nm.subjects.extend_from_slice(job.iri_base.as_bytes());
                naming::push_row_key(naming::ROW_KEY.as_bytes(), &lit, &mut nm.subjects);
                nm.subjects.push(b'>');
                nm.eids.extend_from_slice(job.name.as_bytes());
                nm.eids.push(b'#');
                naming::push_eid_key(naming::ROW_KEY.as_bytes(), &lit, &mut nm.eids);
                naming::push_eid_key(naming::ROW_KEY.as_bytes(), &lit, &mut nm.keytexts);
                nm.end_row();
            }
            if let Handles::General(..) = t.handles {
                unique_eids = unique(&nm.eids, &nm.eid_end);
            }
            nm
        }
        None => {
            let mut nm = Names::with_capacity(n);
            let mut seen: FxHashSet<[u8; 12]> = FxHashSet::default();
            let mut text = Vec::new();
            for i in 0..n {
                text.clear();
                text.extend_from_slice(job.name.as_bytes());
                text.push(0x1f);
                for (j, (col, cj)) in t.columns.iter().zip(&job.columns).enumerate() {
                    if j > 0 {
                        text.push(0x1f);
                    }
                    match col.cells[i] {
                        Cell::Null => text.extend_from_slice(
                            if matches!(cj.affinity.as_str(), "INTEGER" | "REAL" | "NUMERIC") {
                                b"0"
                            } else {
                                b"NULL"
                            },
                        ),
                        c => col.literal(c, &mut text),
                    }
                }
                let digest = lex::sha1(&text);
                let mut hex = Vec::with_capacity(25);
                hex.push(b'b');
                lex::hex_upper(&digest[..12], &mut hex);
                hex.make_ascii_lowercase();
                let mut key = [0u8; 12];
                key.copy_from_slice(&digest[..12]);
                if !seen.insert(key) {
                    merged += 1;
                }
                nm.subjects.extend_from_slice(b"_:");
                nm.subjects.extend_from_slice(&hex);
                nm.eids.extend_from_slice(job.name.as_bytes());
                nm.eids.extend_from_slice(b"#_bnode=");
                nm.eids.extend_from_slice(&hex);
                nm.keytexts.extend_from_slice(b"_bnode=");
                nm.keytexts.extend_from_slice(&hex);
                nm.end_row();
            }
            unique_eids = merged == 0;
            nm
        }
    };
    // node names: the `name` column's text when not NULL, else the key text
    let (names, name_end) = match job.name_idx {
        None => (nm.keytexts, nm.key_end),
        Some(j) => {
            let col = &t.columns[j];
            let mut names = Vec::with_capacity(nm.keytexts.len());
            let mut ends = Vec::with_capacity(n);
            for i in 0..nm.key_end.len() {
                match col.cells[i] {
                    Cell::Null => names.extend_from_slice(slice(&nm.keytexts, &nm.key_end, i)),
                    c => col.literal(c, &mut names),
                }
                ends.push(names.len());
            }
            (names, ends)
        }
    };
    t.subjects = nm.subjects;
    t.subj_end = nm.subj_end;
    t.eids = nm.eids;
    t.eid_end = nm.eid_end;
    t.names = names;
    t.name_end = name_end;
    t.row_naming = naming;
    t.merged = merged;
    t.unique_eids = unique_eids;
}

/// Map join rows (handle keys) to row indexes of a table.
pub enum HandleIndex<'a> {
    Ints(&'a [i64]),
    General(FxHashMap<&'a [u8], u32>),
}

impl<'a> HandleIndex<'a> {
    pub fn new(t: &'a TableData) -> HandleIndex<'a> {
        match &t.handles {
            Handles::Ints(v) => HandleIndex::Ints(v),
            Handles::General(keys, _) => {
                // the last row wins, as in a Python dict built in row order
                HandleIndex::General(
                    keys.iter()
                        .enumerate()
                        .map(|(i, k)| (k.as_slice(), i as u32))
                        .collect(),
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_like_python() {
        let mut col = Column::default();
        let (s, l) = col.push_bytes(b"\x00'").unwrap();
        let lit = |c: Cell| {
            let mut v = Vec::new();
            col.literal(c, &mut v);
            String::from_utf8(v).unwrap()
        };
        assert_eq!(lit(Cell::Float(3.0)), "3");
        assert_eq!(lit(Cell::Float(-0.0)), "0");
        assert_eq!(lit(Cell::Float(2.5)), "2.5");
        assert_eq!(lit(Cell::Float(f64::INFINITY)), "inf");
        assert_eq!(lit(Cell::Blob(s, l)), "b\"\\x00'\"");
        assert_eq!(lit(Cell::Null), "None");
    }

    #[test]
    fn promotion_and_key_uniqueness() {
        let mut col = Column::default();
        for t in ["12", "-0", "0.5", "123456789012345678901"] {
            let (s, l) = col.push_bytes(t.as_bytes()).unwrap();
            col.cells.push(Cell::Text(s, l));
        }
        col.cells.push(Cell::Null);
        promote_column(&mut col);
        assert_eq!(col.promoted, Some(Kind::Decimal));
        assert_eq!(
            col.cells[..3],
            [Cell::Int(12), Cell::Int(0), Cell::Float(0.5)]
        );
        assert!(matches!(col.cells[3], Cell::Big(..)));
        let mut codes = Column::default();
        let (s, l) = codes.push_bytes(b"007").unwrap();
        codes.cells.push(Cell::Text(s, l));
        promote_column(&mut codes);
        assert_eq!(codes.promoted, None);

        let ints = Column {
            cells: vec![Cell::Int(3), Cell::Int(1), Cell::Int(2)],
            ..Column::default()
        };
        assert!(unique_single(&ints, b"", &[]));
        let dup = Column {
            cells: vec![Cell::Int(3), Cell::Int(1), Cell::Int(3)],
            ..Column::default()
        };
        assert!(!unique_single(&dup, b"", &[]));
        assert!(!unique(b"abab", &[2, 4]));
    }
}
