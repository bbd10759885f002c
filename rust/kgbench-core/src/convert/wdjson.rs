//! Reading Wikidata's JSON entity format (the `latest-all.json` dump,
//! `Special:EntityData/Q42.json`, `wbgetentities` output, plain JSON lines) into
//! the same [`Fact`]s the RDF reader ([`super::facts::Vocab::extract`]) yields,
//! so that one resolver serves both inputs.
//!
//! # Mapping (Wikibase's RDF mapping, `repo/includes/Rdf` of the Wikibase
//! extension, <https://www.mediawiki.org/wiki/Wikibase/Indexing/RDF_Dump_Format>)
//!
//! Each item (`"id": "Q…"`; properties, lexemes and other entity types give no
//! facts, as their RDF gives none the converter uses) yields:
//!
//! | JSON | RDF triple it stands for | fact |
//! |---|---|---|
//! | a statement of a schema property | `wd:Q p:P wds:GUID` (`[^A-Za-z0-9_-]` of the GUID → `-`) | [`Fact::Claim`] |
//! | its `mainsnak`, `snaktype` `value` | `wds:GUID ps:P value` | [`Fact::StmtValue`] |
//! | `snaktype` `somevalue` | `ps:P` to a blank node | [`Fact::StmtValue`] with [`Obj::SomeValue`] |
//! | `snaktype` `novalue` | `a wdno:P` (not used) | none |
//! | `rank` `deprecated` | `wikibase:rank wikibase:DeprecatedRank` | [`Fact::Deprecated`] |
//! | best rank: `preferred` if the property has any, else `normal` (`wikibase:BestRank`) | `wd:Q wdt:P value` | [`Fact::Direct`] |
//! | `qualifiers` in `qualifiers-order` | `pq:P` / `pqv:P` | [`Fact::Qualifier`] / [`Fact::QualifierNode`] |
//! | `time`, `quantity` values | `psv:` / `pqv:` value node | [`Fact::StmtNode`], [`Fact::TimeValue`], [`Fact::TimePrecision`], [`Fact::QuantityAmount`], [`Fact::QuantityUnit`] |
//! | `labels.en`, `descriptions.en`, `aliases.en[]` | `rdfs:label`, `schema:description`, `skos:altLabel` `@en` | [`Fact::Label`], [`Fact::Description`], [`Fact::Alias`] |
//! | `sitelinks.enwiki.title` | `<https://en.wikipedia.org/wiki/T> schema:about wd:Q; schema:isPartOf <https://en.wikipedia.org/>` (`T`: the title with `_` for spaces, MediaWiki's `wfUrlencode`) | [`Fact::About`], [`Fact::EnwikiPart`] |
//!
//! Datavalue types, as Wikibase's value RDF builders write them:
//!
//! - `wikibase-entityid`: the entity IRI (`{entity_prefix}Q42`; an item becomes [`Obj::Item`]);
//! - `string`: by the snak's `datatype`: `url` → the trimmed IRI (purtle's IRI
//!   escaping of `` <>"\ `^|{}`` and space); `commonsMedia` →
//!   `http://commons.wikimedia.org/wiki/Special:FilePath/` + `rawurlencode(name)`;
//!   `geo-shape`, `tabular-data` → `http://commons.wikimedia.org/data/main/` +
//!   `wfUrlencode(name)`; any other datatype → the string literal;
//! - `monolingualtext`: the text (its language tag is not used);
//! - `time`: the `xsd:dateTime` lexical form of Wikibase's `JulianDateTimeValueCleaner`
//!   (sign `+` dropped, month/day `00` → `01` and days clamped to the month,
//!   negative years with year or finer precision moved by one to XSD 1.1's year
//!   numbering, Julian dates of day precision converted to the Gregorian calendar
//!   with PHP's `juliantojd`/`jdtogregorian` algorithm), or the JSON `time` text
//!   when the cleaner gives up (year 0, other calendars at day precision); its
//!   value node carries that text and the `precision`;
//! - `quantity`: the `amount` text (`xsd:decimal`, leading `+` kept); the value
//!   node's unit is the `unit` IRI, `"1"` meaning `http://www.wikidata.org/entity/Q199`;
//!   `upperBound`/`lowerBound` are accepted and not used (nor are they in RDF);
//! - `globecoordinate`: `Point(lon lat)` with PHP's float-to-string (14 significant
//!   digits), prefixed by `<globe> ` when the globe is not Earth (`wd:Q2`).
//!
//! Any other datavalue type is counted by type ([`EntityCounts::unknown_types`],
//! the report's `unknown_datavalue_types`) and gives no value fact, as Wikibase
//! writes no RDF value for it.
//!
//! # Where the JSON and RDF dumps differ, and which one the conversion follows
//!
//! The conversion follows the **RDF** dump (the data the original CypherBench
//! engine queried through SPARQL): every value is turned into the lexical form
//! the RDF dump carries, so that the graph is byte-identical whichever dump was
//! read. What only one of the two has:
//!
//! - RDF only: normalised quantities (`psn:`/`wdtn:` and `wikibase:quantityNormalized`
//!   value nodes in SI units), normalised external ids, `wdno:` classes, `schema:`
//!   article metadata, `owl:sameAs` for redirects. The converter uses none of them.
//! - RDF rewrites values: Julian day-precision dates become Gregorian, negative
//!   years move by one (XSD 1.1), zero months/days become `01`; the JSON keeps the
//!   value as entered with its `calendarmodel`. Followed: RDF's form.
//! - JSON only: `references`, `hash`es of snaks, `lastrevid`, `modified`, badges
//!   per sitelink, and the property datatype on each snak. Not needed.
//! - The report's `facts_kept` and `triples_read` differ between the two reads of
//!   the same entities: RDF carries triples (and value nodes of every property) the
//!   JSON reader never has to create; `entities_read` counts JSON entities.
//!
//! # Layouts
//!
//! [`read`] takes, detected from the content: the dump layout (`[`, one entity per
//! line ending with `,`, `]`), plain JSON lines (one entity or `{"entities": …}`
//! object per line), and a single JSON document spanning lines (an entity, an
//! `{"entities": {…}}` object, or an array of entities). Line layouts are parsed
//! in parallel blocks, like N-Triples.

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead};

