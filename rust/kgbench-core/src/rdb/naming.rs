//! The IRI naming of kgbench's relational views (spec `spider4sparql.md` §3): the one
//! implementation of the rule. The row naming of [`super::table`] writes row IRIs and eids
//! with it, and `kgbench.rdb.naming.Naming` calls it through the binding
//! (`kgbench._core.rdb`) for the converter's plan, the ontology and the SQL translators.
//!
//! Two styles of the W3C Direct Mapping under a base IRI:
//! - [`Style::S4s`], Spider4SPARQL's (Ontop's bootstrapper): table and column names
//!   lower-cased (Unicode lower case, as Python's `str.lower`), then percent-encoded;
//! - [`Style::W3c`]: the names as declared, percent-encoded.
//!
//! Shapes: class `<base>t`; literal property `<base>t#c`; foreign-key property
//! `<base>t#ref-c1;c2` (the child's columns); row `<base>t/k1=v1;k2=v2` (key columns in key
//! order, each value's [`literal_text`] percent-encoded; a key-less row `<base>t/_row=<rowid>`);
//! property-graph eid `t#k1=v1;k2=v2` (names as declared, values unencoded). Percent-encoding
//! ([`encode`]) keeps `[A-Za-z0-9_.~-]` (RFC 3987 iunreserved ASCII) and writes every other
//! UTF-8 byte as upper-case `%XX` (Python's `urllib.parse.quote(text, safe="-._~")`).

use super::lex;

/// Spider4SPARQL's base IRI (the default of both styles).
pub const S4S_BASE: &str = "http://valuenet/ontop/";

/// The column name of a key-less row's row number (bag semantics).
pub const ROW_KEY: &str = "_row";

/// How table and column names are spelled in IRIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Lower-cased, then percent-encoded.
    S4s,
    /// As declared, percent-encoded.
    W3c,
}

impl Style {
    /// `s4s` or `w3c`; None for anything else.
    pub fn parse(name: &str) -> Option<Style> {
        match name {
            "s4s" => Some(Style::S4s),
            "w3c" => Some(Style::W3c),
            _ => None,
        }
    }
}

/// A key value as the row naming sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KeyValue<'a> {
    /// SQL NULL (written `None`, as Python's `str(None)`).
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A text value, or the decimal digits of an integer beyond `i64`.
    Text(&'a [u8]),
    Bytes(&'a [u8]),
}

/// The lexical text of a key value in row IRIs and eids: integers in decimal, integral
/// floats without `.0` (exact digits; `-0.0` is `0`), other floats by Python's `repr`, booleans
/// `true`/`false`, texts as they are, bytes by Python's `repr` (`b'..'`).
pub fn literal_text(v: KeyValue<'_>, out: &mut Vec<u8>) {
    match v {
        KeyValue::Null => out.extend_from_slice(b"None"),
        KeyValue::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        KeyValue::Int(i) => lex::int(i, out),
        KeyValue::Float(f) if f.is_finite() && f.fract() == 0.0 => lex::integral_float(f, out),
        KeyValue::Float(f) => lex::py_float_repr(f, out),
        KeyValue::Text(t) => out.extend_from_slice(t),
        KeyValue::Bytes(b) => lex::bytes_repr(b, out),
    }
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";

/// Percent-encoding of an IRI component (module docs).
pub fn encode(text: &[u8], out: &mut Vec<u8>) {
    for &c in text {
        if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
            out.push(c);
        } else {
            out.push(b'%');
            out.push(HEX_UPPER[(c >> 4) as usize]);
            out.push(HEX_UPPER[(c & 15) as usize]);
        }
    }
}

/// One `k=v` part of a row IRI: the encoded key column `key_local`, `=`, the key value's
/// literal text `literal` percent-encoded. Parts are joined by [`KEY_SEP`].
#[inline]
pub fn push_row_key(key_local: &[u8], literal: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(key_local);
    out.push(b'=');
    encode(literal, out);
}

/// One `k=v` part of an eid: the key column as declared, `=`, the literal text unencoded.
#[inline]
pub fn push_eid_key(key_name: &[u8], literal: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(key_name);
    out.push(b'=');
    out.extend_from_slice(literal);
}

/// The separator of the key parts in row IRIs and eids, and of the columns of a
/// foreign-key property.
pub const KEY_SEP: u8 = b';';

/// One naming scheme: a [`Style`] under a base IRI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Naming {
    pub style: Style,
    pub base: String,
}

impl Naming {
    /// `style` under `base`.
    pub fn new(style: Style, base: &str) -> Naming {
        Naming {
            style,
            base: base.to_string(),
        }
    }

    /// A table or column name as spelled in IRIs (lower-cased for `s4s`, encoded).
    pub fn name(&self, name: &str, out: &mut Vec<u8>) {
        match self.style {
            Style::S4s => encode(name.to_lowercase().as_bytes(), out),
            Style::W3c => encode(name.as_bytes(), out),
        }
    }

    fn text(&self, f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        f(&mut out);
        // only ASCII is written: names and values are percent-encoded, the base is a str
        String::from_utf8(out).unwrap_or_default()
    }

    /// The local name of a table's class (`singer`).
    pub fn table_local(&self, table: &str) -> String {
        self.text(|o| self.name(table, o))
    }

    /// `<base>t`.
    pub fn class_iri(&self, table: &str) -> String {
        self.base.clone() + &self.table_local(table)
    }

