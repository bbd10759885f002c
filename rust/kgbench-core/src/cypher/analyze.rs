//! Parser-based analysis of Cypher queries for PIPE-Cypher's governed
//! construction (seed pipe-cypher.txt; `shared/spec/pipe-cypher.md` §3-§4).
//!
//! [`analyze`] parses a query once with the `open-cypher` crate and derives
//! everything the static gates, the diversity selection and the diversity
//! metrics need: the read-only verdict (G1), syntax (G2), the structural
//! features, the query signature, the substructure atoms, the difficulty, an
//! inferred category and the eligibility of the `RETURN DISTINCT` rewrite
//! (G7). [`check`] then applies the schema gates G3-G6 against a graph
//! profile ([`Schema`], the `schema.json` of spec §2). No regular expression
//! ever looks at the Cypher text, so the false positives the spec lists for the
//! original (a colon inside a quoted value, an apostrophe in a name, a write
//! keyword inside a string literal, `IS NOT NULL` and `<>` read as negation)
//! cannot occur.
//!
//! # Definitions (spec §4)
//!
//! - **Signature**: the query's tokens (comments dropped) with string literals
//!   replaced by `<str>`, numbers by `<num>` and variables (every name bound by
//!   a pattern, `WITH`/`RETURN` alias, `UNWIND`, list comprehension, `CALL`
//!   `YIELD`) by `<var>`, joined by single spaces, lower case. This is the
//!   spec's "parser-based variant" of the original's regular-expression
//!   signature.
//! - **Negation**: a `NOT` operator, a `NONE(...)` quantified predicate or a
//!   negated label expression. `IS NOT NULL` and `<>` are not negation.
//! - **Difficulty**: the number of the six features (≥ 2 relationship
//!   patterns, aggregation, `ORDER BY`, negation, `OPTIONAL MATCH`,
//!   variable-length path): 0-1 easy, 2-3 medium, more hard.
//! - **Primary strategy**: path > negation > order_rank > aggregation >
//!   join_heavy > single_hop.
//! - **Category** (inferred from the structure, for task files that carry
//!   none): boolean_existence when the final `RETURN` has one item that is a
//!   comparison, a boolean literal or an `EXISTS`; then path_temporal
//!   (variable-length path, or a temporal function or a date/time/year
//!   property in a predicate); negation_difference; ranking_topk (`ORDER BY` +
//!   `LIMIT`); simple/complex_aggregation and simple/complex_retrieval (complex:
//!   two or more relationship patterns, or several comma-separated or
//!   separately matched patterns).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use open_cypher::ast::visit::{walk_clause, walk_expr, walk_path_factor, Visitor};
use open_cypher::ast::{
    BinaryOperator, CallTarget, Clause, ClauseKind, Expr, ExprKind, LabelExpression,
    LabelExpressionKind, LiteralKind, Name, PathFactor, PathFactorKind, PathPattern,
    ProjectionClause, ProjectionItemKind, QuantifiedPredicateKind, QueryKind,
    RelationshipDirection, SetItemKind, SetQuantifier, StatementKind, UnaryOperator,
};
use open_cypher::{lex, TokenKind};
use serde::{Deserialize, Serialize};

use super::frontend::{with_front, Dialect};
use super::gate::{dotted, dotted_as_written, unparsed_write_clauses};
use super::parse::Parsed;

/// Variable names that PIPE-Cypher's G2 rejects (spec §3).
pub const RESERVED_VARIABLES: &[&str] =
    &["index", "constraint", "create", "drop", "exists", "remove"];

/// Aggregating functions (upper case).
const AGGREGATES: &[&str] = &[
    "COUNT",
    "SUM",
    "AVG",
    "MIN",
    "MAX",
    "COLLECT",
    "STDEV",
    "STDEVP",
    "PERCENTILECONT",
    "PERCENTILEDISC",
];

/// Temporal functions (lower case).
const TEMPORAL_FUNCTIONS: &[&str] = &[
    "date",
    "datetime",
    "localdatetime",
    "localtime",
    "time",
    "duration",
    "date.truncate",
    "datetime.truncate",
];

/// The eight PIPE-Cypher categories (spec §4), in the spec's order.
pub const CATEGORIES: &[&str] = &[
    "simple_retrieval",
    "complex_retrieval",
    "simple_aggregation",
    "complex_aggregation",
    "boolean_existence",
    "negation_difference",
    "path_temporal",
    "ranking_topk",
];

/// One observed relationship pattern: `(start)-[type]->(end)` after flipping
/// incoming arrows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct RelationshipObservation {
    /// A label of the start node (`None`: unlabelled).
    pub start_label: Option<String>,
    /// The relationship type (`None`: untyped).
    pub relationship_type: Option<String>,
    /// A label of the end node.
    pub end_label: Option<String>,
    /// `"out"` (a directed pattern, incoming ones flipped) or `"undirected"`.
    pub direction: &'static str,
}

/// Structural features of a query (spec §4; the original's
/// `structural_features`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Features {
    /// Node labels used in patterns, sorted.
    pub labels: Vec<String>,
    /// Relationship types used in patterns, sorted.
    pub relationship_types: Vec<String>,
    /// Property keys read (`v.p`, pattern maps), sorted.
    pub properties: Vec<String>,
    /// Relationship patterns with resolved end labels, sorted, distinct.
    pub relationship_observations: Vec<RelationshipObservation>,
    pub optional_match: bool,
    pub aggregation: bool,
    pub ordering: bool,
    pub limit: bool,
    pub skip: bool,
    pub negation: bool,
    /// A variable-length relationship, quantified path or shortest path.
    pub path_pattern: bool,
    pub distinct: bool,
    pub union: bool,
    pub case: bool,
    /// A procedure call or `CALL { }` subquery.
    pub call: bool,
    pub unwind: bool,
    /// An `EXISTS { }` subquery or `exists()` call.
    pub exists: bool,
    /// A temporal function, or a date/time/year property in a predicate.
    pub temporal: bool,
    /// Aggregate functions used (upper case), sorted.
    pub aggregates: Vec<String>,
    /// Comparison operators used (`=`, `<>`, `<`, `IN`, `CONTAINS`, ...), sorted.
    pub predicates: Vec<String>,
    /// Procedures called (dotted names).
    pub procedures: Vec<String>,
    pub relationship_pattern_count: usize,
    pub node_pattern_count: usize,
    /// Items of the last `RETURN` (`*` counts 1).
    pub return_arity: usize,
    /// `WHERE` clauses (in `MATCH`, `WITH`, patterns).
    pub where_count: usize,
    /// `MATCH` clauses plus extra comma-separated patterns.
    pub match_parts: usize,
    /// path | negation | order_rank | aggregation | join_heavy | single_hop.
    pub primary_strategy: &'static str,
}

/// A string literal of the query: its value and byte span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StringLiteral {
    pub value: String,
    pub start: usize,
    pub end: usize,
}

/// The G7 rewrite: insert `DISTINCT` after the final `RETURN`.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Rewrite {
    /// Whether the rewrite applies.
    pub eligible: bool,
    /// Why not (`"case"`, `"union"`, `"call"`, `"unwind"`, `"where_exists"`,
    /// `"second_where"`, `"already_distinct"`, `"no_return"`, `"syntax"`).
    pub skip_reason: Option<&'static str>,
    /// The rewritten query when eligible.
    pub cypher: Option<String>,
}

/// Everything [`analyze`] derives from one query.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Analysis {
    pub syntax_valid: bool,
    /// The front end's first error (one line, `Cypher syntax error at byte N:
    /// reason`); `None` when the query parses.
    pub syntax_error: Option<String>,
    /// PIPE-Cypher's G2 policy failure on a query that parses: a reserved
    /// word ([`RESERVED_VARIABLES`]) declared as a variable, which Neo4j
    /// accepts but PIPE-Cypher's G2 rejects (spec §3). `None` otherwise.
    pub policy_error: Option<String>,
    /// G1: write clauses and procedure calls (empty: read-only).
    pub write_clauses: Vec<String>,
    /// Tokens with comments dropped, whitespace collapsed to single spaces.
    pub normalized_cypher: String,
    pub signature: String,
    pub string_literals: Vec<StringLiteral>,
    #[serde(rename = "structural_features")]
    pub features: Features,
    /// Sorted substructure atoms (spec §4).
    pub substructures: Vec<String>,
    /// `primary_strategy + "+" + flags` (or `+plain`).
    pub operator_combination: String,
    pub difficulty: &'static str,
    pub category: &'static str,
    pub rewrite: Rewrite,
    #[serde(skip)]
    facts: Facts,
    /// Whether the front end parsed the query (G1 needs a parse).
    #[serde(skip)]
    pub(crate) parsed: bool,
}

