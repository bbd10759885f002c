//! A minimal read-only access to SQLite through `rusqlite` (SQLite compiled in, the
//! `bundled` feature: the same engine on every platform the wheels target, so joins and
//! comparisons behave as in Python's `sqlite3`): open a file read-only, run one `SELECT`,
//! read its rows as [`Value`]s.
//!
//! Each [`Connection`] is used by one thread at a time; the converter opens one per table or
//! join.

use rusqlite::types::ValueRef;
use rusqlite::OpenFlags;

/// One cell as SQLite returns it (its storage class). Text is UTF-8 as stored (possibly
/// invalid; the caller decodes it as Python's `errors="replace"` does).
pub enum Value<'a> {
    Null,
    Int(i64),
    Float(f64),
    Text(&'a [u8]),
    Blob(&'a [u8]),
}

/// How many rows [`Connection::query`] reads between two polls of [`crate::cancel`].
const POLL_ROWS: usize = 4096;

/// A read-only connection.
pub struct Connection {
    db: rusqlite::Connection,
}

impl Connection {
    /// Open `path` read-only.
    ///
    /// Errors: SQLite's message when the file cannot be opened.
    pub fn open(path: &str) -> Result<Connection, String> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let db = rusqlite::Connection::open_with_flags(path, flags).map_err(|e| e.to_string())?;
        Ok(Connection { db })
    }

    /// Run `sql` and call `row` with the values of each result row, in order.
    ///
    /// Errors: SQLite's message (bad SQL, a corrupt file...), the first error of `row`, or
    /// `"interrupted"` once [`crate::cancel::request`] was called (polled every
    /// [`POLL_ROWS`] rows; the caller tells it apart with [`crate::cancel::requested`]).
    pub fn query<F>(&self, sql: &str, mut row: F) -> Result<(), String>
    where
        F: FnMut(&[Value<'_>]) -> Result<(), String>,
    {
        let mut stmt = self.db.prepare(sql).map_err(|e| e.to_string())?;
        let n = stmt.column_count();
        let mut rows = stmt.query([]).map_err(|e| e.to_string())?;
        let mut seen = 0usize;
        while let Some(r) = rows.next().map_err(|e| e.to_string())? {
            seen += 1;
            if seen.is_multiple_of(POLL_ROWS) && crate::cancel::requested() {
                return Err(crate::cancel::Cancelled.to_string());
            }
            let mut values: Vec<Value<'_>> = Vec::with_capacity(n);
            for i in 0..n {
                values.push(match r.get_ref(i).map_err(|e| e.to_string())? {
                    ValueRef::Null => Value::Null,
                    ValueRef::Integer(x) => Value::Int(x),
                    ValueRef::Real(x) => Value::Float(x),
                    ValueRef::Text(t) => Value::Text(t),
                    ValueRef::Blob(b) => Value::Blob(b),
                });
            }
            row(&values)?;
        }
        Ok(())
    }
}
