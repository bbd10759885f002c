//! Noise profiles (spec ngdbench.md §2–§3): which noise types run, in which order, at which
//! rate, and their settings.
//!
//! A profile is the repo's `perturb_guide` JSON:
//! `{"noise_types": {type: {constraints|operations|typo_operations|name_fields|exclude_attributes}},
//!   "default_profile": {type: rate}}`. Types run in the order of `default_profile`; a rate of 0
//! skips the type. Settings read (defaults in brackets):
//! - `incomplete_edges.constraints.avoid_dangling_edges` [true]
//! - `relation_type_noise.constraints.same_relation_family` [true; false = uniform swap]
//! - `name_typos.operations` [the five operations], `name_typos.name_fields` [none]
//! - `attribute_noise.typo_operations` [the four single operations, no `mix`] — the repo reads
//!   this key and ignores `attribute_noise.operations`, which is accepted and not used;
//!   `attribute_noise.exclude_attributes` [id, label, node_type, name].
//!
//! Other keys (`description`, unused constraints) are accepted and ignored. An unknown noise
//! type, a rate that is not a number in [0, 1], or a setting of the wrong type is an error
//! naming the field ([`ProfileError`]).

use std::fmt;

use super::typo::{TypoOp, SINGLE_OPS};
use crate::neo4j::value::{parse, Val};

/// The six noise types, in the order of the repo's default profile.
pub const NOISE_TYPES: [&str; 6] = [
    "incomplete_edges",
    "false_edges",
    "relation_type_noise",
    "name_typos",
    "node_type_noise",
    "attribute_noise",
];

/// A noise type (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoiseType {
    /// Delete sampled edges.
    IncompleteEdges,
    /// Add edges between random node pairs.
    FalseEdges,
    /// Swap an edge's type for the most similar other type.
    RelationTypeNoise,
    /// One typo in a node's name.
    NameTypos,
    /// Swap a node's label for the most similar other label.
    NodeTypeNoise,
    /// Scale numbers and add typos to strings of a node's attributes.
    AttributeNoise,
}

impl NoiseType {
    /// The type named `name`.
    pub fn parse(name: &str) -> Option<NoiseType> {
        Some(match name {
            "incomplete_edges" => NoiseType::IncompleteEdges,
            "false_edges" => NoiseType::FalseEdges,
            "relation_type_noise" => NoiseType::RelationTypeNoise,
            "name_typos" => NoiseType::NameTypos,
            "node_type_noise" => NoiseType::NodeTypeNoise,
            "attribute_noise" => NoiseType::AttributeNoise,
            _ => return None,
        })
    }

    /// The profile name of the type.
    pub fn name(self) -> &'static str {
        match self {
            NoiseType::IncompleteEdges => "incomplete_edges",
            NoiseType::FalseEdges => "false_edges",
            NoiseType::RelationTypeNoise => "relation_type_noise",
            NoiseType::NameTypos => "name_typos",
            NoiseType::NodeTypeNoise => "node_type_noise",
            NoiseType::AttributeNoise => "attribute_noise",
        }
    }
}

/// A profile that cannot be used; the message names the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileError(pub String);

impl fmt::Display for ProfileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad noise profile: {}", self.0)
    }
}

impl std::error::Error for ProfileError {}

/// A checked profile.
#[derive(Debug, Clone)]
pub struct Profile {
    /// `(type, rate)` in profile order, rate in [0, 1] (zero rates included).
    pub rates: Vec<(NoiseType, f64)>,
    /// `incomplete_edges`: skip an edge when an end has degree <= 1.
    pub avoid_dangling_edges: bool,
    /// `relation_type_noise`: the most similar type (true) or a uniform other type (false).
    pub same_relation_family: bool,
    /// `name_typos` operations.
    pub name_ops: Vec<TypoOp>,
    /// `name_typos` fields tried first.
    pub name_fields: Vec<String>,
    /// `attribute_noise` typo operations for strings.
    pub attribute_ops: Vec<TypoOp>,
    /// `attribute_noise` attributes left alone (besides names ending in "id").
    pub exclude_attributes: Vec<String>,
    /// The profile JSON text as given (written into the log).
    pub text: String,
}

