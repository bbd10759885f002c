//! Extraction of the schema-relevant facts from RDF triples (Wikidata RDF
//! vocabulary, SPEC.md §6). Every triple is looked at once; only the ones the
//! schema can use are kept, as compact [`Fact`]s. Unknown predicates are ignored.

use oxrdf::{NamedOrBlankNodeRef, TermRef, TripleRef};
use rustc_hash::FxHashSet;

const RDFS_LABEL: &str = "http://www.w3.org/2000/01/rdf-schema#label";
const SKOS_ALT: &str = "http://www.w3.org/2004/02/skos/core#altLabel";
const SCHEMA_DESC: &str = "http://schema.org/description";
const SCHEMA_ABOUT: &str = "http://schema.org/about";
const SCHEMA_PART_OF: &str = "http://schema.org/isPartOf";
const WB: &str = "http://wikiba.se/ontology#";
const ENWIKI: &str = "https://en.wikipedia.org/";
const ENWIKI_ARTICLE: &str = "https://en.wikipedia.org/wiki/";

/// An object value as the converter needs it.
#[derive(Debug, Clone, PartialEq)]
pub enum Obj {
    /// An item `wd:Q<n>`.
    Item(ItemId),
    /// Any other IRI (external URL, commons file, non-item entity).
    Iri(Box<str>),
    /// A literal's lexical form.
    Lit(Box<str>),
    /// A blank node or `.well-known/genid` IRI: Wikidata's "some value".
    SomeValue,
}

/// One schema-relevant fact.
#[derive(Debug, Clone)]
pub enum Fact {
    /// `wd:Q wdt:P o` (truthy, best rank).
    Direct {
        s: ItemId,
        p: u32,
        o: Obj,
    },
    /// `wd:Q p:P stmt` (the statement IRI is kept to order relations as the original).
    Claim {
        s: ItemId,
        p: u32,
        stmt: Key,
        iri: Box<str>,
    },
    /// `stmt ps:P o`.
    StmtValue {
        stmt: Key,
        p: u32,
        o: Obj,
    },
    /// `stmt psv:P node`.
    StmtNode {
        stmt: Key,
        p: u32,
        node: Key,
    },
    /// `stmt pq:P o`.
    Qualifier {
        stmt: Key,
        p: u32,
        o: Obj,
    },
    /// `stmt pqv:P node`.
    QualifierNode {
        stmt: Key,
        p: u32,
        node: Key,
    },
    /// `stmt wikibase:rank wikibase:DeprecatedRank`.
    Deprecated {
        stmt: Key,
    },
    QuantityAmount {
        node: Key,
        lex: Box<str>,
    },
    QuantityUnit {
        node: Key,
        unit: Obj,
    },
    TimeValue {
        node: Key,
        lex: Box<str>,
    },
    TimePrecision {
        node: Key,
        precision: i64,
    },
    /// English `rdfs:label`.
    Label {
        s: ItemId,
        text: Box<str>,
    },
    /// English `schema:description`.
    Description {
        s: ItemId,
        text: Box<str>,
    },
    /// English `skos:altLabel`.
    Alias {
        s: ItemId,
        text: Box<str>,
    },
    /// `<https://en.wikipedia.org/wiki/...> schema:about wd:Q`.
    About {
        article: Box<str>,
        s: ItemId,
    },
    /// `<article> schema:isPartOf <https://en.wikipedia.org/>`.
    EnwikiPart {
        article: Box<str>,
    },
    /// A triple the schema would use (`wdt:`, `p:` of a schema property,
    /// English label / description / alias) whose subject is an entity but
    /// not an item: counted for the report, never converted. `entity` is the
    /// [`Key`] of the entity's IRI without a `-…` sub-entity suffix (a
    /// lexeme's forms and senses count as the lexeme).
    NonItem {
        kind: NonItemKind,
        entity: Key,
    },
}

/// Kinds of non-item subjects ([`Fact::NonItem`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NonItemKind {
    /// `L<n>` (and its forms `L<n>-F<m>` and senses `L<n>-S<m>`).
    Lexeme = 0,
    /// `P<n>`.
    Property = 1,
    /// Anything else in the entity namespace (`M<n>`, `E<n>`, a `Q` id with a
    /// leading zero or beyond 2⁶⁴ − 1, ...).
    Other = 2,
}

