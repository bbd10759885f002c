//! Neighbour queries of a gold Cypher query, for test-suite execution
//! accuracy (Zhong, Yu and Klein, "Semantic Evaluation for Text-to-SQL with
//! Distilled Test Suites", EMNLP 2020, step 1; `shared/spec/test-suite.md`).
//!
//! A neighbour is a near-miss a model plausibly writes: one edit of the
//! gold's text at a span of its parse ([`super::frontend::with_front`]):
//!
//! | kind | edit |
//! |---|---|
//! | `drop_predicate` | one conjunct of a `WHERE` replaced by `true` |
//! | `negate_predicate` | one conjunct `c` of a `WHERE` replaced by `NOT (c)` |
//! | `comparison` | `=` `<>` `<` `<=` `>` `>=` replaced by another of them |
//! | `constant` | an integer or float literal ±1, a boolean flipped, a `date('Y-M-D')` ±1 year or ±1 day |
//! | `distinct` | `DISTINCT` added to or dropped from `RETURN` / `WITH` / an aggregate |
//! | `aggregate` | `count` `sum` `avg` `min` `max` replaced by another of them |
//! | `order` | an `ORDER BY` item's direction flipped (`ASC` ↔ `DESC`, none → `DESC`) |
//! | `limit` | a `LIMIT` dropped (its value ±1 is a `constant` edit) |
//! | `direction` | a directed relationship pattern reversed |
//! | `label` / `type` / `property` | a node label, relationship type or property key swapped for another of the schema (a property for one of the same value type on the same labels) |
//!
//! Edits inside `CALL { }` bodies and pattern-form subquery expressions are
//! not made. Every neighbour is parsed again by the front end; only those
//! that parse and are read-only (no write clause) are kept, without
//! duplicates and without the gold's own text. The choice is seeded and
//! deterministic: candidates are grouped by kind, each group shuffled with
//! the SplitMix64 stream of `(seed, "test-suite-neighbours/<kind>")`, and the
//! groups are drawn from in turn (kinds in alphabetical order) until `max`
//! neighbours are kept.

use std::collections::{BTreeMap, BTreeSet};

use open_cypher::ast::visit::{walk_clause, walk_expr, walk_path_factor, Visitor};
use open_cypher::ast::{
    BinaryOperator, Clause, ClauseKind, Expr, ExprKind, LabelExpression, LabelExpressionKind,
    LiteralKind, PathFactor, PathFactorKind, ProjectionClause, RelationshipDirection,
    SetQuantifier, SortDirection, StringLiteral,
};
use serde::Deserialize;

use super::frontend::{with_front, Dialect};
use super::parse::{CypherError, Parsed};
use crate::noise::rng::Rng;

/// The schema neighbours swap names from: labels, relationship types and the
/// property keys of each with their value types (any type names, compared as
/// strings; kgbench passes the datatypes of the graph JSON's schema, SPEC.md
/// §2).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NeighbourSchema {
    /// Node labels.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Relationship types.
    #[serde(default)]
    pub types: Vec<String>,
    /// Label -> property key -> value type.
    #[serde(default)]
    pub node_properties: BTreeMap<String, BTreeMap<String, String>>,
    /// Relationship type -> property key -> value type.
    #[serde(default)]
    pub relationship_properties: BTreeMap<String, BTreeMap<String, String>>,
}

/// One neighbour query: its kind (module table) and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Neighbour {
    /// The kind of edit (module documentation).
    pub kind: &'static str,
    /// The neighbour's text.
    pub query: String,
}

/// One edit: replace bytes `start..end` of the gold's (decoded) text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Edit {
    kind: &'static str,
    start: usize,
    end: usize,
    text: String,
}

const COMPARISONS: [&str; 6] = ["=", "<>", "<", "<=", ">", ">="];
const AGGREGATES: [&str; 5] = ["count", "sum", "avg", "min", "max"];

