//! FusedWave on Vulkan: the suite both WGSL backends run (vyre-testkit's
//! `fused`), and what only Vulkan does: a launch recorded once per shape,
//! and the abort word the host sets past its wait limit.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::suites::fused::{fused_command, run_stuck, stuck_graph};
use common::{begin, fused_device, stuck_device, upload};
use vyre_driver::backend::Backend;
use vyre_graph::generate::grid_2d;

vyre_testkit::fused_tests!(
    fused: common::run_fused,
    plain: common::run,
    stuck: common::run_stuck
);

#[test]
fn a_fused_launch_is_recorded_once_per_shape() {
    let Some(mut gpu) = fused_device("a_fused_launch_is_recorded_once_per_shape") else {
        return;
    };
    let graph = Arc::new(grid_2d(20, 20).expect("grid"));
    let layout = upload(&mut *gpu, &graph, 1024);
    let caps = gpu.capabilities().clone();
    for round in 0..3 {
        let at = begin(&mut *gpu, &graph, &[0]);
        let command = fused_command(at, caps.resident_workgroups, graph.vertex_count(), 1024, 6)
            .check(&caps, &layout)
            .expect("a fused command within the resident grid");
        gpu.run_wave(&command).expect("the launch runs");
        assert_eq!(gpu.last_command_timing().recorded, round == 0);
    }
    assert_eq!(gpu.chains_recorded(), 1, "one shape, recorded once");
    gpu.assert_valid();
}

/// Past the wait limit the host sets the abort word, which the waiting
/// workgroups poll: the launch ends and the error says it was aborted; the
/// backend is not poisoned (it still uploads and reads back).
#[test]
fn a_launch_past_the_wait_limit_is_aborted_not_waited_for() {
    let test = "a_launch_past_the_wait_limit_is_aborted_not_waited_for";
    let Some(mut gpu) = stuck_device(test, Some(Duration::from_nanos(1))) else {
        return;
    };
    let (graph, layout) = stuck_graph(&mut *gpu);
    let message = run_stuck(&mut *gpu, &graph, &layout);
    assert!(
        message.contains("was aborted (its workgroups saw the abort word"),
        "{message}"
    );
    gpu.upload(&graph, &layout)
        .expect("the device still takes work");
    let mut depths = vec![0; graph.vertex_count() as usize];
    gpu.read_depths(&mut depths).expect("and reads back");
    assert!(depths.iter().all(|&d| d == vyre_graph::UNREACHED));
    gpu.assert_valid();
}