impl NonItemKind {
    /// All kinds, in report order.
    pub const ALL: [NonItemKind; 3] = [Self::Lexeme, Self::Property, Self::Other];

    /// The report key (`lexeme`, `property`, `other`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Lexeme => "lexeme",
            Self::Property => "property",
            Self::Other => "other",
        }
    }
}

/// IRI namespaces of the Wikibase instance and the predicates the schema uses.
#[derive(Debug, Clone)]
pub struct Vocab {
    entity: String,
    direct: String,
    claim: String,
    statement: String,
    statement_value: String,
    qualifier: String,
    qualifier_value: String,
    /// Property ids (numbers) that may matter; others are skipped early.
    pids: FxHashSet<u32>,
    /// Property ids whose statement IRIs are kept ([`Fact::Claim`]'s `iri`;
    /// empty for the others). `None`: all.
    iri_pids: Option<FxHashSet<u32>>,
}

impl Vocab {
    /// `entity` is the entity namespace (`http://www.wikidata.org/entity/`), `prop`
    /// the property namespace root (`http://www.wikidata.org/prop/`).
    pub fn new(entity: &str, prop: &str, pids: FxHashSet<u32>) -> Self {
        Self {
            entity: entity.to_string(),
            direct: format!("{prop}direct/"),
            claim: prop.to_string(),
            statement: format!("{prop}statement/"),
            statement_value: format!("{prop}statement/value/"),
            qualifier: format!("{prop}qualifier/"),
            qualifier_value: format!("{prop}qualifier/value/"),
            pids,
            iri_pids: None,
        }
    }

    /// Keep the statement IRI of [`Fact::Claim`]s only for these properties
    /// (the relation sources, whose relations are ordered by statement IRI);
    /// the others get an empty `iri` (no allocation).
    pub fn with_statement_iris(mut self, pids: FxHashSet<u32>) -> Self {
        self.iri_pids = Some(pids);
        self
    }

    pub fn entity_prefix(&self) -> &str {
        &self.entity
    }

    /// Whether facts of property `pid` may matter to the schema.
    pub fn wants(&self, pid: u32) -> bool {
        self.pids.contains(&pid)
    }

    /// Whether [`Fact::Claim`]s of `pid` keep their statement IRI.
    pub fn keeps_statement_iri(&self, pid: u32) -> bool {
        self.iri_pids
            .as_ref()
            .is_none_or(|keep| keep.contains(&pid))
    }

    /// The [`Obj`] of an IRI object, as [`Vocab::extract`] classifies it.
    pub fn iri_obj(&self, s: &str) -> Obj {
        if let Some(q) = self.item(s) {
            Obj::Item(q)
        } else if s.contains("/.well-known/genid/") {
            Obj::SomeValue
        } else {
            Obj::Iri(s.into())
        }
    }

    fn item(&self, iri: &str) -> Option<ItemId> {
        let rest = iri.strip_prefix(self.entity.as_str())?;
        parse_item_num(rest.strip_prefix('Q')?)
    }

    /// The item a subject IRI names; `Err(Some(NonItem))` for another entity
    /// of the namespace, `Err(None)` for IRIs outside it.
    pub(super) fn subject(&self, iri: &str) -> Result<ItemId, Option<Fact>> {
        let Some(rest) = iri.strip_prefix(self.entity.as_str()) else {
            return Err(None);
        };
        if let Some(q) = rest.strip_prefix('Q').and_then(parse_item_num) {
            return Ok(q);
        }
        let main = rest.split('-').next().unwrap_or(rest);
        let numbered = |c: char| {
            main.strip_prefix(c)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        };
        let kind = if numbered('L') {
            NonItemKind::Lexeme
        } else if numbered('P') {
            NonItemKind::Property
        } else {
            NonItemKind::Other
        };
        Err(Some(Fact::NonItem {
            kind,
            entity: key(&iri[..iri.len() - rest.len() + main.len()]),
        }))
    }

