//! The CypherBench conversion schema ("WDNeo4jSchema", SPEC.md §1): parsing,
//! validation with JSON paths, and the resolution of `$FROM_RELATION`
//! dependencies into root paths (the original engine's `SPARQLResolver`).

use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashMap};

use super::facts::ItemId;
use super::units::{self, Unit};

/// Datatype of a property value (SPEC.md §1, seed cypherbench.txt Appendix B.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    Str,
    Int,
    Float,
    Bool,
    Date,
    StrList,
    IntList,
    FloatList,
    DateList,
}

impl DataType {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "str" => Self::Str,
            "int" => Self::Int,
            "float" => Self::Float,
            "bool" => Self::Bool,
            "date" => Self::Date,
            "list[str]" => Self::StrList,
            "list[int]" => Self::IntList,
            "list[float]" => Self::FloatList,
            "list[date]" => Self::DateList,
            _ => return None,
        })
    }
    /// The schema spelling (`"list[str]"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Str => "str",
            Self::Int => "int",
            Self::Float => "float",
            Self::Bool => "bool",
            Self::Date => "date",
            Self::StrList => "list[str]",
            Self::IntList => "list[int]",
            Self::FloatList => "list[float]",
            Self::DateList => "list[date]",
        }
    }
    pub fn is_list(self) -> bool {
        matches!(
            self,
            Self::StrList | Self::IntList | Self::FloatList | Self::DateList
        )
    }
    /// The element type of a list type (the type itself for scalars).
    pub fn primitive(self) -> Self {
        match self {
            Self::StrList => Self::Str,
            Self::IntList => Self::Int,
            Self::FloatList => Self::Float,
            Self::DateList => Self::Date,
            t => t,
        }
    }
}

/// Where an entity property value comes from.
#[derive(Debug, Clone)]
pub enum PropSource {
    /// `P<n>`: best-rank values of the property.
    Pid(u32),
    /// `$LINKED_TO(P,Q)`: boolean, true iff the item has `wdt:P wd:Q`.
    LinkedTo(u32, ItemId),
}

/// One property of an entity or relation schema.
#[derive(Debug, Clone)]
pub struct PropSchema {
    pub label: String,
    pub source: PropSource,
    /// Qualifier filters `$LINKED_TO(P,Q)` on the statement (entity properties only).
    pub qualifier_filters: Vec<(u32, ItemId)>,
    pub datatype: DataType,
    /// Target unit resolved through the unit table (QID and entry).
    pub quantity_unit: Option<(String, &'static Unit)>,
    pub quantity_convert_unit: bool,
    pub is_year: bool,
    /// Relation properties: `true` reads `pq:` qualifiers, `false` the `ps:` main value.
    pub is_qualifier: bool,
    pub disable: bool,
}

/// Entity-membership constraint.
#[derive(Debug, Clone)]
pub enum Constraint {
    LinkedTo(u32, ItemId),
    HasProperty(u32),
}

#[derive(Debug, Clone)]
pub struct EntitySchema {
    pub label: String,
    pub class_qid: ItemId,
    pub is_instance: bool,
    pub include_subclasses: bool,
    pub constraints: Vec<Constraint>,
    /// Relation indices named in `$FROM_RELATION(...)`.
    pub from_relation: Vec<usize>,
    pub properties: Vec<PropSchema>,
    pub disable: bool,
}

/// One step of a `wd_source_suffix` property path: `wdt:P<n>` with a modifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathStep {
    pub pid: u32,
    /// `'1'` exactly once, `'*'` zero or more, `'+'` one or more, `'?'` zero or one.
    pub modifier: char,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelSource {
    Pid(u32),
    Identical,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankFilter {
    Highest,
    NonDeprecated,
}

#[derive(Debug, Clone)]
pub struct RelationSchema {
    pub label: String,
    pub subj_label: String,
    pub obj_label: String,
    pub source: RelSource,
    pub suffix: Option<Vec<PathStep>>,
    pub qualifier_pid: Option<u32>,
    pub transitive: bool,
    pub rank: RankFilter,
    pub properties: Vec<PropSchema>,
    pub disable: bool,
}

/// A hop of a `$FROM_RELATION` path from a parent entity class to a child.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// Index of the relation schema.
    pub relation: usize,
    /// `true` when the child is the relation's object (walk subject → object).
    pub forward: bool,
}

/// A validated, resolved schema.
#[derive(Debug, Clone)]
pub struct Schema {
    pub name: String,
    /// Entities in the original engine's topological order (disabled ones included).
    pub entities: Vec<EntitySchema>,
    pub relations: Vec<RelationSchema>,
    /// For each entity (same index as `entities`): its roots (entity indices) and,
    /// per root, the hop paths from the root to it. Empty for root entities.
    pub roots: Vec<Vec<(usize, Vec<Vec<Hop>>)>>,
}

impl Schema {
    pub fn entity_index(&self, label: &str) -> Option<usize> {
        self.entities.iter().position(|e| e.label == label)
    }
}

/// Every problem found in a schema, each as `"<json path>: <message>"`.
#[derive(Debug, Clone)]
pub struct SchemaErrors(pub Vec<String>);

impl std::fmt::Display for SchemaErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid conversion schema ({} problem{}): {}",
            self.0.len(),
            if self.0.len() == 1 { "" } else { "s" },
            self.0.join("; ")
        )
    }
}