    /// `t#c` (the unescaped local name of a literal property).
    pub fn column_local(&self, table: &str, column: &str) -> String {
        self.text(|o| {
            self.name(table, o);
            o.push(b'#');
            self.name(column, o);
        })
    }

    /// `<base>t#c`.
    pub fn column_iri(&self, table: &str, column: &str) -> String {
        self.base.clone() + &self.column_local(table, column)
    }

    /// `t#ref-c1;c2` (a foreign key's property from the child's columns).
    pub fn ref_local<S: AsRef<str>>(&self, table: &str, columns: &[S]) -> String {
        self.text(|o| {
            self.name(table, o);
            o.extend_from_slice(b"#ref-");
            for (i, c) in columns.iter().enumerate() {
                if i > 0 {
                    o.push(KEY_SEP);
                }
                self.name(c.as_ref(), o);
            }
        })
    }

    /// `<base>t#ref-c1;c2`.
    pub fn ref_iri<S: AsRef<str>>(&self, table: &str, columns: &[S]) -> String {
        self.base.clone() + &self.ref_local(table, columns)
    }

    /// `<base>t/` (the prefix every row IRI of `table` shares).
    pub fn row_prefix(&self, table: &str) -> String {
        self.base.clone() + &self.table_local(table) + "/"
    }

    /// `<base>t/k1=v1;k2=v2` for (key column, value) pairs in key order.
    pub fn row_iri(&self, table: &str, key: &[(&str, KeyValue<'_>)]) -> String {
        let mut out = self.row_prefix(table).into_bytes();
        let (mut local, mut lit) = (Vec::new(), Vec::new());
        for (i, (column, value)) in key.iter().enumerate() {
            if i > 0 {
                out.push(KEY_SEP);
            }
            local.clear();
            lit.clear();
            self.name(column, &mut local);
            literal_text(*value, &mut lit);
            push_row_key(&local, &lit, &mut out);
        }
        String::from_utf8(out).unwrap_or_default()
    }
}

/// The property-graph eid of a row: `t#k1=v1;k2=v2` (names as declared, values' literal text).
pub fn eid(table: &str, key: &[(&str, KeyValue<'_>)]) -> Vec<u8> {
    let mut out = table.as_bytes().to_vec();
    out.push(b'#');
    let mut lit = Vec::new();
    for (i, (column, value)) in key.iter().enumerate() {
        if i > 0 {
            out.push(KEY_SEP);
        }
        lit.clear();
        literal_text(*value, &mut lit);
        push_eid_key(column.as_bytes(), &lit, &mut out);
    }
    out
}

/// A local name as a SPARQL prefixed name under `PREFIX :` (`:singer\#age`): the characters
/// `#;=&/?!$'()*+,` escaped with `\` as SPARQL 1.1's PN_LOCAL_ESC allows (§19.8).
pub fn sparql_term(local: &str) -> String {
    let mut out = String::with_capacity(local.len() + 4);
    out.push(':');
    for ch in local.chars() {
        if "#;=&/?!$'()*+,".contains(ch) {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(s: &str) -> String {
        let mut v = Vec::new();
        encode(s.as_bytes(), &mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn encode_matches_urllib_quote() {
        assert_eq!(enc("a b/é-_.~"), "a%20b%2F%C3%A9-_.~");
        assert_eq!(enc("x#y;z=%"), "x%23y%3Bz%3D%25");
    }

    #[test]
    fn shapes_of_both_styles() {
        let s4s = Naming::new(Style::S4s, S4S_BASE);
        assert_eq!(s4s.class_iri("Singer"), "http://valuenet/ontop/singer");
        assert_eq!(
            s4s.column_local("Singer", "Song Name"),
            "singer#song%20name"
        );
        assert_eq!(
            s4s.ref_local("concert", &["Stadium_ID", "B"]),
            "concert#ref-stadium_id;b"
        );
        assert_eq!(
            s4s.row_iri(
                "Visit",
                &[("Id", KeyValue::Int(-3)), ("At", KeyValue::Float(2.0))]
            ),
            "http://valuenet/ontop/visit/id=-3;at=2"
        );
        assert_eq!(
            s4s.row_iri(
                "t",
                &[("k", KeyValue::Text(b"a b")), ("f", KeyValue::Float(0.5))]
            ),
            "http://valuenet/ontop/t/k=a%20b;f=0.5"
        );
        assert_eq!(
            s4s.row_prefix("ΣΟΦΟΣ"),
            s4s.base.clone() + &enc("σοφος") + "/"
        );
        let w3c = Naming::new(Style::W3c, "http://x/");
        assert_eq!(w3c.column_iri("Singer", "Age"), "http://x/Singer#Age");
        assert_eq!(
            w3c.row_iri(
                "T",
                &[
                    ("B", KeyValue::Bool(true)),
                    ("X", KeyValue::Bytes(b"\x00'"))
                ]
            ),
            "http://x/T/B=true;X=b%22%5Cx00%27%22"
        );
        assert_eq!(
            eid("Visit", &[("Id", KeyValue::Int(1)), ("N", KeyValue::Null)]),
            b"Visit#Id=1;N=None"
        );
        assert_eq!(sparql_term("singer#a;b=c"), ":singer\\#a\\;b\\=c");
        assert_eq!(Style::parse("S4S"), None);
    }
}
