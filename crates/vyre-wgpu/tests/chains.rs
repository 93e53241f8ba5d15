//! Chains (several levels per submission, later ones sized on the device),
//! band stops, topology switches mid-search (queue/bitmap conversions) and
//! multi-source searches. `VYRE_STRESS_REPEATS=N` repeats every search N
//! times, each checked at every level.

mod common;

vyre_testkit::suite_tests!(common::run =>
    chains::chains_of_several_levels_match_the_reference,
    chains::switching_topologies_mid_search_converts_the_frontier,
    chains::a_chain_stops_when_the_frontier_leaves_the_band,
    chains::a_chain_ends_early_when_the_frontier_empties,
);