/// Up to `max` neighbour queries of `gold` (module documentation), parsed
/// for `dialect`, seeded by `seed`.
///
/// # Errors
///
/// [`CypherError`] when the gold query does not parse.
pub fn neighbour_queries(
    gold: &str,
    schema: &NeighbourSchema,
    seed: u64,
    max: usize,
    dialect: Dialect,
) -> Result<Vec<Neighbour>, CypherError> {
    let (text, edits) = with_front(gold, dialect, |front| {
        let text = front.source.text().to_string();
        let mut c = Collector::new(&text, schema, front.parsed);
        c.visit_program(&front.parsed.program.program);
        c.add_property_swaps();
        let edits = c.edits;
        (text, edits)
    })?;
    let mut groups: BTreeMap<&'static str, Vec<Edit>> = BTreeMap::new();
    for e in BTreeSet::from_iter(edits) {
        groups.entry(e.kind).or_default().push(e);
    }
    for (kind, group) in &mut groups {
        let mut rng = Rng::for_type(seed, &format!("test-suite-neighbours/{kind}"));
        for i in (1..group.len()).rev() {
            let j = rng.below(i + 1);
            group.swap(i, j);
        }
        group.reverse(); // popped from the end below: draw in shuffled order
    }
    let mut seen: BTreeSet<String> = BTreeSet::from([text.clone(), gold.to_string()]);
    let mut out = Vec::new();
    while out.len() < max && groups.values().any(|g| !g.is_empty()) {
        for group in groups.values_mut() {
            if out.len() >= max {
                break;
            }
            while let Some(e) = group.pop() {
                let mut q = String::with_capacity(text.len() + e.text.len());
                q.push_str(&text[..e.start]);
                q.push_str(&e.text);
                q.push_str(&text[e.end..]);
                if !seen.insert(q.clone()) {
                    continue;
                }
                let ok = with_front(&q, dialect, |f| f.write_clauses().is_empty()).unwrap_or(false);
                if ok {
                    out.push(Neighbour {
                        kind: e.kind,
                        query: q,
                    });
                    break;
                }
            }
        }
    }
    Ok(out)
}

/// A name as Cypher text: backquoted unless a plain identifier.
fn quoted(name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

/// Walks the parse and collects the edits.
struct Collector<'a> {
    text: &'a str,
    schema: &'a NeighbourSchema,
    /// Byte ranges the edits must not touch (cut-out subqueries).
    blocked: Vec<(usize, usize)>,
    edits: Vec<Edit>,
    /// Variable -> labels (node) or types (relationship) written in patterns.
    owners: BTreeMap<String, (bool, BTreeSet<String>)>,
    /// Property accesses `var.key` and pattern map keys: (span, variable, key).
    properties: Vec<(usize, usize, Option<String>, String)>,
}

impl<'a> Collector<'a> {
    fn new(text: &'a str, schema: &'a NeighbourSchema, parsed: &Parsed) -> Self {
        let mut blocked = Vec::new();
        for s in parsed
            .subqueries
            .iter()
            .chain(&parsed.expression_subqueries)
        {
            blocked.push((s.clause_start, s.body_offset + s.body.text.len()));
        }
        Self {
            text,
            schema,
            blocked,
            edits: Vec::new(),
            owners: BTreeMap::new(),
            properties: Vec::new(),
        }
    }

    fn push(&mut self, kind: &'static str, start: usize, end: usize, text: String) {
        let ok = start <= end
            && end <= self.text.len()
            && self.text.is_char_boundary(start)
            && self.text.is_char_boundary(end)
            && !self.blocked.iter().any(|&(s, e)| start < e && end > s);
        if ok && self.text[start..end] != text {
            self.edits.push(Edit {
                kind,
                start,
                end,
                text,
            });
        }
    }

