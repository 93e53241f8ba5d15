//! Batch passes (up to 64 independent searches at once) on every graph shape
//! of the corpus: every lane's per-level counts and, when kept, its depths
//! against the reference BFS from that lane's source, with each topology
//! forced, a different topology every wave (every conversion and a push
//! after a pull), and chains of levels. Needs a CUDA device; skips visibly
//! without one.

mod common;

use common::{Choice, Gpu, HISTORY_LEVELS, check_report, command_for, corpus, open_gpu, upload};
use vyre_driver::backend::{BATCH_LANES, Backend, BatchLayout, BatchSources, SearchPosition};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as Topology;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::{Graph, UNREACHED};

const TOPOLOGIES: [Topology; 6] = [
    Topology::WarpSparseFrontier,
    Topology::SparseFrontier,
    Topology::HybridFrontier,
    Topology::DenseFrontier,
    Topology::BlockDenseFrontier,
    Topology::FusedWave,
];

/// The lane sets a case is searched with: one lane, a few with a repeat,
/// and all 64 spread over the graph (with repeats when it is small).
fn lane_sets(graph: &Graph, first: u32) -> Vec<Vec<u32>> {
    let n = graph.vertex_count();
    let some = vec![first, (first + n / 2) % n, first, n - 1];
    let all = (0..BATCH_LANES)
        .map(|j| (first + j * 7919 % n.max(1)) % n)
        .collect();
    vec![vec![first], some, all]
}

/// Run a whole batch pass from `sources` with the choices `choose` makes,
/// and check every lane against the reference.
fn check_pass(
    gpu: &mut Gpu,
    graph: &Graph,
    sources: &[u32],
    keep_depths: bool,
    what: &str,
    mut choose: impl FnMut(usize) -> Choice,
) {
    let backend = &mut gpu.backend;
    let batch = BatchSources::new(sources, graph).expect("sources");
    let layout = BatchLayout {
        vertex_count: graph.vertex_count(),
        lanes: batch.lanes(),
        keep_depths,
        max_levels_per_command: HISTORY_LEVELS,
    };
    let before = backend.allocated_bytes();
    backend.begin_batch(&batch, &layout).expect("begin_batch");
    assert!(
        backend.allocated_bytes() <= before + layout.total_bytes(),
        "{what}: holds more than the batch layout lists"
    );
    let mut position = SearchPosition::start_batch(&batch);
    let mut counts = Vec::new();
    let mut wave = 0;
    while position.frontier_len > 0 {
        assert!(
            position.level <= graph.vertex_count() + 1,
            "{what}: runs past n levels"
        );
        let choice = choose(wave);
        let command = command_for(backend, graph, &choice, position);
        let report = backend
            .run_batch_wave(&command)
            .unwrap_or_else(|e| panic!("{what}, wave {wave} ({choice:?}): {e}"));
        check_report(&command, &report.wave);
        assert_eq!(report.lanes.len(), report.wave.levels.len(), "{what}");
        for (level, found) in report.wave.levels.iter().zip(&report.lanes) {
            let any: u64 = found.iter().map(|&c| u64::from(c)).sum();
            assert!(
                any >= u64::from(level.frontier_out),
                "{what}: level {} found {} vertices but counts {any} lane discoveries",
                level.level,
                level.frontier_out
            );
        }
        counts.extend_from_slice(&report.lanes);
        let last = report.wave.levels.last().expect("a level");
        position = position.after(command.topology, report.wave.levels.len() as u32, last);
        wave += 1;
    }
    let n = graph.vertex_count() as usize;
    let k = sources.len();
    let mut depths = vec![0u32; n * k];
    if keep_depths {
        backend
            .read_batch_depths(&mut depths)
            .expect("read_batch_depths");
    } else {
        assert!(
            backend.read_batch_depths(&mut depths).is_err(),
            "{what}: no depths were kept"
        );
    }
    for (j, &source) in sources.iter().enumerate() {
        let expected = reference_bfs(graph, &[source]).depths;
        let mut per_depth = vec![0u32; counts.len() + 1];
        for &d in expected.iter().filter(|&&d| d != UNREACHED && d > 0) {
            assert!(
                (d as usize) <= counts.len(),
                "{what}: lane {j} from {source} reaches depth {d} but the pass ran {} levels",
                counts.len()
            );
            per_depth[d as usize - 1] += 1;
        }
        for (level, found) in counts.iter().enumerate() {
            assert_eq!(
                found[j],
                per_depth[level],
                "{what}: lane {j} from {source} at depth {}",
                level + 1
            );
        }
        for lane in k..BATCH_LANES as usize {
            assert!(
                counts.iter().all(|c| c[lane] == 0),
                "{what}: unused lane {lane} counted"
            );
        }
        if keep_depths {
            for (v, &d) in expected.iter().enumerate() {
                assert_eq!(
                    depths[v * k + j],
                    d,
                    "{what}: lane {j} from {source}, vertex {v}"
                );
            }
        }
    }
}

fn forced(test: &str, topology: Topology) {
    let Some(mut gpu) = open_gpu(test) else {
        return;
    };
    if topology == Topology::FusedWave && !common::has_barrier(&gpu) {
        return;
    }
    for case in corpus() {
        upload(&mut gpu.backend, &case.graph);
        for (i, sources) in lane_sets(&case.graph, case.sources[0][0])
            .iter()
            .enumerate()
        {
            let what = format!("{topology:?} on {} with {} lanes", case.name, sources.len());
            let levels = if topology == Topology::FusedWave {
                HISTORY_LEVELS
            } else {
                1
            };
            check_pass(&mut gpu, &case.graph, sources, i != 1, &what, |_| Choice {
                max_levels: levels,
                ..Choice::single(topology)
            });
        }
    }
}

