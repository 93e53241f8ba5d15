//! Batch passes in tests: a whole pass through the test-side wave loop
//! ([`crate::Waves`]), and its check against the reference BFS of every
//! lane, down to each level's batched frontier, lane counts and grid.

use vyre_driver::backend::{
    BATCH_LANES, Backend, BatchLayout, BatchSources, DeviceLayout, LaneCounts, SearchPosition,
    WaveCommand,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::{Graph, UNREACHED};
use vyre_wgsl_abi::records::LevelGrids;

use crate::{Level, Waves, check_level};

/// One finished batch pass.
pub struct BatchRun {
    /// Every lane's depth of every vertex (`depths[v * lanes + j]`), when
    /// kept.
    pub depths: Option<Vec<u32>>,
    /// Each level's lane counts.
    pub lanes: Vec<LaneCounts>,
    /// Every level that ran.
    pub levels: Vec<Level>,
    /// Commands issued.
    pub commands: usize,
}

/// The batch layout of a pass from `sources` on the graph of `layout`.
#[must_use]
pub fn batch_layout(layout: &DeviceLayout, lanes: u32, keep_depths: bool) -> BatchLayout {
    BatchLayout {
        vertex_count: layout.vertex_count,
        lanes,
        keep_depths,
        max_levels_per_command: layout.max_levels_per_command,
    }
}

/// Begin a batch pass from `sources` (checking the bytes held against both
/// layouts) and return its position.
pub fn begin_batch(
    backend: &mut dyn Backend,
    layout: &DeviceLayout,
    graph: &Graph,
    sources: &[u32],
    keep_depths: bool,
) -> SearchPosition {
    let sources = BatchSources::new(sources, graph).expect("valid batch sources");
    let batch = batch_layout(layout, sources.lanes(), keep_depths);
    backend
        .begin_batch(&sources, &batch)
        .expect("batch pass starts");
    assert_eq!(
        backend.allocated_bytes(),
        layout.total_bytes() + batch.total_bytes(),
        "the backend holds the graph's and the batch's layouts exactly"
    );
    SearchPosition::start_batch(&sources)
}

/// Run a whole batch pass from `sources` with commands made as `waves`
/// says, keeping depths or not.
pub fn batch_search<B: Backend + LevelGrids>(
    backend: &mut B,
    graph: &Graph,
    sources: &[u32],
    keep_depths: bool,
    waves: &Waves<'_>,
) -> BatchRun {
    let start = begin_batch(backend, waves.layout, graph, sources, keep_depths);
    let mut lanes = Vec::new();
    let check = WaveCommand::check_batch;
    let (levels, commands) = waves.run_with(backend, start, check, &mut |backend, command| {
        let report = backend.run_batch_wave(command).expect("batch wave runs");
        assert_eq!(
            report.lanes.len(),
            report.wave.levels.len(),
            "one set of lane counts per level"
        );
        lanes.extend_from_slice(&report.lanes);
        report.wave
    });
    let depths = keep_depths.then(|| {
        let mut depths = vec![0; graph.vertex_count() as usize * sources.len()];
        backend
            .read_batch_depths(&mut depths)
            .expect("batch depths read back");
        depths
    });
    BatchRun {
        depths,
        lanes,
        levels,
        commands,
    }
}

/// What the reference BFS of every lane says of a batch pass.
pub struct BatchReference {
    /// Each lane's depths.
    pub lanes: Vec<Vec<u32>>,
    /// Vertices at each depth in some lane (the batched frontier).
    pub vertices: Vec<u64>,
    /// Their out-edges.
    pub edges: Vec<u64>,
    /// Each lane's vertices at each depth.
    pub lane_counts: Vec<LaneCounts>,
}

impl BatchReference {
    /// The reference of a pass from `sources` on `graph`.
    #[must_use]
    pub fn new(graph: &Graph, sources: &[u32]) -> Self {
        let lanes: Vec<Vec<u32>> = sources
            .iter()
            .map(|&s| reference_bfs(graph, &[s]).depths)
            .collect();
        let mut reference = Self {
            lanes,
            vertices: Vec::new(),
            edges: Vec::new(),
            lane_counts: Vec::new(),
        };
        for v in 0..graph.vertex_count() {
            let mut depths: Vec<u32> = reference
                .lanes
                .iter()
                .map(|lane| lane[v as usize])
                .filter(|&d| d != UNREACHED)
                .collect();
            for (j, lane) in reference.lanes.iter().enumerate() {
                let d = lane[v as usize] as usize;
                if lane[v as usize] != UNREACHED {
                    if reference.lane_counts.len() <= d {
                        reference
                            .lane_counts
                            .resize(d + 1, [0; BATCH_LANES as usize]);
                    }
                    reference.lane_counts[d][j] += 1;
                }
            }
            depths.sort_unstable();
            depths.dedup();
            for d in depths {
                let d = d as usize;
                if reference.vertices.len() <= d {
                    reference.vertices.resize(d + 1, 0);
                    reference.edges.resize(d + 1, 0);
                }
                reference.vertices[d] += 1;
                reference.edges[d] += graph.out_edges().degree(v);
            }
        }
        reference
    }
}

/// Check a batch pass against the reference: every lane's kept depths,
/// every level's lane counts, batched frontier sizes and out-edges (and,
/// top-down, edges examined), and that every level ran on the grid its
/// command or the engine's rule gave it.
pub fn check_batch(reference: &BatchReference, run: &BatchRun, what: &str) {
    if let Some(depths) = &run.depths {
        let k = reference.lanes.len();
        for (j, lane) in reference.lanes.iter().enumerate() {
            let wrong = (0..lane.len()).filter(|&v| depths[v * k + j] != lane[v]);
            if let Some(v) = wrong.clone().next() {
                panic!(
                    "{what}: lane {j}: {} depths differ; first at vertex {v}: {} instead of {}",
                    wrong.count(),
                    depths[v * k + j],
                    lane[v]
                );
            }
        }
    }
    assert_eq!(run.lanes.len(), run.levels.len(), "{what}: lane records");
    let top_down = [
        T::WarpSparseFrontier,
        T::SparseFrontier,
        T::HybridFrontier,
        T::FusedWave,
    ];
    for (l, counts) in run.levels.iter().zip(&run.lanes) {
        let at = l.level;
        let expected = reference
            .lane_counts
            .get(at as usize + 1)
            .copied()
            .unwrap_or([0; BATCH_LANES as usize]);
        assert_eq!(counts, &expected, "{what}: level {at} lane counts");
        let top_down = top_down.contains(&l.topology);
        check_level(l, &reference.vertices, &reference.edges, top_down, what);
        assert_eq!(
            l.grid, l.engine_grid,
            "{what}: level {at} ran on {} workgroups, the engine's rule says {}",
            l.grid, l.engine_grid
        );
    }
    let last = run.levels.last().map_or(0, |l| l.level as usize + 1);
    assert!(
        reference.vertices.len() <= last,
        "{what}: the pass ended at depth {last} with vertices left"
    );
}

/// Lanes of 64, 33 (one in the high half of the words) and 1, from sources
/// spread over `n` vertices, the 64 with repeated sources.
#[must_use]
pub fn lane_sets(n: u32) -> [Vec<u32>; 3] {
    let mut all: Vec<u32> = (0..64u32).map(|j| (j * 37 + 1) % n).collect();
    all[62] = all[0];
    all[63] = all[5];
    let wide: Vec<u32> = (0..33u32).map(|j| (j * 101 + 7) % n).collect();
    [all, wide, vec![n / 2]]
}
