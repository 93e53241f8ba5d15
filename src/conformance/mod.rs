//! Conformance: every backend × every topology (forced, and chosen by the
//! policy) against the serial reference BFS and the five Graph500 checks, on
//! a corpus of generated graphs of many shapes.
//!
//! `cargo xtask conformance` runs the full corpus; the integration tests in
//! `tests/` run the small one.

mod check;
mod corpus;

pub use check::{CaseOutcome, Verdict, check_batch, check_case, modes};
pub use corpus::{Case, CorpusSize, corpus};