#[test]
fn batch_warp_sparse_frontier_matches_the_reference_in_every_lane() {
    forced("batch_warp_sparse", Topology::WarpSparseFrontier);
}

#[test]
fn batch_sparse_frontier_matches_the_reference_in_every_lane() {
    forced("batch_sparse", Topology::SparseFrontier);
}

#[test]
fn batch_hybrid_frontier_matches_the_reference_in_every_lane() {
    forced("batch_hybrid", Topology::HybridFrontier);
}

#[test]
fn batch_dense_frontier_matches_the_reference_in_every_lane() {
    forced("batch_dense", Topology::DenseFrontier);
}

#[test]
fn batch_block_dense_frontier_matches_the_reference_in_every_lane() {
    forced("batch_block_dense", Topology::BlockDenseFrontier);
}

#[test]
fn batch_fused_wave_matches_the_reference_in_every_lane() {
    forced("batch_fused", Topology::FusedWave);
}

/// Hubs of thousands of edges are cut into pieces that the whole grid
/// shares (`vyre_batch_push_pieces`): two stars joined at a leaf, searched
/// from both hubs, from leaves (the hubs are then the next frontier) and
/// from a mix, by every pushing topology, with depths kept and not.
#[test]
fn batch_pushes_cut_hubs_into_pieces() {
    let Some(mut gpu) = open_gpu("batch_pushes_cut_hubs_into_pieces") else {
        return;
    };
    let leaves = 3000u32;
    let mut edges: Vec<(u32, u32)> = (1..=leaves).map(|v| (0, v)).collect();
    let second = leaves + 1;
    edges.extend((1..=leaves + 1500).map(|k| (second, second + k)));
    edges.push((leaves, second + 1));
    let n = second + leaves + 1501;
    let graph = std::sync::Arc::new(
        vyre_graph::build::build_graph(n, &edges, vyre_graph::build::BuildOptions::UNDIRECTED)
            .expect("two stars"),
    );
    upload(&mut gpu.backend, &graph);
    let mixed: Vec<u32> = (0..BATCH_LANES).map(|j| (j * 977) % n).collect();
    for topology in [
        Topology::WarpSparseFrontier,
        Topology::SparseFrontier,
        Topology::HybridFrontier,
    ] {
        for (i, sources) in [vec![0, second], vec![5, second + 9, 5], mixed.clone()]
            .iter()
            .enumerate()
        {
            let what = format!("{topology:?} on two stars, lane set {i}");
            check_pass(&mut gpu, &graph, sources, i != 1, &what, |_| Choice {
                max_levels: 1,
                ..Choice::single(topology)
            });
        }
    }
}

/// A different topology every wave, two levels per command: every
/// conversion between the forms, and pushes into a word array a pull left
/// stale.
#[test]
fn batch_topology_changes_and_chains_match_the_reference() {
    let Some(mut gpu) = open_gpu("batch_rotate") else {
        return;
    };
    let rotation: Vec<Topology> = TOPOLOGIES
        .into_iter()
        .filter(|&t| t != Topology::FusedWave || common::has_barrier(&gpu))
        .collect();
    for case in corpus() {
        upload(&mut gpu.backend, &case.graph);
        let sources = &lane_sets(&case.graph, case.sources[0][0])[2];
        for offset in [0, 3] {
            let what = format!("rotation +{offset} on {}", case.name);
            check_pass(&mut gpu, &case.graph, sources, true, &what, |wave| Choice {
                max_levels: 2,
                ..Choice::single(rotation[(wave + offset) % rotation.len()])
            });
        }
    }
}

/// A batch pass and a single search share the queues: each begin makes
/// the other's commands refused until it is begun again, and a layout that
/// does not fit the graph or the sources is refused.
#[test]
fn batch_and_single_searches_take_turns_and_bad_layouts_are_refused() {
    let Some(mut gpu) = open_gpu("batch_turns") else {
        return;
    };
    let case = corpus().into_iter().next().expect("a case");
    upload(&mut gpu.backend, &case.graph);
    let graph = &case.graph;
    let sources = BatchSources::new(&[0, 1], graph).expect("sources");
    let layout = BatchLayout {
        vertex_count: graph.vertex_count(),
        lanes: 2,
        keep_depths: false,
        max_levels_per_command: HISTORY_LEVELS,
    };
    let wrong_lanes = BatchLayout { lanes: 3, ..layout };
    let error = gpu.backend.begin_batch(&sources, &wrong_lanes).unwrap_err();
    assert!(error.to_string().contains("Fix:"), "{error}");
    let wrong_size = BatchLayout {
        vertex_count: graph.vertex_count() + 1,
        ..layout
    };
    assert!(gpu.backend.begin_batch(&sources, &wrong_size).is_err());
    let single = Choice::single(Topology::WarpSparseFrontier);
    let position = SearchPosition::start_batch(&sources);
    let command = command_for(&gpu.backend, graph, &single, position);
    assert!(
        gpu.backend.run_batch_wave(&command).is_err(),
        "no pass begun"
    );
    gpu.backend
        .begin_batch(&sources, &layout)
        .expect("begin_batch");
    let held = gpu.backend.allocated_bytes();
    gpu.backend.begin_batch(&sources, &layout).expect("again");
    assert_eq!(
        gpu.backend.allocated_bytes(),
        held,
        "the same layout reuses its buffers"
    );
    common::begin(&mut gpu.backend, graph, &[0]);
    assert!(
        gpu.backend.run_batch_wave(&command).is_err(),
        "a search took the queues"
    );
    let mut depths = vec![0; graph.vertex_count() as usize * 2];
    assert!(
        gpu.backend.read_batch_depths(&mut depths).is_err(),
        "no depths kept"
    );
}
