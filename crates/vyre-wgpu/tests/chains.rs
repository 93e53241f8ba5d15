//! Chains (several levels per submission, later ones sized on the device),
//! band stops, topology switches mid-search (queue/bitmap conversions) and
//! multi-source searches. `VYRE_STRESS_REPEATS=N` repeats every search N
//! times, each checked at every level.

mod common;

vyre_testkit::chains_tests!(common::run);
