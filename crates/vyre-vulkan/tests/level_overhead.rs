//! Per-level cost on a grid, one level per command, chained and fused,
//! split into the host's phases (recording, submission, waiting, reading)
//! and the device's time, printed for the record (run with `--ignored
//! --nocapture`; timing is not asserted).
//!
//! `VYRE_OVERHEAD_GRID=<side>` sets the grid (default 300; the H200 figure
//! of record is 3000).

mod common;

use std::sync::Arc;

use common::{begin, command, later_sizing, shape, upload};
use vyre_driver::backend::{Backend, CheckedCommand, DeviceLayout, SearchPosition, WaveCommand};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::Graph;
use vyre_graph::generate::grid_2d;
use vyre_vulkan::testing::open;
use vyre_vulkan::{HostTiming, VulkanBackend};

/// One search's host phases and device time, summed over its commands.
#[derive(Default)]
struct Split {
    levels: u64,
    commands: u64,
    wall_ns: u64,
    device_ns: u64,
    host: HostTiming,
}

impl Split {
    fn add(&mut self, host: HostTiming, levels: usize, wall_ns: u64, device_ns: Option<u64>) {
        self.commands += 1;
        self.levels += levels as u64;
        self.wall_ns += wall_ns;
        self.device_ns += device_ns.unwrap_or(0);
        self.host.record_ns += host.record_ns;
        self.host.submit_ns += host.submit_ns;
        self.host.wait_ns += host.wait_ns;
        self.host.read_ns += host.read_ns;
    }
}

fn wave(
    gpu: &VulkanBackend,
    layout: &DeviceLayout,
    topology: T,
    at: SearchPosition,
    chain: u32,
) -> CheckedCommand {
    if topology != T::FusedWave {
        return command(gpu, layout, topology, at, chain, u64::MAX);
    }
    let caps = gpu.capabilities();
    let groups = caps.resident_workgroups;
    let later = later_sizing(topology, groups);
    WaveCommand {
        topology,
        position: at,
        max_levels: chain,
        launch: shape(
            caps.resident_workgroup_size,
            [groups, 1, 1],
            later,
            topology,
            &at,
            layout.vertex_count,
        ),
        band_max_frontier_edges: u64::MAX,
        band_max_frontier_vertices: u32::MAX,
    }
    .check(caps, layout)
    .expect("a fused command within the resident grid")
}

/// A whole search from vertex 0 of `topology`, `chain` levels per command,
/// after a warm-up search that records the chains and builds the pipelines.
fn timed(
    gpu: &mut VulkanBackend,
    layout: &DeviceLayout,
    graph: &Graph,
    topology: T,
    chain: u32,
) -> Split {
    let mut split = Split::default();
    for _ in 0..2 {
        split = Split::default();
        let mut at = begin(gpu, graph, &[0]);
        while at.frontier_len > 0 {
            let report = gpu
                .run_wave(&wave(gpu, layout, topology, at, chain))
                .expect("wave runs");
            split.add(
                gpu.last_command_timing(),
                report.levels.len(),
                report.wall_ns,
                report.device_ns,
            );
            let last = report.levels.last().expect("a level ran");
            at = at.after(topology, report.levels.len() as u32, last);
        }
    }
    split
}

#[test]
#[ignore = "measurement; run explicitly"]
fn per_level_overhead_split() {
    let Some(mut gpu) = open("per_level_overhead_split") else {
        return;
    };
    let side = std::env::var("VYRE_OVERHEAD_GRID")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    let graph = Arc::new(grid_2d(side, side).expect("grid"));
    let layout = upload(&mut *gpu, &graph, 1024);
    println!(
        "device: {}; barrier: {}",
        gpu.capabilities().device_name,
        gpu.capabilities().barrier_reason
    );
    let mut cases = vec![
        (T::SparseFrontier, 1),
        (T::SparseFrontier, 256),
        (T::WarpSparseFrontier, 256),
    ];
    if gpu.capabilities().can_fuse() {
        cases.push((T::FusedWave, 1024));
    }
    for (topology, chain) in cases {
        let s = timed(&mut gpu, &layout, &graph, topology, chain);
        let per = |ns: u64| ns as f64 / 1e3 / s.levels as f64;
        println!(
            "{topology:?} x{chain}: {} levels in {} commands; per level: wall {:.2} us (record {:.2}, submit {:.2}, wait {:.2}, read {:.2} on the host), device {:.2} us",
            s.levels,
            s.commands,
            per(s.wall_ns),
            per(s.host.record_ns),
            per(s.host.submit_ns),
            per(s.host.wait_ns),
            per(s.host.read_ns),
            per(s.device_ns),
        );
    }
}