/// Facts kept for the schema gates.
#[derive(Debug, Clone, Default)]
struct Facts {
    /// variable -> labels (node) or types (relationship) bound anywhere.
    labels_of: HashMap<String, BTreeSet<String>>,
    rel_vars: HashSet<String>,
    /// (variable, property) reads.
    property_uses: Vec<(String, String)>,
    /// (variable, property, operator, string values) comparisons with literals.
    comparisons: Vec<(String, String, &'static str, Vec<String>)>,
    /// Raw relationship patterns: (start var/labels, types, end var/labels, direction).
    rels: Vec<RawRel>,
    /// Variables declared anywhere (for G2 reserved names).
    declared: Vec<String>,
    /// Returned property keys of the last RETURN (G6 context columns).
    returned_properties: Vec<(String, String)>,
}

#[derive(Debug, Clone)]
struct RawRel {
    start: End,
    end: End,
    types: Vec<String>,
    direction: RelationshipDirection,
}

#[derive(Debug, Clone, Default)]
struct End {
    var: Option<String>,
    labels: Vec<String>,
}

/// Analyse `query` as a Cypher 5 server reads it ([`analyze_in`]).
#[must_use]
pub fn analyze(query: &str) -> Analysis {
    analyze_in(query, Dialect::default())
}

/// Analyse `query`, parsed by the front end ([`super::frontend`]) for
/// `dialect`. Never panics; an unparseable query has `syntax_valid == false`
/// (the front end's one-line error in `syntax_error`), never passes G1, has the
/// write clauses the front end finds in unparsed text, and the token-level
/// normalisation and signature. Spans (string literals, the G7 rewrite)
/// index `query` as given, escapes included.
#[must_use]
pub fn analyze_in(query: &str, dialect: Dialect) -> Analysis {
    let parsed = with_front(query, dialect, |front| {
        let mut c = Collector::default();
        c.walk(front.parsed, 0);
        c.finish();
        for literal in &mut c.literals {
            literal.start = front.source.original_offset(literal.start);
            literal.end = front.source.original_offset(literal.end);
        }
        if let Some((start, ..)) = &mut c.last_return {
            *start = front.source.original_offset(*start);
        }
        (c, front.write_clauses())
    });
    let (collector, writes, syntax_error) = match parsed {
        Ok((c, w)) => (Some(c), w, None),
        Err(err) => (None, unparsed_write_clauses(query), Some(err.to_string())),
    };
    let mut a = Analysis {
        syntax_valid: syntax_error.is_none(),
        parsed: syntax_error.is_none(),
        syntax_error,
        write_clauses: writes,
        ..Analysis::default()
    };
    let variables: HashSet<String> = collector
        .as_ref()
        .map(|c| c.facts.declared.iter().cloned().collect())
        .unwrap_or_default();
    let (normalized, signature) = normalize(query, &variables);
    a.normalized_cypher = normalized;
    a.signature = signature;
    let Some(c) = collector else {
        a.rewrite.skip_reason = Some("syntax");
        a.difficulty = "easy";
        a.category = "simple_retrieval";
        a.features.primary_strategy = "single_hop";
        a.operator_combination = "single_hop+plain".into();
        return a;
    };
    if let Some(bad) = c
        .facts
        .declared
        .iter()
        .find(|v| RESERVED_VARIABLES.contains(&v.to_ascii_lowercase().as_str()))
    {
        a.policy_error = Some(format!(
            "reserved word `{bad}` as a variable name (PIPE-Cypher G2 policy)"
        ));
    }
    for p in &c.features.procedures {
        let clause = format!("CALL {p}");
        if !a.write_clauses.contains(&clause) {
            a.write_clauses.push(clause);
        }
    }
    a.rewrite = rewrite(query, &c);
    a.string_literals = c.literals.clone();
    a.features = c.features;
    a.facts = c.facts;
    a.substructures = substructures(&a.features);
    a.operator_combination = operator_combination(&a.features);
    a.difficulty = difficulty(&a.features);
    a.category = category(&a.features, c.boolean_return);
    a
}

impl Analysis {
    /// Whether G1 passes: the query parses (an unparseable query is never
    /// read-only), no write clause and no procedure call outside
    /// `allowed_procedures` (PIPE-Cypher's allow-list, empty by default).
    #[must_use]
    pub fn read_only(&self, allowed_procedures: &[String]) -> bool {
        self.parsed
            && self.write_clauses.iter().all(|w| {
                w.strip_prefix("CALL ")
                    .is_some_and(|name| allowed_procedures.iter().any(|a| a == name))
            })
    }
}

/// A graph profile (`schema.json`, spec §2) as the schema gates read it.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Schema {
    #[serde(default)]
    pub node_properties: Vec<NodeProperty>,
    #[serde(default)]
    pub relationship_properties: Vec<RelationshipProperty>,
    #[serde(default)]
    pub relationships: Vec<SchemaRelationship>,
    /// `"Label.property"` -> its values.
    #[serde(default)]
    pub categorical_properties: BTreeMap<String, Vec<String>>,
    /// kgbench addition: returned property -> properties that must be
    /// returned with it (G6). Default: PIPE-Cypher's FinBench rule
    /// (`accountId` needs `accountType` and `isBlocked`).
    #[serde(default = "default_context_columns")]
    pub context_columns: BTreeMap<String, Vec<String>>,
}

fn default_context_columns() -> BTreeMap<String, Vec<String>> {
    BTreeMap::from([(
        "accountId".to_string(),
        vec!["accountType".to_string(), "isBlocked".to_string()],
    )])
}

#[derive(Debug, Clone, Deserialize)]
pub struct NodeProperty {
    pub label: String,
    pub property: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RelationshipProperty {
    #[serde(rename = "type")]
    pub rel_type: String,
    pub property: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SchemaRelationship {
    pub start_label: String,
    #[serde(rename = "type")]
    pub rel_type: String,
    pub end_label: String,
}

/// A gate finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// `"error"` or `"warning"`.
    pub level: &'static str,
    /// Stable code, e.g. `unknown_label`, `wrong_direction`.
    pub code: &'static str,
    pub message: String,
}

/// The schema tables the gates look up.
#[derive(Debug, Default)]
pub struct SchemaIndex {
    labels: HashSet<String>,
    types: HashSet<String>,
    props_of: HashMap<String, HashSet<String>>,
    /// start label -> type -> end labels.
    triples: HashMap<String, HashMap<String, HashSet<String>>>,
    /// label -> property -> values.
    categorical: HashMap<String, HashMap<String, HashSet<String>>>,
    context: BTreeMap<String, Vec<String>>,
}

impl SchemaIndex {
    /// Whether `(start)-[:rel_type]->(end)` is a relationship pattern of the schema.
    fn has_triple(&self, start: &str, rel_type: &str, end: &str) -> bool {
        self.triples
            .get(start)
            .and_then(|t| t.get(rel_type))
            .is_some_and(|ends| ends.contains(end))
    }

