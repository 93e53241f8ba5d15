//! Edge arrays split across several bindings: the binding limit is lowered
//! so that small graphs need up to 8 segments per direction.

mod common;

vyre_testkit::suite_tests!(common::run_split =>
    segments::split_edge_segments_give_the_same_searches,
);

#[test]
fn a_graph_beyond_eight_segments_is_refused_before_allocation() {
    common::run_split(
        "a_graph_beyond_eight_segments_is_refused_before_allocation",
        |backend| {
            vyre_testkit::suites::segments::a_graph_beyond_eight_segments_is_refused_before_allocation(backend)
        },
    );
}
