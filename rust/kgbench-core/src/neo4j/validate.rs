//! Validation of a SimpleKG graph (SPEC.md §2) before it is loaded into Neo4j.
//!
//! The checks, their order and their messages are the loader's contract (the Python package
//! shows them to users and its tests pin them): the `schema` / `entities` / `relations`
//! shapes; labels match `[A-Za-z0-9_]+` and property names `[A-Za-z_][A-Za-z0-9_]*`; datatypes
//! are known; loader-owned keys are not schema properties; `eid` and `rid` are unique
//! non-empty strings; every entity's label is a schema entity; every relation's
//! (label, subject label, object label) is in the schema and both ends exist; every property is
//! declared for its label and its value has the declared datatype (`null` allowed). Values are
//! named by Python's `repr` ([`Val::py_repr`]). At most [`MAX_PROBLEMS`] messages are kept,
//! all are counted.

use std::borrow::Cow;
use std::fmt::Write;

use rustc_hash::{FxHashMap, FxHashSet};

use super::value::{repr_opt, Val};

/// How many problem messages are kept (all are counted).
pub const MAX_PROBLEMS: usize = 20;
/// Node properties the loader sets itself (not allowed among an entity's schema properties).
pub const ENTITY_META: &[&str] = &["eid", "name", "aliases", "description", "provenance"];
/// Relationship properties the loader sets itself.
pub const RELATION_META: &[&str] = &["rid", "provenance"];

/// A datatype of SPEC.md §1/§2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// `str`
    Str,
    /// `int`
    Int,
    /// `float` (JSON integers are accepted and stored as floats)
    Float,
    /// `bool`
    Bool,
    /// `date`: `YYYY-MM-DD`, a real day of the proleptic Gregorian calendar, year 1–9999
    Date,
    /// `list[str]`
    ListStr,
    /// `list[int]`
    ListInt,
    /// `list[float]`
    ListFloat,
    /// `list[date]`
    ListDate,
}

impl Dtype {
    /// The datatype named `name` (`"str"`, ..., `"list[date]"`).
    pub fn parse(name: &str) -> Option<Dtype> {
        Some(match name {
            "str" => Dtype::Str,
            "int" => Dtype::Int,
            "float" => Dtype::Float,
            "bool" => Dtype::Bool,
            "date" => Dtype::Date,
            "list[str]" => Dtype::ListStr,
            "list[int]" => Dtype::ListInt,
            "list[float]" => Dtype::ListFloat,
            "list[date]" => Dtype::ListDate,
            _ => return None,
        })
    }

    /// The datatype's SPEC name.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::Str => "str",
            Dtype::Int => "int",
            Dtype::Float => "float",
            Dtype::Bool => "bool",
            Dtype::Date => "date",
            Dtype::ListStr => "list[str]",
            Dtype::ListInt => "list[int]",
            Dtype::ListFloat => "list[float]",
            Dtype::ListDate => "list[date]",
        }
    }

    /// The element datatype of a list datatype.
    pub fn element(self) -> Option<Dtype> {
        match self {
            Dtype::ListStr => Some(Dtype::Str),
            Dtype::ListInt => Some(Dtype::Int),
            Dtype::ListFloat => Some(Dtype::Float),
            Dtype::ListDate => Some(Dtype::Date),
            _ => None,
        }
    }

    /// Whether `value` (not `null`) has this datatype.
    pub fn accepts(self, value: &Val<'_>) -> bool {
        if let Some(inner) = self.element() {
            return match value {
                Val::List(items) => items.iter().all(|v| inner.accepts(v)),
                _ => false,
            };
        }
        match (self, value) {
            (Dtype::Str, Val::Str(_)) => true,
            (Dtype::Int, Val::Int(_)) => true,
            (Dtype::Float, Val::Int(_) | Val::Float(_)) => true,
            (Dtype::Bool, Val::Bool(_)) => true,
            (Dtype::Date, Val::Str(s)) => is_date(s),
            _ => false,
        }
    }
}

/// `YYYY-MM-DD` (ASCII digits) naming a real day: year 1–9999, month 1–12, day within the
/// month (29 February only in leap years of the proleptic Gregorian calendar), as Python's
/// `datetime.date.fromisoformat` accepts it.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
        })
    };
    let (Some(y), Some(m), Some(d)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    y >= 1 && d >= 1 && d <= days
}