/// The `noise_types` part both shipped profiles share (NGDBench's `perturb_guide/*.json`),
/// as a string literal for `concat!`.
macro_rules! guide_noise_types {
    () => {
        r#"  "noise_types": {
    "incomplete_edges": {
      "description": "delete edges (missing relations)",
      "constraints": {"avoid_dangling_edges": true}
    },
    "false_edges": {
      "description": "add edges that are not in the clean graph (wrong relations)",
      "constraints": {"avoid_dangling_edges": true}
    },
    "relation_type_noise": {
      "description": "swap an edge's type for the most similar other type",
      "constraints": {"same_relation_family": true}
    },
    "node_type_noise": {
      "description": "swap a node's label for the most similar other label",
      "constraints": {"allow_invalid_combinations": true}
    },
    "name_typos": {
      "description": "one character-level typo in a node's name",
      "operations": ["character_substitution", "character_deletion", "character_insertion", "case_alteration", "mix"]
    },
    "attribute_noise": {
      "description": "numbers scaled by a power of ten, strings with one typo",
      "operations": ["character_substitution", "character_deletion", "character_insertion", "case_alteration", "mix"]
    }
  },
"#
    };
}

/// The repo's `perturb_guide/general_guid_new.json` rates (NGDBench's default; spec §3).
pub const GENERAL_GUID_NEW: &str = concat!(
    "{\n",
    guide_noise_types!(),
    r#"  "default_profile": {
    "incomplete_edges": 0.05,
    "false_edges": 0.1,
    "relation_type_noise": 0.1,
    "name_typos": 0.2,
    "node_type_noise": 0.1,
    "attribute_noise": 0.1
  }
}
"#
);

/// The repo's older `perturb_guide/general_guid_original.json` rates (spec §3).
pub const GENERAL_GUID_ORIGINAL: &str = concat!(
    "{\n",
    guide_noise_types!(),
    r#"  "default_profile": {
    "incomplete_edges": 0.02,
    "false_edges": 0.03,
    "relation_type_noise": 0.02,
    "name_typos": 0.2,
    "node_type_noise": 0.05,
    "attribute_noise": 0.05
  }
}
"#
);

/// The names of the shipped profiles: `(name, aliases, JSON text)`.
pub const NAMED_PROFILES: [(&str, &[&str], &str); 2] = [
    ("general_guid_new", &["default", "new"], GENERAL_GUID_NEW),
    (
        "general_guid_original",
        &["original", "old"],
        GENERAL_GUID_ORIGINAL,
    ),
];

/// The JSON text of the shipped profile `name` (a name or an alias of [`NAMED_PROFILES`]).
pub fn named(name: &str) -> Option<&'static str> {
    NAMED_PROFILES
        .iter()
        .find(|(n, aliases, _)| *n == name || aliases.contains(&name))
        .map(|(_, _, text)| *text)
}

fn ops_of(v: &Val<'_>, field: &str) -> Result<Vec<TypoOp>, ProfileError> {
    let Val::List(items) = v else {
        return Err(ProfileError(format!(
            "{field}: must be a list of operation names"
        )));
    };
    let mut ops = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let op = item.as_str().and_then(TypoOp::parse).ok_or_else(|| {
            ProfileError(format!(
                "{field}[{i}]: unknown typo operation {} (known: character_substitution, \
                 character_deletion, character_insertion, case_alteration, mix)",
                item.py_repr()
            ))
        })?;
        ops.push(op);
    }
    if ops.is_empty() {
        return Err(ProfileError(format!("{field}: must not be empty")));
    }
    Ok(ops)
}

fn strings_of(v: &Val<'_>, field: &str) -> Result<Vec<String>, ProfileError> {
    let err = || ProfileError(format!("{field}: must be a list of strings"));
    let Val::List(items) = v else {
        return Err(err());
    };
    items
        .iter()
        .map(|x| x.as_str().map(str::to_string).ok_or_else(err))
        .collect()
}

fn bool_of(v: &Val<'_>, field: &str) -> Result<bool, ProfileError> {
    match v {
        Val::Bool(b) => Ok(*b),
        _ => Err(ProfileError(format!(
            "{field}: must be true or false, got {}",
            v.py_repr()
        ))),
    }
}

