//! Placeholder: filled by the iso work.