    fn pid_after(&self, iri: &str, prefix: &str) -> Option<u32> {
        let rest = iri.strip_prefix(prefix)?;
        let n = parse_num(rest.strip_prefix('P')?)?;
        self.pids.contains(&n).then_some(n)
    }

    fn obj(&self, t: &TermRef<'_>) -> Obj {
        match t {
            TermRef::NamedNode(n) => self.iri_obj(n.as_str()),
            TermRef::BlankNode(_) => Obj::SomeValue,
            TermRef::Literal(l) => Obj::Lit(l.value().into()),
            #[allow(unreachable_patterns)]
            _ => Obj::SomeValue,
        }
    }

    /// The fact carried by `t`, if the schema can use it.
    pub fn extract(&self, t: TripleRef<'_>) -> Option<Fact> {
        let p = t.predicate.as_str();
        let subj = match t.subject {
            NamedOrBlankNodeRef::NamedNode(n) => n.as_str(),
            NamedOrBlankNodeRef::BlankNode(_) => return None,
        };
        // Most frequent namespaces first.
        if let Some(rest) = p.strip_prefix(self.claim.as_str()) {
            if let Some(num) = rest.strip_prefix('P') {
                let pid = parse_num(num)?;
                if !self.pids.contains(&pid) {
                    return None;
                }
                let s = match self.subject(subj) {
                    Ok(s) => s,
                    Err(f) => return f,
                };
                return match &t.object {
                    TermRef::NamedNode(n) => Some(Fact::Claim {
                        s,
                        p: pid,
                        stmt: key(n.as_str()),
                        iri: match &self.iri_pids {
                            Some(keep) if !keep.contains(&pid) => Box::from(""),
                            _ => n.as_str().into(),
                        },
                    }),
                    _ => None,
                };
            }
            if let Some(pid) = self.pid_after(p, &self.direct) {
                let s = match self.subject(subj) {
                    Ok(s) => s,
                    Err(f) => return f,
                };
                return Some(Fact::Direct {
                    s,
                    p: pid,
                    o: self.obj(&t.object),
                });
            }
            if let Some(pid) = self.pid_after(p, &self.statement_value) {
                return node_of(&t.object).map(|node| Fact::StmtNode {
                    stmt: key(subj),
                    p: pid,
                    node,
                });
            }
            if let Some(pid) = self.pid_after(p, &self.statement) {
                return Some(Fact::StmtValue {
                    stmt: key(subj),
                    p: pid,
                    o: self.obj(&t.object),
                });
            }
            if let Some(pid) = self.pid_after(p, &self.qualifier_value) {
                return node_of(&t.object).map(|node| Fact::QualifierNode {
                    stmt: key(subj),
                    p: pid,
                    node,
                });
            }
            if let Some(pid) = self.pid_after(p, &self.qualifier) {
                return Some(Fact::Qualifier {
                    stmt: key(subj),
                    p: pid,
                    o: self.obj(&t.object),
                });
            }
            return None;
        }
        if let Some(local) = p.strip_prefix(WB) {
            return match local {
                "rank" => match &t.object {
                    TermRef::NamedNode(n)
                        if n.as_str() == "http://wikiba.se/ontology#DeprecatedRank" =>
                    {
                        Some(Fact::Deprecated { stmt: key(subj) })
                    }
                    _ => None,
                },
                "quantityAmount" => lit(&t.object).map(|lex| Fact::QuantityAmount {
                    node: key(subj),
                    lex,
                }),
                "quantityUnit" => Some(Fact::QuantityUnit {
                    node: key(subj),
                    unit: self.obj(&t.object),
                }),
                "timeValue" => lit(&t.object).map(|lex| Fact::TimeValue {
                    node: key(subj),
                    lex,
                }),
                "timePrecision" => match &t.object {
                    TermRef::Literal(l) => {
                        l.value()
                            .trim()
                            .parse()
                            .ok()
                            .map(|precision| Fact::TimePrecision {
                                node: key(subj),
                                precision,
                            })
                    }
                    _ => None,
                },
                _ => None,
            };
        }
        match p {
            RDFS_LABEL | SKOS_ALT | SCHEMA_DESC => {
                let TermRef::Literal(l) = &t.object else {
                    return None;
                };
                if l.language() != Some("en") {
                    return None;
                }
                let s = match self.subject(subj) {
                    Ok(s) => s,
                    Err(f) => return f,
                };
                let text: Box<str> = l.value().into();
                Some(match p {
                    RDFS_LABEL => Fact::Label { s, text },
                    SKOS_ALT => Fact::Alias { s, text },
                    _ => Fact::Description { s, text },
                })
            }
            SCHEMA_ABOUT if subj.starts_with(ENWIKI_ARTICLE) => match &t.object {
                TermRef::NamedNode(n) => self.item(n.as_str()).map(|s| Fact::About {
                    article: subj.into(),
                    s,
                }),
                _ => None,
            },
            SCHEMA_PART_OF => match &t.object {
                TermRef::NamedNode(n) if n.as_str() == ENWIKI => Some(Fact::EnwikiPart {
                    article: subj.into(),
                }),
                _ => None,
            },
            _ => None,
        }
    }
}