impl Profile {
    /// Check a profile's JSON text.
    ///
    /// Errors: not JSON / not an object; no `default_profile` object; an unknown noise type in
    /// `default_profile` or `noise_types`; a rate that is not a number in [0, 1]; a setting of
    /// the wrong type; an unknown typo operation. The message names the field, e.g.
    /// `default_profile.false_edges: rate must be a number in [0, 1], got 1.5`.
    pub fn parse(text: &str) -> Result<Profile, ProfileError> {
        let root = parse(text.as_bytes()).map_err(|e| ProfileError(format!("not JSON: {e}")))?;
        let Val::Obj(_) = root else {
            return Err(ProfileError("must be a JSON object".into()));
        };
        let known = NOISE_TYPES.join(", ");
        let Some(rates_val) = root.get("default_profile") else {
            return Err(ProfileError(
                "default_profile: missing (an object {noise type: rate})".into(),
            ));
        };
        let Val::Obj(pairs) = rates_val else {
            return Err(ProfileError(
                "default_profile: must be an object {noise type: rate}".into(),
            ));
        };
        let mut rates = Vec::new();
        for (k, v) in pairs {
            let t = NoiseType::parse(k).ok_or_else(|| {
                ProfileError(format!(
                    "default_profile.{k}: unknown noise type (known: {known})"
                ))
            })?;
            let rate = match v {
                Val::Int(i) => *i as f64,
                Val::Float(f) => *f,
                _ => f64::NAN,
            };
            if !(0.0..=1.0).contains(&rate) {
                return Err(ProfileError(format!(
                    "default_profile.{k}: rate must be a number in [0, 1], got {}",
                    v.py_repr()
                )));
            }
            rates.push((t, rate));
        }
        let mut p = Profile {
            rates,
            avoid_dangling_edges: true,
            same_relation_family: true,
            name_ops: vec![
                TypoOp::Substitution,
                TypoOp::Deletion,
                TypoOp::Insertion,
                TypoOp::CaseAlteration,
                TypoOp::Mix,
            ],
            name_fields: Vec::new(),
            attribute_ops: SINGLE_OPS.to_vec(),
            exclude_attributes: ["id", "label", "node_type", "name"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            text: text.to_string(),
        };
        match root.get("noise_types") {
            None | Some(Val::Null) => {}
            Some(Val::Obj(types)) => {
                for (k, cfg) in types {
                    let t = NoiseType::parse(k).ok_or_else(|| {
                        ProfileError(format!(
                            "noise_types.{k}: unknown noise type (known: {known})"
                        ))
                    })?;
                    p.read_settings(t, cfg)?;
                }
            }
            Some(_) => return Err(ProfileError("noise_types: must be an object".into())),
        }
        Ok(p)
    }

    fn read_settings(&mut self, t: NoiseType, cfg: &Val<'_>) -> Result<(), ProfileError> {
        let base = format!("noise_types.{}", t.name());
        if !matches!(cfg, Val::Obj(_)) {
            return Err(ProfileError(format!("{base}: must be an object")));
        }
        let constraint = |key: &str| -> Result<Option<bool>, ProfileError> {
            match cfg.get("constraints") {
                None | Some(Val::Null) => Ok(None),
                Some(c @ Val::Obj(_)) => c
                    .get(key)
                    .map(|v| bool_of(v, &format!("{base}.constraints.{key}")))
                    .transpose(),
                Some(_) => Err(ProfileError(format!(
                    "{base}.constraints: must be an object"
                ))),
            }
        };
        match t {
            NoiseType::IncompleteEdges => {
                if let Some(b) = constraint("avoid_dangling_edges")? {
                    self.avoid_dangling_edges = b;
                }
            }
            NoiseType::RelationTypeNoise => {
                if let Some(b) = constraint("same_relation_family")? {
                    self.same_relation_family = b;
                }
            }
            NoiseType::NameTypos => {
                if let Some(v) = cfg.get("operations") {
                    self.name_ops = ops_of(v, &format!("{base}.operations"))?;
                }
                if let Some(v) = cfg.get("name_fields") {
                    self.name_fields = strings_of(v, &format!("{base}.name_fields"))?;
                }
            }
            NoiseType::AttributeNoise => {
                if let Some(v) = cfg.get("operations") {
                    // accepted (and checked) but not used, as in the repo
                    ops_of(v, &format!("{base}.operations"))?;
                }
                if let Some(v) = cfg.get("typo_operations") {
                    self.attribute_ops = ops_of(v, &format!("{base}.typo_operations"))?;
                }
                if let Some(v) = cfg.get("exclude_attributes") {
                    self.exclude_attributes = strings_of(v, &format!("{base}.exclude_attributes"))?;
                }
            }
            NoiseType::FalseEdges | NoiseType::NodeTypeNoise => {
                constraint("avoid_dangling_edges")?;
                constraint("allow_invalid_combinations")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shipped profiles' texts (written into every noise log) are byte for byte those of
    /// kgbench 0.x before the shared `noise_types` part was folded into one macro.
    #[test]
    fn named_profile_texts_are_unchanged() {
        use sha2::{Digest, Sha256};
        let hex = |t: &str| -> String {
            Sha256::digest(t.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect()
        };
        assert_eq!(
            hex(GENERAL_GUID_NEW),
            "26134a3f3fba3c5c39486d8354fa91d3ecc4722be99d7e4e8a05ce383ffe0c87"
        );
        assert_eq!(
            hex(GENERAL_GUID_ORIGINAL),
            "bf7c40f98c8bb70f22976e1b3e18f1d73e33501bbd0a58b04c480a48eaac84ae"
        );
    }

    #[test]
    fn named_profiles_parse_with_the_repo_rates() {
        let p = Profile::parse(named("default").unwrap()).unwrap();
        let rates: Vec<_> = p.rates.iter().map(|(t, r)| (t.name(), *r)).collect();
        assert_eq!(
            rates,
            vec![
                ("incomplete_edges", 0.05),
                ("false_edges", 0.1),
                ("relation_type_noise", 0.1),
                ("name_typos", 0.2),
                ("node_type_noise", 0.1),
                ("attribute_noise", 0.1),
            ]
        );
        assert_eq!(p.attribute_ops, SINGLE_OPS.to_vec());
        let p = Profile::parse(named("general_guid_original").unwrap()).unwrap();
        let r: Vec<f64> = p.rates.iter().map(|x| x.1).collect();
        assert_eq!(r, vec![0.02, 0.03, 0.02, 0.2, 0.05, 0.05]);
        assert!(named("nope").is_none());
    }

    #[test]
    fn bad_profiles_name_the_field() {
        let cases = [
            (
                r#"{"default_profile": {"typos": 0.1}}"#,
                "default_profile.typos",
            ),
            (
                r#"{"default_profile": {"false_edges": 1.5}}"#,
                "default_profile.false_edges",
            ),
            (
                r#"{"default_profile": {"false_edges": -0.1}}"#,
                "default_profile.false_edges",
            ),
            (
                r#"{"default_profile": {"false_edges": "0.1"}}"#,
                "default_profile.false_edges",
            ),
            (r#"{"noise_types": {}}"#, "default_profile"),
            (r#"[]"#, "object"),
            (
                r#"{"default_profile": {}, "noise_types": {"x": {}}}"#,
                "noise_types.x",
            ),
            (
                r#"{"default_profile": {}, "noise_types": {"name_typos": {"operations": ["swap"]}}}"#,
                "noise_types.name_typos.operations[0]",
            ),
            (
                r#"{"default_profile": {}, "noise_types": {"incomplete_edges": {"constraints": {"avoid_dangling_edges": 1}}}}"#,
                "noise_types.incomplete_edges.constraints.avoid_dangling_edges",
            ),
            ("{", "not JSON"),
        ];
        for (text, field) in cases {
            let e = Profile::parse(text).unwrap_err().to_string();
            assert!(e.contains(field), "{text}: {e}");
        }
    }

    #[test]
    fn settings_are_read() {
        let p = Profile::parse(
            r#"{"default_profile": {"name_typos": 1, "incomplete_edges": 0},
                "noise_types": {"relation_type_noise": {"constraints": {"same_relation_family": false}},
                                "name_typos": {"operations": ["case_alteration"], "name_fields": ["title"]},
                                "attribute_noise": {"typo_operations": ["mix"], "exclude_attributes": ["x"]}}}"#,
        )
        .unwrap();
        assert_eq!(p.rates[0], (NoiseType::NameTypos, 1.0));
        assert!(!p.same_relation_family);
        assert_eq!(p.name_ops, vec![TypoOp::CaseAlteration]);
        assert_eq!(p.name_fields, vec!["title".to_string()]);
        assert_eq!(p.attribute_ops, vec![TypoOp::Mix]);
        assert_eq!(p.exclude_attributes, vec!["x".to_string()]);
    }
}