fn is_label(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

fn is_identifier(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
}

/// The problems found: the first [`MAX_PROBLEMS`] messages and the count of all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems {
    /// The first messages, in the order the checks ran.
    pub items: Vec<String>,
    /// How many problems there are in all.
    pub total: usize,
}

/// Where the checks report problems: [`Problems`] (messages) or [`Count`] (a count only, for
/// the parallel pass over valid-looking graphs).
pub trait Sink {
    /// Report one problem; `msg` builds its message when the sink keeps it.
    fn add(&mut self, msg: impl FnOnce() -> String);
}

impl Sink for Problems {
    /// Count a problem; its message is built only while fewer than [`MAX_PROBLEMS`] are kept.
    fn add(&mut self, msg: impl FnOnce() -> String) {
        self.total += 1;
        if self.items.len() < MAX_PROBLEMS {
            self.items.push(msg());
        }
    }
}

/// A problem count without messages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Count(pub usize);

impl Sink for Count {
    fn add(&mut self, _msg: impl FnOnce() -> String) {
        self.0 += 1;
    }
}

/// Declared properties `(name, datatype)` in schema order, without the loader's own keys.
pub type Props = Vec<(String, Dtype)>;

/// A relation key of the schema: (relation label, subject label, object label).
pub type RelKey = (String, String, String);

/// The declared properties of a graph's schema (Python dict semantics for repeated labels /
/// keys: first position, last declaration).
#[derive(Debug, Clone, Default)]
pub struct Schema {
    /// `(entity label, declared properties)` in schema order.
    pub entities: Vec<(String, Props)>,
    /// `((label, subj_label, obj_label), declared properties)` in schema order.
    pub relations: Vec<(RelKey, Props)>,
    entity_index: FxHashMap<String, usize>,
    relation_index: FxHashMap<RelKey, usize>,
    /// relation label -> [(subject entity index, object entity index, relation index)]
    by_relation_label: FxHashMap<String, Vec<(usize, usize, usize)>>,
}

impl Schema {
    /// The index in [`Schema::entities`] of an entity label.
    pub fn entity(&self, label: &str) -> Option<usize> {
        self.entity_index.get(label).copied()
    }

    fn relation(&self, label: &str, subj: usize, obj: usize) -> Option<usize> {
        self.by_relation_label
            .get(label)?
            .iter()
            .find(|(s, o, _)| *s == subj && *o == obj)
            .map(|&(_, _, r)| r)
    }

    fn set_entity(&mut self, label: &str, props: Props) {
        match self.entity_index.get(label) {
            Some(&i) => self.entities[i].1 = props,
            None => {
                self.entity_index
                    .insert(label.to_string(), self.entities.len());
                self.entities.push((label.to_string(), props));
            }
        }
    }

    fn set_relation(&mut self, key: RelKey, props: Props) {
        match self.relation_index.get(&key) {
            Some(&i) => self.relations[i].1 = props,
            None => {
                self.relation_index
                    .insert(key.clone(), self.relations.len());
                self.relations.push((key, props));
            }
        }
    }

    fn index_relations(&mut self) {
        for (r, ((label, subj, obj), _)) in self.relations.iter().enumerate() {
            if let (Some(s), Some(o)) = (self.entity(subj), self.entity(obj)) {
                self.by_relation_label
                    .entry(label.clone())
                    .or_default()
                    .push((s, o, r));
            }
        }
    }
}

/// What validation found, and what loading a valid graph needs.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// The problems (none: the graph is valid and the counts below are complete).
    pub problems: Problems,
    /// The schema's declared properties.
    pub schema: Schema,
    /// Entities per schema entity (index in `schema.entities`).
    pub node_counts: Vec<usize>,
    /// Relations per schema relation key (index in `schema.relations`).
    pub relation_counts: Vec<usize>,
}

impl Checked {
    /// Whether the graph is valid.
    pub fn is_valid(&self) -> bool {
        self.problems.total == 0
    }

    /// Entities per label, labels in schema order (only labels with entities).
    pub fn nodes_by_label(&self) -> Vec<(String, usize)> {
        self.schema
            .entities
            .iter()
            .zip(&self.node_counts)
            .filter(|(_, n)| **n > 0)
            .map(|((label, _), n)| (label.clone(), *n))
            .collect()
    }

