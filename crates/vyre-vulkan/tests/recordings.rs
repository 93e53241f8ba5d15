//! Chains are recorded once per graph and chain shape and submitted again:
//! a second search whose commands have the shapes of the first records
//! nothing and builds no pipeline; a new upload records again.

mod common;

use std::sync::Arc;

use common::{Reference, TOPOLOGIES, check_against, search, upload};
use vyre_graph::generate::grid_2d;
use vyre_vulkan::testing::open;

#[test]
fn a_second_search_of_the_same_shapes_records_nothing_new() {
    let Some(mut gpu) = open("a_second_search_of_the_same_shapes_records_nothing_new") else {
        return;
    };
    let graph = Arc::new(grid_2d(25, 25).expect("grid"));
    let reference = Reference::new(&graph, &[0]);
    let layout = upload(&mut *gpu, &graph, 16);
    for topology in TOPOLOGIES {
        let first = search(&mut *gpu, &layout, &graph, &[0], 8, &|_| topology);
        check_against(&reference, &first, &format!("{topology:?}, first"));
        let (recorded, pipelines) = (gpu.chains_recorded(), gpu.pipeline_count());
        assert!(recorded > 0 && pipelines > 0);
        let again = search(&mut *gpu, &layout, &graph, &[0], 8, &|_| topology);
        check_against(&reference, &again, &format!("{topology:?}, again"));
        assert_eq!(gpu.chains_recorded(), recorded, "{topology:?}: re-recorded");
        assert_eq!(gpu.pipeline_count(), pipelines, "{topology:?}: rebuilt");
        assert!(!gpu.last_command_timing().recorded, "{topology:?}");
    }
    // New buffers, new recordings.
    let before = gpu.chains_recorded();
    let layout = upload(&mut *gpu, &graph, 16);
    let result = search(&mut *gpu, &layout, &graph, &[0], 8, &|_| TOPOLOGIES[1]);
    check_against(&reference, &result, "after a new upload");
    assert!(gpu.chains_recorded() > before);
    assert!(gpu.last_command_timing().levels_recorded == 8);
    gpu.assert_valid();
}

#[test]
fn preparing_builds_every_pipeline_a_search_dispatches() {
    let name = "preparing_builds_every_pipeline_a_search_dispatches";
    if let Some(mut gpu) = open(name) {
        vyre_testkit::suites::prepare::preparing_builds_every_pipeline_a_search_dispatches(
            &mut *gpu,
            |b| b.pipeline_count(),
        );
        gpu.assert_valid();
    }
}
