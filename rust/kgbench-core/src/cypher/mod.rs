//! Placeholder: filled by the cypher work.