struct V {
    errors: Vec<String>,
}

fn is_label(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Fields every entity of the graph has (SPEC.md §2; `kgbench load` stores
/// them beside the properties, kgbench.neo4j.loader.ENTITY_META).
const ENTITY_FIELDS: &[&str] = &["eid", "name", "aliases", "description", "provenance"];
/// Fields every relation has (kgbench.neo4j.loader.RELATION_META).
const RELATION_FIELDS: &[&str] = &["rid", "provenance"];

/// `P<n>` (with `prefix` `'P'`) as a property number (`u32`); `None` otherwise.
fn parse_id(s: &str, prefix: char) -> Option<u32> {
    u32::try_from(parse_qid(s, prefix)?).ok()
}

/// `Q<n>` (with `prefix` `'Q'`) as an item number ([`ItemId`], up to 2⁶⁴ − 1).
fn parse_qid(s: &str, prefix: char) -> Option<ItemId> {
    let rest = s.strip_prefix(prefix)?;
    if rest.is_empty() || !rest.bytes().all(|b| b.is_ascii_digit()) || rest.starts_with('0') {
        return None;
    }
    rest.parse().ok()
}

/// Parse `$NAME(args)` into (NAME, args string).
fn parse_op(s: &str) -> Option<(&str, &str)> {
    let s = s.strip_prefix('$')?;
    let open = s.find('(')?;
    let args = s[open + 1..].strip_suffix(')')?;
    Some((&s[..open], args))
}

fn parse_linked_to(args: &str) -> Option<(u32, ItemId)> {
    let (p, q) = args.split_once(',')?;
    Some((parse_id(p, 'P')?, parse_qid(q, 'Q')?))
}

impl V {
    fn err(&mut self, path: &str, msg: impl std::fmt::Display) {
        self.errors.push(format!("{path}: {msg}"));
    }
    fn check_fields(&mut self, path: &str, obj: &Map<String, Value>, allowed: &[&str]) {
        for k in obj.keys() {
            if !allowed.contains(&k.as_str()) {
                self.err(
                    &format!("{path}.{k}"),
                    format!("unknown field (allowed: {})", allowed.join(", ")),
                );
            }
        }
    }
    fn str_field<'a>(
        &mut self,
        path: &str,
        obj: &'a Map<String, Value>,
        key: &str,
        required: bool,
    ) -> Option<&'a str> {
        match obj.get(key) {
            None | Some(Value::Null) => {
                if required {
                    self.err(&format!("{path}.{key}"), "missing required field");
                }
                None
            }
            Some(Value::String(s)) => Some(s),
            Some(_) => {
                self.err(&format!("{path}.{key}"), "must be a string");
                None
            }
        }
    }
    fn bool_field(
        &mut self,
        path: &str,
        obj: &Map<String, Value>,
        key: &str,
        default: bool,
    ) -> bool {
        match obj.get(key) {
            None => default,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                self.err(&format!("{path}.{key}"), "must be true or false");
                default
            }
        }
    }
    fn array_field<'a>(
        &mut self,
        path: &str,
        obj: &'a Map<String, Value>,
        key: &str,
    ) -> &'a [Value] {
        match obj.get(key) {
            None => &[],
            Some(Value::Array(a)) => a,
            Some(_) => {
                self.err(&format!("{path}.{key}"), "must be a list");
                &[]
            }
        }
    }
    fn label(&mut self, path: &str, obj: &Map<String, Value>) -> String {
        let l = self.str_field(path, obj, "label", true).unwrap_or("");
        if !l.is_empty() && !is_label(l) {
            self.err(
                &format!("{path}.label"),
                format!("{l:?} must match [A-Za-z0-9_]+"),
            );
        }
        l.to_string()
    }

    /// The `properties` array of the entity or relation object `obj` at `path`: each
    /// property checked by [`V::prop`] (the malformed ones left out, with their errors), and
    /// an error for a label that an earlier enabled property already has.
    fn props(&mut self, path: &str, obj: &Map<String, Value>, relation: bool) -> Vec<PropSchema> {
        let mut properties = Vec::new();
        let mut labels: HashMap<String, usize> = HashMap::new();
        for (j, p) in self.array_field(path, obj, "properties").iter().enumerate() {
            let pp = format!("{path}.properties[{j}]");
            if let Some(ps) = self.prop(&pp, p, relation) {
                if !ps.disable && !ps.label.is_empty() {
                    if let Some(k) = labels.insert(ps.label.clone(), j) {
                        self.err(
                            &format!("{pp}.label"),
                            format!(
                                "duplicate property label {:?} (also {path}.properties[{k}]); \
                                 only one property of that name could be kept",
                                ps.label
                            ),
                        );
                    }
                }
                properties.push(ps);
            }
        }
        properties
    }

    fn prop(&mut self, path: &str, v: &Value, relation: bool) -> Option<PropSchema> {
        let Some(obj) = v.as_object() else {
            self.err(path, "must be an object");
            return None;
        };
        let allowed: &[&str] = if relation {
            &[
                "label",
                "wd_source",
                "allow_multiple",
                "is_qualifier",
                "datatype",
                "quantity_unit",
                "quantity_convert_unit",
                "is_year",
                "disable",
            ]
        } else {
            &[
                "label",
                "wd_source",
                "wd_constraints",
                "datatype",
                "quantity_unit",
                "quantity_convert_unit",
                "is_year",
                "disable",
            ]
        };
        self.check_fields(path, obj, allowed);
        let label = self.label(path, obj);
        let reserved: &[&str] = if relation {
            RELATION_FIELDS
        } else {
            ENTITY_FIELDS
        };
        if reserved.contains(&label.as_str()) {
            self.err(
                &format!("{path}.label"),
                format!(
                    "{label:?} is reserved: every {} already has the fields {} (SPEC.md §2), \
                     and `kgbench load` stores them on the same node or relationship; rename the property",
                    if relation { "relation" } else { "entity" },
                    reserved.join(", ")
                ),
            );
        }
        let src = self.str_field(path, obj, "wd_source", true).unwrap_or("");
        let source = if let Some(p) = parse_id(src, 'P') {
            PropSource::Pid(p)
        } else if let (false, Some(("LINKED_TO", args))) = (relation, parse_op(src)) {
            match parse_linked_to(args) {
                Some((p, q)) => PropSource::LinkedTo(p, q),
                None => {
                    self.err(&format!("{path}.wd_source"), format!("malformed {src:?}"));
                    PropSource::Pid(0)
                }
            }
        } else {
            if !src.is_empty() {
                let expected = if relation {
                    "P<n>"
                } else {
                    "P<n> or $LINKED_TO(P<n>,Q<n>)"
                };
                self.err(
                    &format!("{path}.wd_source"),
                    format!("{src:?} is not {expected}"),
                );
            }
            PropSource::Pid(0)
        };
        let mut qualifier_filters = Vec::new();
        if !relation {
            for (i, c) in self
                .array_field(path, obj, "wd_constraints")
                .iter()
                .enumerate()
            {
                let cp = format!("{path}.wd_constraints[{i}]");
                match c.as_str().and_then(parse_op) {
                    Some(("LINKED_TO", args)) => match parse_linked_to(args) {
                        Some(pq) => qualifier_filters.push(pq),
                        None => self.err(&cp, "malformed $LINKED_TO(P<n>,Q<n>)"),
                    },
                    _ => self.err(
                        &cp,
                        "property constraints must be $LINKED_TO(P<n>,Q<n>) (a qualifier filter)",
                    ),
                }
            }
        }
        let dt_str = match obj.get("datatype") {
            None => Some("str"),
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => None,
        };
        let datatype = match dt_str.and_then(DataType::parse) {
            Some(d) => d,
            None => {
                self.err(
                    &format!("{path}.datatype"),
                    "must be one of str, int, float, bool, date, list[str], list[int], list[float], list[date]",
                );
                DataType::Str
            }
        };
        let unit_label = self.str_field(path, obj, "quantity_unit", false);
        let quantity_convert_unit = self.bool_field(path, obj, "quantity_convert_unit", false);
        let is_year = self.bool_field(path, obj, "is_year", false);
        let mut quantity_unit = None;
        if let Some(u) = unit_label {
            if datatype != DataType::Float {
                self.err(
                    &format!("{path}.quantity_unit"),
                    format!(
                        "quantity_unit is only allowed with datatype float (got {})",
                        datatype.as_str()
                    ),
                );
            }
            match units::by_label(u) {
                Some((qid, unit)) => {
                    if let PropSource::Pid(pid) = source {
                        if let Some(dim) = units::property_dimension(pid) {
                            if dim != unit.dim {
                                self.err(
                                    &format!("{path}.quantity_unit"),
                                    format!(
                                        "unit {u:?} measures {}, but P{pid} takes {} \
                                         (Wikidata's allowed units of P{pid})",
                                        unit.dim.as_str(),
                                        dim.as_str()
                                    ),
                                );
                            }
                        }
                    }
                    quantity_unit = Some((qid.to_string(), unit))
                }
                None => self.err(
                    &format!("{path}.quantity_unit"),
                    format!("unknown unit label {u:?} (not in kgbench's unit table)"),
                ),
            }
        }
        if is_year && !matches!(datatype, DataType::Str | DataType::Int) {
            self.err(
                &format!("{path}.is_year"),
                "is_year is only allowed with datatype str or int",
            );
        }
        let is_qualifier = if relation {
            if let Some(v) = obj.get("allow_multiple") {
                if !v.is_boolean() {
                    self.err(&format!("{path}.allow_multiple"), "must be true or false");
                }
            }
            self.bool_field(path, obj, "is_qualifier", true)
        } else {
            false
        };
        let disable = self.bool_field(path, obj, "disable", false);
        Some(PropSchema {
            label,
            source,
            qualifier_filters,
            datatype,
            quantity_unit,
            quantity_convert_unit,
            is_year,
            is_qualifier,
            disable,
        })
    }
}