    /// Relations per relation label (relationship type), in order of first schema appearance
    /// (only types with relations).
    pub fn relationships_by_type(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = Vec::new();
        for (((label, _, _), _), n) in self.schema.relations.iter().zip(&self.relation_counts) {
            match out.iter_mut().find(|(l, _)| l == label) {
                Some((_, c)) => *c += n,
                None => out.push((label.clone(), *n)),
            }
        }
        out.retain(|(_, n)| *n > 0);
        out
    }
}

/// Items of a JSON value iterated the way Python's `for x in value or []` does for the
/// values a schema list can hold: a list's items, an object's keys, a string's characters;
/// falsy values (`null`, `false`, `0`, `""`, `[]`, `{}`) give nothing. `None` for other values
/// (numbers, `true`: Python cannot iterate them).
fn py_iter<'v, 'a>(v: Option<&'v Val<'a>>) -> Option<Vec<Cow<'v, Val<'a>>>> {
    Some(match v {
        None | Some(Val::Null | Val::Bool(false)) => Vec::new(),
        Some(Val::Int(0)) => Vec::new(),
        Some(Val::Float(f)) if *f == 0.0 => Vec::new(),
        Some(Val::List(items)) => items.iter().map(Cow::Borrowed).collect(),
        Some(Val::Obj(pairs)) => pairs
            .iter()
            .map(|(k, _)| Cow::Owned(Val::Str(Cow::Owned(k.to_string()))))
            .collect(),
        Some(Val::Str(s)) => s
            .chars()
            .map(|c| Cow::Owned(Val::Str(Cow::Owned(c.to_string()))))
            .collect(),
        Some(_) => return None,
    })
}

fn schema_props(
    props: Option<&Val<'_>>,
    place: &str,
    reserved: &[&str],
    pr: &mut impl Sink,
) -> Props {
    let mut out = Props::new();
    let pairs = match props {
        None | Some(Val::Null) => return out,
        Some(Val::Obj(pairs)) => pairs,
        Some(_) => {
            pr.add(|| format!("{place}.properties: not an object of name -> datatype"));
            return out;
        }
    };
    for (name, dtype) in pairs {
        let name: &str = name;
        if !is_identifier(name) {
            pr.add(|| {
                format!(
                    "{place}.properties: {} is not an identifier",
                    Val::Str(Cow::Borrowed(name)).py_repr()
                )
            });
            continue;
        }
        let Some(dt) = dtype.as_str().and_then(Dtype::parse) else {
            pr.add(|| {
                format!(
                    "{place}.properties.{name}: unknown datatype {}",
                    dtype.py_repr()
                )
            });
            continue;
        };
        if reserved.contains(&name) && name != "name" {
            pr.add(|| {
                format!(
                    "{place}.properties.{name}: {} is set by the loader itself",
                    Val::Str(Cow::Borrowed(name)).py_repr()
                )
            });
        } else if name != "name" {
            // CypherBench schemas may list `name`; it is the entity's name
            match out.iter_mut().find(|(n, _)| n == name) {
                Some(slot) => slot.1 = dt,
                None => out.push((name.to_string(), dt)),
            }
        }
    }
    out
}

fn check_props(
    props: Option<&Val<'_>>,
    declared: &Props,
    place: &dyn Fn() -> String,
    owner: &dyn Fn() -> String,
    pr: &mut impl Sink,
) {
    let pairs = match props {
        None | Some(Val::Null) => return,
        Some(Val::Obj(pairs)) => pairs,
        Some(_) => {
            pr.add(|| format!("{}.properties: not an object", place()));
            return;
        }
    };
    for (name, value) in pairs {
        match declared.iter().find(|(n, _)| n == name) {
            None => pr.add(|| {
                format!(
                    "{}.properties.{name}: not declared for {} in the schema",
                    place(),
                    owner()
                )
            }),
            Some((_, dt)) => {
                if *value != Val::Null && !dt.accepts(value) {
                    pr.add(|| {
                        format!(
                            "{}.properties.{name}: {} is not a {}",
                            place(),
                            value.py_repr(),
                            dt.name()
                        )
                    });
                }
            }
        }
    }
}

