//! Edge arrays split across several bindings: the binding limit is lowered
//! so that small graphs need up to 8 segments per direction.

mod common;

vyre_testkit::segments_tests!(common::run_split);