use super::facts::{self, key, Fact, Key, Obj, Vocab};
use super::input::{EntityCounts, JsonExtract};
use super::ConvertError;

/// Unitless quantities: Wikibase's `RdfVocabulary::ONE_ENTITY`.
const ONE_ENTITY: &str = "http://www.wikidata.org/entity/Q199";
const GREGORIAN: &str = "http://www.wikidata.org/entity/Q1985727";
const JULIAN: &str = "http://www.wikidata.org/entity/Q1985786";
const EARTH: &str = "http://www.wikidata.org/entity/Q2";
const MEDIA_URI: &str = "http://commons.wikimedia.org/wiki/Special:FilePath/";
const COMMONS_DATA_URI: &str = "http://commons.wikimedia.org/data/main/";
const ENWIKI: &str = "https://en.wikipedia.org/wiki/";

// ---------------------------------------------------------------------------
// Serde shapes (borrowed; unknown fields are skipped).

/// A JSON object kept as (key, raw value) pairs in document order; PHP's empty
/// array `[]` (how Wikibase writes an empty map) is accepted as an empty map.
#[derive(Default)]
struct RawMap<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for RawMap<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = RawMap<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object (or an empty array)")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
                let mut out = Vec::new();
                while let Some(k) = m.next_key::<Str<'a>>()? {
                    let v: &'a RawValue = m.next_value()?;
                    out.push((k.0, v));
                }
                Ok(RawMap(out))
            }
            fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Self::Value, S::Error> {
                if s.next_element::<IgnoredAny>()?.is_some() {
                    return Err(de::Error::custom(
                        "expected an object, found a non-empty array",
                    ));
                }
                Ok(RawMap(Vec::new()))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'a> RawMap<'a> {
    fn get(&self, k: &str) -> Option<&'a RawValue> {
        self.0.iter().find(|(x, _)| x == k).map(|(_, v)| *v)
    }
}

/// A string borrowed from the input when it has no escapes (serde's own
/// `Cow<str>` always allocates).
struct Str<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

impl std::ops::Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<Str<'_>> for Box<str> {
    fn from(s: Str<'_>) -> Box<str> {
        match s.0 {
            Cow::Borrowed(b) => b.into(),
            Cow::Owned(o) => o.into_boxed_str(),
        }
    }
}

/// The parts of an entity the converter reads; `claims` holds only the
/// statements of the properties the [`Vocab`] wants (the others are skipped
/// while parsing, [`EntitySeed`]).
#[derive(Default)]
struct Entity<'a> {
    id: Option<Str<'a>>,
    /// `labels.en`, `descriptions.en`, `aliases.en`, `sitelinks.enwiki` (raw).
    labels: Option<&'a RawValue>,
    descriptions: Option<&'a RawValue>,
    aliases: Option<&'a RawValue>,
    claims: Option<Vec<(u32, Vec<Statement<'a>>)>>,
    sitelinks: Option<&'a RawValue>,
    /// `{"entities": {"Q42": {…}}}` (Special:EntityData, wbgetentities).
    entities: Option<RawMap<'a>>,
}

/// Parses an [`Entity`] in one pass, skipping the statements of unwanted
/// properties.
struct EntitySeed<'v>(&'v Vocab);

impl<'de, 'v> de::DeserializeSeed<'de> for EntitySeed<'v> {
    type Value = Entity<'de>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Entity<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, 'v> Visitor<'de> for EntitySeed<'v> {
    type Value = Entity<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an entity object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Entity<'de>, M::Error> {
        let mut e = Entity::default();
        while let Some(k) = m.next_key::<Str<'de>>()? {
            match &*k {
                "id" => e.id = Some(m.next_value()?),
                "labels" => e.labels = m.next_value_seed(KeySeed("en"))?,
                "descriptions" => e.descriptions = m.next_value_seed(KeySeed("en"))?,
                "aliases" => e.aliases = m.next_value_seed(KeySeed("en"))?,
                "sitelinks" => e.sitelinks = m.next_value_seed(KeySeed("enwiki"))?,
                "entities" => e.entities = Some(m.next_value()?),
                "claims" => e.claims = Some(m.next_value_seed(ClaimsSeed(self.0))?),
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(e)
    }
}

/// One entry of an object (or PHP's empty array `[]`), the others skipped.
struct KeySeed(&'static str);

impl<'de> de::DeserializeSeed<'de> for KeySeed {
    type Value = Option<&'de RawValue>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Option<&'de RawValue>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object (or an empty array)")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
        let mut out = None;
        while let Some(k) = m.next_key::<Str<'de>>()? {
            if &*k == self.0 {
                out = Some(m.next_value()?);
            } else {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(out)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Self::Value, S::Error> {
        if s.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "expected an object, found a non-empty array",
            ));
        }
        Ok(None)
    }
}

/// `claims`: property id → statements, for the wanted properties only.
struct ClaimsSeed<'v>(&'v Vocab);

impl<'de, 'v> de::DeserializeSeed<'de> for ClaimsSeed<'v> {
    type Value = Vec<(u32, Vec<Statement<'de>>)>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, 'v> Visitor<'de> for ClaimsSeed<'v> {
    type Value = Vec<(u32, Vec<Statement<'de>>)>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of statements by property (or an empty array)")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut m: M) -> Result<Self::Value, M::Error> {
        let mut out = Vec::new();
        while let Some(k) = m.next_key::<Str<'de>>()? {
            match k.strip_prefix('P').and_then(facts::parse_num) {
                Some(p) if self.0.wants(p) => out.push((p, m.next_value()?)),
                _ => {
                    m.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(out)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut s: S) -> Result<Self::Value, S::Error> {
        if s.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::custom(
                "expected an object, found a non-empty array",
            ));
        }
        Ok(Vec::new())
    }
}

#[derive(Deserialize)]
struct Term<'a> {
    #[serde(borrow)]
    value: Str<'a>,
}

#[derive(Deserialize)]
struct Sitelink<'a> {
    #[serde(borrow)]
    title: Str<'a>,
}