/// The schema part of the checks: shapes, labels, datatypes, loader-owned keys, duplicates.
pub fn check_schema(schema: Option<&Val<'_>>, pr: &mut impl Sink) -> Schema {
    let mut out = Schema::default();
    let schema = match schema {
        Some(s @ Val::Obj(_)) => Some(s),
        _ => None,
    };
    let ents = py_iter(schema.and_then(|s| s.get("entities")));
    let Some(ents) = ents else {
        pr.add(|| "schema.entities: not a list".to_string());
        return out;
    };
    for (i, ent) in ents.iter().enumerate() {
        let place = format!("schema.entities[{i}]");
        let label = match ent.as_ref() {
            Val::Obj(_) => ent.get("label"),
            _ => None,
        };
        let Some(label) = label.and_then(Val::as_str).filter(|l| is_label(l)) else {
            pr.add(|| {
                format!(
                    "{place}.label: {} is not a label ([A-Za-z0-9_]+)",
                    repr_opt(label)
                )
            });
            continue;
        };
        if out.entity(label).is_some() {
            pr.add(|| {
                format!(
                    "{place}.label: duplicate entity label {}",
                    Val::Str(Cow::Borrowed(label)).py_repr()
                )
            });
        }
        let props = schema_props(ent.get("properties"), &place, ENTITY_META, pr);
        out.set_entity(label, props);
    }
    let rels = py_iter(schema.and_then(|s| s.get("relations")));
    let Some(rels) = rels else {
        pr.add(|| "schema.relations: not a list".to_string());
        out.index_relations();
        return out;
    };
    for (i, rel) in rels.iter().enumerate() {
        let place = format!("schema.relations[{i}]");
        if !matches!(rel.as_ref(), Val::Obj(_)) {
            pr.add(|| format!("{place}: not an object"));
            continue;
        }
        let parts = [
            rel.get("label"),
            rel.get("subj_label"),
            rel.get("obj_label"),
        ];
        let labels: Vec<&str> = parts
            .iter()
            .filter_map(|p| p.and_then(Val::as_str).filter(|l| is_label(l)))
            .collect();
        if labels.len() != 3 {
            pr.add(|| {
                format!(
                    "{place}: label/subj_label/obj_label ({}, {}, {}) are not labels \
                     ([A-Za-z0-9_]+)",
                    repr_opt(parts[0]),
                    repr_opt(parts[1]),
                    repr_opt(parts[2])
                )
            });
            continue;
        }
        let key: RelKey = (
            labels[0].to_string(),
            labels[1].to_string(),
            labels[2].to_string(),
        );
        if out.entity(&key.1).is_none() || out.entity(&key.2).is_none() {
            pr.add(|| {
                format!(
                    "{place}: {} or {} is not a schema entity label",
                    Val::Str(Cow::Borrowed(&key.1)).py_repr(),
                    Val::Str(Cow::Borrowed(&key.2)).py_repr()
                )
            });
        }
        if out.relation_index.contains_key(&key) {
            pr.add(|| format!("{place}: duplicate relation {}", key_repr(&key)));
        }
        let props = schema_props(rel.get("properties"), &place, RELATION_META, pr);
        out.set_relation(key, props);
    }
    out.index_relations();
    out
}

fn key_repr(key: &RelKey) -> String {
    format!(
        "({}, {}, {})",
        Val::Str(Cow::Borrowed(&key.0)).py_repr(),
        Val::Str(Cow::Borrowed(&key.1)).py_repr(),
        Val::Str(Cow::Borrowed(&key.2)).py_repr()
    )
}

/// The label of an entity whose label is not a schema label (the Python loader's `""`).
pub const NO_LABEL: u32 = u32::MAX;

/// The checks of the graph's top level: `schema` an object, `entities` and `relations` lists.
pub fn check_top(
    schema: Option<&Val<'_>>,
    entities_is_list: bool,
    relations_is_list: bool,
    pr: &mut impl Sink,
) {
    if !matches!(schema, Some(Val::Obj(_))) {
        pr.add(|| "schema: missing or not an object".to_string());
    }
    if !entities_is_list {
        pr.add(|| "entities: missing or not a list".to_string());
    }
    if !relations_is_list {
        pr.add(|| "relations: missing or not a list".to_string());
    }
}