    /// Index a [`Schema`]. Labels and types come from all three lists.
    #[must_use]
    pub fn new(schema: &Schema) -> Self {
        let mut s = SchemaIndex {
            context: schema.context_columns.clone(),
            ..Self::default()
        };
        for p in &schema.node_properties {
            s.labels.insert(p.label.clone());
            s.props_of
                .entry(p.label.clone())
                .or_default()
                .insert(p.property.clone());
        }
        for p in &schema.relationship_properties {
            let t = p
                .rel_type
                .trim_matches(|c| c == ':' || c == '`')
                .to_string();
            s.types.insert(t.clone());
            s.props_of.entry(t).or_default().insert(p.property.clone());
        }
        for r in &schema.relationships {
            s.labels.insert(r.start_label.clone());
            s.labels.insert(r.end_label.clone());
            s.types.insert(r.rel_type.clone());
            s.triples
                .entry(r.start_label.clone())
                .or_default()
                .entry(r.rel_type.clone())
                .or_default()
                .insert(r.end_label.clone());
        }
        for (key, values) in &schema.categorical_properties {
            if let Some((label, prop)) = key.split_once('.') {
                s.categorical
                    .entry(label.to_string())
                    .or_default()
                    .insert(prop.to_string(), values.iter().cloned().collect());
            }
        }
        s
    }
}

/// The gates G3-G6 on an analysed query (spec §3). `entity_values`: the
/// values the question was grounded with (G5); when empty, the query's own
/// string literals that occur in `question` are used. Returns the findings;
/// G3 passes when none is an error with a `schema`-gate code (see
/// the issue levels).
#[must_use]
pub fn check(
    a: &Analysis,
    schema: &SchemaIndex,
    question: &str,
    entity_values: &[String],
) -> Vec<Issue> {
    let mut issues = Vec::new();
    if !a.syntax_valid {
        return issues;
    }
    let err = |code: &'static str, message: String| Issue {
        level: "error",
        code,
        message,
    };
    let f = &a.facts;
    // G3: labels and types exist.
    // A dynamic label or type (`$(expr)`) is known only when the query runs.
    for label in &a.features.labels {
        if !label.starts_with('$') && !schema.labels.contains(label) {
            issues.push(err(
                "unknown_label",
                format!("label `{label}` is not in the schema"),
            ));
        }
    }
    for t in &a.features.relationship_types {
        if !t.starts_with('$') && !schema.types.contains(t) {
            issues.push(err(
                "unknown_relationship_type",
                format!("relationship type `{t}` is not in the schema"),
            ));
        }
    }
    // G3: each variable's properties belong to one of its labels / types.
    let mut seen: HashSet<(&str, &str)> = HashSet::new();
    for (var, prop) in &f.property_uses {
        if !seen.insert((var, prop)) {
            continue;
        }
        let Some(owners) = f.labels_of.get(var) else {
            continue;
        };
        let known: Vec<&String> = owners
            .iter()
            .filter(|o| schema.props_of.contains_key(*o))
            .collect();
        if known.is_empty() {
            continue;
        }
        if !known.iter().any(|o| schema.props_of[*o].contains(prop)) {
            let owner = owners.iter().cloned().collect::<Vec<_>>().join("|");
            issues.push(err(
                "unknown_property",
                format!("property `{prop}` of `{var}` does not belong to `{owner}`"),
            ));
        }
    }
    // G3: categorical literals.
    for (var, prop, op, values) in &f.comparisons {
        if !matches!(*op, "=" | "<>" | "IN") {
            continue;
        }
        let Some(owners) = f.labels_of.get(var) else {
            continue;
        };
        for owner in owners {
            let Some(allowed) = schema.categorical.get(owner).and_then(|p| p.get(prop)) else {
                continue;
            };
            for v in values {
                if !allowed.contains(v) {
                    issues.push(err(
                        "unknown_categorical_value",
                        format!("`{owner}.{prop}` has no value {v:?}"),
                    ));
                }
            }
        }
    }
    // G4: direction.
    for rel in &f.rels {
        if matches!(
            rel.direction,
            RelationshipDirection::Undirected | RelationshipDirection::Both
        ) {
            issues.push(err(
                "undirected_relationship",
                "undirected relationship pattern".to_string(),
            ));
            continue;
        }
        let (s, e) = if rel.direction == RelationshipDirection::Left {
            (&rel.end, &rel.start)
        } else {
            (&rel.start, &rel.end)
        };
        let sl = end_labels(s, f);
        let el = end_labels(e, f);
        let dynamic = |names: &[String]| names.iter().any(|n| n.starts_with('$'));
        if sl.is_empty()
            || el.is_empty()
            || rel.types.is_empty()
            || dynamic(&sl)
            || dynamic(&el)
            || dynamic(&rel.types)
        {
            continue;
        }
        for t in &rel.types {
            if sl
                .iter()
                .any(|a| el.iter().any(|b| schema.has_triple(a, t, b)))
            {
                continue;
            }
            let back = sl
                .iter()
                .any(|a| el.iter().any(|b| schema.has_triple(b, t, a)));
            let triple = format!("({})-[:{t}]->({})", join(&sl), join(&el));
            if back {
                issues.push(err(
                    "wrong_direction",
                    format!("{triple} exists only the other way"),
                ));
            } else {
                issues.push(Issue {
                    level: "warning",
                    code: "unknown_triple",
                    message: format!("{triple} is not in the schema either way"),
                });
            }
        }
    }
    // G5: question values against the query's literals.
    let literal_values: HashSet<&str> =
        a.string_literals.iter().map(|l| l.value.as_str()).collect();
    let values: Vec<&str> = if entity_values.is_empty() {
        let mut v: Vec<&str> = a
            .string_literals
            .iter()
            .map(|l| l.value.as_str())
            .filter(|v| !v.is_empty() && question.contains(*v))
            .collect();
        v.dedup();
        v
    } else {
        entity_values.iter().map(String::as_str).collect()
    };
    for v in values {
        let contains = f.comparisons.iter().any(|(_, _, op, vals)| {
            matches!(*op, "CONTAINS" | "STARTS WITH" | "ENDS WITH")
                && vals.iter().any(|x| x == v || v.contains(x.as_str()))
        });
        if contains {
            issues.push(err("contains_on_value", format!("question value {v:?} is matched with CONTAINS/STARTS WITH/ENDS WITH instead of equality")));
        } else if !literal_values.contains(v) {
            issues.push(Issue {
                level: "warning",
                code: "value_not_literal",
                message: format!("question value {v:?} is not an exact literal of the query"),
            });
        }
    }
    // G6: context columns.
    let returned: HashSet<&str> = f
        .returned_properties
        .iter()
        .map(|(_, p)| p.as_str())
        .collect();
    for (prop, needs) in &schema.context {
        if returned.contains(prop.as_str()) {
            let missing: Vec<&str> = needs
                .iter()
                .map(String::as_str)
                .filter(|n| !returned.contains(n))
                .collect();
            if !missing.is_empty() {
                issues.push(Issue {
                    level: "warning",
                    code: "missing_context_columns",
                    message: format!("returns `{prop}` without {}", missing.join(", ")),
                });
            }
        }
    }
    issues
}

/// An analysis with PIPE-Cypher's static gate verdicts; serialises as one
/// flat JSON object (the analysis fields plus `read_only`, `schema_valid`
/// and `issues`).
#[derive(Debug, Clone, Serialize)]
pub struct GateRecord {
    #[serde(flatten)]
    pub analysis: Analysis,
    /// G1 with the allow-list.
    pub read_only: bool,
    /// G2: parses and passes PIPE-Cypher's reserved-name policy
    /// (`syntax_valid` and no `policy_error`).
    pub g2_valid: bool,
    /// G2-G5: parses and no schema-gate error.
    pub schema_valid: bool,
    /// G1/G2 errors (`not_read_only`, `syntax`), then the [`check`] findings.
    pub issues: Vec<Issue>,
}

/// The static gates G1-G6 of one query: [`analyze_in`] for `dialect`, G1
/// with `allowed_procedures`, and with a schema [`check`] (`question` and
/// `entity_values` feed G5).
#[must_use]
pub fn static_gates(
    query: &str,
    schema: Option<&SchemaIndex>,
    question: &str,
    entity_values: &[String],
    allowed_procedures: &[String],
    dialect: Dialect,
) -> GateRecord {
    let analysis = analyze_in(query, dialect);
    let read_only = analysis.read_only(allowed_procedures);
    let mut issues: Vec<Issue> = Vec::new();
    if let Some(err) = &analysis.syntax_error {
        issues.push(Issue {
            level: "error",
            code: "syntax",
            message: err.clone(),
        });
    }
    if let Some(err) = &analysis.policy_error {
        issues.push(Issue {
            level: "error",
            code: "syntax",
            message: err.clone(),
        });
    }
    // An unparseable query without write clauses fails G1 too (never
    // `read_only: true`); its `syntax` issue is the reason given.
    if !read_only && !analysis.write_clauses.is_empty() {
        issues.push(Issue {
            level: "error",
            code: "not_read_only",
            message: format!(
                "write clause(s) or procedure call(s): {}",
                analysis.write_clauses.join(", ")
            ),
        });
    }
    let mut schema_valid = analysis.syntax_valid && analysis.policy_error.is_none();
    if let Some(schema) = schema {
        let found = check(&analysis, schema, question, entity_values);
        schema_valid = schema_valid && !found.iter().any(|x| x.level == "error");
        issues.extend(found);
    }
    let g2_valid = analysis.syntax_valid && analysis.policy_error.is_none();
    GateRecord {
        analysis,
        read_only,
        g2_valid,
        schema_valid,
        issues,
    }
}