#[derive(Deserialize)]
struct Statement<'a> {
    #[serde(borrow, default)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    mainsnak: Snak<'a>,
    #[serde(borrow, default)]
    rank: Option<Str<'a>>,
    #[serde(borrow, default)]
    qualifiers: Option<RawMap<'a>>,
    #[serde(borrow, default, rename = "qualifiers-order")]
    qualifiers_order: Option<Vec<Str<'a>>>,
}

#[derive(Deserialize)]
struct Snak<'a> {
    #[serde(borrow)]
    snaktype: Str<'a>,
    #[serde(borrow, default)]
    datatype: Option<Str<'a>>,
    #[serde(borrow, default)]
    datavalue: Option<DataValue<'a>>,
}

#[derive(Deserialize)]
struct DataValue<'a> {
    #[serde(borrow)]
    value: &'a RawValue,
    #[serde(borrow, rename = "type")]
    ty: Str<'a>,
}

#[derive(Deserialize)]
struct EntityIdValue<'a> {
    #[serde(borrow, default)]
    id: Option<Str<'a>>,
    #[serde(borrow, default, rename = "entity-type")]
    entity_type: Option<Str<'a>>,
    #[serde(default, rename = "numeric-id")]
    numeric_id: Option<u64>,
}

#[derive(Deserialize)]
struct TimeValue<'a> {
    #[serde(borrow)]
    time: Str<'a>,
    precision: i64,
    #[serde(borrow, default)]
    calendarmodel: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct QuantityValue<'a> {
    #[serde(borrow)]
    amount: Str<'a>,
    #[serde(borrow, default)]
    unit: Option<Str<'a>>,
}

#[derive(Deserialize)]
struct MonolingualValue<'a> {
    #[serde(borrow)]
    text: Str<'a>,
}

#[derive(Deserialize)]
struct GlobeValue<'a> {
    latitude: f64,
    longitude: f64,
    #[serde(borrow, default)]
    globe: Option<Str<'a>>,
}

// ---------------------------------------------------------------------------
// Mapping.

/// A snak's value as the RDF has it, with its value node's data.
struct Value {
    obj: Obj,
    node: Option<NodeData>,
}

enum NodeData {
    Time {
        lex: Box<str>,
        precision: i64,
        key: Key,
    },
    Quantity {
        amount: Box<str>,
        unit: Obj,
        key: Key,
    },
}

/// Maps entity JSON to [`Fact`]s with a [`Vocab`] (its namespaces and the
/// property ids that matter).
pub struct Mapper<'v> {
    vocab: &'v Vocab,
    statement_ns: String,
}

impl<'v> Mapper<'v> {
    pub fn new(vocab: &'v Vocab) -> Self {
        Self {
            vocab,
            statement_ns: format!("{}statement/", vocab.entity_prefix()),
        }
    }

    /// Facts of one JSON text: an entity, an `{"entities": {…}}` object or an
    /// array of entities. Errors: the JSON parser's message (with its line and
    /// column within `text`).
    pub fn map(
        &self,
        text: &str,
        out: &mut Vec<Fact>,
        counts: &mut EntityCounts,
    ) -> Result<(), String> {
        let t = text.trim_start();
        if t.starts_with('[') {
            let items: Vec<&RawValue> = serde_json::from_str(text).map_err(|e| e.to_string())?;
            for it in items {
                self.map(it.get(), out, counts)?;
            }
            return Ok(());
        }
        let e = {
            use de::DeserializeSeed;
            let mut d = serde_json::Deserializer::from_str(text);
            let e = EntitySeed(self.vocab)
                .deserialize(&mut d)
                .map_err(|e| e.to_string())?;
            d.end().map_err(|e| e.to_string())?;
            e
        };
        if let Some(ents) = &e.entities {
            if e.id.is_none() {
                for (_, raw) in &ents.0 {
                    self.map(raw.get(), out, counts)?;
                }
                return Ok(());
            }
        }
        counts.entities += 1;
        self.entity(&e, out, counts).map_err(|e| e.to_string())
    }

    fn entity(
        &self,
        e: &Entity<'_>,
        out: &mut Vec<Fact>,
        counts: &mut EntityCounts,
    ) -> Result<(), serde_json::Error> {
        let Some(id) = e.id.as_deref() else {
            return Err(de::Error::custom("entity without \"id\""));
        };
        if let Some(q) = id.strip_prefix('Q').and_then(facts::parse_item_num) {
            return self.entity_facts(q, id, e, out, counts);
        }
        // Not an item (a property, a lexeme, ...): its facts are made as for an item,
        // then each one about the entity itself (term, `p:`, `wdt:`) becomes the
        // `Fact::NonItem` the RDF reader gives for the same triple — counted in the
        // report, never converted — and `schema:about` (RDF: no item) is dropped.
        let iri = format!("{}{}", self.vocab.entity_prefix(), id);
        let Err(Some(Fact::NonItem { kind, entity })) = self.vocab.subject(&iri) else {
            return Ok(()); // outside the namespace
        };
        let start = out.len();
        self.entity_facts(0, id, e, out, counts)?;
        let tail: Vec<Fact> = out.drain(start..).collect();
        for f in tail {
            match f {
                Fact::Label { .. }
                | Fact::Description { .. }
                | Fact::Alias { .. }
                | Fact::Claim { .. }
                | Fact::Direct { .. } => out.push(Fact::NonItem { kind, entity }),
                Fact::About { .. } => {}
                other => out.push(other),
            }
        }
        Ok(())
    }

