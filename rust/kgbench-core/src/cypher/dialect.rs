//! The Cypher dialect a server speaks (Cypher 5 or Cypher 25), in a module of its own below
//! the front end ([`super::frontend`]), the parser ([`super::parse`]) and the rewrites of
//! forms outside the grammar ([`super::gql`]), which all depend on it.

/// The Cypher dialect a server speaks, where the front end's verdicts differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// Cypher 5 (Neo4j 5.x, the 5.26 LTS kgbench ships; the default).
    #[default]
    Cypher5,
    /// Cypher 25 (Neo4j 2025.06 and later with Cypher 25 selected).
    Cypher25,
}

impl Dialect {
    /// The dialect named `"5"` or `"25"` (also `"cypher 5"`, `"CYPHER 25"`).
    ///
    /// # Errors
    ///
    /// A message naming the value when it is neither.
    pub fn from_name(name: &str) -> Result<Self, String> {
        let n = name.trim().to_ascii_lowercase();
        match n.trim_start_matches("cypher").trim() {
            "5" => Ok(Self::Cypher5),
            "25" => Ok(Self::Cypher25),
            _ => Err(format!(
                "unknown Cypher dialect {name:?} (expected \"5\" or \"25\")"
            )),
        }
    }

    /// `"5"` or `"25"`.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Cypher5 => "5",
            Self::Cypher25 => "25",
        }
    }
}

/// A form whose verdict the front end takes from the dialect's rules ([`Dialect::accepts`]):
/// the refusal pass of [`super::frontend`] and the rewrites of [`super::gql`] consult these
/// instead of branching on the dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `[:A|:B]`: a colon before each alternative relationship type, without a variable,
    /// properties or a variable length (deprecated in Neo4j 5).
    ColonTypeAlternation,
    /// A query whose first character is a `\uXXXX` escape (`\u004dERGE ...`).
    LeadingEscape,
    /// The `ALL` set quantifier of a projection: `RETURN ALL x`, `WITH ALL x`.
    ProjectionAll,
    /// The match modes `MATCH REPEATABLE ELEMENTS` / `MATCH DIFFERENT RELATIONSHIPS`.
    MatchMode,
    /// `LET x = expr`.
    Let,
    /// `FILTER predicate` after a `MATCH` pattern or a `WITH`.
    Filter,
    /// A conditional query `WHEN cond THEN query [WHEN ...] [ELSE query]`.
    ConditionalQuery,
    /// `RETURN ... GROUP BY ...`.
    GroupBy,
}

/// One row of [`RULES`]: a form and whether each dialect accepts it.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// The form.
    pub form: Form,
    /// Accepted under Cypher 5 (Neo4j 5.26.30's verdict).
    pub cypher5: bool,
    /// Accepted under Cypher 25 (Neo4j 2026.08.1's verdict).
    pub cypher25: bool,
}

/// The per-dialect rules, each from the server verdicts of the differential corpus
/// (`tests/data/cypher/neo4j`, `EXPLAIN` on Neo4j 5.26.30 and on 2026.08.1 with Cypher 25).
pub const RULES: &[Rule] = &[
    // Both accept `[:A|:B]`; both refuse `[r:A|:B]` (a refusal in every dialect).
    rule(Form::ColonTypeAlternation, true, true),
    // 5.26: "Invalid input 'dERGE'"; 2026.08.1 decodes it and plans the write.
    rule(Form::LeadingEscape, false, true),
    // 5.26: "Invalid input 'all': expected an expression" (`RETURN all all(...)`).
    rule(Form::ProjectionAll, false, true),
    rule(Form::MatchMode, false, true),
    rule(Form::Let, false, true),
    rule(Form::Filter, false, true),
    rule(Form::ConditionalQuery, false, true),
    rule(Form::GroupBy, false, true),
];

const fn rule(form: Form, cypher5: bool, cypher25: bool) -> Rule {
    Rule {
        form,
        cypher5,
        cypher25,
    }
}

impl Dialect {
    /// Whether this dialect accepts `form` (its row of [`RULES`]; a form without a row is
    /// refused).
    #[must_use]
    pub fn accepts(self, form: Form) -> bool {
        RULES
            .iter()
            .find(|r| r.form == form)
            .is_some_and(|r| match self {
                Self::Cypher5 => r.cypher5,
                Self::Cypher25 => r.cypher25,
            })
    }
}