    fn slice(&self, start: usize, end: usize) -> &'a str {
        self.text.get(start..end).unwrap_or("")
    }

    /// `WHERE` predicates: each conjunct dropped and negated.
    fn predicate(&mut self, expr: &Expr) {
        let mut conjuncts = Vec::new();
        conjuncts_of(expr, &mut conjuncts);
        for c in conjuncts {
            let (s, e) = (c.span.start, c.span.end);
            let inner = self.slice(s, e).to_string();
            self.push("drop_predicate", s, e, "true".to_string());
            self.push("negate_predicate", s, e, format!("NOT ({inner})"));
        }
    }

    fn projection(&mut self, keyword_start: usize, p: &ProjectionClause) {
        match &p.quantifier {
            Some(q) if q.kind == SetQuantifier::Distinct => {
                let end = self.skip_space(q.span.end);
                self.push("distinct", q.span.start, end, String::new());
            }
            Some(_) => {}
            None => {
                // after the keyword (RETURN / WITH)
                let word = self.slice(keyword_start, self.text.len());
                let len = word.bytes().take_while(u8::is_ascii_alphabetic).count();
                let at = keyword_start + len;
                self.push("distinct", at, at, " DISTINCT".to_string());
            }
        }
        if let Some(order) = &p.order_by {
            for item in &order.items {
                match &item.direction {
                    Some(d) => {
                        let flip = if d.kind == SortDirection::Descending {
                            "ASC"
                        } else {
                            "DESC"
                        };
                        self.push("order", d.span.start, d.span.end, flip.to_string());
                    }
                    None => {
                        let at = item.expression.span.end;
                        self.push("order", at, at, " DESC".to_string());
                    }
                }
            }
        }
        if let Some(limit) = &p.limit {
            let before = self.slice(0, limit.span.start).to_ascii_uppercase();
            if let Some(at) = before.rfind("LIMIT") {
                let start = self.text[..at].trim_end().len();
                self.push("limit", start, limit.span.end, String::new());
            }
        }
    }

    fn skip_space(&self, at: usize) -> usize {
        at + self
            .slice(at, self.text.len())
            .bytes()
            .take_while(u8::is_ascii_whitespace)
            .count()
    }

    fn literal(&mut self, expr: &Expr, lit: &LiteralKind) {
        let (s, e) = (expr.span.start, expr.span.end);
        match lit {
            LiteralKind::Integer(i) => {
                if let Ok(v) = self.slice(s, e).parse::<i64>() {
                    let _ = i;
                    for d in [-1i64, 1] {
                        if let Some(n) = v.checked_add(d).filter(|n| *n >= 0) {
                            self.push("constant", s, e, n.to_string());
                        }
                    }
                }
            }
            LiteralKind::Float(_) => {
                if let Ok(v) = self.slice(s, e).parse::<f64>() {
                    for d in [-1.0f64, 1.0] {
                        let n = v + d;
                        if n >= 0.0 && n.is_finite() {
                            self.push("constant", s, e, format!("{n:?}"));
                        }
                    }
                }
            }
            LiteralKind::Boolean(b) => {
                self.push("constant", s, e, (!b).to_string());
            }
            _ => {}
        }
    }

    /// `date('YYYY-MM-DD')`: ±1 year, ±1 day (days 2..=27 stay in the month).
    fn date(&mut self, arg: &Expr, lit: &StringLiteral) {
        let v = &lit.value;
        let parts: Vec<&str> = v.split('-').collect();
        if parts.len() != 3 || v.len() != 10 {
            return;
        }
        let (Ok(y), Ok(m), Ok(d)) = (
            parts[0].parse::<i32>(),
            parts[1].parse::<u32>(),
            parts[2].parse::<u32>(),
        ) else {
            return;
        };
        let quote = self.slice(arg.span.start, arg.span.start + 1).to_string();
        let mut put = |y: i32, m: u32, d: u32| {
            let text = format!("{quote}{y:04}-{m:02}-{d:02}{quote}");
            self.push("constant", arg.span.start, arg.span.end, text);
        };
        if (1..=9998).contains(&y) && !(m == 2 && d == 29) {
            put(y - 1, m, d);
            put(y + 1, m, d);
        }
        if (2..=27).contains(&d) {
            put(y, m, d - 1);
            put(y, m, d + 1);
        }
    }

    fn labels(&mut self, labels: &LabelExpression, node: bool) -> Vec<String> {
        let mut names = Vec::new();
        if let LabelExpressionKind::Name(name) = &labels.kind {
            let written = self.slice(name.span.start, name.span.end).to_string();
            let bare = written.trim_matches('`').to_string();
            names.push(bare.clone());
            let pool = if node {
                &self.schema.labels
            } else {
                &self.schema.types
            };
            let kind = if node { "label" } else { "type" };
            for other in pool.clone() {
                if other != bare {
                    self.push(kind, name.span.start, name.span.end, quoted(&other));
                }
            }
        }
        names
    }

    /// Swap each property key for another of the same value type on the same
    /// labels (or, for a variable of unknown labels, on any label with the key).
    fn add_property_swaps(&mut self) {
        let props = std::mem::take(&mut self.properties);
        for (s, e, var, key) in props {
            let owner = var.as_ref().and_then(|v| self.owners.get(v)).cloned();
            let mut candidates: BTreeSet<String> = BTreeSet::new();
            let tables: Vec<&BTreeMap<String, String>> = match &owner {
                Some((node, names)) => {
                    let map = if *node {
                        &self.schema.node_properties
                    } else {
                        &self.schema.relationship_properties
                    };
                    names.iter().filter_map(|n| map.get(n)).collect()
                }
                None => self
                    .schema
                    .node_properties
                    .values()
                    .chain(self.schema.relationship_properties.values())
                    .filter(|t| t.contains_key(&key))
                    .collect(),
            };
            for t in tables {
                if let Some(ty) = t.get(&key) {
                    for (k, kty) in t {
                        if kty == ty && *k != key {
                            candidates.insert(k.clone());
                        }
                    }
                }
            }
            for k in candidates {
                self.push("property", s, e, quoted(&k));
            }
        }
    }

    fn note_owner(&mut self, var: Option<&open_cypher::ast::Name>, node: bool, names: Vec<String>) {
        if let Some(v) = var {
            let name = self
                .slice(v.span.start, v.span.end)
                .trim_matches('`')
                .to_string();
            let entry = self
                .owners
                .entry(name)
                .or_insert_with(|| (node, BTreeSet::new()));
            entry.1.extend(names);
        }
    }

    fn map_keys(&mut self, var: Option<&open_cypher::ast::Name>, props: Option<&Expr>) {
        if let Some(Expr {
            kind: ExprKind::Map(entries),
            ..
        }) = props
        {
            let v = var.map(|v| {
                self.slice(v.span.start, v.span.end)
                    .trim_matches('`')
                    .to_string()
            });
            for entry in entries {
                let key = self
                    .slice(entry.key.span.start, entry.key.span.end)
                    .trim_matches('`')
                    .to_string();
                self.properties
                    .push((entry.key.span.start, entry.key.span.end, v.clone(), key));
            }
        }
    }
}