    /// The facts of entity `id` (item number `s`): what the RDF reader extracts from
    /// the entity's triples in the full dump.
    fn entity_facts(
        &self,
        s: facts::ItemId,
        id: &str,
        e: &Entity<'_>,
        out: &mut Vec<Fact>,
        counts: &mut EntityCounts,
    ) -> Result<(), serde_json::Error> {
        if let Some(raw) = e.labels {
            let t: Term = serde_json::from_str(raw.get())?;
            out.push(Fact::Label {
                s,
                text: t.value.into(),
            });
        }
        if let Some(raw) = e.descriptions {
            let t: Term = serde_json::from_str(raw.get())?;
            out.push(Fact::Description {
                s,
                text: t.value.into(),
            });
        }
        if let Some(raw) = e.aliases {
            let ts: Vec<Term> = serde_json::from_str(raw.get())?;
            for t in ts {
                out.push(Fact::Alias {
                    s,
                    text: t.value.into(),
                });
            }
        }
        if let Some(raw) = e.sitelinks {
            let l: Sitelink = serde_json::from_str(raw.get())?;
            let mut article = String::with_capacity(ENWIKI.len() + l.title.len());
            article.push_str(ENWIKI);
            wf_urlencode(&l.title.replace(' ', "_"), &mut article);
            let article: Box<str> = article.into();
            out.push(Fact::About {
                article: article.clone(),
                s,
            });
            out.push(Fact::EnwikiPart { article });
        }
        let Some(claims) = &e.claims else {
            return Ok(());
        };
        for (p, stmts) in claims {
            let p = *p;
            let best = if stmts
                .iter()
                .any(|st| st.rank.as_deref() == Some("preferred"))
            {
                "preferred"
            } else {
                "normal"
            };
            for (i, st) in stmts.iter().enumerate() {
                let r = st.rank.as_deref().unwrap_or("normal");
                let keep_iri = self.vocab.keeps_statement_iri(p);
                let (stmt, iri) = match st.id.as_deref() {
                    Some(g) => self.statement_key(g, keep_iri),
                    // Wikibase refuses statements without a GUID; give one that
                    // cannot clash with a real GUID (they have no '/').
                    None => {
                        let iri = format!("{}{id}/P{p}/{i}", self.statement_ns);
                        (key(&iri), if keep_iri { iri.into() } else { Box::from("") })
                    }
                };
                out.push(Fact::Claim { s, p, stmt, iri });
                if let Some(v) = self.snak_value(&st.mainsnak, counts)? {
                    if r == best {
                        out.push(Fact::Direct {
                            s,
                            p,
                            o: v.obj.clone(),
                        });
                    }
                    out.push(Fact::StmtValue { stmt, p, o: v.obj });
                    if let Some(n) = v.node {
                        let node = node_facts(n, out);
                        out.push(Fact::StmtNode { stmt, p, node });
                    }
                }
                if r == "deprecated" {
                    out.push(Fact::Deprecated { stmt });
                }
                if let Some(q) = &st.qualifiers {
                    let mut order: Vec<&str> = Vec::new();
                    match &st.qualifiers_order {
                        Some(o) => order.extend(o.iter().map(|x| &**x)),
                        None => order.extend(q.0.iter().map(|(k, _)| &**k)),
                    }
                    // Properties missing from `qualifiers-order` still count.
                    for (k, _) in &q.0 {
                        if !order.contains(&&**k) {
                            order.push(k);
                        }
                    }
                    for qk in order {
                        let Some(qp) = qk.strip_prefix('P').and_then(facts::parse_num) else {
                            continue;
                        };
                        if !self.vocab.wants(qp) {
                            continue;
                        }
                        let Some(raw) = q.get(qk) else { continue };
                        let snaks: Vec<Snak> = serde_json::from_str(raw.get())?;
                        for sn in &snaks {
                            if let Some(v) = self.snak_value(sn, counts)? {
                                out.push(Fact::Qualifier {
                                    stmt,
                                    p: qp,
                                    o: v.obj,
                                });
                                if let Some(n) = v.node {
                                    let node = node_facts(n, out);
                                    out.push(Fact::QualifierNode { stmt, p: qp, node });
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The [`Key`] of the `wds:` IRI of a statement GUID (Wikibase's
    /// `getStatementLName`: `preg_replace('/[^\w-]/', '-', $guid)`, byte-wise), and
    /// the IRI itself when `keep` (else empty). Without `keep`, an IRI of up to
    /// 256 bytes is built on the stack (no allocation per statement).
    fn statement_key(&self, guid: &str, keep: bool) -> (Key, Box<str>) {
        let ns = self.statement_ns.as_bytes();
        let lname = guid.bytes().map(|b| {
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'-' {
                b
            } else {
                b'-'
            }
        });
        let mut buf = [0u8; 256];
        let n = ns.len() + guid.len();
        if !keep && n <= buf.len() {
            buf[..ns.len()].copy_from_slice(ns);
            for (d, b) in buf[ns.len()..n].iter_mut().zip(lname) {
                *d = b;
            }
            // ASCII replacements of ASCII bytes: still UTF-8.
            let iri = std::str::from_utf8(&buf[..n]).expect("UTF-8 statement IRI");
            return (key(iri), Box::from(""));
        }
        let mut iri = String::with_capacity(n);
        iri.push_str(&self.statement_ns);
        iri.extend(lname.map(char::from));
        (key(&iri), if keep { iri.into() } else { Box::from("") })
    }

    fn entity_obj(&self, id: &str) -> Obj {
        if let Some(q) = id.strip_prefix('Q').and_then(facts::parse_item_num) {
            return Obj::Item(q);
        }
        self.vocab
            .iri_obj(&format!("{}{}", self.vocab.entity_prefix(), id))
    }

    /// The value of a snak as its RDF has it: `None` for `novalue`.
    fn snak_value(
        &self,
        sn: &Snak<'_>,
        counts: &mut EntityCounts,
    ) -> Result<Option<Value>, serde_json::Error> {
        match &*sn.snaktype {
            "value" => {}
            "somevalue" => {
                return Ok(Some(Value {
                    obj: Obj::SomeValue,
                    node: None,
                }))
            }
            "novalue" => return Ok(None),
            other => {
                return Err(de::Error::custom(format!(
                    "unknown snaktype {other:?} (expected value, somevalue or novalue)"
                )))
            }
        }
        let Some(dv) = &sn.datavalue else {
            return Err(de::Error::custom("value snak without \"datavalue\""));
        };
        let raw = dv.value.get();
        let v = match &*dv.ty {
            "wikibase-entityid" => {
                let e: EntityIdValue = serde_json::from_str(raw)?;
                let id: Cow<str> = match (e.id, e.entity_type.as_deref(), e.numeric_id) {
                    (Some(id), _, _) => id.0,
                    (None, Some("item"), Some(n)) => format!("Q{n}").into(),
                    (None, Some("property"), Some(n)) => format!("P{n}").into(),
                    (None, Some("lexeme"), Some(n)) => format!("L{n}").into(),
                    _ => return Err(de::Error::custom("entity id value without \"id\"")),
                };
                Value {
                    obj: self.entity_obj(&id),
                    node: None,
                }
            }
            "string" => {
                let s: Str = serde_json::from_str(raw)?;
                let obj = match sn.datatype.as_deref() {
                    Some("url") => self.vocab.iri_obj(&escape_iri(php_trim(&s))),
                    Some("commonsMedia") => {
                        let mut iri = String::from(MEDIA_URI);
                        rawurlencode(&s, &mut iri);
                        self.vocab.iri_obj(&iri)
                    }
                    Some("geo-shape") | Some("tabular-data") => {
                        let mut iri = String::from(COMMONS_DATA_URI);
                        wf_urlencode(&s, &mut iri);
                        self.vocab.iri_obj(&escape_iri(&iri))
                    }
                    _ => Obj::Lit(s.into()),
                };
                Value { obj, node: None }
            }
            "monolingualtext" => {
                let m: MonolingualValue = serde_json::from_str(raw)?;
                Value {
                    obj: Obj::Lit(m.text.into()),
                    node: None,
                }
            }
            "time" => {
                let t: TimeValue = serde_json::from_str(raw)?;
                let cal = t.calendarmodel.as_deref().unwrap_or(GREGORIAN).trim();
                let lex: Box<str> = standard_time(&t.time, t.precision, cal)
                    .unwrap_or_else(|| t.time.to_string())
                    .into();
                let key = key(&format!(
                    "\0time\0{lex}\0{}\0{cal}\0{}",
                    t.precision, &*t.time
                ));
                Value {
                    obj: Obj::Lit(lex.clone()),
                    node: Some(NodeData::Time {
                        lex,
                        precision: t.precision,
                        key,
                    }),
                }
            }
            "quantity" => {
                let q: QuantityValue = serde_json::from_str(raw)?;
                let unit = q.unit.as_deref().unwrap_or("1").trim();
                let unit = if unit == "1" { ONE_ENTITY } else { unit };
                let amount: Box<str> = if q.amount.starts_with(['+', '-']) {
                    q.amount.into()
                } else {
                    format!("+{}", &*q.amount).into()
                };
                let key = key(&format!("\0quantity\0{amount}\0{unit}"));
                Value {
                    obj: Obj::Lit(amount.clone()),
                    node: Some(NodeData::Quantity {
                        amount,
                        unit: self.vocab.iri_obj(unit),
                        key,
                    }),
                }
            }
            "globecoordinate" => {
                let g: GlobeValue = serde_json::from_str(raw)?;
                let mut point = format!(
                    "Point({} {})",
                    php_float(g.longitude),
                    php_float(g.latitude)
                );
                if let Some(globe) = g.globe.as_deref().filter(|x| !x.is_empty() && *x != EARTH) {
                    point = format!("<{}> {point}", globe.replace('>', "%3E"));
                }
                Value {
                    obj: Obj::Lit(point.into()),
                    node: None,
                }
            }
            other => {
                match counts.unknown_types.get_mut(other) {
                    Some(c) => *c += 1,
                    None => {
                        counts.unknown_types.insert(other.to_string(), 1);
                    }
                }
                return Ok(None);
            }
        };
        Ok(Some(v))
    }
}

/// Push a value node's facts; returns its key.
fn node_facts(n: NodeData, out: &mut Vec<Fact>) -> Key {
    match n {
        NodeData::Time {
            lex,
            precision,
            key,
        } => {
            out.push(Fact::TimeValue { node: key, lex });
            out.push(Fact::TimePrecision {
                node: key,
                precision,
            });
            key
        }
        NodeData::Quantity { amount, unit, key } => {
            out.push(Fact::QuantityAmount {
                node: key,
                lex: amount,
            });
            out.push(Fact::QuantityUnit { node: key, unit });
            key
        }
    }
}

// ---------------------------------------------------------------------------
// Wikibase's / PHP's value formatting.

/// PHP's `trim()` (space, `\t`, `\n`, `\r`, NUL, vertical tab).
fn php_trim(s: &str) -> &str {
    s.trim_matches([' ', '\t', '\n', '\r', '\0', '\u{b}'])
}

/// purtle's `N3Quoter::escapeIRI`: these characters become percent escapes.
fn escape_iri(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '"' => out.push_str("%22"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '\\' => out.push_str("%5C"),
            '`' => out.push_str("%60"),
            '^' => out.push_str("%5E"),
            '|' => out.push_str("%7C"),
            '{' => out.push_str("%7B"),
            '}' => out.push_str("%7D"),
            _ => out.push(c),
        }
    }
    out
}

fn pct(b: u8, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(HEX[(b >> 4) as usize] as char);
    out.push(HEX[(b & 15) as usize] as char);
}

/// PHP's `rawurlencode` (RFC 3986: all but `A-Za-z0-9-_.~` percent-encoded).
fn rawurlencode(s: &str, out: &mut String) {
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            pct(b, out);
        }
    }
}

/// MediaWiki's `wfUrlencode`: PHP `urlencode` (space → `+`), then
/// `;@$!*(),/~:` left as they are.
fn wf_urlencode(s: &str, out: &mut String) {
    for &b in s.as_bytes() {
        if b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'_'
                    | b'.'
                    | b';'
                    | b'@'
                    | b'$'
                    | b'!'
                    | b'*'
                    | b'('
                    | b')'
                    | b','
                    | b'/'
                    | b'~'
                    | b':'
            )
        {
            out.push(b as char);
        } else if b == b' ' {
            out.push('+');
        } else {
            pct(b, out);
        }
    }
}

/// PHP's float to string conversion (`precision` = 14: `%.14G` as `zend_gcvt`
/// writes it, e.g. `52`, `12.125`, `1.0E-5`, `1.5E+20`).
fn php_float(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    if !f.is_finite() {
        return if f.is_nan() {
            "NAN".into()
        } else if f > 0.0 {
            "INF".into()
        } else {
            "-INF".into()
        };
    }
    let sci = format!("{:.13e}", f.abs()); // d.ddddddddddddde±x
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let mut digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    let sign = if f < 0.0 { "-" } else { "" };
    let decpt = exp + 1;
    if if decpt < 0 { decpt < -3 } else { decpt > 14 } {
        let rest = if digits.len() > 1 { &digits[1..] } else { "0" };
        let e = decpt - 1;
        return format!(
            "{sign}{}.{rest}E{}{}",
            &digits[..1],
            if e < 0 { '-' } else { '+' },
            e.abs()
        );
    }
    if decpt <= 0 {
        return format!("{sign}0.{}{digits}", "0".repeat((-decpt) as usize));
    }
    let d = decpt as usize;
    if digits.len() <= d {
        format!("{sign}{digits}{}", "0".repeat(d - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..d], &digits[d..])
    }
}

/// PHP's `(int)` of a numeric string prefix (`"03"` → 3, `""` → 0).
fn php_int(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\u{b}', '\u{c}']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for b in digits.bytes() {
        if !b.is_ascii_digit() {
            break;
        }
        v = v.saturating_mul(10).saturating_add((b - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

/// `DateTimeValueCleaner::parseDateValue`: (minus, year digits without leading
/// zeros, month 1..12, day ≥ 1, time after `T`); `None` for year 0.
fn parse_date(t: &str) -> Option<(bool, &str, i64, i64, &str)> {
    let (date, time) = t.split_once('T')?;
    let minus = date.starts_with('-');
    let rest = date.get(1..)?;
    let mut parts = rest.splitn(3, '-');
    let y = parts.next().unwrap_or("");
    let mut m = php_int(parts.next().unwrap_or(""));
    let mut d = php_int(parts.next().unwrap_or(""));
    let y = y.trim_start_matches('0');
    if m <= 0 {
        m = 1;
    }
    if m >= 12 {
        m = 12;
    }
    if d <= 0 {
        d = 1;
    }
    if y.is_empty() {
        return None;
    }
    Some((minus, y, m, d, time))
}

/// Days of a month in PHP's proleptic Gregorian calendar (`cal_days_in_month`;
/// negative years are BCE without a year 0).
fn days_in_month(m: i64, year: i64) -> i64 {
    let astro = if year < 0 { year + 1 } else { year };
    let leap =
        astro.rem_euclid(4) == 0 && (astro.rem_euclid(100) != 0 || astro.rem_euclid(400) == 0);
    match m {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `DateTimeValueCleaner::cleanupGregorianValue` (XSD 1.1 years).
fn cleanup_gregorian(t: &str, precision: i64) -> Option<String> {
    let (mut minus, y, mut m, mut d, time) = parse_date(t)?;
    if precision <= 9 {
        d = 1;
        m = 1;
    } else if precision == 10 {
        d = 1;
    }
    if !(d <= 28 || (m != 2 && d <= 30)) {
        let yf: f64 = y.parse().unwrap_or(f64::INFINITY);
        let safe_year = if minus && yf >= 4714.0 {
            -4713
        } else {
            let base: i64 = if y.len() >= 10 {
                format!("1{}", &y[y.len() - 5..]).parse().unwrap_or(0)
            } else {
                php_int(y)
            };
            if minus {
                -base
            } else {
                base
            }
        };
        let max = days_in_month(m, safe_year);
        if d > max {
            d = max;
        }
    }
    let mut year: String = y.to_string();
    if precision >= 9 && minus {
        let yf: f64 = y.parse().unwrap_or(0.0);
        year = format!("{:.0}", yf - 1.0);
        if year == "0" {
            minus = false;
        }
    }
    Some(format!(
        "{}{:0>4}-{:02}-{:02}T{}",
        if minus { "-" } else { "" },
        year,
        m,
        d,
        time
    ))
}

/// PHP `juliantojd` (Scott E. Lee's SDN algorithm); 0 for an invalid date.
fn julian_to_sdn(y: i64, m: i64, d: i64) -> i64 {
    if y == 0 || y < -4713 || m <= 0 || m > 12 || d <= 0 || d > 31 {
        return 0;
    }
    if y == -4713 && m == 1 && d == 1 {
        return 0;
    }
    let mut year = if y < 0 { y + 4801 } else { y + 4800 };
    let month = if m > 2 {
        m - 3
    } else {
        year -= 1;
        m + 9
    };
    (year * 1461) / 4 + (month * 153 + 2) / 5 + d - 32083
}

/// PHP `jdtogregorian` as (year, month, day); year 0 for an invalid SDN.
fn sdn_to_gregorian(sdn: i64) -> (i64, i64, i64) {
    if sdn <= 0 || sdn > (i64::MAX - 4 * 32045) / 4 {
        return (0, 0, 0);
    }
    let temp = (sdn + 32045) * 4 - 1;
    let century = temp / 146097;
    let temp = ((temp % 146097) / 4) * 4 + 3;
    let mut year = century * 100 + temp / 1461;
    let day_of_year = (temp % 1461) / 4 + 1;
    let temp = day_of_year * 5 - 3;
    let mut month = temp / 153;
    let day = (temp % 153) / 5 + 1;
    if month < 10 {
        month += 3;
    } else {
        year += 1;
        month -= 9;
    }
    year -= 4800;
    if year <= 0 {
        year -= 1;
    }
    (year, month, day)
}

/// `JulianDateTimeValueCleaner::julianDateValue`.
fn julian_date(t: &str) -> Option<String> {
    let (minus, y, m, d, time) = parse_date(t)?;
    if y.len() > 18 {
        return None; // not a PHP int
    }
    let yv: i64 = y.parse().ok()?;
    let y = if minus { -yv } else { yv };
    if !(-4713..=1465072).contains(&y) {
        return None;
    }
    let jd = julian_to_sdn(y, m, d);
    if jd == 0 {
        return None;
    }
    let (mut gy, gm, gd) = sdn_to_gregorian(jd);
    if gy == 0 {
        return None;
    }
    if gy < 0 {
        gy += 1;
    }
    Some(format!(
        "{}{:04}-{:02}-{:02}T{}",
        if gy < 0 { "-" } else { "" },
        gy.abs(),
        gm,
        gd,
        time
    ))
}

/// The `xsd:dateTime` lexical form Wikibase's RDF gives a time value
/// (`JulianDateTimeValueCleaner::getStandardValue`); `None`: the RDF has the
/// JSON `time` text itself.
pub fn standard_time(t: &str, precision: i64, calendar: &str) -> Option<String> {
    if calendar == JULIAN && precision >= 11 {
        parse_date(t)?;
        return julian_date(t).or_else(|| cleanup_gregorian(t, precision));
    }
    if calendar == GREGORIAN || precision < 11 {
        return cleanup_gregorian(t, precision);
    }
    None
}

// ---------------------------------------------------------------------------
// Reading.

/// How a JSON input is laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// One entity (or `{"entities": …}` object) per line; `[`, `]` lines and a
    /// trailing `,` are part of the dump layout.
    Lines,
    /// One JSON document spanning lines.
    Document,
}

/// The entity text of a dump / JSON-lines line: `None` for blank, `[` and `]`
/// lines.
fn entity_line(line: &str) -> Option<&str> {
    let t = line.trim_matches([' ', '\t', '\r']);
    let t = t.strip_suffix(',').unwrap_or(t).trim_end();
    if t.is_empty() || t == "[" || t == "]" {
        return None;
    }
    Some(t)
}

/// Decide the layout from the first bytes of the (decompressed) input.
fn layout(head: &[u8]) -> Layout {
    let mut pos = 0;
    while pos < head.len() {
        let end = memchr::memchr(b'\n', &head[pos..]).map(|p| pos + p);
        let line = &head[pos..end.unwrap_or(head.len())];
        let text = String::from_utf8_lossy(line);
        if let Some(t) = entity_line(&text) {
            if end.is_none() {
                return Layout::Lines; // a line longer than the look-ahead
            }
            return match serde_json::from_str::<IgnoredAny>(t) {
                Ok(_) => Layout::Lines,
                Err(_) => Layout::Document,
            };
        }
        match end {
            Some(e) => pos = e + 1,
            None => break,
        }
    }
    Layout::Lines
}

fn excerpt(line: &str) -> String {
    let mut s: String = line.chars().take(120).collect();
    if line.chars().count() > 120 {
        s.push('…');
    }
    s
}

/// Parse a block of entity lines (the dump layout or JSON lines).
fn parse_block<T>(
    block: &[u8],
    f: &JsonExtract<'_, T>,
    stop_at_first: bool,
) -> super::input::BlockResult<T> {
    // About one fact per 120 bytes of entity JSON (Wikidata's and the bench dump's).
    let mut out = super::input::BlockResult::with_capacity(block.len() / 128);
    super::input::for_each_line(
        block,
        &mut out,
        stop_at_first,
        |out, line_no, pos, _, text| match text {
            Ok(line) => {
                if let Some(t) = entity_line(line) {
                    if let Err(msg) = f(t, &mut out.facts, &mut out.entities) {
                        out.errors.push((
                            line_no,
                            pos as u64,
                            format!("invalid entity JSON: {msg}"),
                        ));
                    }
                }
            }
            Err(e) => out.errors.push((
                line_no,
                (pos + e.valid_up_to()) as u64,
                "invalid UTF-8".into(),
            )),
        },
    );
    out
}

/// Read one JSON input (already decompressed) and send its values to `sink`
/// in input order. Line layouts are parsed in parallel blocks (rayon).
///
/// Errors: [`ConvertError::Syntax`] with the file, line, byte offset (of the
/// decompressed stream) and an excerpt of the entity line, unless
/// `skip_invalid` (then counted in `stats`); [`ConvertError::Io`] for read errors.
#[allow(clippy::too_many_arguments)]
pub fn read<T: Send>(
    reader: &mut (dyn BufRead + Send),
    path: &str,
    first_offset: u64,
    f: &JsonExtract<'_, T>,
    skip_invalid: bool,
    stats: &mut super::input::ReadStats,
    sink: &mut dyn FnMut(Vec<T>),
    io_err: &dyn Fn(io::Error) -> ConvertError,
    progress: Option<(&indicatif::ProgressBar, std::time::Instant)>,
) -> Result<(), ConvertError> {
    let head = reader.fill_buf().map_err(io_err)?;
    let head = &head[..head.len().min(1 << 20)];
    if layout(head) == Layout::Document {
        let mut buf = Vec::new();
        reader.read_to_end(&mut buf).map_err(io_err)?;
        stats.bytes += buf.len() as u64;
        let text = std::str::from_utf8(&buf).map_err(|e| ConvertError::Syntax {
            file: path.to_string(),
            line: 1 + memchr::memchr_iter(b'\n', &buf[..e.valid_up_to()]).count() as u64,
            offset: e.valid_up_to() as u64,
            message: "invalid UTF-8".into(),
            excerpt: String::new(),
        })?;
        let mut values = Vec::new();
        let mut counts = EntityCounts::default();
        if let Err(msg) = f(text, &mut values, &mut counts) {
            if !skip_invalid {
                return Err(ConvertError::Syntax {
                    file: path.to_string(),
                    line: 1,
                    offset: 0,
                    message: format!("invalid entity JSON: {msg}"),
                    excerpt: excerpt(text.trim_start().lines().next().unwrap_or("")),
                });
            }
            stats.skipped_invalid += 1;
            if stats.skipped_examples.len() < 10 {
                stats.skipped_examples.push(format!("{path}:1: {msg}"));
            }
            values.clear();
        }
        stats.entities.merge(counts);
        sink(values);
        return Ok(());
    }
    let parse = |b: &[u8], stop: bool| parse_block(b, f, stop);
    super::input::read_line_blocks(
        reader,
        path,
        first_offset,
        skip_invalid,
        &parse,
        stats,
        sink,
        io_err,
        progress.map(|(b, t0)| (b, t0, entities_rate as super::input::Rate)),
    )
}

fn entities_rate(stats: &super::input::ReadStats, secs: f64) -> String {
    format!(
        "{:.0}k entities/s",
        stats.entities.entities as f64 / secs / 1e3
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wikibase_date_cleaning() {
        // Values from Wikibase's DateTimeValueCleanerTest / Q8_baddates fixtures.
        let g = GREGORIAN;
        for (time, precision, standard) in [
            ("+1952-03-11T00:00:00Z", 11, "1952-03-11T00:00:00Z"),
            ("-0200-00-00T00:00:00Z", 9, "-0199-01-01T00:00:00Z"),
            ("-0001-01-01T00:00:00Z", 9, "0000-01-01T00:00:00Z"),
            ("+2015-02-31T00:00:00Z", 11, "2015-02-28T00:00:00Z"),
            ("+2016-02-31T00:00:00Z", 11, "2016-02-29T00:00:00Z"),
        ] {
            assert_eq!(
                standard_time(time, precision, g).unwrap(),
                standard,
                "{time}"
            );
        }
        assert!(standard_time("+0000-01-01T00:00:00Z", 9, g).is_none());
        // Julian 1 January 1582 is Gregorian 11 January 1582.
        assert_eq!(
            standard_time("+1582-01-01T00:00:00Z", 11, JULIAN).unwrap(),
            "1582-01-11T00:00:00Z"
        );
        // Other calendar at day precision: no standard value.
        assert!(standard_time("+1582-01-01T00:00:00Z", 11, "http://x/cal").is_none());
    }

    #[test]
    fn php_float_strings() {
        assert_eq!(php_float(67.25), "67.25");
        assert_eq!(php_float(52.0), "52");
        assert_eq!(php_float(-0.1), "-0.1");
        assert_eq!(php_float(1e-5), "1.0E-5");
        assert_eq!(php_float(0.0001), "0.0001");
        assert_eq!(php_float(1.5e20), "1.5E+20");
        assert_eq!(php_float(51.50072222222222), "51.500722222222");
    }

    #[test]
    fn statement_keys_are_those_of_the_whole_iri() {
        let vocab = Vocab::new(
            "http://www.wikidata.org/entity/",
            "http://www.wikidata.org/prop/",
            Default::default(),
        );
        let m = Mapper::new(&vocab);
        let iri =
            "http://www.wikidata.org/entity/statement/Q42-F078E5B3-F9A8-480E-B7AC-D97778CBBEF9";
        let guid = "Q42$F078E5B3-F9A8-480E-B7AC-D97778CBBEF9";
        assert_eq!(m.statement_key(guid, false), (key(iri), Box::from("")));
        assert_eq!(m.statement_key(guid, true), (key(iri), Box::from(iri)));
        // Longer than the stack buffer: the same key.
        let long = format!("Q1${}", "x".repeat(300));
        let long_iri = format!(
            "http://www.wikidata.org/entity/statement/Q1-{}",
            "x".repeat(300)
        );
        assert_eq!(m.statement_key(&long, false).0, key(&long_iri));
    }

    #[test]
    fn url_encodings() {
        let mut s = String::new();
        wf_urlencode("Douglas_Adams (writer):é+", &mut s);
        assert_eq!(s, "Douglas_Adams+(writer):%C3%A9%2B");
        let mut s = String::new();
        rawurlencode("A b.svg", &mut s);
        assert_eq!(s, "A%20b.svg");
        assert_eq!(
            escape_iri("http://a\\b<c> \"d\""),
            "http://a%5Cb%3Cc%3E%20%22d%22"
        );
    }

    #[test]
    fn layouts() {
        assert_eq!(layout(b"[\n{\"id\":\"Q1\"},\n"), Layout::Lines);
        assert_eq!(layout(b"{\"id\":\"Q1\"}\n{\"id\":\"Q2\"}\n"), Layout::Lines);
        assert_eq!(layout(b"{\n\t\"id\": \"Q1\"\n}\n"), Layout::Document);
        assert_eq!(layout(b"{\"id\":\"Q1\", \"labels\": {"), Layout::Lines);
    }
}
