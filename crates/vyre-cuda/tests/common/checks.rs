//! Checks of a search against the reference BFS: depths, parents, and
//! every level record.

use vyre_driver::backend::{FrontierForm, WaveCommand, WaveReport, frontier_form_of};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::{Graph, UNREACHED};

use super::*;

/// What every report must satisfy whatever the graph.
pub fn check_report(command: &WaveCommand, report: &WaveReport) {
    let levels = &report.levels;
    assert!(!levels.is_empty(), "a command runs at least one level");
    assert!(levels.len() <= command.max_levels.max(1) as usize);
    assert!(report.device_ns.is_some());
    assert!(report.readback_bytes > 0);
    assert_eq!(levels[0].frontier_in, command.position.frontier_len);
    for (i, l) in levels.iter().enumerate() {
        assert_eq!(l.level, command.position.level + i as u32);
        if i + 1 < levels.len() {
            // A level ran after this one, so this one must not have stopped
            // the command.
            assert!(l.frontier_out > 0, "ran a level after an empty frontier");
            assert!(
                l.frontier_out_edges <= command.band_max_frontier_edges
                    && l.frontier_out <= command.band_max_frontier_vertices,
                "ran a level after the frontier left the band"
            );
            assert_eq!(levels[i + 1].frontier_in, l.frontier_out);
        }
    }
    let last = levels.last().expect("non-empty");
    let stopped = last.frontier_out == 0
        || last.frontier_out_edges > command.band_max_frontier_edges
        || last.frontier_out > command.band_max_frontier_vertices
        || levels.len() == command.max_levels.max(1) as usize;
    assert!(stopped, "the command returned early: {levels:?}");
    if command.topology != Topology::FusedWave && command.max_levels <= 1024 {
        assert!(
            levels.iter().all(|l| l.device_ns.is_some()),
            "per-wave levels are timed"
        );
    }
}

/// Per-level figures of the reference search.
struct LevelStats {
    /// Vertices at each depth.
    count: Vec<u64>,
    /// Sum of out-degrees of the vertices at each depth.
    out_edges: Vec<u64>,
}

fn level_stats(graph: &Graph, depths: &[u32]) -> LevelStats {
    let deepest = depths
        .iter()
        .filter(|&&d| d != UNREACHED)
        .max()
        .copied()
        .unwrap_or(0);
    let mut s = LevelStats {
        count: vec![0; deepest as usize + 2],
        out_edges: vec![0; deepest as usize + 2],
    };
    for (v, &d) in depths.iter().enumerate() {
        if d != UNREACHED {
            s.count[d as usize] += 1;
            s.out_edges[d as usize] += graph.out_edges().degree(v as u32);
        }
    }
    s
}

/// Depths equal to the reference, parents forming a valid BFS tree, and
/// every level record equal to what the reference says about that level.
pub fn check_outcome(what: &str, graph: &Graph, sources: &[u32], outcome: &Outcome) {
    let reference = reference_bfs(graph, sources);
    if let Some(v) = (0..reference.depths.len()).find(|&v| outcome.depths[v] != reference.depths[v])
    {
        panic!(
            "{what}: depth of vertex {v} is {} but the reference says {}",
            outcome.depths[v], reference.depths[v]
        );
    }
    for (v, (&d, &p)) in outcome.depths.iter().zip(&outcome.parents).enumerate() {
        let v = v as u32;
        if d == UNREACHED {
            assert_eq!(p, UNREACHED, "{what}: unreached vertex {v} has parent {p}");
        } else if d == 0 {
            assert_eq!(p, v, "{what}: source {v} is not its own parent");
        } else {
            assert!(
                p < graph.vertex_count(),
                "{what}: vertex {v} has parent {p}"
            );
            assert_eq!(
                outcome.depths[p as usize],
                d - 1,
                "{what}: parent {p} of vertex {v} (depth {d}) is not one level up"
            );
            assert!(
                graph.out_edges().neighbors(p).contains(&v),
                "{what}: parent {p} of vertex {v} has no edge to it"
            );
        }
    }
    let stats = level_stats(graph, &reference.depths);
    let at = |v: &Vec<u64>, l: u32| v.get(l as usize).copied().unwrap_or(0);
    for (choice, report) in &outcome.waves {
        for l in &report.levels {
            let label = format!("{what}: level {} ({:?})", l.level, choice.topology);
            assert_eq!(
                u64::from(l.frontier_in),
                at(&stats.count, l.level),
                "{label}: frontier_in"
            );
            assert_eq!(
                u64::from(l.frontier_out),
                at(&stats.count, l.level + 1),
                "{label}: frontier_out"
            );
            assert_eq!(
                l.frontier_out_edges,
                at(&stats.out_edges, l.level + 1),
                "{label}: frontier_out_edges"
            );
            if frontier_form_of(choice.topology) == FrontierForm::Queue {
                assert_eq!(
                    l.edges_examined,
                    at(&stats.out_edges, l.level),
                    "{label}: a top-down level examines the frontier's out-edges"
                );
            } else {
                assert!(
                    l.edges_examined >= u64::from(l.frontier_out)
                        && l.edges_examined <= graph.edge_count(),
                    "{label}: bottom-up examined {} edges",
                    l.edges_examined
                );
            }
        }
    }
}
