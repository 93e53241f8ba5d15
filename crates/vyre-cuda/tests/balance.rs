//! Load balance and per-command cost: frontiers of a few hubs, hubs among
//! many light vertices, and frontiers far larger than one block scans, under
//! every top-down topology, in chains and fused; the device time of a hub
//! level, the host cost of a one-level command, and chains that stop early.
//! Needs a CUDA device; skips visibly without one. On a GPU the figures are
//! printed (uncaptured) and checked against generous bounds.

mod common;

use std::sync::Arc;

use common::{
    Choice, HISTORY_LEVELS, broom, check_outcome, has_barrier, hubs_among_light, open_gpu, search,
    size, small, upload, visible,
};
use vyre_driver::backend::{Backend, WaveReport};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
use vyre_graph::Graph;
use vyre_graph::generate::{chain, star};

const TOP_DOWN: [Topology; 3] = [
    Topology::WarpSparseFrontier,
    Topology::SparseFrontier,
    Topology::HybridFrontier,
];

/// Graphs whose frontiers are all edge-heavy in a few vertices or much
/// larger than a block.
fn hub_graphs() -> Vec<(&'static str, Arc<Graph>, Vec<u32>)> {
    let leaves = size(100_000, 20_000);
    vec![
        ("broom", Arc::new(broom(8, size(20_000, 300), 5)), vec![0]),
        (
            "hubs among light",
            Arc::new(hubs_among_light(size(3000, 600), 8, size(20_000, 200))),
            vec![0],
        ),
        // From a leaf: one hub of `leaves` edges, then a frontier of all the
        // other leaves (multi-tile chunks of the device-wide scan).
        (
            "star from a leaf",
            Arc::new(star(leaves).expect("star")),
            vec![leaves],
        ),
    ]
}

fn fused_allowed(gpu: &common::Gpu, topology: Topology) -> bool {
    topology != Topology::FusedWave || has_barrier(gpu)
}

#[test]
fn hub_frontiers_match_the_reference_under_every_top_down_topology() {
    let Some(mut gpu) = open_gpu("hub_frontiers") else {
        return;
    };
    for (name, graph, sources) in hub_graphs() {
        upload(&mut gpu.backend, &graph);
        for topology in TOP_DOWN.into_iter().chain([Topology::FusedWave]) {
            if !fused_allowed(&gpu, topology) {
                continue;
            }
            for max_levels in [1, 3, HISTORY_LEVELS] {
                let outcome = search(&mut gpu.backend, &graph, &sources, |_| Choice {
                    max_levels: if topology == Topology::FusedWave {
                        max_levels
                    } else {
                        max_levels.min(64)
                    },
                    ..Choice::single(topology)
                });
                let what = format!("{topology:?} x{max_levels} on {name}");
                check_outcome(&what, &graph, &sources, &outcome);
            }
        }
    }
}

#[test]
fn hub_frontiers_match_the_reference_when_topologies_alternate() {
    let Some(mut gpu) = open_gpu("hub_alternation") else {
        return;
    };
    let order = [
        Topology::SparseFrontier,
        Topology::HybridFrontier,
        Topology::DenseFrontier,
        Topology::SparseFrontier,
        Topology::BlockDenseFrontier,
        Topology::HybridFrontier,
    ];
    for (name, graph, sources) in hub_graphs() {
        upload(&mut gpu.backend, &graph);
        for offset in 0..order.len() {
            let outcome = search(&mut gpu.backend, &graph, &sources, |step| {
                Choice::single(order[(step.wave + offset) % order.len()])
            });
            let what = format!("alternating from {:?} on {name}", order[offset]);
            check_outcome(&what, &graph, &sources, &outcome);
        }
    }
}

/// Device time of the level that expands the broom's 8 hubs, after a
/// warm-up search.
fn hub_level_ns(gpu: &mut common::Gpu, graph: &Graph, topology: Topology) -> u64 {
    // A fused launch gets every resident workgroup, as the engine sizes it.
    let blocks =
        (topology == Topology::FusedWave).then(|| gpu.backend.capabilities().resident_workgroups);
    let run = |gpu: &mut common::Gpu| {
        let outcome = search(&mut gpu.backend, graph, &[0], |_| Choice {
            blocks,
            ..Choice::single(topology)
        });
        check_outcome(&format!("{topology:?} broom"), graph, &[0], &outcome);
        let (_, report) = &outcome.waves[2];
        assert_eq!(report.levels[0].frontier_in, 8, "level 2 expands the hubs");
        report.levels[0]
            .device_ns
            .or(report.device_ns)
            .expect("timed")
    };
    run(gpu);
    (0..5).map(|_| run(gpu)).min().expect("runs")
}

