//! Placeholder: filled by the convert work.