fn lit(t: &TermRef<'_>) -> Option<Box<str>> {
    match t {
        TermRef::Literal(l) => Some(l.value().into()),
        _ => None,
    }
}

fn node_of(t: &TermRef<'_>) -> Option<Key> {
    match t {
        TermRef::NamedNode(n) => Some(key(n.as_str())),
        TermRef::BlankNode(b) => Some(key_parts(b"_:", b.as_str().as_bytes())),
        _ => None,
    }
}

/// A statement or value node, identified by a 128-bit hash of its IRI (blank
/// nodes as `_:label`): FxHash and a multiply-rotate hash over 8-byte words with
/// other constants, 64 bits each. Two different IRIs get the same key with
/// probability about n²/2¹²⁹ for n nodes. Keys are only compared, never ordered
/// or iterated, so the output does not depend on the hash functions.
pub type Key = u128;

/// The [`Key`] of an IRI.
pub fn key(iri: &str) -> Key {
    key_parts(b"", iri.as_bytes())
}

fn key_parts(a: &[u8], b: &[u8]) -> Key {
    use std::hash::Hasher;
    let mut fx = rustc_hash::FxHasher::default();
    fx.write(a);
    fx.write(b);
    fx.write_usize(a.len() + b.len());
    const M: u64 = 0x2127_599b_f432_5c37;
    let mut h: u64 = 0x9e37_79b9_7f4a_7c15 ^ (a.len() + b.len()) as u64;
    for part in [a, b] {
        let mut words = part.chunks_exact(8);
        for w in &mut words {
            let mut x = [0u8; 8];
            x.copy_from_slice(w);
            h = (h ^ u64::from_le_bytes(x)).wrapping_mul(M).rotate_left(29);
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut x = [0u8; 8];
            x[..rest.len()].copy_from_slice(rest);
            h = (h ^ u64::from_le_bytes(x) ^ ((rest.len() as u64) << 59))
                .wrapping_mul(M)
                .rotate_left(29);
        }
    }
    h ^= h >> 32;
    h = h.wrapping_mul(M);
    h ^= h >> 29;
    ((fx.finish() as u128) << 64) | h as u128
}

/// The number of an item (`wd:Q<n>` → n). 64 bits: Wikidata's QIDs are
/// unbounded in principle (they passed 2²⁷ in 2024) and other Wikibase
/// instances use the same vocabulary, so `Q4294967297` and `Q9703000031` are
/// items like any other. Every reader (N-Triples, Turtle, JSON) produces this
/// type; property numbers stay `u32` (a schema names them).
pub type ItemId = u64;

/// Parse a decimal property id without leading zeros (`"42"` → 42), up to
/// 2³² − 1.
pub fn parse_num(s: &str) -> Option<u32> {
    u32::try_from(parse_item_num(s)?).ok()
}

/// Parse a decimal item id without leading zeros (`"42"` → 42), up to 2⁶⁴ − 1.
pub fn parse_item_num(s: &str) -> Option<ItemId> {
    if s.is_empty()
        || s.len() > 20
        || (s.len() > 1 && s.starts_with('0'))
        || !s.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    s.parse().ok()
}
