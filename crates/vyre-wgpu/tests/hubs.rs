//! Levels whose frontier mixes hubs with light, mid-degree and degree-0
//! vertices: the shapes SparseFrontier's device-wide edge balancing and
//! HybridFrontier's heavy-vertex pieces are for. Frontiers both within and
//! beyond what one workgroup scans (2048 vertices), degrees on both sides of
//! every threshold (32 light, 1024 per piece), one level at a time and in
//! chains sized on the device. Depths are compared with the reference BFS,
//! parents checked, and every level's counts (vertices found, their
//! out-edges, edges examined) and grid compared with the reference's and the
//! engine's rule. `VYRE_STRESS_REPEATS=N` repeats every search N times.

mod common;

vyre_testkit::suite_tests!(common::run =>
    hubs::a_broom_whose_level_is_eight_hubs,
    hubs::hubs_mixed_with_mid_and_light_vertices_in_one_scan,
    hubs::a_short_frontier_with_many_edges_is_scanned_in_chunks_too,
    hubs::chunks_crowded_with_mid_degree_vertices,
    hubs::hubs_mixed_with_light_vertices_beyond_one_scan,
    hubs::directed_frontiers_with_runs_of_degree_zero_vertices,
    hubs::chains_across_small_and_chunked_frontiers,
    hubs::a_frontier_of_more_than_one_scan_per_chunk,
    hubs::hubs_at_every_width_and_with_few_workgroups,
);
