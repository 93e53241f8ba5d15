//! Batch passes (up to 64 searches at once): every lane against the
//! reference BFS with every topology forced, switching and chained, kept
//! depths or counts only, and the batch state's memory and errors.

mod common;

vyre_testkit::batch_tests!(common::run);
