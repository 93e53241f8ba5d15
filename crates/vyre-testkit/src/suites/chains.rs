//! Chains (several levels per submission, later ones sized on the device),
//! band stops, topology switches mid-search (queue/bitmap conversions) and
//! multi-source searches. `VYRE_STRESS_REPEATS=N` repeats every search N
//! times, each checked at every level.

use std::sync::Arc;
use vyre_wgsl_abi::records::LevelGrids;

use crate::{
    Reference, TOPOLOGIES, begin, check_against, check_command_count, command, command_in_band,
    frontiers, random_directed, random_undirected, repeats, search, upload,
};
use vyre_driver::backend::{Backend, FrontierBand};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::generate::{chain, grid_2d};

/// Chains of several levels match the reference.
pub fn chains_of_several_levels_match_the_reference<B: Backend + LevelGrids>(backend: &mut B) {
    let shapes = [
        ("grid 40x30", grid_2d(40, 30).expect("grid"), vec![0u32]),
        ("chain 150", chain(150).expect("chain"), vec![0]),
        ("random directed", random_directed(2000, 7000, 3), vec![1]),
        (
            "multi-source",
            random_undirected(2500, 3500, 5),
            vec![0, 9, 1200, 2400],
        ),
    ];
    for (name, graph, sources) in shapes {
        let graph = Arc::new(graph);
        let layout = upload(backend, &graph, 64);
        let reference = Reference::new(&graph, &sources);
        for _ in 0..repeats() {
            for topology in TOPOLOGIES {
                // 64 levels are recorded and submitted in several segments.
                for chain_len in [3, 16, 64] {
                    let result =
                        search(backend, &layout, &graph, &sources, chain_len, &|_| topology);
                    let what = format!("{name} / {topology:?} / chain {chain_len}");
                    check_against(&reference, &result, &what);
                    check_command_count(&result, result.levels.len() as u32, chain_len, &what);
                }
            }
        }
    }
}

/// Switching topologies mid search converts the frontier.
pub fn switching_topologies_mid_search_converts_the_frontier<B: Backend + LevelGrids>(
    backend: &mut B,
) {
    let shapes = [
        ("grid 30x30", grid_2d(30, 30).expect("grid"), vec![450u32]),
        ("random directed", random_directed(1800, 6000, 21), vec![2]),
        (
            "random undirected",
            random_undirected(3000, 9000, 23),
            vec![5, 6, 7],
        ),
    ];
    // Every ordered pair of topologies appears as consecutive levels.
    let cycle: Vec<T> = TOPOLOGIES
        .iter()
        .flat_map(|&a| TOPOLOGIES.iter().map(move |&b| [a, b]))
        .flatten()
        .collect();
    for (name, graph, sources) in shapes {
        let graph = Arc::new(graph);
        let layout = upload(backend, &graph, 4);
        let reference = Reference::new(&graph, &sources);
        for _ in 0..repeats() {
            for offset in [0usize, 1, 7] {
                for chain_len in [1, 2] {
                    let schedule = |level: u32| cycle[(level as usize + offset) % cycle.len()];
                    let result = search(backend, &layout, &graph, &sources, chain_len, &schedule);
                    let what = format!("{name} / switching from {offset} / chain {chain_len}");
                    check_against(&reference, &result, &what);
                }
            }
        }
    }
}

/// A chain stops when the frontier leaves the band.
pub fn a_chain_stops_when_the_frontier_leaves_the_band<B: Backend + LevelGrids>(backend: &mut B) {
    // From a corner of a grid the frontier's out-edges grow level by level.
    let graph = Arc::new(grid_2d(20, 20).expect("grid"));
    let layout = upload(backend, &graph, 8);
    for _ in 0..repeats() {
        for topology in TOPOLOGIES {
            let start = begin(backend, &graph, &[0]);
            // Level 1's frontier {1, 20} has 3 + 3 out-edges, level 2's 10.
            let wave = command(&*backend, &layout, topology, start, 8, 6);
            let report = backend.run_wave(&wave).expect("wave runs");
            let ran = frontiers(&report);
            assert_eq!(
                ran,
                vec![(1, 2), (2, 3)],
                "{topology:?}: levels before the band stop"
            );
            assert_eq!(
                report.levels[1].frontier_out_edges,
                3 + 4 + 3,
                "{topology:?}"
            );
            // The command's two timestamps and 8 records of 16 bytes.
            assert_eq!(report.readback_bytes, 16 + 8 * 16);
            // The search goes on from where the chain stopped.
            let at = start.after(topology, 2, &report.levels[1]);
            let next = command(&*backend, &layout, topology, at, 1, u64::MAX);
            let report = backend.run_wave(&next).expect("wave runs");
            assert_eq!(report.levels.len(), 1);
            assert_eq!(
                report.levels[0].frontier_out, 4,
                "{topology:?}: level 2 discovers 4"
            );
        }
    }
}

/// A chain stops where its frontier outgrows its band of vertices, its later
/// levels dispatched on what the band admits; the search goes on from there.
pub fn a_chain_stops_when_the_frontier_outgrows_its_band_of_vertices<B: Backend + LevelGrids>(
    backend: &mut B,
) {
    // From a corner of a grid level k's frontier has k + 1 vertices.
    let graph = Arc::new(grid_2d(20, 20).expect("grid"));
    let layout = upload(backend, &graph, 8);
    let band = FrontierBand {
        max_edges: u64::MAX,
        max_vertices: 3,
    };
    for _ in 0..repeats() {
        for topology in TOPOLOGIES {
            let start = begin(backend, &graph, &[0]);
            let wave = command_in_band(&*backend, &layout, topology, start, 8, band);
            let report = backend.run_wave(&wave).expect("wave runs");
            // Levels 1 and 2 expand 2 and 3 vertices; level 2 finds 4.
            assert_eq!(
                frontiers(&report),
                vec![(1, 2), (2, 3), (3, 4)],
                "{topology:?}: levels before the band stops"
            );
            let at = start.after(topology, 3, &report.levels[2]);
            let next = command(&*backend, &layout, topology, at, 1, u64::MAX);
            let report = backend.run_wave(&next).expect("wave runs");
            assert_eq!(
                report.levels[0].frontier_out, 5,
                "{topology:?}: level 3 discovers 5"
            );
        }
    }
}

/// A chain ends early when the frontier empties.
pub fn a_chain_ends_early_when_the_frontier_empties<B: Backend + LevelGrids>(backend: &mut B) {
    let graph = Arc::new(chain(5).expect("chain"));
    let layout = upload(backend, &graph, 32);
    for _ in 0..repeats() {
        for topology in TOPOLOGIES {
            let start = begin(backend, &graph, &[0]);
            let wave = command(&*backend, &layout, topology, start, 32, u64::MAX);
            let report = backend.run_wave(&wave).expect("wave runs");
            let outs: Vec<u32> = report.levels.iter().map(|l| l.frontier_out).collect();
            assert_eq!(outs, vec![1, 1, 1, 1, 0], "{topology:?}");
            // A chain is timed as a whole, or each level alone (then the
            // levels add up to the whole).
            assert_eq!(
                report.device_ns.is_some(),
                backend.capabilities().device_timestamps
            );
            let alone: Vec<_> = report.levels.iter().filter_map(|l| l.device_ns).collect();
            assert!(
                alone.is_empty() || alone.len() == report.levels.len(),
                "{topology:?}: {alone:?}"
            );
            if !alone.is_empty() {
                assert_eq!(Some(alone.iter().sum::<u64>()), report.device_ns);
            }
            assert!(report.wall_ns > 0);
        }
    }
}
