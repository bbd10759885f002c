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
    Item(u32),
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
        s: u32,
        p: u32,
        o: Obj,
    },
    /// `wd:Q p:P stmt`.
    Claim {
        s: u32,
        p: u32,
        stmt: Box<str>,
    },
    /// `stmt ps:P o`.
    StmtValue {
        stmt: Box<str>,
        p: u32,
        o: Obj,
    },
    /// `stmt psv:P node`.
    StmtNode {
        stmt: Box<str>,
        p: u32,
        node: Box<str>,
    },
    /// `stmt pq:P o`.
    Qualifier {
        stmt: Box<str>,
        p: u32,
        o: Obj,
    },
    /// `stmt pqv:P node`.
    QualifierNode {
        stmt: Box<str>,
        p: u32,
        node: Box<str>,
    },
    /// `stmt wikibase:rank wikibase:DeprecatedRank`.
    Deprecated {
        stmt: Box<str>,
    },
    QuantityAmount {
        node: Box<str>,
        lex: Box<str>,
    },
    QuantityUnit {
        node: Box<str>,
        unit: Obj,
    },
    TimeValue {
        node: Box<str>,
        lex: Box<str>,
    },
    TimePrecision {
        node: Box<str>,
        lex: Box<str>,
    },
    /// English `rdfs:label`.
    Label {
        s: u32,
        text: Box<str>,
    },
    /// English `schema:description`.
    Description {
        s: u32,
        text: Box<str>,
    },
    /// English `skos:altLabel`.
    Alias {
        s: u32,
        text: Box<str>,
    },
    /// `<https://en.wikipedia.org/wiki/...> schema:about wd:Q`.
    About {
        article: Box<str>,
        s: u32,
    },
    /// `<article> schema:isPartOf <https://en.wikipedia.org/>`.
    EnwikiPart {
        article: Box<str>,
    },
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
        }
    }

    pub fn entity_prefix(&self) -> &str {
        &self.entity
    }

    fn item(&self, iri: &str) -> Option<u32> {
        let rest = iri.strip_prefix(self.entity.as_str())?;
        parse_num(rest.strip_prefix('Q')?)
    }

    fn pid_after(&self, iri: &str, prefix: &str) -> Option<u32> {
        let rest = iri.strip_prefix(prefix)?;
        let n = parse_num(rest.strip_prefix('P')?)?;
        self.pids.contains(&n).then_some(n)
    }

    fn obj(&self, t: &TermRef<'_>) -> Obj {
        match t {
            TermRef::NamedNode(n) => {
                let s = n.as_str();
                if let Some(q) = self.item(s) {
                    Obj::Item(q)
                } else if s.contains("/.well-known/genid/") {
                    Obj::SomeValue
                } else {
                    Obj::Iri(s.into())
                }
            }
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
                let s = self.item(subj)?;
                return match &t.object {
                    TermRef::NamedNode(n) => Some(Fact::Claim {
                        s,
                        p: pid,
                        stmt: n.as_str().into(),
                    }),
                    _ => None,
                };
            }
            if let Some(pid) = self.pid_after(p, &self.direct) {
                let s = self.item(subj)?;
                return Some(Fact::Direct {
                    s,
                    p: pid,
                    o: self.obj(&t.object),
                });
            }
            if let Some(pid) = self.pid_after(p, &self.statement_value) {
                return node_of(&t.object).map(|node| Fact::StmtNode {
                    stmt: subj.into(),
                    p: pid,
                    node,
                });
            }
            if let Some(pid) = self.pid_after(p, &self.statement) {
                return Some(Fact::StmtValue {
                    stmt: subj.into(),
                    p: pid,
                    o: self.obj(&t.object),
                });
            }
            if let Some(pid) = self.pid_after(p, &self.qualifier_value) {
                return node_of(&t.object).map(|node| Fact::QualifierNode {
                    stmt: subj.into(),
                    p: pid,
                    node,
                });
            }
            if let Some(pid) = self.pid_after(p, &self.qualifier) {
                return Some(Fact::Qualifier {
                    stmt: subj.into(),
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
                        Some(Fact::Deprecated { stmt: subj.into() })
                    }
                    _ => None,
                },
                "quantityAmount" => lit(&t.object).map(|lex| Fact::QuantityAmount {
                    node: subj.into(),
                    lex,
                }),
                "quantityUnit" => Some(Fact::QuantityUnit {
                    node: subj.into(),
                    unit: self.obj(&t.object),
                }),
                "timeValue" => lit(&t.object).map(|lex| Fact::TimeValue {
                    node: subj.into(),
                    lex,
                }),
                "timePrecision" => lit(&t.object).map(|lex| Fact::TimePrecision {
                    node: subj.into(),
                    lex,
                }),
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
                let s = self.item(subj)?;
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

fn node_of(t: &TermRef<'_>) -> Option<Box<str>> {
    match t {
        TermRef::NamedNode(n) => Some(n.as_str().into()),
        TermRef::BlankNode(b) => Some(format!("_:{}", b.as_str()).into()),
        _ => None,
    }
}

/// Parse a decimal id without leading zeros (`"42"` → 42).
pub fn parse_num(s: &str) -> Option<u32> {
    if s.is_empty()
        || s.len() > 10
        || (s.len() > 1 && s.starts_with('0'))
        || !s.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    s.parse().ok()
}
