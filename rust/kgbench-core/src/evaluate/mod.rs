//! Placeholder: filled by the evaluate work.