fn conjuncts_of<'e>(expr: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &expr.kind {
        ExprKind::Binary {
            left,
            operator,
            right,
        } if operator.kind == BinaryOperator::And => {
            conjuncts_of(left, out);
            conjuncts_of(right, out);
        }
        ExprKind::Parenthesized(inner) if matches!(inner.kind, ExprKind::Binary { operator: ref o, .. } if o.kind == BinaryOperator::And) =>
        {
            conjuncts_of(inner, out);
        }
        _ => out.push(expr),
    }
}

impl<'ast> Visitor<'ast> for Collector<'_> {
    fn visit_clause(&mut self, node: &'ast Clause) {
        match &node.kind {
            ClauseKind::Match(m) => {
                if let Some(w) = &m.where_clause {
                    self.predicate(w);
                }
            }
            ClauseKind::With(w) => {
                self.projection(node.span.start, &w.projection);
                if let Some(p) = &w.where_clause {
                    self.predicate(p);
                }
            }
            ClauseKind::Return(r) => self.projection(node.span.start, &r.projection),
            _ => {}
        }
        walk_clause(self, node);
    }

    fn visit_path_factor(&mut self, node: &'ast PathFactor) {
        match &node.kind {
            PathFactorKind::Node(p) => {
                let names = p
                    .labels
                    .as_ref()
                    .map(|l| self.labels(l, true))
                    .unwrap_or_default();
                self.note_owner(p.variable.as_ref(), true, names);
                self.map_keys(p.variable.as_ref(), p.properties.as_deref());
                if let Some(w) = &p.where_clause {
                    self.predicate(w);
                }
            }
            PathFactorKind::Relationship(r) => {
                let names = r
                    .labels
                    .as_ref()
                    .map(|l| self.labels(l, false))
                    .unwrap_or_default();
                self.note_owner(r.variable.as_ref(), false, names);
                self.map_keys(r.variable.as_ref(), r.properties.as_deref());
                let (s, e) = (node.span.start, node.span.end);
                let written = self.slice(s, e).to_string();
                match r.direction.kind {
                    RelationshipDirection::Right
                        if written.starts_with('-') && written.ends_with("->") =>
                    {
                        let body = &written[..written.len() - 1];
                        self.push("direction", s, e, format!("<{body}"));
                    }
                    RelationshipDirection::Left
                        if written.starts_with("<-") && written.ends_with('-') =>
                    {
                        self.push("direction", s, e, format!("{}>", &written[1..]));
                    }
                    _ => {}
                }
                if let Some(w) = &r.where_clause {
                    self.predicate(w);
                }
            }
            _ => {}
        }
        walk_path_factor(self, node);
    }

    fn visit_expr(&mut self, node: &'ast Expr) {
        match &node.kind {
            ExprKind::Literal(lit) => self.literal(node, &lit.kind),
            ExprKind::Binary { operator, .. } => {
                let op = self
                    .slice(operator.span.start, operator.span.end)
                    .to_string();
                if COMPARISONS.contains(&op.as_str()) {
                    for other in COMPARISONS {
                        if other != op {
                            self.push(
                                "comparison",
                                operator.span.start,
                                operator.span.end,
                                other.to_string(),
                            );
                        }
                    }
                }
            }
            ExprKind::Property { expression, key } => {
                let var = match &expression.kind {
                    ExprKind::Variable(v) => Some(
                        self.slice(v.span.start, v.span.end)
                            .trim_matches('`')
                            .to_string(),
                    ),
                    _ => None,
                };
                let k = self
                    .slice(key.span.start, key.span.end)
                    .trim_matches('`')
                    .to_string();
                self.properties.push((key.span.start, key.span.end, var, k));
            }
            ExprKind::Function(f) => {
                let name = f
                    .name
                    .parts
                    .iter()
                    .map(|p| self.slice(p.span.start, p.span.end))
                    .collect::<Vec<_>>()
                    .join(".")
                    .to_ascii_lowercase();
                let star =
                    f.arguments.len() == 1 && matches!(f.arguments[0].kind, ExprKind::Wildcard);
                if AGGREGATES.contains(&name.as_str()) && f.arguments.len() == 1 && !star {
                    let (s, e) = (f.name.span.start, f.name.span.end);
                    for other in AGGREGATES {
                        if other != name {
                            self.push("aggregate", s, e, other.to_string());
                        }
                    }
                    match &f.quantifier {
                        Some(q) if q.kind == SetQuantifier::Distinct => {
                            let end = self.skip_space(q.span.end);
                            self.push("distinct", q.span.start, end, String::new());
                        }
                        Some(_) => {}
                        None => {
                            let at = f.arguments[0].span.start;
                            self.push("distinct", at, at, "DISTINCT ".to_string());
                        }
                    }
                }
                if name == "date" && f.arguments.len() == 1 {
                    if let ExprKind::Literal(lit) = &f.arguments[0].kind {
                        if let LiteralKind::String(s) = &lit.kind {
                            self.date(&f.arguments[0], s);
                        }
                    }
                }
            }
            _ => {}
        }
        walk_expr(self, node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> NeighbourSchema {
        serde_json::from_str(
            r#"{"labels": ["Person", "Country", "City"],
                "types": ["bornIn", "citizenOf"],
                "node_properties": {
                    "Person": {"name": "str", "birthYear": "int", "height": "int", "alias": "str"},
                    "Country": {"name": "str", "population": "int"}
                }}"#,
        )
        .unwrap()
    }

    fn kinds(gold: &str) -> Vec<(&'static str, String)> {
        neighbour_queries(gold, &schema(), 0, 1000, Dialect::Cypher5)
            .unwrap()
            .into_iter()
            .map(|n| (n.kind, n.query))
            .collect()
    }

    fn has(all: &[(&'static str, String)], kind: &str, q: &str) -> bool {
        all.iter().any(|(k, x)| *k == kind && x == q)
    }

    #[test]
    fn predicates_comparisons_and_constants() {
        let g = "MATCH (n:Person) WHERE n.birthYear > 1950 AND n.name <> 'x' RETURN n.name";
        let all = kinds(g);
        assert!(has(
            &all,
            "drop_predicate",
            "MATCH (n:Person) WHERE true AND n.name <> 'x' RETURN n.name"
        ));
        assert!(has(
            &all,
            "negate_predicate",
            "MATCH (n:Person) WHERE n.birthYear > 1950 AND NOT (n.name <> 'x') RETURN n.name"
        ));
        assert!(has(
            &all,
            "comparison",
            "MATCH (n:Person) WHERE n.birthYear >= 1950 AND n.name <> 'x' RETURN n.name"
        ));
        assert!(has(
            &all,
            "constant",
            "MATCH (n:Person) WHERE n.birthYear > 1951 AND n.name <> 'x' RETURN n.name"
        ));
        assert!(has(
            &all,
            "constant",
            "MATCH (n:Person) WHERE n.birthYear > 1949 AND n.name <> 'x' RETURN n.name"
        ));
        // property swaps keep the value type and the label
        assert!(has(
            &all,
            "property",
            "MATCH (n:Person) WHERE n.height > 1950 AND n.name <> 'x' RETURN n.name"
        ));
        assert!(!all.iter().any(|(_, q)| q.contains("n.population")));
        assert!(has(
            &all,
            "label",
            "MATCH (n:Country) WHERE n.birthYear > 1950 AND n.name <> 'x' RETURN n.name"
        ));
        assert!(!all.iter().any(|(_, q)| q == g));
    }

    #[test]
    fn projections_aggregates_order_limit_direction() {
        let g = "MATCH (p:Person)-[:bornIn]->(c:City) WITH c, count(p) AS k \
                 RETURN DISTINCT c.name, k ORDER BY k DESC LIMIT 3";
        let all = kinds(g);
        let r = |from: &str, to: &str| g.replacen(from, to, 1);
        assert!(has(&all, "aggregate", &r("count(p)", "sum(p)")));
        assert!(has(&all, "distinct", &r("count(p)", "count(DISTINCT p)")));
        assert!(has(
            &all,
            "distinct",
            &r("RETURN DISTINCT c.name", "RETURN c.name")
        ));
        assert!(has(&all, "distinct", &r("WITH c", "WITH DISTINCT c")));
        assert!(has(&all, "order", &r("DESC", "ASC")));
        assert!(has(&all, "limit", &r(" LIMIT 3", "")));
        assert!(has(&all, "constant", &r("LIMIT 3", "LIMIT 4")));
        assert!(has(&all, "direction", &r("-[:bornIn]->", "<-[:bornIn]-")));
        assert!(has(&all, "type", &r("bornIn", "citizenOf")));
        let g2 = "MATCH (c:City)<-[:bornIn]-(p) RETURN count(DISTINCT p)";
        let all2 = kinds(g2);
        assert!(has(
            &all2,
            "direction",
            "MATCH (c:City)-[:bornIn]->(p) RETURN count(DISTINCT p)"
        ));
        assert!(has(
            &all2,
            "distinct",
            "MATCH (c:City)<-[:bornIn]-(p) RETURN count(p)"
        ));
        assert!(!has(
            &all2,
            "order",
            "MATCH (c:City)<-[:bornIn]-(p) RETURN count(DISTINCT p)"
        ));
    }

    #[test]
    fn dates_and_pattern_maps() {
        let g = "MATCH (n:Person {name: 'Ada'}) WHERE n.born < date('1990-05-10') RETURN n.name";
        let all = kinds(g);
        assert!(has(
            &all,
            "constant",
            &g.replace("1990-05-10", "1990-05-11")
        ));
        assert!(has(
            &all,
            "constant",
            &g.replace("1990-05-10", "1989-05-10")
        ));
        assert!(has(&all, "property", &g.replace("{name:", "{alias:")));
    }

    #[test]
    fn seeded_deterministic_bounded_and_parseable() {
        let g = "MATCH (p:Person)-[:bornIn]->(c:City) WHERE p.birthYear >= 1900 \
                 RETURN c.name, count(p) AS k ORDER BY k DESC, c.name LIMIT 5";
        let a = neighbour_queries(g, &schema(), 7, 12, Dialect::Cypher5).unwrap();
        let b = neighbour_queries(g, &schema(), 7, 12, Dialect::Cypher5).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.len(), 12);
        let c = neighbour_queries(g, &schema(), 8, 12, Dialect::Cypher5).unwrap();
        assert_ne!(a, c);
        // round robin over kinds: a small budget still covers many kinds
        let kinds: BTreeSet<_> = a.iter().map(|n| n.kind).collect();
        assert!(kinds.len() >= 10, "{kinds:?}");
        let unique: BTreeSet<_> = a.iter().map(|n| n.query.clone()).collect();
        assert_eq!(unique.len(), a.len());
        for n in &a {
            assert!(
                with_front(&n.query, Dialect::Cypher5, |f| f.write_clauses().is_empty()).unwrap()
            );
        }
    }

    #[test]
    fn bad_gold_is_an_error_and_subqueries_are_left_alone() {
        assert!(neighbour_queries("MATCH (n RETURN n", &schema(), 0, 8, Dialect::Cypher5).is_err());
        let g = "MATCH (n:Person) CALL { WITH n MATCH (n)-[:bornIn]->(c) RETURN count(c) AS k } RETURN n.name, k";
        for n in neighbour_queries(g, &schema(), 0, 100, Dialect::Cypher5).unwrap() {
            assert!(
                n.query
                    .contains("CALL { WITH n MATCH (n)-[:bornIn]->(c) RETURN count(c) AS k }"),
                "{}",
                n.query
            );
        }
    }
}