/// The identifier of item `i` of the list `what` (`entities` or `relations`): the item must
/// be an object whose field `key` (`eid`, `rid`) is a non-empty string; otherwise one
/// problem is reported and `None` returned.
fn item_id<'v, 'a>(
    i: usize,
    item: &'v Val<'a>,
    what: &str,
    key: &str,
    pr: &mut impl Sink,
) -> Option<&'v Cow<'a, str>> {
    if !matches!(item, Val::Obj(_)) {
        pr.add(|| format!("{what}[{i}]: not an object"));
        return None;
    }
    let val = item.get(key);
    match val {
        Some(Val::Str(id)) if !id.is_empty() => Some(id),
        _ => {
            pr.add(|| {
                format!(
                    "{what}[{i}].{key}: {} is not a non-empty string",
                    repr_opt(val)
                )
            });
            None
        }
    }
}

/// The checks of entity `i`. `register(eid, label)` records the entity's eid with its schema
/// label index (or [`NO_LABEL`]) unless the eid is known, and says whether it was known
/// (a duplicate). Returns the label index of an entity that can be loaded (`None`: the entity
/// had a problem that stops its checks).
pub fn check_entity<'v, 'a>(
    i: usize,
    ent: &'v Val<'a>,
    schema: &Schema,
    pr: &mut impl Sink,
    register: &mut dyn FnMut(&'v Cow<'a, str>, u32) -> bool,
) -> Option<usize> {
    let eid_cow = item_id(i, ent, "entities", "eid", pr)?;
    let label = ent.get("label");
    let eid: &str = eid_cow;
    let place = || format!("entities[{i}] ({eid})");
    let li = label.and_then(Val::as_str).and_then(|l| schema.entity(l));
    if register(eid_cow, li.map_or(NO_LABEL, |l| l as u32)) {
        pr.add(|| {
            format!(
                "{}.eid: duplicate eid {}",
                place(),
                Val::Str(Cow::Borrowed(eid)).py_repr()
            )
        });
    }
    let Some(li) = li else {
        pr.add(|| {
            format!(
                "{}.label: {} is not a schema entity label",
                place(),
                repr_opt(label)
            )
        });
        return None;
    };
    let name = ent.get("name");
    if !matches!(name, Some(Val::Str(_))) {
        pr.add(|| format!("{}.name: {} is not a string", place(), repr_opt(name)));
    }
    for meta in ["aliases", "provenance"] {
        if let Some(v) = ent.get(meta) {
            if !matches!(v, Val::Null) && !Dtype::ListStr.accepts(v) {
                pr.add(|| format!("{}.{meta}: not a list of strings", place()));
            }
        }
    }
    if let Some(d) = ent.get("description") {
        if !matches!(d, Val::Null | Val::Str(_)) {
            pr.add(|| format!("{}.description: {} is not a string", place(), d.py_repr()));
        }
    }
    let label_name = &schema.entities[li].0;
    check_props(
        ent.get("properties"),
        &schema.entities[li].1,
        &place,
        &|| format!("entity label {label_name}"),
        pr,
    );
    Some(li)
}