fn join(labels: &[String]) -> String {
    labels.join("|")
}

fn end_labels(end: &End, facts: &Facts) -> Vec<String> {
    if !end.labels.is_empty() {
        return end.labels.clone();
    }
    end.var
        .as_ref()
        .and_then(|v| facts.labels_of.get(v))
        .map(|s| s.iter().cloned().collect())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------
// Token-level normalisation and signature

/// The normalised text and the signature.
fn normalize(query: &str, variables: &HashSet<String>) -> (String, String) {
    let tokens = lex(query).tokens;
    let mut norm = String::with_capacity(query.len());
    let mut sig = String::with_capacity(query.len());
    let mut gap = false;
    for t in &tokens {
        if t.is_trivia() {
            gap = true;
            continue;
        }
        let text = &query[t.span.start..t.span.end];
        if gap && !norm.is_empty() {
            norm.push(' ');
        }
        gap = false;
        norm.push_str(text);
        if !sig.is_empty() {
            sig.push(' ');
        }
        match t.kind {
            TokenKind::String => sig.push_str("<str>"),
            TokenKind::Integer
            | TokenKind::HexInteger
            | TokenKind::OctalInteger
            | TokenKind::Float => {
                sig.push_str("<num>");
            }
            TokenKind::Identifier | TokenKind::EscapedIdentifier | TokenKind::Keyword(_)
                if variables.contains(unescape(text).as_ref()) =>
            {
                sig.push_str("<var>");
            }
            _ => sig.push_str(&text.to_lowercase()),
        }
    }
    (norm, sig)
}

fn unescape(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() >= 2 && text.starts_with('`') && text.ends_with('`') {
        std::borrow::Cow::Owned(text[1..text.len() - 1].replace("``", "`"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

// ---------------------------------------------------------------------------
// The AST walk

#[derive(Default)]
struct Collector {
    features: Features,
    facts: Facts,
    literals: Vec<StringLiteral>,
    labels: BTreeSet<String>,
    types: BTreeSet<String>,
    properties: BTreeSet<String>,
    aggregates: BTreeSet<String>,
    predicates: BTreeSet<String>,
    /// Byte offset of the enclosing text in the top-level query.
    base: usize,
    /// Depth of pattern expressions / subqueries (patterns there still count).
    last_return: Option<(usize, usize, bool)>,
    /// Whether the final RETURN is one boolean-valued item.
    boolean_return: bool,
    has_where_exists: bool,
    /// Span starts of the `CALL k()` placeholders of the text being walked.
    placeholders: HashSet<usize>,
    /// The text being walked (names are read from it at their spans).
    src: String,
    /// Walking a body cut out of an expression (a pattern predicate parsed as
    /// `RETURN <predicate>`, a pattern-form subquery as `MATCH <pattern>`):
    /// its clauses are no clauses of the query.
    in_expression: bool,
}

impl Collector {
    /// A name as written (see [`name_in`]).
    fn name(&self, n: &Name) -> String {
        name_in(&self.src, n)
    }

    fn walk(&mut self, parsed: &Parsed, base: usize) {
        let saved = (
            self.base,
            std::mem::take(&mut self.placeholders),
            std::mem::replace(&mut self.src, parsed.text.clone()),
            self.in_expression,
        );
        self.base = base;
        self.placeholders = parsed
            .subqueries
            .iter()
            .map(|s| s.clause_start)
            .chain(parsed.clause_forms.iter().map(|(at, _)| *at))
            .collect();
        for st in &parsed.program.program.statements {
            if let StatementKind::Query(q) = &st.kind {
                if let QueryKind::Regular(r) = &q.query.kind {
                    if !r.unions.is_empty() {
                        self.features.union = true;
                    }
                }
            }
        }
        self.visit_program(&parsed.program.program);
        for sub in &parsed.subqueries {
            self.features.call = true;
            self.walk(&sub.body, base + sub.body_offset);
        }
        for sub in &parsed.expression_subqueries {
            self.in_expression = true;
            if sub.body.text.starts_with("RETURN") {
                // A pattern predicate `(n WHERE ...)`, blanked in this text.
                self.features.where_count += 1;
            }
            self.walk(&sub.body, base + sub.body_offset);
            self.in_expression = saved.3;
        }
        (self.base, self.placeholders, self.src, self.in_expression) = saved;
    }

    fn declare(&mut self, name: &str) {
        self.facts.declared.push(name.to_string());
    }

    fn projection(&mut self, p: &ProjectionClause, is_return: bool, span_start: usize) {
        let distinct = matches!(
            p.quantifier.as_ref().map(|q| q.kind),
            Some(SetQuantifier::Distinct)
        );
        if distinct {
            self.features.distinct = true;
        }
        if p.order_by.is_some() {
            self.features.ordering = true;
        }
        if p.limit.is_some() {
            self.features.limit = true;
        }
        if p.skip.is_some() || p.offset.is_some() {
            self.features.skip = true;
        }
        for item in &p.items {
            if let ProjectionItemKind::Expression { alias: Some(a), .. } = &item.kind {
                self.declare(&self.name(a));
            }
        }
        if is_return {
            self.features.return_arity = p.items.len();
            self.last_return = Some((self.base + span_start, p.items.len(), distinct));
            self.facts.returned_properties.clear();
            self.boolean_return = false;
            for item in &p.items {
                if let ProjectionItemKind::Expression { expression, .. } = &item.kind {
                    if let ExprKind::Property {
                        expression: inner,
                        key,
                    } = &expression.kind
                    {
                        if let ExprKind::Variable(v) = &inner.kind {
                            self.facts
                                .returned_properties
                                .push((self.name(v), self.name(key)));
                        }
                    }
                }
            }
            if let [item] = p.items.as_slice() {
                if let ProjectionItemKind::Expression { expression, .. } = &item.kind {
                    self.boolean_return = is_boolean_expr(expression);
                }
            }
        }
    }

    fn path(&mut self, path: &PathPattern) {
        let mut prev: Option<End> = None;
        let mut pending: Option<(Vec<String>, RelationshipDirection)> = None;
        for factor in &path.kind.factors {
            match &factor.kind {
                PathFactorKind::Node(n) | PathFactorKind::QuantifiedNode { pattern: n, .. } => {
                    self.features.node_pattern_count += 1;
                    let labels = n
                        .labels
                        .as_ref()
                        .map(|l| label_names(l, &self.src))
                        .unwrap_or_default();
                    self.labels.extend(labels.iter().cloned());
                    let var = n.variable.as_ref().map(|v| self.name(v));
                    if let Some(v) = &var {
                        self.declare(v);
                        self.facts
                            .labels_of
                            .entry(v.clone())
                            .or_default()
                            .extend(labels.iter().cloned());
                        if let Some(props) = &n.properties {
                            self.map_props(v, props);
                        }
                    }
                    let end = End { var, labels };
                    if let (Some((types, direction)), Some(start)) = (pending.take(), prev.take()) {
                        self.facts.rels.push(RawRel {
                            start,
                            end: end.clone(),
                            types,
                            direction,
                        });
                    }
                    prev = Some(end);
                }
                PathFactorKind::Relationship(r) => {
                    self.features.relationship_pattern_count += 1;
                    if r.legacy_quantifier.is_some() || r.graph_quantifier.is_some() {
                        self.features.path_pattern = true;
                    }
                    let types = r
                        .labels
                        .as_ref()
                        .map(|l| label_names(l, &self.src))
                        .unwrap_or_default();
                    self.types.extend(types.iter().cloned());
                    if let Some(v) = &r.variable {
                        let v = self.name(v);
                        self.declare(&v);
                        self.facts.rel_vars.insert(v.clone());
                        self.facts
                            .labels_of
                            .entry(v.clone())
                            .or_default()
                            .extend(types.iter().cloned());
                        if let Some(props) = &r.properties {
                            self.map_props(&v, props);
                        }
                    }
                    pending = Some((types, r.direction.kind));
                }
                PathFactorKind::Parenthesized { quantifier, .. }
                | PathFactorKind::Subpath { quantifier, .. } => {
                    if quantifier.is_some() {
                        self.features.path_pattern = true;
                    }
                    if let PathFactorKind::Subpath { binding, .. } = &factor.kind {
                        self.declare(&self.name(binding));
                    }
                    prev = None;
                    pending = None;
                }
                PathFactorKind::LegacyShortest { .. } => {
                    self.features.path_pattern = true;
                    prev = None;
                    pending = None;
                }
                _ => {
                    prev = None;
                    pending = None;
                }
            }
        }
    }

    fn map_props(&mut self, var: &str, props: &Expr) {
        if let ExprKind::Map(entries) = &props.kind {
            for e in entries {
                let key = self.name(&e.key);
                self.facts
                    .property_uses
                    .push((var.to_string(), key.clone()));
                if let ExprKind::Literal(l) = &e.value.kind {
                    if let LiteralKind::String(s) = &l.kind {
                        self.facts.comparisons.push((
                            var.to_string(),
                            key,
                            "=",
                            vec![s.value.clone()],
                        ));
                    }
                }
            }
        }
    }

    fn comparison(&mut self, left: &Expr, op: BinaryOperator, right: &Expr) {
        let name: &'static str = match op {
            BinaryOperator::Equal => "=",
            BinaryOperator::NotEqual => "<>",
            BinaryOperator::Less => "<",
            BinaryOperator::LessEqual => "<=",
            BinaryOperator::Greater => ">",
            BinaryOperator::GreaterEqual => ">=",
            BinaryOperator::In => "IN",
            BinaryOperator::Contains => "CONTAINS",
            BinaryOperator::StartsWith => "STARTS WITH",
            BinaryOperator::EndsWith => "ENDS WITH",
            BinaryOperator::RegexMatch => "=~",
            _ => return,
        };
        self.predicates.insert(name.to_string());
        for side in [left, right] {
            if let ExprKind::Property { key, .. } = &strip(side).kind {
                if is_temporal_name(&self.name(key)) {
                    self.features.temporal = true;
                }
            }
        }
        let (prop, lit) = match (&strip(left).kind, &strip(right).kind) {
            (ExprKind::Property { .. }, _) => (strip(left), strip(right)),
            (_, ExprKind::Property { .. }) if op != BinaryOperator::In => {
                (strip(right), strip(left))
            }
            _ => return,
        };
        let ExprKind::Property { expression, key } = &prop.kind else {
            return;
        };
        let ExprKind::Variable(var) = &strip(expression).kind else {
            return;
        };
        let values: Vec<String> = match &lit.kind {
            ExprKind::Literal(l) => match &l.kind {
                LiteralKind::String(s) => vec![s.value.clone()],
                _ => return,
            },
            ExprKind::List(items) => items
                .iter()
                .filter_map(|i| match &i.kind {
                    ExprKind::Literal(l) => match &l.kind {
                        LiteralKind::String(s) => Some(s.value.clone()),
                        _ => None,
                    },
                    _ => None,
                })
                .collect(),
            _ => return,
        };
        if !values.is_empty() {
            self.facts
                .comparisons
                .push((self.name(var), self.name(key), name, values));
        }
    }
}

fn strip(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Parenthesized(inner) => strip(inner),
        _ => e,
    }
}

fn is_temporal_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("date") || n.contains("time") || n.contains("year")
}

fn is_boolean_expr(e: &Expr) -> bool {
    match &strip(e).kind {
        ExprKind::Binary { operator, .. } => matches!(
            operator.kind,
            BinaryOperator::Equal
                | BinaryOperator::NotEqual
                | BinaryOperator::Less
                | BinaryOperator::LessEqual
                | BinaryOperator::Greater
                | BinaryOperator::GreaterEqual
                | BinaryOperator::And
                | BinaryOperator::Or
                | BinaryOperator::Xor
                | BinaryOperator::In
                | BinaryOperator::Contains
                | BinaryOperator::StartsWith
                | BinaryOperator::EndsWith
                | BinaryOperator::RegexMatch
        ),
        ExprKind::Is { .. } | ExprKind::QuantifiedPredicate(_) | ExprKind::Pattern(_) => true,
        ExprKind::Unary { operator, .. } => operator.kind == UnaryOperator::Not,
        ExprKind::Literal(l) => matches!(l.kind, LiteralKind::Boolean(_)),
        ExprKind::Subquery(s) => s.kind.kind == open_cypher::ast::SubqueryExpressionKind::Exists,
        _ => false,
    }
}

fn label_names(expr: &LabelExpression, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    fn go(e: &LabelExpression, src: &str, out: &mut Vec<String>) {
        match &e.kind {
            LabelExpressionKind::Name(n) => out.push(name_in(src, n)),
            LabelExpressionKind::And(v) | LabelExpressionKind::Or(v) => {
                v.iter().for_each(|x| go(x, src, out))
            }
            LabelExpressionKind::Parenthesized(x) => go(x, src, out),
            _ => {}
        }
    }
    go(expr, src, &mut out);
    out
}

/// A name as written at its span of `src` (the tree holds renamed keywords,
/// see [`super::neo4j5::neutralize_names`]); escaped names as decoded; a
/// dynamic label or type (`$(expr)`, `$any(expr)`, `$all(expr)`, parsed as an
/// escaped placeholder, [`super::gql`]) as its expression is written.
fn name_in(src: &str, n: &Name) -> String {
    if n.kind.escaped {
        return match src.get(n.span.start..n.span.end) {
            Some(text) if text.starts_with('$') => text.to_string(),
            _ => n.kind.text.clone(),
        };
    }
    match src.get(n.span.start..n.span.end) {
        Some(text) if text.len() == n.kind.text.len() => text.to_string(),
        _ => n.kind.text.clone(),
    }
}

fn has_negated_label(expr: &LabelExpression) -> bool {
    match &expr.kind {
        LabelExpressionKind::Not(_) => true,
        LabelExpressionKind::And(v) | LabelExpressionKind::Or(v) => v.iter().any(has_negated_label),
        LabelExpressionKind::Parenthesized(x) => has_negated_label(x),
        _ => false,
    }
}

impl<'ast> Visitor<'ast> for Collector {
    fn visit_clause(&mut self, node: &'ast Clause) {
        match &node.kind {
            ClauseKind::Match(m) if !self.in_expression => {
                self.features.match_parts += m.pattern.parts.len();
                if m.optional {
                    self.features.optional_match = true;
                }
                if let Some(w) = &m.where_clause {
                    self.features.where_count += 1;
                    if contains_exists(w) {
                        self.has_where_exists = true;
                    }
                }
            }
            ClauseKind::Unwind(u) => {
                self.features.unwind = true;
                self.declare(&self.name(&u.variable));
            }
            ClauseKind::With(w) => {
                if let Some(wh) = &w.where_clause {
                    self.features.where_count += 1;
                    if contains_exists(wh) {
                        self.has_where_exists = true;
                    }
                }
                self.projection(&w.projection, false, node.span.start);
            }
            // A `SET` at a rewritten form's start stands for `LET x = e, ...`
            // (super::gql; no other form becomes a SET): each `x` is declared.
            ClauseKind::Set(set) if self.placeholders.contains(&node.span.start) => {
                for item in &set.items {
                    if let SetItemKind::ReplaceProperties { target, .. } = &item.kind {
                        self.declare(&self.name(target));
                    }
                }
            }
            ClauseKind::Return(r) if !self.in_expression => {
                self.projection(&r.projection, true, node.span.start);
            }
            ClauseKind::Call(c) => {
                self.features.call = true;
                // `CALL k()` placeholders of subqueries are not procedures.
                if let CallTarget::Procedure { name, .. } = &c.target {
                    if !self.placeholders.contains(&node.span.start) {
                        self.features
                            .procedures
                            .push(dotted_as_written(name, &self.src));
                    }
                }
                if let Some(y) = &c.yield_clause {
                    for item in &y.items {
                        if let ProjectionItemKind::Expression { expression, alias } = &item.kind {
                            if let Some(a) = alias {
                                self.declare(&self.name(a));
                            } else if let ExprKind::Variable(v) = &expression.kind {
                                self.declare(&self.name(v));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        walk_clause(self, node);
    }

    fn visit_path_pattern(&mut self, node: &'ast PathPattern) {
        self.path(node);
        open_cypher::ast::visit::walk_path_pattern(self, node);
    }

    fn visit_path_factor(&mut self, node: &'ast PathFactor) {
        if let PathFactorKind::Node(n) | PathFactorKind::QuantifiedNode { pattern: n, .. } =
            &node.kind
        {
            if n.where_clause.is_some() {
                self.features.where_count += 1;
            }
            if n.labels.as_ref().is_some_and(has_negated_label) {
                self.features.negation = true;
            }
        }
        walk_path_factor(self, node);
    }

    fn visit_expr(&mut self, node: &'ast Expr) {
        match &node.kind {
            ExprKind::Literal(l) => {
                if let LiteralKind::String(s) = &l.kind {
                    self.literals.push(StringLiteral {
                        value: s.value.clone(),
                        start: self.base + node.span.start,
                        end: self.base + node.span.end,
                    });
                }
            }
            ExprKind::Property { expression, key } => {
                self.properties.insert(self.name(key));
                if let ExprKind::Variable(v) = &strip(expression).kind {
                    self.facts
                        .property_uses
                        .push((self.name(v), self.name(key)));
                }
            }
            ExprKind::Function(f) => {
                let name = dotted(&f.name);
                let upper = name.to_ascii_uppercase();
                if AGGREGATES.contains(&upper.as_str()) {
                    self.features.aggregation = true;
                    self.aggregates.insert(upper.clone());
                }
                if matches!(
                    f.quantifier.as_ref().map(|q| q.kind),
                    Some(SetQuantifier::Distinct)
                ) {
                    self.features.distinct = true;
                }
                let lower = name.to_ascii_lowercase();
                if TEMPORAL_FUNCTIONS.contains(&lower.as_str()) {
                    self.features.temporal = true;
                }
                if lower == "exists" {
                    self.features.exists = true;
                }
                if lower == "shortestpath" || lower == "allshortestpaths" {
                    self.features.path_pattern = true;
                }
            }
            ExprKind::Binary {
                left,
                operator,
                right,
            } => self.comparison(left, operator.kind, right),
            ExprKind::Unary { operator, .. } if operator.kind == UnaryOperator::Not => {
                self.features.negation = true;
            }
            ExprKind::QuantifiedPredicate(q) => {
                if q.kind.kind == QuantifiedPredicateKind::None {
                    self.features.negation = true;
                }
                self.declare(&self.name(&q.variable));
            }
            ExprKind::Case(_) => self.features.case = true,
            ExprKind::Subquery(s)
                if s.kind.kind == open_cypher::ast::SubqueryExpressionKind::Exists =>
            {
                self.features.exists = true;
            }
            ExprKind::ListComprehension(l) => self.declare(&self.name(&l.variable)),
            ExprKind::Reduce(r) => {
                self.declare(&self.name(&r.accumulator));
                self.declare(&self.name(&r.variable));
            }
            ExprKind::PatternComprehension(p) => {
                if let Some(b) = &p.binding {
                    self.declare(&self.name(b));
                }
            }
            _ => {}
        }
        walk_expr(self, node);
    }
}

fn contains_exists(e: &Expr) -> bool {
    struct Find(bool);
    impl<'ast> Visitor<'ast> for Find {
        fn visit_expr(&mut self, node: &'ast Expr) {
            match &node.kind {
                ExprKind::Subquery(s)
                    if s.kind.kind == open_cypher::ast::SubqueryExpressionKind::Exists =>
                {
                    self.0 = true;
                }
                ExprKind::Function(f) if dotted(&f.name).eq_ignore_ascii_case("exists") => {
                    self.0 = true
                }
                ExprKind::Pattern(_) => self.0 = true,
                _ => walk_expr(self, node),
            }
        }
    }
    let mut f = Find(false);
    f.visit_expr(e);
    f.0
}

impl Collector {
    /// Sorted sets, resolved relationship observations, primary strategy.
    fn finish(&mut self) {
        self.features.labels = std::mem::take(&mut self.labels).into_iter().collect();
        self.features.relationship_types = std::mem::take(&mut self.types).into_iter().collect();
        self.features.properties = std::mem::take(&mut self.properties).into_iter().collect();
        self.features.aggregates = std::mem::take(&mut self.aggregates).into_iter().collect();
        self.features.predicates = std::mem::take(&mut self.predicates).into_iter().collect();
        let mut obs: BTreeSet<RelationshipObservation> = BTreeSet::new();
        for rel in &self.facts.rels {
            let (s, e) = if rel.direction == RelationshipDirection::Left {
                (&rel.end, &rel.start)
            } else {
                (&rel.start, &rel.end)
            };
            let direction = match rel.direction {
                RelationshipDirection::Left | RelationshipDirection::Right => "out",
                _ => "undirected",
            };
            let first = |end: &End| end_labels(end, &self.facts).into_iter().next();
            let types: Vec<Option<String>> = if rel.types.is_empty() {
                vec![None]
            } else {
                rel.types.iter().cloned().map(Some).collect()
            };
            for t in types {
                obs.insert(RelationshipObservation {
                    start_label: first(s),
                    relationship_type: t,
                    end_label: first(e),
                    direction,
                });
            }
        }
        self.features.relationship_observations = obs.into_iter().collect();
        let f = &mut self.features;
        f.primary_strategy = primary_strategy(f);
    }
}

fn primary_strategy(f: &Features) -> &'static str {
    if f.path_pattern {
        "path"
    } else if f.negation {
        "negation"
    } else if f.ordering {
        "order_rank"
    } else if f.aggregation {
        "aggregation"
    } else if f.relationship_pattern_count >= 2 || f.match_parts >= 2 {
        "join_heavy"
    } else {
        "single_hop"
    }
}

const FLAG_NAMES: &[&str] = &[
    "optional_match",
    "aggregation",
    "ordering",
    "limit",
    "skip",
    "negation",
    "path_pattern",
];

fn flags(f: &Features) -> [bool; 7] {
    [
        f.optional_match,
        f.aggregation,
        f.ordering,
        f.limit,
        f.skip,
        f.negation,
        f.path_pattern,
    ]
}

fn bucket(n: usize) -> &'static str {
    match n {
        0 => "0",
        1 => "1",
        2 => "2",
        _ => "3+",
    }
}

fn substructures(f: &Features) -> Vec<String> {
    let mut atoms: BTreeSet<String> = BTreeSet::new();
    atoms.extend(f.labels.iter().map(|l| format!("label:{l}")));
    atoms.extend(f.relationship_types.iter().map(|t| format!("rel:{t}")));
    for o in &f.relationship_observations {
        atoms.insert(format!(
            "triple:{}-[{}:{}]->{}",
            o.start_label.as_deref().unwrap_or("?"),
            o.relationship_type.as_deref().unwrap_or("?"),
            o.direction,
            o.end_label.as_deref().unwrap_or("?"),
        ));
    }
    for (name, on) in FLAG_NAMES.iter().zip(flags(f)) {
        if on {
            atoms.insert(format!("op:{name}"));
        }
    }
    atoms.extend(f.aggregates.iter().map(|a| format!("agg:{a}")));
    atoms.extend(f.predicates.iter().map(|p| format!("pred:{p}")));
    atoms.extend(f.properties.iter().map(|p| format!("prop:{p}")));
    atoms.insert(format!("strategy:{}", f.primary_strategy));
    atoms.insert(format!("return_arity:{}", bucket(f.return_arity)));
    atoms.insert(format!(
        "rel_count:{}",
        bucket(f.relationship_pattern_count)
    ));
    atoms.into_iter().collect()
}

fn operator_combination(f: &Features) -> String {
    let names: Vec<&str> = FLAG_NAMES
        .iter()
        .zip(flags(f))
        .filter_map(|(n, on)| on.then_some(*n))
        .collect();
    if names.is_empty() {
        format!("{}+plain", f.primary_strategy)
    } else {
        format!("{}+{}", f.primary_strategy, names.join("+"))
    }
}

fn difficulty(f: &Features) -> &'static str {
    let n = [
        f.relationship_pattern_count >= 2,
        f.aggregation,
        f.ordering,
        f.negation,
        f.optional_match,
        f.path_pattern,
    ]
    .iter()
    .filter(|b| **b)
    .count();
    match n {
        0 | 1 => "easy",
        2 | 3 => "medium",
        _ => "hard",
    }
}

fn category(f: &Features, boolean_return: bool) -> &'static str {
    let complex = f.relationship_pattern_count >= 2 || f.match_parts >= 2;
    if boolean_return {
        "boolean_existence"
    } else if f.path_pattern || f.temporal {
        "path_temporal"
    } else if f.negation {
        "negation_difference"
    } else if f.ordering && f.limit {
        "ranking_topk"
    } else if f.aggregation {
        if complex {
            "complex_aggregation"
        } else {
            "simple_aggregation"
        }
    } else if complex {
        "complex_retrieval"
    } else {
        "simple_retrieval"
    }
}

fn rewrite(query: &str, c: &Collector) -> Rewrite {
    let f = &c.features;
    let reason = if f.case {
        Some("case")
    } else if f.union {
        Some("union")
    } else if f.call {
        Some("call")
    } else if f.unwind {
        Some("unwind")
    } else if c.has_where_exists {
        Some("where_exists")
    } else if f.where_count >= 2 {
        Some("second_where")
    } else {
        None
    };
    let mut r = Rewrite::default();
    match (reason, c.last_return) {
        (Some(reason), _) => r.skip_reason = Some(reason),
        (None, None) => r.skip_reason = Some("no_return"),
        (None, Some((_, _, true))) => r.skip_reason = Some("already_distinct"),
        (None, Some((start, _, false))) => {
            // The RETURN clause starts with its keyword (6 bytes).
            let at = start + "RETURN".len();
            if query
                .get(start..at)
                .is_some_and(|k| k.eq_ignore_ascii_case("RETURN"))
            {
                r.eligible = true;
                r.cypher = Some(format!("{} DISTINCT{}", &query[..at], &query[at..]));
            } else {
                r.skip_reason = Some("no_return");
            }
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> SchemaIndex {
        let json = r#"{
          "node_properties": [
            {"label": "Person", "property": "name", "type": "STRING"},
            {"label": "Person", "property": "gender", "type": "STRING"},
            {"label": "Account", "property": "accountId", "type": "STRING"},
            {"label": "Account", "property": "accountType", "type": "STRING"},
            {"label": "Account", "property": "isBlocked", "type": "BOOLEAN"},
            {"label": "Company", "property": "name", "type": "STRING"}
          ],
          "relationship_properties": [
            {"type": "OWN", "property": "since", "value_type": "DATE"}
          ],
          "relationships": [
            {"start_label": "Person", "type": "OWN", "end_label": "Account", "count": 3},
            {"start_label": "Account", "type": "TRANSFER", "end_label": "Account", "count": 5},
            {"start_label": "Person", "type": "WORKS_AT", "end_label": "Company", "count": 2}
          ],
          "categorical_properties": {"Person.gender": ["female", "male"]}
        }"#;
        SchemaIndex::new(&serde_json::from_str(json).unwrap())
    }

    fn codes(q: &str, question: &str, values: &[&str]) -> Vec<&'static str> {
        let a = analyze(q);
        assert!(a.syntax_valid, "{q}: {:?}", a.syntax_error);
        let values: Vec<String> = values.iter().map(|v| (*v).to_string()).collect();
        check(&a, &schema(), question, &values)
            .into_iter()
            .map(|i| i.code)
            .collect()
    }

    #[test]
    fn colon_inside_a_quoted_value_is_not_a_property() {
        let q = "MATCH (p:Person {name: 'A:B'})-[:OWN]->(a:Account) RETURN a.accountId, a.accountType, a.isBlocked";
        assert!(codes(q, "Which accounts does 'A:B' own?", &["A:B"]).is_empty());
        let a = analyze(q);
        assert_eq!(a.features.labels, vec!["Account", "Person"]);
        assert_eq!(
            a.features.properties,
            vec!["accountId", "accountType", "isBlocked"]
        );
    }

    #[test]
    fn apostrophe_in_a_name_is_one_literal() {
        let q = "MATCH (p:Person {name: 'O\\'Hearn'})-[:OWN]->(a:Account) RETURN count(DISTINCT a) AS n";
        let a = analyze(q);
        assert_eq!(a.string_literals.len(), 1);
        assert_eq!(a.string_literals[0].value, "O'Hearn");
        assert!(codes(q, "How many accounts does 'O'Hearn' own?", &["O'Hearn"]).is_empty());
        let q2 = "MATCH (p:Person) WHERE p.name = \"O'Hearn\" RETURN p.name";
        assert_eq!(analyze(q2).string_literals[0].value, "O'Hearn");
        assert!(codes(q2, "q", &["O'Hearn"]).is_empty());
    }

    #[test]
    fn write_keyword_inside_a_string_is_read_only() {
        let a =
            analyze("MATCH (p:Person) WHERE p.name = 'CREATE (x) DELETE y SET z' RETURN p.name");
        assert!(a.syntax_valid);
        assert!(a.write_clauses.is_empty());
        assert!(a.read_only(&[]));
        let w = analyze("MATCH (p:Person) SET p.name = 'x' RETURN p");
        assert!(!w.read_only(&[]));
        let c = analyze("CALL db.labels() YIELD label RETURN label");
        assert!(!c.read_only(&[]), "procedure calls need the allow-list");
        assert!(c.read_only(&["db.labels".to_string()]));
    }

    #[test]
    fn is_not_null_and_not_equal_are_not_negation() {
        let a = analyze("MATCH (p:Person)-[r:OWN]->(a:Account) WHERE r.since IS NOT NULL AND p.name <> 'x' RETURN p.name");
        assert!(!a.features.negation);
        assert_ne!(a.category, "negation_difference");
        let n = analyze("MATCH (a:Account)<-[:OWN]-(p:Person {name: 'Kant'}) WHERE NOT (a)-[:TRANSFER]->() RETURN a.accountId");
        assert!(n.features.negation);
        assert_eq!(n.category, "negation_difference");
        assert_eq!(n.features.primary_strategy, "negation");
    }

    #[test]
    fn schema_gate_errors() {
        assert_eq!(
            codes("MATCH (x:Nope) RETURN x", "q", &[]),
            vec!["unknown_label"]
        );
        assert_eq!(
            codes("MATCH (p:Person) RETURN p.salary", "q", &[]),
            vec!["unknown_property"]
        );
        assert_eq!(
            codes(
                "MATCH (p:Person) WHERE p.gender = 'other' RETURN p.name",
                "q",
                &[]
            ),
            vec!["unknown_categorical_value"]
        );
        assert!(codes(
            "MATCH (p:Person) WHERE p.gender IN ['male', 'female'] RETURN p.name",
            "q",
            &[]
        )
        .is_empty());
        assert_eq!(
            codes(
                "MATCH (a:Account)-[:OWN]->(p:Person) RETURN p.name",
                "q",
                &[]
            ),
            vec!["wrong_direction"]
        );
        assert!(codes(
            "MATCH (p:Person)<-[:OWN]-(a:Account) RETURN p.name",
            "q",
            &[]
        )
        .contains(&"wrong_direction"));
        assert!(codes(
            "MATCH (a:Account)<-[:OWN]-(p:Person) RETURN p.name",
            "q",
            &[]
        )
        .is_empty());
        assert_eq!(
            codes(
                "MATCH (p:Person)-[:OWN]-(a:Account) RETURN p.name",
                "q",
                &[]
            ),
            vec!["undirected_relationship"]
        );
        assert_eq!(
            codes(
                "MATCH (c:Company)-[:OWN]->(a:Account) RETURN c.name",
                "q",
                &[]
            ),
            vec!["unknown_triple"]
        );
        assert_eq!(
            codes(
                "MATCH (p:Person) WHERE p.name CONTAINS 'Barry' RETURN p.name",
                "Who is 'Barry'?",
                &["Barry"]
            ),
            vec!["contains_on_value"]
        );
        assert_eq!(
            codes(
                "MATCH (p:Person) WHERE p.name = 'Bar' RETURN p.name",
                "Who is 'Barry'?",
                &["Barry"]
            ),
            vec!["value_not_literal"]
        );
        assert_eq!(
            codes("MATCH (a:Account) RETURN a.accountId", "q", &[]),
            vec!["missing_context_columns"]
        );
    }

    #[test]
    fn bang_equal_fails_syntax() {
        let a = analyze("MATCH (p:Person) WHERE p.name != 'x' RETURN p.name");
        assert!(!a.syntax_valid);
        assert!(a.syntax_error.unwrap().contains("<>"));
        assert!(analyze("MATCH (p:Person) WHERE p.name <> '!=' RETURN p.name").syntax_valid);
    }

    #[test]
    fn reserved_variables_fail_g2_policy_not_syntax() {
        // Neo4j parses them (issue 29): syntax valid, read-only, but
        // PIPE-Cypher's G2 policy rejects the name, with a named reason.
        let a = analyze("MATCH (index:Person) RETURN index.name");
        assert!(a.syntax_valid && a.syntax_error.is_none());
        assert!(a.read_only(&[]));
        assert_eq!(
            a.policy_error.as_deref(),
            Some("reserved word `index` as a variable name (PIPE-Cypher G2 policy)")
        );
        let g = static_gates(
            "MATCH (exists:Person) RETURN exists.name",
            None,
            "",
            &[],
            &[],
            Dialect::Cypher5,
        );
        assert!(g.read_only && !g.g2_valid);
        assert_eq!(g.issues[0].code, "syntax");
        assert!(g.issues[0].message.contains("`exists`"), "{:?}", g.issues);
        assert!(
            static_gates(
                "MATCH (p:Person) RETURN p",
                None,
                "",
                &[],
                &[],
                Dialect::Cypher5
            )
            .g2_valid
        );
        let b = analyze("MATCH (p:Person RETURN p");
        assert!(!b.syntax_valid);
        // Issue 29: an unparseable query never passes G1.
        assert!(!b.read_only(&[]));
    }

    #[test]
    fn signature_normalisation_and_features() {
        let a = analyze("MATCH (p:Person)-[:OWN]->(a:Account)\n  WHERE p.name = 'Ann' // c\n RETURN a.accountType, count(a) AS n ORDER BY n DESC LIMIT 10");
        assert_eq!(
            a.normalized_cypher,
            "MATCH (p:Person)-[:OWN]->(a:Account) WHERE p.name = 'Ann' RETURN a.accountType, count(a) AS n ORDER BY n DESC LIMIT 10"
        );
        assert_eq!(
            a.signature,
            "match ( <var> : person ) - [ : own ] -> ( <var> : account ) where <var> . name = <str> return <var> . accounttype , count ( <var> ) as <var> order by <var> desc limit <num>"
        );
        assert_eq!(a.category, "ranking_topk");
        assert_eq!(a.difficulty, "medium");
        assert_eq!(a.features.return_arity, 2);
        assert_eq!(a.features.relationship_observations.len(), 1);
        assert!(a
            .substructures
            .contains(&"triple:Person-[OWN:out]->Account".to_string()));
        assert!(a.substructures.contains(&"agg:COUNT".to_string()));
        assert_eq!(
            a.operator_combination,
            "order_rank+aggregation+ordering+limit"
        );
        let b = analyze("MATCH (x:Person) -[:OWN]-> (y:Account) WHERE x.name = \"Bob\" RETURN y.accountType, count(y) AS m ORDER BY m DESC LIMIT 3");
        assert_eq!(a.signature, b.signature);
    }

    #[test]
    fn categories_and_difficulty() {
        let cat = |q: &str| analyze(q).category;
        assert_eq!(
            cat("MATCH (p:Person {name:'A'})-[:OWN]->(a) RETURN count(a) > 0 AS answer"),
            "boolean_existence"
        );
        assert_eq!(
            cat("MATCH (p:Person)-[:OWN*1..2]->(a) RETURN a"),
            "path_temporal"
        );
        assert_eq!(
            cat("MATCH (p:Person)-[r:OWN]->(a) WHERE r.since > date('2020-01-01') RETURN a"),
            "path_temporal"
        );
        assert_eq!(
            cat("MATCH (p:Person)-[:OWN]->(a) RETURN count(DISTINCT a)"),
            "simple_aggregation"
        );
        assert_eq!(
            cat("MATCH (p:Person)-[:OWN]->(a)-[:TRANSFER]->(b) RETURN sum(b.x)"),
            "complex_aggregation"
        );
        assert_eq!(
            cat("MATCH (p:Person)-[:OWN]->(a) RETURN a.accountId LIMIT 5"),
            "simple_retrieval"
        );
        assert_eq!(
            cat("MATCH (p:Person)-[:OWN]->(a)-[:TRANSFER]->(b) RETURN b.accountId"),
            "complex_retrieval"
        );
        let hard = analyze("MATCH (p:Person)-[:OWN]->(a)-[:TRANSFER*1..2]->(b) OPTIONAL MATCH (b)<-[:OWN]-(q) WHERE NOT q.name = 'x' RETURN p.name, count(b) AS n ORDER BY n DESC");
        assert_eq!(hard.difficulty, "hard");
    }

    #[test]
    fn distinct_rewrite_eligibility() {
        let a = analyze("MATCH (p:Person) RETURN p.name");
        assert!(a.rewrite.eligible);
        assert_eq!(
            a.rewrite.cypher.as_deref(),
            Some("MATCH (p:Person) RETURN DISTINCT p.name")
        );
        let skip = |q: &str| analyze(q).rewrite.skip_reason;
        assert_eq!(
            skip("MATCH (p:Person) RETURN DISTINCT p.name"),
            Some("already_distinct")
        );
        assert_eq!(
            skip("MATCH (p:Person) RETURN CASE WHEN p.x THEN 1 ELSE 0 END"),
            Some("case")
        );
        assert_eq!(
            skip("MATCH (p:Person) RETURN p.name UNION MATCH (c:Company) RETURN c.name AS name"),
            Some("union")
        );
        assert_eq!(
            skip("CALL { MATCH (p:Person) RETURN p } RETURN p.name"),
            Some("call")
        );
        assert_eq!(skip("UNWIND [1,2] AS x RETURN x"), Some("unwind"));
        assert_eq!(
            skip("MATCH (p:Person) WHERE EXISTS { (p)-[:OWN]->() } RETURN p.name"),
            Some("where_exists")
        );
        assert_eq!(
            skip("MATCH (p:Person) WHERE p.x = 1 WITH p WHERE p.y = 2 RETURN p.name"),
            Some("second_where")
        );
    }

    #[test]
    fn dynamic_labels_show_as_written() {
        let a = analyze("MATCH (n:$('Player'))-[r:$any(['playsFor'])]->(t:Team) RETURN n");
        assert!(a.syntax_valid, "{:?}", a.syntax_error);
        assert_eq!(a.features.labels, ["$('Player')", "Team"]);
        assert_eq!(a.features.relationship_types, ["$any(['playsFor'])"]);
        // Not known before the query runs: no G3 issue for them.
        let issues = check(&a, &schema(), "", &[]);
        assert!(
            !issues.iter().any(|i| i.message.contains('$')),
            "{issues:?}"
        );
    }

    #[test]
    fn subquery_placeholders_are_not_procedures() {
        let a = analyze("CALL { MATCH (n:Person)-[:OWN]->(m) RETURN n, m UNION MATCH (n:Person)-[:WORKS_AT]->(m) RETURN n, m } WITH DISTINCT n RETURN n.name");
        assert!(a.syntax_valid);
        assert!(a.read_only(&[]), "{:?}", a.write_clauses);
        assert!(a.features.union);
        assert_eq!(a.features.relationship_types, vec!["OWN", "WORKS_AT"]);
    }

    #[test]
    fn never_panics_on_odd_input() {
        for q in [
            "",
            "   ",
            "MATCH",
            "RETURN 'unterminated",
            "((((((",
            "MATCH (n) RETURN n; DROP DATABASE x",
            "\u{0}",
        ] {
            let a = analyze(q);
            let _ = check(&a, &schema(), "", &[]);
        }
        assert!(!analyze("MATCH (n) RETURN n; DROP DATABASE x").read_only(&[]));
    }
}
