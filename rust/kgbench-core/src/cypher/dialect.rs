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
