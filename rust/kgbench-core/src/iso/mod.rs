//! Answer-subgraph isomorphism (seed synthkgqa-gtsqa.txt, Appendix A.2 and
//! Table 5; SPEC.md §5).
//!
//! - [`canonical_form`]: the AHU canonical string of a rooted, node-labeled tree.
//! - [`analyze`]: GTSQA's data-quality flags of an answer subgraph and, when it
//!   is a valid answer tree, its isomorphism identifier such as `(2)(1)` or
//!   `((1)(1))(1)` (canonical order of juxtaposed terms: see [`gtsqa`]).
//! - [`parse_identifier`] / [`canonical_identifier`]: the inverse direction.
//! - [`grailqa_name`]: the GrailQA++ name (Dutt et al., 2023) from Table 5.
//! - [`isomorphism_types`]: many subgraphs in parallel (rayon).
//! - [`classify_jsonl`]: GTSQA JSON Lines files (plain or gzip) parsed and
//!   classified in parallel, without building Python objects.
//!
//! Node ids are small integers; the Python binding maps arbitrary hashable ids.

mod ahu;
mod batch;
mod graph;
pub mod gtsqa;
mod identify;
mod jsonl;
mod small;

pub use ahu::{canonical_form, NotATree};
pub use batch::{
    isomorphism_type_ids, isomorphism_type_ids_local, isomorphism_types, SubgraphBatch, TypeIds,
    TypeIdsBuilder,
};
pub use graph::{Analysis, AnswerSubgraph, Defect, InvalidAnswerSubgraph, Workspace};
pub use gtsqa::{
    grailqa_name, parse_identifier, IdentifierError, ParsedIdentifier, GRAILQA_NAMES,
    TABLE5_IDENTIFIERS,
};
pub use identify::{analyze, analyze_general, canonical_identifier};
pub use jsonl::{
    classify_jsonl, classify_reader, GivenAgreement, InvalidRecord, JsonlError, JsonlTypes,
};

/// The GTSQA identifier of a valid answer tree.
///
/// # Errors
/// [`InvalidAnswerSubgraph`] listing every [`Defect`] found.
pub fn isomorphism_type(g: &AnswerSubgraph<'_>) -> Result<String, InvalidAnswerSubgraph> {
    let a = analyze(&mut Workspace::default(), g);
    match a.identifier {
        Some(id) => Ok(id),
        None => Err(InvalidAnswerSubgraph(a.defects())),
    }
}
