//! Macros that declare a backend's `#[test]` functions for the shared
//! suites.

/// `#[test]` functions that run suites of [`crate::suites`]: for each
/// `module::name`, a test `name` calling `$run(stringify!(name),
/// suites::module::name)`, where `$run` opens the backend (or skips) and
/// runs the suite on it.
#[macro_export]
macro_rules! suite_tests {
    ($run:path => $($module:ident :: $name:ident),+ $(,)?) => {
        $(
            #[test]
            fn $name() {
                $run(stringify!($name), $crate::suites::$module::$name);
            }
        )+
    };
}

/// The tests of [`crate::suites::topologies`], run by `$run`.
#[macro_export]
macro_rules! topologies_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            topologies::every_topology_matches_the_reference_on_every_shape,
        );
    };
}

/// The tests of [`crate::suites::batch`], run by `$run`.
#[macro_export]
macro_rules! batch_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            batch::every_topology_matches_the_reference_lane_by_lane,
            batch::chained_passes_match_the_reference,
            batch::batch_state_is_held_as_its_layout_lists_and_reused,
            batch::batch_misuse_is_a_typed_error,
        );
    };
}

/// The tests of [`crate::suites::fused`]: `$fused` opens a device that runs the
/// fused kernel, `$run` the default device, and `$stuck` one forced to 64
/// resident workgroups that it never runs at once (or skips).
#[macro_export]
macro_rules! fused_tests {
    (fused: $fused:path, plain: $run:path, stuck: $stuck:path) => {
        $crate::suite_tests!($fused =>
            fused::the_fused_kernel_matches_the_reference,
            fused::a_fused_launch_stops_at_the_band,
            fused::a_batch_fused_wave_is_refused_and_the_pass_goes_on_per_wave,
        );
        $crate::suite_tests!($run =>
            fused::fused_wave_is_refused_without_a_device_wide_barrier,
            fused::lavapipe_has_no_device_wide_barrier,
        );
        $crate::suite_tests!($stuck =>
            fused::workgroups_that_wait_for_absent_ones_give_up,
        );
    };
}

/// The tests of [`crate::suites::chains`], run by `$run`.
#[macro_export]
macro_rules! chains_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            chains::chains_of_several_levels_match_the_reference,
            chains::switching_topologies_mid_search_converts_the_frontier,
            chains::a_chain_stops_when_the_frontier_leaves_the_band,
            chains::a_chain_stops_when_the_frontier_outgrows_its_band_of_vertices,
            chains::a_chain_ends_early_when_the_frontier_empties,
        );
    };
}

/// The tests of [`crate::suites::star_hub`], run by `$run`.
#[macro_export]
macro_rules! star_hub_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            star_hub::star_with_a_100k_leaf_hub_from_hub_and_from_leaf,
        );
    };
}

/// The tests of [`crate::suites::hubs`], run by `$run`.
#[macro_export]
macro_rules! hubs_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
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
    };
}

/// The tests of [`crate::suites::launch_shapes`], run by `$run`.
#[macro_export]
macro_rules! launch_shapes_tests {
    ($run:path) => {
        $crate::suite_tests!($run =>
            launch_shapes::every_width_and_grid_shape_gives_the_reference_depths,
        );
    };
}

/// The tests of [`crate::suites::segments`], run by `$run_split` (which opens the
/// backend with bindings of [`crate::suites::segments::SPLIT_BINDING_BYTES`]).
#[macro_export]
macro_rules! segments_tests {
    ($run_split:path) => {
        $crate::suite_tests!($run_split =>
            segments::split_edge_segments_give_the_same_searches,
        );

        #[test]
        fn a_graph_beyond_eight_segments_is_refused_before_allocation() {
            $run_split(
                "a_graph_beyond_eight_segments_is_refused_before_allocation",
                |backend| {
                    $crate::suites::segments::a_graph_beyond_eight_segments_is_refused_before_allocation(
                        backend,
                    )
                },
            );
        }
    };
}