/// Parse a `wd_source_suffix` such as `"wdt:P131*"` or `"wdt:P361/wdt:P131*"`.
fn parse_suffix(s: &str) -> Option<Vec<PathStep>> {
    let mut steps = Vec::new();
    for part in s.trim().split('/') {
        let part = part.trim();
        let (body, modifier) = match part.chars().last()? {
            c @ ('*' | '+' | '?') => (&part[..part.len() - 1], c),
            _ => (part, '1'),
        };
        let pid = parse_id(body.strip_prefix("wdt:")?, 'P')?;
        steps.push(PathStep { pid, modifier });
    }
    Some(steps)
}

/// Parse and validate a schema given as JSON text. Every problem is reported with
/// its JSON path (`$.entities[2].properties[0].datatype: ...`).
///
/// Errors: unknown fields, malformed ids, bad datatypes, unknown entity labels in
/// relations, duplicate entity labels or (label, subj, obj), duplicate labels of
/// enabled properties of one entity or relation, property labels reserved for
/// the graph's own fields (entities: `eid`, `name`, `aliases`, `description`,
/// `provenance`; relations: `rid`, `provenance`), `quantity_unit` on a
/// non-float, unknown to the unit table, or of another dimension than the
/// property's ([`units::property_dimension`]), `$RAW_SPARQL` (needs a SPARQL endpoint),
/// `$FROM_RELATION` naming unknown relations or forming a cycle, and the original
/// engine's restrictions on transitive / suffixed / qualifier relations.
pub fn parse_schema(text: &str) -> Result<Schema, SchemaErrors> {
    let root: Value = serde_json::from_str(text)
        .map_err(|e| SchemaErrors(vec![format!("$: not valid JSON: {e}")]))?;
    let mut v = V { errors: Vec::new() };
    let Some(obj) = root.as_object() else {
        return Err(SchemaErrors(vec!["$: must be a JSON object".into()]));
    };
    v.check_fields("$", obj, &["name", "entities", "relations"]);
    let name = v
        .str_field("$", obj, "name", true)
        .unwrap_or("")
        .to_string();
    if !obj.contains_key("entities") {
        v.err("$.entities", "missing required field");
    }
    if !obj.contains_key("relations") {
        v.err("$.relations", "missing required field");
    }

    // Relations first (entities refer to them in $FROM_RELATION).
    let mut relations = Vec::new();
    let mut rel_paths = Vec::new();
    for (i, r) in v.array_field("$", obj, "relations").iter().enumerate() {
        let path = format!("$.relations[{i}]");
        let Some(ro) = r.as_object() else {
            v.err(&path, "must be an object");
            continue;
        };
        v.check_fields(
            &path,
            ro,
            &[
                "label",
                "wd_source",
                "wd_source_suffix",
                "wd_qualifier_pid",
                "wd_is_transitive",
                "wd_rank_filter",
                "subj_label",
                "obj_label",
                "properties",
                "wd_sparql",
                "wd_sparql_heads",
                "disable",
            ],
        );
        let label = v.label(&path, ro);
        let subj_label = v
            .str_field(&path, ro, "subj_label", true)
            .unwrap_or("")
            .to_string();
        let obj_label = v
            .str_field(&path, ro, "obj_label", true)
            .unwrap_or("")
            .to_string();
        let src = v.str_field(&path, ro, "wd_source", true).unwrap_or("");
        let source = if src == "$IDENTICAL" {
            RelSource::Identical
        } else if let Some(p) = parse_id(src, 'P') {
            RelSource::Pid(p)
        } else {
            if src.starts_with("$RAW_SPARQL") {
                v.err(
                    &format!("{path}.wd_source"),
                    "$RAW_SPARQL needs a SPARQL endpoint and cannot be evaluated on a dump",
                );
            } else if !src.is_empty() {
                v.err(
                    &format!("{path}.wd_source"),
                    format!("{src:?} is not P<n> or $IDENTICAL"),
                );
            }
            RelSource::Pid(0)
        };
        let suffix = match v.str_field(&path, ro, "wd_source_suffix", false) {
            None => None,
            Some(s) => match parse_suffix(s) {
                Some(steps) => Some(steps),
                None => {
                    v.err(
                        &format!("{path}.wd_source_suffix"),
                        format!("{s:?}: only paths of wdt:P<n> steps joined by '/' with an optional * + ? are supported"),
                    );
                    None
                }
            },
        };
        let qualifier_pid = match v.str_field(&path, ro, "wd_qualifier_pid", false) {
            None => None,
            Some(s) => match parse_id(s, 'P') {
                Some(p) => Some(p),
                None => {
                    v.err(
                        &format!("{path}.wd_qualifier_pid"),
                        format!("{s:?} is not P<n>"),
                    );
                    None
                }
            },
        };
        let transitive = v.bool_field(&path, ro, "wd_is_transitive", false);
        let rank = match ro.get("wd_rank_filter") {
            None => RankFilter::Highest,
            Some(Value::String(s)) if s == "highest" => RankFilter::Highest,
            Some(Value::String(s)) if s == "non_deprecated" => RankFilter::NonDeprecated,
            Some(_) => {
                v.err(
                    &format!("{path}.wd_rank_filter"),
                    "must be \"highest\" or \"non_deprecated\"",
                );
                RankFilter::Highest
            }
        };
        let properties = v.props(&path, ro, true);
        let disable = v.bool_field(&path, ro, "disable", false);
        // The original engine's restrictions (resolver step 4 / model validators).
        if transitive {
            if qualifier_pid.is_some() {
                v.err(
                    &format!("{path}.wd_qualifier_pid"),
                    "not allowed when wd_is_transitive is true",
                );
            }
            if !properties.is_empty() {
                v.err(
                    &format!("{path}.properties"),
                    "a transitive relation cannot have properties",
                );
            }
            if rank == RankFilter::NonDeprecated {
                v.err(
                    &format!("{path}.wd_rank_filter"),
                    "a transitive relation cannot use \"non_deprecated\"",
                );
            }
        } else if suffix.is_some() {
            if !properties.is_empty() {
                v.err(
                    &format!("{path}.properties"),
                    "a relation with wd_source_suffix cannot have properties",
                );
            }
            if rank == RankFilter::NonDeprecated {
                v.err(
                    &format!("{path}.wd_rank_filter"),
                    "a relation with wd_source_suffix cannot use \"non_deprecated\"",
                );
            }
            if qualifier_pid.is_some() {
                v.err(
                    &format!("{path}.wd_qualifier_pid"),
                    "not allowed with wd_source_suffix",
                );
            }
        } else if qualifier_pid.is_some()
            && rank == RankFilter::Highest
            && source != RelSource::Identical
        {
            v.err(
                &format!("{path}.wd_qualifier_pid"),
                "wd_qualifier_pid needs wd_rank_filter \"non_deprecated\" (the original rejects \"highest\")",
            );
        }
        rel_paths.push(path);
        relations.push(RelationSchema {
            label,
            subj_label,
            obj_label,
            source,
            suffix,
            qualifier_pid,
            transitive,
            rank,
            properties,
            disable,
        });
    }

    let mut entities = Vec::new();
    let mut ent_paths = Vec::new();
    for (i, e) in v.array_field("$", obj, "entities").iter().enumerate() {
        let path = format!("$.entities[{i}]");
        let Some(eo) = e.as_object() else {
            v.err(&path, "must be an object");
            continue;
        };
        v.check_fields(
            &path,
            eo,
            &[
                "label",
                "wd_source",
                "wd_is_instance",
                "wd_include_subclasses",
                "wd_constraints",
                "properties",
                "wd_sparql",
                "wd_sparql_roots",
                "disable",
            ],
        );
        let label = v.label(&path, eo);
        let src = v.str_field(&path, eo, "wd_source", true).unwrap_or("");
        let class_qid = match parse_qid(src, 'Q') {
            Some(q) => q,
            None => {
                if !src.is_empty() {
                    v.err(&format!("{path}.wd_source"), format!("{src:?} is not Q<n>"));
                }
                0
            }
        };
        let is_instance = v.bool_field(&path, eo, "wd_is_instance", true);
        let include_subclasses = v.bool_field(&path, eo, "wd_include_subclasses", true);
        if class_qid == 5 && include_subclasses {
            v.err(
                &format!("{path}.wd_include_subclasses"),
                "must be false for Q5 (human), as in the original engine",
            );
        }
        let mut constraints = Vec::new();
        let mut from_relation = Vec::new();
        for (j, c) in v
            .array_field(&path, eo, "wd_constraints")
            .iter()
            .enumerate()
        {
            let cp = format!("{path}.wd_constraints[{j}]");
            let Some(cs) = c.as_str() else {
                v.err(&cp, "must be a string");
                continue;
            };
            match parse_op(cs) {
                Some(("LINKED_TO", args)) => match parse_linked_to(args) {
                    Some((p, q)) => constraints.push(Constraint::LinkedTo(p, q)),
                    None => v.err(&cp, "malformed $LINKED_TO(P<n>,Q<n>)"),
                },
                Some(("HAS_PROPERTY", args)) => match parse_id(args, 'P') {
                    Some(p) => constraints.push(Constraint::HasProperty(p)),
                    None => v.err(&cp, "malformed $HAS_PROPERTY(P<n>)"),
                },
                Some(("RAW_SPARQL", _)) => v.err(
                    &cp,
                    "$RAW_SPARQL needs a SPARQL endpoint and cannot be evaluated on a dump; \
                     express it with $LINKED_TO / $HAS_PROPERTY / $FROM_RELATION",
                ),
                Some(("FROM_RELATION", args)) => {
                    for name in args.split(',') {
                        // `label` or `label#subj#obj`, as in the original.
                        let found: Vec<usize> = relations
                            .iter()
                            .enumerate()
                            .filter(|(_, r)| {
                                r.label == name
                                    || format!("{}#{}#{}", r.label, r.subj_label, r.obj_label) == name
                            })
                            .map(|(k, _)| k)
                            .collect();
                        let exact: Vec<usize> = found
                            .iter()
                            .copied()
                            .filter(|&k| {
                                let r = &relations[k];
                                format!("{}#{}#{}", r.label, r.subj_label, r.obj_label) == name
                            })
                            .collect();
                        let pick = if exact.len() == 1 { exact } else { found };
                        match pick.len() {
                            0 => v.err(&cp, format!("relation {name:?} not found in relations")),
                            1 => {
                                let r = &relations[pick[0]];
                                if r.subj_label != label && r.obj_label != label {
                                    v.err(&cp, format!("entity {label:?} is neither subject nor object of relation {name:?}"));
                                } else if r.source != RelSource::Identical && r.suffix.is_some() && !r.transitive {
                                    // The original ignores the suffix in paths; keep that behaviour.
                                    from_relation.push(pick[0]);
                                } else {
                                    from_relation.push(pick[0]);
                                }
                            }
                            _ => v.err(&cp, format!("several relations are labelled {name:?}; write label#subj_label#obj_label")),
                        }
                    }
                }
                _ => v.err(
                    &cp,
                    format!("{cs:?} is not $LINKED_TO(P,Q), $HAS_PROPERTY(P), $FROM_RELATION(r,...) or $RAW_SPARQL(...)"),
                ),
            }
        }
        let properties = v.props(&path, eo, false);
        let disable = v.bool_field(&path, eo, "disable", false);
        ent_paths.push(path);
        entities.push(EntitySchema {
            label,
            class_qid,
            is_instance,
            include_subclasses,
            constraints,
            from_relation,
            properties,
            disable,
        });
    }

    // Uniqueness and references.
    let mut seen = HashMap::new();
    for (i, e) in entities.iter().enumerate() {
        if let Some(first) = seen.insert(e.label.clone(), i) {
            v.err(
                &format!("{}.label", ent_paths[i]),
                format!(
                    "duplicate entity label {:?} (first at {})",
                    e.label, ent_paths[first]
                ),
            );
        }
    }
    let mut seen_rel = HashMap::new();
    for (i, r) in relations.iter().enumerate() {
        for (field, l) in [("subj_label", &r.subj_label), ("obj_label", &r.obj_label)] {
            if !l.is_empty() && !entities.iter().any(|e| &e.label == l) {
                v.err(
                    &format!("{}.{field}", rel_paths[i]),
                    format!("unknown entity label {l:?}"),
                );
            }
        }
        let key = (r.label.clone(), r.subj_label.clone(), r.obj_label.clone());
        if let Some(first) = seen_rel.insert(key, i) {
            v.err(
                &rel_paths[i],
                format!(
                    "duplicate relation ({}, {}, {}) (first at {})",
                    r.label, r.subj_label, r.obj_label, rel_paths[first]
                ),
            );
        }
        for (j, p) in r.properties.iter().enumerate() {
            if matches!(p.source, PropSource::Pid(0)) {
                continue;
            }
            let _ = j;
        }
    }
    if !v.errors.is_empty() {
        return Err(SchemaErrors(v.errors));
    }

    // Dependency graph: parent -> (hop, child), in the original's insertion order.
    let n = entities.len();
    let idx: HashMap<&str, usize> = entities
        .iter()
        .enumerate()
        .map(|(i, e)| (e.label.as_str(), i))
        .collect();
    let mut g: Vec<Vec<(Option<Hop>, usize)>> = vec![Vec::new(); n];
    let mut g_rev: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (ci, e) in entities.iter().enumerate() {
        for &ri in &e.from_relation {
            let r = &relations[ri];
            let forward = r.obj_label == e.label;
            let parent = idx[if forward {
                r.subj_label.as_str()
            } else {
                r.obj_label.as_str()
            }];
            let hop = if r.source == RelSource::Identical {
                None
            } else {
                Some(Hop {
                    relation: ri,
                    forward,
                })
            };
            if !g[parent].contains(&(hop.clone(), ci)) {
                g[parent].push((hop, ci));
            }
            if !g_rev[ci].contains(&parent) {
                g_rev[ci].push(parent);
            }
        }
    }
    // Kahn's algorithm, queue seeded in schema order (as the original).
    let mut indeg = vec![0usize; n];
    for edges in &g {
        for (_, c) in edges {
            indeg[*c] += 1;
        }
    }
    let mut queue: std::collections::VecDeque<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    let mut order = Vec::new();
    while let Some(x) = queue.pop_front() {
        order.push(x);
        for (_, c) in &g[x] {
            indeg[*c] -= 1;
            if indeg[*c] == 0 {
                queue.push_back(*c);
            }
        }
    }
    if order.len() != n {
        let cyc: BTreeSet<&str> = (0..n)
            .filter(|i| !order.contains(i))
            .map(|i| entities[i].label.as_str())
            .collect();
        return Err(SchemaErrors(vec![format!(
            "$.entities: $FROM_RELATION dependencies form a cycle among {:?}",
            cyc
        )]));
    }
    // LINKED_TO / HAS_PROPERTY not allowed on entities with both incoming and outgoing deps.
    for i in 0..n {
        if !g[i].is_empty() && !g_rev[i].is_empty() && !entities[i].constraints.is_empty() {
            v.err(
                &format!("{}.wd_constraints", ent_paths[i]),
                "$LINKED_TO / $HAS_PROPERTY cannot be applied to an entity with both incoming and outgoing $FROM_RELATION dependencies",
            );
        }
    }
    // Roots and paths.
    let mut roots_of: Vec<Vec<(usize, Vec<Vec<Hop>>)>> = vec![Vec::new(); n];
    for i in 0..n {
        if entities[i].from_relation.is_empty() {
            continue;
        }
        let mut roots = Vec::new();
        let mut visited = vec![false; n];
        fn dfs(g_rev: &[Vec<usize>], x: usize, visited: &mut [bool], out: &mut Vec<usize>) {
            if visited[x] {
                return;
            }
            if g_rev[x].is_empty() {
                out.push(x);
            }
            visited[x] = true;
            for &p in &g_rev[x] {
                dfs(g_rev, p, visited, out);
            }
        }
        dfs(&g_rev, i, &mut visited, &mut roots);
        fn paths(
            g: &[Vec<(Option<Hop>, usize)>],
            src: usize,
            trg: usize,
            cur: &mut Vec<Hop>,
            out: &mut Vec<Vec<Hop>>,
        ) {
            if src == trg {
                out.push(cur.clone());
                return;
            }
            for (hop, c) in &g[src] {
                let pushed = if let Some(h) = hop {
                    cur.push(h.clone());
                    true
                } else {
                    false
                };
                paths(g, *c, trg, cur, out);
                if pushed {
                    cur.pop();
                }
            }
        }
        for r in roots {
            let mut ps = Vec::new();
            paths(&g, r, i, &mut Vec::new(), &mut ps);
            if ps.iter().any(|p| p.is_empty()) {
                v.err(
                    &format!("{}.wd_constraints", ent_paths[i]),
                    format!(
                        "a $FROM_RELATION path of length 0 ($IDENTICAL only) leads from {} to {}",
                        entities[r].label, entities[i].label
                    ),
                );
            }
            roots_of[i].push((r, ps));
        }
    }
    if !v.errors.is_empty() {
        return Err(SchemaErrors(v.errors));
    }
    // Reorder entities topologically, remapping indices in roots.
    let mut pos = vec![0; n];
    for (new, &old) in order.iter().enumerate() {
        pos[old] = new;
    }
    let mut ents = Vec::with_capacity(n);
    let mut roots = Vec::with_capacity(n);
    for &old in &order {
        ents.push(entities[old].clone());
        roots.push(
            roots_of[old]
                .iter()
                .map(|(r, ps)| (pos[*r], ps.clone()))
                .collect(),
        );
    }
    Ok(Schema {
        name,
        entities: ents,
        relations,
        roots,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nba_mini_parses_and_orders() {
        let s = parse_schema(
            r#"{"name":"nba_mini","entities":[
              {"label":"Division","wd_source":"Q3032333","wd_constraints":["$FROM_RELATION(partOfDivision)"]},
              {"label":"Team","wd_source":"Q13393265","wd_constraints":["$LINKED_TO(P118,Q155223)","$HAS_PROPERTY(P361)"],
               "properties":[{"label":"head_coach","wd_source":"P286","datatype":"str"}]}],
             "relations":[{"label":"partOfDivision","wd_source":"P361","subj_label":"Team","obj_label":"Division"}]}"#,
        )
        .unwrap();
        assert_eq!(s.entities[0].label, "Team");
        assert_eq!(s.entities[1].label, "Division");
        assert_eq!(s.roots[1][0].0, 0);
        assert_eq!(
            s.roots[1][0].1,
            vec![vec![Hop {
                relation: 0,
                forward: true
            }]]
        );
    }

    #[test]
    fn errors_carry_json_paths() {
        let e = parse_schema(
            r#"{"name":"x","bogus":1,"entities":[
              {"label":"A","wd_source":"Q1","wd_constraints":["$RAW_SPARQL(?item wdt:P1 ?x)"],
               "properties":[{"label":"h","wd_source":"P2","datatype":"int","quantity_unit":"centimetre"}]}],
             "relations":[{"label":"r","wd_source":"P3","subj_label":"A","obj_label":"B"},
                          {"label":"r","wd_source":"P3","subj_label":"A","obj_label":"B"}]}"#,
        )
        .unwrap_err();
        let all = e.0.join("\n");
        assert!(all.contains("$.bogus: unknown field"), "{all}");
        assert!(
            all.contains("$.entities[0].wd_constraints[0]: $RAW_SPARQL needs a SPARQL endpoint"),
            "{all}"
        );
        assert!(
            all.contains(
                "$.entities[0].properties[0].quantity_unit: quantity_unit is only allowed"
            ),
            "{all}"
        );
        assert!(
            all.contains("$.relations[0].obj_label: unknown entity label \"B\""),
            "{all}"
        );
        assert!(all.contains("$.relations[1]: duplicate relation"), "{all}");
    }

    #[test]
    fn cycles_are_rejected() {
        let e = parse_schema(
            r#"{"name":"x","entities":[
              {"label":"A","wd_source":"Q1","wd_constraints":["$FROM_RELATION(ab)"]},
              {"label":"B","wd_source":"Q2","wd_constraints":["$FROM_RELATION(ab)"]}],
             "relations":[{"label":"ab","wd_source":"P3","subj_label":"A","obj_label":"B"}]}"#,
        )
        .unwrap_err();
        assert!(e.0[0].contains("cycle"), "{:?}", e.0);
    }
}
