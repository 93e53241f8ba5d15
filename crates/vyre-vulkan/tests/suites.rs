//! The suites every backend running the WGSL kernels passes
//! (vyre-testkit): every per-wave topology on every graph shape, chains
//! sized on the device, band stops, frontier conversions, hubs beyond
//! lavapipe's loop budget, every width and grid shape, and split edge
//! bindings, each checked against the reference BFS level by level, under
//! the validation layer.

mod common;

vyre_testkit::suite_tests!(common::run =>
    topologies::every_topology_matches_the_reference_on_every_shape,
    chains::chains_of_several_levels_match_the_reference,
    chains::switching_topologies_mid_search_converts_the_frontier,
    chains::a_chain_stops_when_the_frontier_leaves_the_band,
    chains::a_chain_ends_early_when_the_frontier_empties,
    star_hub::star_with_a_100k_leaf_hub_from_hub_and_from_leaf,
    hubs::a_broom_whose_level_is_eight_hubs,
    hubs::hubs_mixed_with_mid_and_light_vertices_in_one_scan,
    hubs::a_short_frontier_with_many_edges_is_scanned_in_chunks_too,
    hubs::chunks_crowded_with_mid_degree_vertices,
    hubs::hubs_mixed_with_light_vertices_beyond_one_scan,
    hubs::directed_frontiers_with_runs_of_degree_zero_vertices,
    hubs::chains_across_small_and_chunked_frontiers,
    hubs::a_frontier_of_more_than_one_scan_per_chunk,
    hubs::hubs_at_every_width_and_with_few_workgroups,
    launch_shapes::every_width_and_grid_shape_gives_the_reference_depths,
);

vyre_testkit::suite_tests!(common::run_split =>
    segments::split_edge_segments_give_the_same_searches,
);

#[test]
fn a_graph_beyond_eight_segments_is_refused_before_allocation() {
    common::run_split(
        "a_graph_beyond_eight_segments_is_refused_before_allocation",
        |backend| {
            vyre_testkit::suites::segments::a_graph_beyond_eight_segments_is_refused_before_allocation(
                backend,
            );
        },
    );
}