#[test]
fn a_level_of_eight_hubs_spreads_over_the_device() {
    let Some(mut gpu) = open_gpu("hub_level_time") else {
        return;
    };
    let graph = Arc::new(broom(8, size(20_000, 300), 5));
    upload(&mut gpu.backend, &graph);
    for topology in [
        Topology::SparseFrontier,
        Topology::HybridFrontier,
        Topology::FusedWave,
    ] {
        if !fused_allowed(&gpu, topology) {
            continue;
        }
        let ns = hub_level_ns(&mut gpu, &graph, topology);
        visible(&format!(
            "{topology:?}: 8 hubs x {} leaves in {:.1} us of device time",
            size(20_000, 300),
            ns as f64 / 1e3
        ));
        // A block per hub, instead of the hubs' edges spread over the
        // device, takes several times this bound on an H200.
        if !small() {
            assert!(ns < 200_000, "{topology:?} took {ns} ns for the hub level");
        }
    }
}

fn median(mut values: Vec<u64>) -> u64 {
    values.sort_unstable();
    values[values.len() / 2]
}

#[test]
fn a_one_level_command_costs_little_host_time() {
    let Some(mut gpu) = open_gpu("command_overhead") else {
        return;
    };
    let graph = Arc::new(chain(size(2000, 40)).expect("chain"));
    upload(&mut gpu.backend, &graph);
    for topology in TOP_DOWN {
        let mut walls = Vec::new();
        let mut host = Vec::new();
        for _ in 0..3 {
            let outcome = search(&mut gpu.backend, &graph, &[0], |_| Choice::single(topology));
            for (_, r) in &outcome.waves {
                walls.push(r.wall_ns);
                host.push(r.wall_ns.saturating_sub(r.device_ns.unwrap_or(0)));
            }
        }
        let (wall, outside) = (median(walls), median(host));
        visible(&format!(
            "{topology:?}: one-level command {:.1} us wall, {:.1} us of it outside the device",
            wall as f64 / 1e3,
            outside as f64 / 1e3
        ));
        if !small() {
            // A launch, one wait and a record read from mapped memory: a
            // few launch overheads at most.
            assert!(wall < 25_000, "{topology:?}: median command wall {wall} ns");
        }
    }
}

/// Device time and wall of one chain command that may run `max_levels`
/// levels from a leaf of a star: the hub, then every leaf, then nothing.
fn star_chain(gpu: &mut common::Gpu, graph: &Graph, max_levels: u32) -> WaveReport {
    let leaf = graph.vertex_count() - 1;
    let outcome = search(&mut gpu.backend, graph, &[leaf], |_| Choice {
        max_levels,
        ..Choice::single(Topology::SparseFrontier)
    });
    check_outcome(&format!("chain of {max_levels}"), graph, &[leaf], &outcome);
    assert_eq!(outcome.waves.len(), 1, "one command runs the whole search");
    assert_eq!(outcome.waves[0].1.levels.len(), 3);
    outcome.waves[0].1.clone()
}

#[test]
fn a_chain_that_stops_early_enqueues_little_after_the_stop() {
    let Some(mut gpu) = open_gpu("chain_stop") else {
        return;
    };
    let graph = Arc::new(star(size(1000, 50)).expect("star"));
    upload(&mut gpu.backend, &graph);
    star_chain(&mut gpu, &graph, 3);
    let short = (0..5)
        .map(|_| star_chain(&mut gpu, &graph, 3))
        .min_by_key(|r| r.wall_ns)
        .expect("runs");
    let long = (0..5)
        .map(|_| star_chain(&mut gpu, &graph, 64))
        .min_by_key(|r| r.wall_ns)
        .expect("runs");
    visible(&format!(
        "3-level search as a chain of 3: {:.1} us wall / {:.1} us device; of 64: {:.1} us / {:.1} us",
        short.wall_ns as f64 / 1e3,
        short.device_ns.unwrap_or(0) as f64 / 1e3,
        long.wall_ns as f64 / 1e3,
        long.device_ns.unwrap_or(0) as f64 / 1e3
    ));
    if !small() {
        // 61 launches after the stop would cost well over 100 us.
        assert!(
            long.wall_ns < short.wall_ns + 40_000,
            "a chain of 64 that stops after 3 levels took {} ns, one of 3 {} ns",
            long.wall_ns,
            short.wall_ns
        );
    }
}