/// The checks of relation `i`. `seen_rid(rid)` records the rid and says whether it was known;
/// `find(eid)` gives the (label index or [`NO_LABEL`], entity index) of a known eid. Returns the
/// relation key index and the entity indices of both ends of a relation that can be loaded.
pub fn check_relation<'v, 'a>(
    i: usize,
    rel: &'v Val<'a>,
    schema: &Schema,
    pr: &mut impl Sink,
    seen_rid: &mut dyn FnMut(&'v Cow<'a, str>) -> bool,
    find: &dyn Fn(&str) -> Option<(u32, u32)>,
) -> Option<(usize, (u32, u32))> {
    let rid_cow = item_id(i, rel, "relations", "rid", pr)?;
    let rid: &str = rid_cow;
    let place = || format!("relations[{i}] (rid {rid})");
    if seen_rid(rid_cow) {
        pr.add(|| {
            format!(
                "{}.rid: duplicate rid {}",
                place(),
                Val::Str(Cow::Borrowed(rid)).py_repr()
            )
        });
    }
    let (s, o) = (rel.get("subj_id"), rel.get("obj_id"));
    let end = |v: Option<&Val<'_>>| v.and_then(Val::as_str).and_then(find);
    let (se, oe) = (end(s), end(o));
    if se.is_none() {
        pr.add(|| format!("{}.subj_id: no entity with eid {}", place(), repr_opt(s)));
    }
    if oe.is_none() {
        pr.add(|| format!("{}.obj_id: no entity with eid {}", place(), repr_opt(o)));
    }
    let ((sl, si), (ol, oi)) = (se?, oe?);
    let label = rel.get("label");
    let key = match label.and_then(Val::as_str) {
        Some(l) if sl != NO_LABEL && ol != NO_LABEL => schema.relation(l, sl as usize, ol as usize),
        _ => None,
    };
    let Some(key) = key else {
        let label_repr = |l: u32| -> String {
            if l == NO_LABEL {
                "''".to_string()
            } else {
                Val::Str(Cow::Borrowed(&schema.entities[l as usize].0)).py_repr()
            }
        };
        pr.add(|| {
            format!(
                "{}: relation {} from {} to {} is not in the schema",
                place(),
                repr_opt(label),
                label_repr(sl),
                label_repr(ol)
            )
        });
        return None;
    };
    if let Some(v) = rel.get("provenance") {
        if !matches!(v, Val::Null) && !Dtype::ListStr.accepts(v) {
            pr.add(|| format!("{}.provenance: not a list of strings", place()));
        }
    }
    let rel_label = &schema.relations[key].0 .0;
    check_props(
        rel.get("properties"),
        &schema.relations[key].1,
        &place,
        &|| format!("relation {rel_label}"),
        pr,
    );
    Some((key, (si, oi)))
}

/// Validate a graph (SPEC.md §2; the JSON object with `schema`, `entities`, `relations`),
/// sequentially, with messages.
///
/// Returns the problems (empty for a valid graph) with the schema's declared properties and
/// the counts per entity label and relation key. A `graph` that is not an object reads as `{}`.
pub fn validate<'g, 'a>(graph: &'g Val<'a>) -> Checked {
    let mut pr = Problems::default();
    let schema_val = graph.get("schema");
    let no_items: &'g [Val<'a>] = &[];
    let list = |k: &str| -> Option<&'g [Val<'a>]> {
        match graph.get(k) {
            Some(Val::List(items)) => Some(items),
            _ => None,
        }
    };
    let (entities, relations) = (list("entities"), list("relations"));
    check_top(schema_val, entities.is_some(), relations.is_some(), &mut pr);
    let (entities, relations) = (entities.unwrap_or(no_items), relations.unwrap_or(no_items));
    let schema = check_schema(schema_val, &mut pr);

    // eid -> (label index or NO_LABEL, graph index of its first entity)
    let mut eid_label: FxHashMap<&'g str, (u32, u32)> = FxHashMap::default();
    let mut node_counts = vec![0usize; schema.entities.len()];
    for (i, ent) in entities.iter().enumerate() {
        let mut register = |eid: &'g Cow<'a, str>, label: u32| -> bool {
            let mut known = true;
            eid_label.entry(eid).or_insert_with(|| {
                known = false;
                (label, i as u32)
            });
            known
        };
        if let Some(li) = check_entity(i, ent, &schema, &mut pr, &mut register) {
            node_counts[li] += 1;
        }
    }
    let mut seen_rid: FxHashSet<&'g str> = FxHashSet::default();
    let mut relation_counts = vec![0usize; schema.relations.len()];
    for (i, rel) in relations.iter().enumerate() {
        let mut seen = |rid: &'g Cow<'a, str>| -> bool { !seen_rid.insert(rid) };
        let find = |e: &str| eid_label.get(e).copied();
        if let Some((key, _)) = check_relation(i, rel, &schema, &mut pr, &mut seen, &find) {
            relation_counts[key] += 1;
        }
    }
    Checked {
        problems: pr,
        schema,
        node_counts,
        relation_counts,
    }
}

/// The problems as the Python loader's error message lists them (for logs and tests):
/// `"msg1; msg2"`.
pub fn join_problems(p: &Problems) -> String {
    let mut out = String::new();
    for (n, m) in p.items.iter().enumerate() {
        if n > 0 {
            out.push_str("; ");
        }
        let _ = write!(out, "{m}");
    }
    out
}
