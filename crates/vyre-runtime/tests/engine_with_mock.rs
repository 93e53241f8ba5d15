//! The engine against a scripted backend: a device whose timings and
//! capabilities the test chooses, so the policy's fused and chained paths run
//! without a GPU. The mock computes levels serially (topology only changes
//! speed, never results) and records every command it receives.

use std::sync::{Arc, Mutex};

use vyre_driver::backend::{
    Backend, BackendError, BatchLayout, BatchReport, BatchSources, CheckedCommand,
    DeviceCapabilities, DeviceLayout, FrontierForm, LevelRecord, SearchSources, WaveCommand,
    WaveReport, edge_balanced_slots, frontier_form_of, slots_for,
};
use vyre_driver::collective::ExchangeKind;
use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities, MegakernelExecutionTopology,
};
use vyre_graph::bfs::batch::BatchState;
use vyre_graph::bfs::reference_bfs;
use vyre_graph::generate::grid_2d;
use vyre_graph::{Graph, UNREACHED};
use vyre_runtime::{BatchRequest, ChainMode, Engine, EngineError, SearchRequest, TopologyChoice};

struct Mock {
    caps: DeviceCapabilities,
    graph: Option<Arc<Graph>>,
    depths: Vec<u32>,
    parents: Vec<u32>,
    queue: Vec<u32>,
    /// Wall and device ns reported per level.
    timing: (u64, u64),
    extra_bytes: u64,
    held: u64,
    commands: Arc<Mutex<Vec<WaveCommand>>>,
    /// Added to every reported frontier_in: a backend that lost track.
    skew: u32,
    /// What `Backend::ranks` reports.
    ranks: u32,
    /// The batch pass begun last: vyre-graph's CPU batch state and queue.
    pass: Option<(BatchState, Vec<u32>)>,
}

/// Lanes the mock holds at once when it reports a device-wide barrier.
const RESIDENT_LANES: u32 = 6 * 128;

fn caps(barrier: bool) -> DeviceCapabilities {
    DeviceCapabilities {
        device_name: "mock".into(),
        megakernel: if barrier {
            MegakernelDeviceCapabilities::FUSION_CAPABLE
        } else {
            MegakernelDeviceCapabilities::FUSION_INCAPABLE
        },
        barrier_reason: if barrier {
            "the mock's workgroups are all resident".into()
        } else {
            "the mock has no barrier".into()
        },
        batch_fused_wave: barrier,
        max_workgroup_size_x: 256,
        max_compute_workgroups_per_dimension: 65_535,
        max_compute_invocations_per_workgroup: 256,
        subgroup_size: 32,
        workgroup_width_multiple: 1,
        resident_lanes: if barrier { RESIDENT_LANES } else { 0 },
        resident_workgroups: if barrier { RESIDENT_LANES / 128 } else { 0 },
        resident_workgroup_size: if barrier { 128 } else { 0 },
        memory_budget_bytes: 1 << 30,
        max_binding_bytes: 1 << 20,
        max_edge_segments: 4,
        offset_bytes: 4,
        needs_readback_staging: true,
        launch_overhead_ns: 4_500.0,
        device_timestamps: true,
    }
}

impl Mock {
    fn new(barrier: bool, timing: (u64, u64)) -> (Self, Arc<Mutex<Vec<WaveCommand>>>) {
        let commands = Arc::new(Mutex::new(Vec::new()));
        let mock = Self {
            caps: caps(barrier),
            graph: None,
            depths: Vec::new(),
            parents: Vec::new(),
            queue: Vec::new(),
            timing,
            extra_bytes: 0,
            held: 0,
            commands: Arc::clone(&commands),
            skew: 0,
            ranks: 1,
            pass: None,
        };
        (mock, commands)
    }
}

impl Backend for Mock {
    fn capabilities(&self) -> &DeviceCapabilities {
        &self.caps
    }

    fn ranks(&self) -> u32 {
        self.ranks
    }

    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError> {
        self.graph = Some(Arc::clone(graph));
        self.held = layout.total_bytes() + self.extra_bytes;
        Ok(())
    }

    fn allocated_bytes(&self) -> u64 {
        self.held
    }

    fn begin_search(&mut self, sources: &SearchSources) -> Result<(), BackendError> {
        let sources = sources.ids();
        let n = self.graph.as_ref().unwrap().vertex_count() as usize;
        self.depths = vec![UNREACHED; n];
        self.parents = vec![UNREACHED; n];
        for &s in sources {
            self.depths[s as usize] = 0;
            self.parents[s as usize] = s;
        }
        self.queue = sources.to_vec();
        Ok(())
    }

    fn run_wave(&mut self, command: &CheckedCommand) -> Result<WaveReport, BackendError> {
        self.commands.lock().unwrap().push(**command);
        let graph = Arc::clone(self.graph.as_ref().unwrap());
        let mut levels = Vec::new();
        let first = command.position.level;
        for level in first..first + command.max_levels {
            let mut next = Vec::new();
            let mut edges = 0u64;
            let mut next_edges = 0u64;
            for &u in &self.queue {
                for &v in graph.out_edges().neighbors(u) {
                    edges += 1;
                    if self.depths[v as usize] == UNREACHED {
                        self.depths[v as usize] = level + 1;
                        self.parents[v as usize] = u;
                        next_edges += graph.out_edges().degree(v);
                        next.push(v);
                    }
                }
            }
            levels.push(LevelRecord {
                level,
                frontier_in: self.queue.len() as u32 + self.skew,
                frontier_out: next.len() as u32,
                frontier_out_edges: next_edges,
                edges_examined: edges,
                device_ns: Some(self.timing.1),
            });
            self.queue = next;
            if self.queue.is_empty() || next_edges > command.band_max_frontier_edges {
                break;
            }
        }
        let count = levels.len() as u64;
        let wall = if command.topology == MegakernelExecutionTopology::FusedWave {
            self.timing.1 * count + self.timing.0 - self.timing.1
        } else {
            self.timing.0 * count
        };
        Ok(WaveReport {
            levels,
            wall_ns: wall,
            device_ns: Some(self.timing.1 * count),
            readback_bytes: 64,
        })
    }

    fn read_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        out.copy_from_slice(&self.depths);
        Ok(())
    }

    fn read_parents(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        out.copy_from_slice(&self.parents);
        Ok(())
    }

    fn begin_batch(
        &mut self,
        sources: &BatchSources,
        layout: &BatchLayout,
    ) -> Result<(), BackendError> {
        let mut state = BatchState::new(layout.vertex_count, layout.lanes, layout.keep_depths)
            .map_err(|e| BackendError::new(format!("{e}")))?;
        let queue = state.start(sources.ids());
        if let Some((previous, _)) = &self.pass {
            self.held -= previous.bytes();
        }
        self.held += state.bytes();
        self.pass = Some((state, queue));
        Ok(())
    }

    fn run_batch_wave(&mut self, command: &CheckedCommand) -> Result<BatchReport, BackendError> {
        self.commands.lock().unwrap().push(**command);
        let graph = Arc::clone(self.graph.as_ref().unwrap());
        let (state, queue) = self.pass.as_mut().unwrap();
        let p = command.position;
        let pulls = frontier_form_of(command.topology) == FrontierForm::Bitmap;
        if p.form == FrontierForm::Bitmap && !pulls {
            *queue = state.queue_of(p.buffer as usize);
        }
        let mut report = BatchReport::default();
        let mut frontier_in = p.frontier_len;
        for k in 0..command.max_levels {
            let from = p.buffer_of_level(k, true) as usize;
            let step = if pulls {
                state.pull(&graph, from, p.level + k)
            } else {
                let step = state.push(&graph, queue, from, p.level + k);
                queue.clone_from(&step.next);
                step
            };
            report.wave.levels.push(LevelRecord {
                level: p.level + k,
                frontier_in,
                frontier_out: step.stats.frontier_out,
                frontier_out_edges: step.stats.frontier_out_edges,
                edges_examined: step.stats.edges_examined,
                device_ns: Some(self.timing.1),
            });
            report.lanes.push(step.lanes);
            frontier_in = step.stats.frontier_out;
            if frontier_in == 0 || step.stats.frontier_out_edges > command.band_max_frontier_edges {
                break;
            }
        }
        let count = report.wave.levels.len() as u64;
        report.wave.wall_ns = self.timing.0 * count;
        report.wave.device_ns = Some(self.timing.1 * count);
        Ok(report)
    }

    fn read_batch_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        let (state, _) = self.pass.as_ref().unwrap();
        state
            .read_depths(out)
            .map_err(|e| BackendError::new(format!("{e}. Fix: keep depths.")))
    }
}

fn grid() -> Arc<Graph> {
    Arc::new(grid_2d(60, 40).unwrap())
}

#[test]
fn launch_bound_levels_fuse_on_a_device_with_a_barrier() {
    // 12 us per level on the host, 1 us on the device: launch-bound.
    let (mock, commands) = Mock::new(true, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    let graph = grid();
    engine.load(Arc::clone(&graph)).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
    assert_eq!(result.depths, reference_bfs(&graph, &[0]).depths);

    let fused: Vec<_> = result
        .levels
        .iter()
        .filter(|l| l.topology == MegakernelExecutionTopology::FusedWave)
        .collect();
    assert!(!fused.is_empty(), "the policy never fused");
    assert!(fused.iter().all(|l| {
        l.explanation
            .contains("reason=launch_and_readback_pressure_fused")
    }));
    // The first wave has no measurement yet, so it cannot be fused.
    assert_ne!(
        result.levels[0].topology,
        MegakernelExecutionTopology::FusedWave
    );
    // Most of the grid's 99 levels run inside fused launches.
    assert!(fused.len() > 90, "{} fused levels", fused.len());
    for c in commands.lock().unwrap().iter() {
        if c.topology == MegakernelExecutionTopology::FusedWave {
            assert!(c.launch.workgroups() <= 6, "{:?}", c.launch);
            assert_eq!(c.launch.workgroup_size_x, 128);
            assert!(c.max_levels > 1);
            assert_eq!(c.position.form, FrontierForm::Queue);
        }
    }
}

#[test]
fn launch_bound_levels_chain_on_a_device_without_a_barrier() {
    let (mock, commands) = Mock::new(false, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    let graph = grid();
    engine.load(Arc::clone(&graph)).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
    assert_eq!(result.depths, reference_bfs(&graph, &[0]).depths);
    assert!(
        result
            .levels
            .iter()
            .all(|l| l.topology != MegakernelExecutionTopology::FusedWave)
    );
    let lengths: Vec<u32> = commands
        .lock()
        .unwrap()
        .iter()
        .map(|c| c.max_levels)
        .collect();
    // Chains double while launch overhead dominates, from the levels the
    // last command ran: a chain that stopped at a band edge is not doubled.
    assert_eq!(&lengths[..3], &[1, 2, 4], "{lengths:?}");
    let mut ran = vec![0u32; lengths.len()];
    for l in &result.levels {
        ran[l.command as usize] += 1;
    }
    for i in 1..lengths.len() {
        assert!(
            lengths[i] <= 2 * ran[i - 1],
            "command {i}: {lengths:?} after running {ran:?}"
        );
    }
    assert!(
        ran.iter().zip(&lengths).any(|(r, l)| r < l),
        "some chain stops at a band edge on this grid: {lengths:?} {ran:?}"
    );
    assert!(
        lengths.len() < 20,
        "{} commands for 99 levels",
        lengths.len()
    );
}

#[test]
fn kernel_bound_levels_run_one_per_command() {
    // 12 us per level, 11 us of it on the device: not launch-bound.
    let (mock, commands) = Mock::new(true, (12_000, 11_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
    assert_eq!(result.levels.len(), 60 + 40 - 1);
    assert!(
        commands
            .lock()
            .unwrap()
            .iter()
            .all(|c| c.max_levels == 1 && c.topology != MegakernelExecutionTopology::FusedWave)
    );
}

#[test]
fn the_trace_shows_each_levels_exchange_on_a_partitioned_device_only() {
    use MegakernelExecutionTopology as T;
    for (ranks, topology, expected) in [
        (1, T::SparseFrontier, None),
        (1, T::DenseFrontier, None),
        (3, T::SparseFrontier, Some(ExchangeKind::Lists)),
        (3, T::WarpSparseFrontier, Some(ExchangeKind::Lists)),
        (3, T::DenseFrontier, Some(ExchangeKind::Bitmap)),
        (3, T::BlockDenseFrontier, Some(ExchangeKind::Bitmap)),
    ] {
        let (mut mock, _) = Mock::new(false, (12_000, 11_000));
        mock.ranks = ranks;
        let mut engine = Engine::new(Box::new(mock));
        engine.load(grid()).unwrap();
        let mut request = SearchRequest::new(&[0]);
        request.topology = TopologyChoice::Forced(topology);
        let result = engine.bfs(&request).unwrap();
        assert!(!result.levels.is_empty());
        for level in &result.levels {
            assert_eq!(level.exchange, expected, "{ranks} ranks, {topology:?}");
        }
    }
}

#[test]
fn multi_level_commands_carry_a_finite_band() {
    let (mock, commands) = Mock::new(false, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    let request = SearchRequest {
        sources: &[0],
        topology: TopologyChoice::Forced(MegakernelExecutionTopology::SparseFrontier),
        chaining: ChainMode::Levels(16),
    };
    engine.bfs(&request).unwrap();
    for c in commands.lock().unwrap().iter() {
        assert_eq!(c.max_levels, 16);
        assert!(c.band_max_frontier_edges < u64::MAX);
    }
}

#[test]
fn a_backend_holding_more_than_the_plan_is_caught() {
    let (mut mock, _) = Mock::new(false, (1, 1));
    mock.extra_bytes = 1;
    let mut engine = Engine::new(Box::new(mock));
    let err = engine.load(grid()).unwrap_err();
    assert!(matches!(err, EngineError::ContractViolation(_)), "{err:?}");
}

#[test]
fn every_launch_fits_the_device_limits() {
    let (mock, commands) = Mock::new(true, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    for topology in MegakernelExecutionTopology::ALL {
        let request = SearchRequest {
            sources: &[5, 77],
            topology: TopologyChoice::Forced(topology),
            chaining: ChainMode::Auto,
        };
        engine.bfs(&request).unwrap();
    }
    for c in commands.lock().unwrap().iter() {
        let width = c.launch.workgroup_size_x;
        assert!(width.is_power_of_two() && width <= 256, "{c:?}");
        assert!(
            c.launch
                .dispatch_grid
                .iter()
                .all(|&d| (1..=65_535).contains(&d)),
            "{c:?}"
        );
        // A level sized on the device never gets more workgroups than a
        // frontier of every vertex and edge would need (the grid has 2,400
        // vertices and 9,400 stored edges).
        let most = slots_for(c.topology, 2_400, 2_400)
            .max(edge_balanced_slots(9_400).min(RESIDENT_LANES))
            .div_ceil(width);
        let later = c.launch.later.max_workgroups;
        assert!((1..=most.max(1)).contains(&later), "{c:?}");
        // Nor more than the device holds at once.
        assert!(later <= (RESIDENT_LANES / width).max(1), "{c:?}");
    }
}

/// Lanes of the launch that expands the hub of a 40,000-leaf star (level 1,
/// searched from a leaf) under `topology`, on the mock with or without a
/// device-wide barrier (only the barrier-capable mock reports its resident
/// lanes).
fn hub_level_lanes(barrier: bool, topology: MegakernelExecutionTopology) -> u64 {
    let (mock, commands) = Mock::new(barrier, (12_000, 11_000));
    let mut engine = Engine::new(Box::new(mock));
    engine
        .load(Arc::new(vyre_graph::generate::star(40_000).unwrap()))
        .unwrap();
    let request = SearchRequest {
        sources: &[7],
        topology: TopologyChoice::Forced(topology),
        chaining: ChainMode::Off,
    };
    engine.bfs(&request).unwrap();
    let hub_level = commands.lock().unwrap()[1];
    assert_eq!(hub_level.position.frontier_len, 1);
    hub_level.launch.workgroups() * u64::from(hub_level.launch.workgroup_size_x)
}

#[test]
fn edge_balanced_launches_are_sized_by_the_frontier_edges() {
    for topology in [
        MegakernelExecutionTopology::SparseFrontier,
        MegakernelExecutionTopology::HybridFrontier,
    ] {
        let lanes = hub_level_lanes(false, topology);
        assert!(lanes >= 40_000 / 4, "{topology:?}: {lanes} lanes");
    }
}

#[test]
fn edge_balanced_launches_stop_at_the_lanes_the_device_holds() {
    // The hub's 40,000 edges would want 10,000 lanes; the device holds 768.
    let lanes = hub_level_lanes(true, MegakernelExecutionTopology::SparseFrontier);
    assert!(
        (u64::from(RESIDENT_LANES)..u64::from(RESIDENT_LANES) + 256).contains(&lanes),
        "{lanes} lanes"
    );
}

#[test]
fn a_report_that_does_not_continue_the_search_is_caught() {
    let (mut mock, _) = Mock::new(false, (1, 1));
    mock.skew = 1;
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    let err = engine.bfs(&SearchRequest::new(&[0])).unwrap_err();
    let EngineError::ContractViolation(what) = &err else {
        panic!("{err:?}");
    };
    assert!(what.contains("a frontier of 2"), "{what}");
}

#[test]
fn commands_carry_the_position_the_last_report_left() {
    let (mock, commands) = Mock::new(false, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(grid()).unwrap();
    let result = engine.bfs(&SearchRequest::new(&[0])).unwrap();
    let commands = commands.lock().unwrap();
    let mut level = 0;
    let mut buffer = 0;
    for (i, c) in commands.iter().enumerate() {
        let ran: Vec<_> = result
            .levels
            .iter()
            .filter(|l| l.command == i as u32)
            .collect();
        assert_eq!(
            (c.position.level, c.position.buffer),
            (level, buffer),
            "command {i}"
        );
        assert_eq!(c.position.frontier_len, ran[0].frontier_in, "command {i}");
        level += ran.len() as u32;
        buffer ^= (ran.len() & 1) as u32;
    }
}

/// Every lane of a batch (more than 64 sources: two passes) equals a
/// reference BFS from its source, in depths and in totals, under the policy
/// and with every per-wave topology forced.
#[test]
fn batches_match_the_reference_lane_by_lane_in_passes_of_64() {
    let graph = grid();
    let n = graph.vertex_count();
    let sources: Vec<u32> = (0..70u32).map(|i| (i * 97) % n).collect();
    let mut choices = vec![TopologyChoice::Auto];
    choices.extend(
        MegakernelExecutionTopology::ALL
            .into_iter()
            .filter(|t| *t != MegakernelExecutionTopology::FusedWave)
            .map(TopologyChoice::Forced),
    );
    for topology in choices {
        let (mock, commands) = Mock::new(false, (12_000, 1_000));
        let mut engine = Engine::new(Box::new(mock));
        engine.load(Arc::clone(&graph)).unwrap();
        let request = BatchRequest {
            sources: &sources,
            keep_depths: true,
            topology,
            chaining: ChainMode::Auto,
        };
        let result = engine.bfs_batch(&request).unwrap();
        assert_eq!(result.passes.len(), 2);
        assert_eq!((result.passes[1].first, result.passes[1].lanes), (64, 6));
        assert!(!commands.lock().unwrap().is_empty());
        let depths = result.depths.as_ref().unwrap();
        for (i, &s) in sources.iter().enumerate() {
            let reference = reference_bfs(&graph, &[s]).depths;
            let lane: Vec<u32> = (0..n as usize)
                .map(|v| depths[v * sources.len() + i])
                .collect();
            assert_eq!(lane, reference, "{topology:?} search {i}");
            let reached: Vec<u32> = reference.into_iter().filter(|&d| d != UNREACHED).collect();
            let r = result.lanes[i];
            assert_eq!(r.source, s);
            assert_eq!(r.reached, reached.len() as u64);
            assert_eq!(
                r.depth_sum,
                reached.iter().map(|&d| u64::from(d)).sum::<u64>()
            );
            assert_eq!(r.eccentricity, *reached.iter().max().unwrap());
        }
    }
}

#[test]
fn batch_state_over_the_budget_is_refused_before_anything_is_allocated() {
    let graph = grid();
    let (mock, commands) = Mock::new(false, (12_000, 1_000));
    let mut engine = Engine::new(Box::new(mock));
    engine.load(Arc::clone(&graph)).unwrap();
    let layout_bytes = engine.layout().unwrap().total_bytes();
    engine.set_memory_budget(Some(layout_bytes + 100));
    engine.load(Arc::clone(&graph)).unwrap();
    let sources = [0u32, 5];
    let err = engine.bfs_batch(&BatchRequest::new(&sources)).unwrap_err();
    assert!(
        matches!(err, EngineError::BatchMemory { lanes: 2, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("Fix:"), "{err}");
    assert!(commands.lock().unwrap().is_empty());
}

/// A launch-bound batch pass on a device with a barrier, its backend
/// running batch `FusedWave` commands or not: the topologies of its levels
/// and the commands the backend received.
fn launch_bound_batch(
    batch_fused_wave: bool,
    topology: TopologyChoice,
) -> (
    Result<vyre_runtime::BatchResult, EngineError>,
    Vec<WaveCommand>,
) {
    let (mut mock, commands) = Mock::new(true, (12_000, 1_000));
    mock.caps.batch_fused_wave = batch_fused_wave;
    let mut engine = Engine::new(Box::new(mock));
    let graph = grid();
    engine.load(Arc::clone(&graph)).unwrap();
    let sources = [0u32, 2399];
    let request = BatchRequest {
        sources: &sources,
        keep_depths: true,
        topology,
        chaining: ChainMode::Auto,
    };
    let result = engine.bfs_batch(&request);
    if let Ok(result) = &result {
        let depths = result.depths.as_ref().unwrap();
        for (i, &s) in sources.iter().enumerate() {
            let lane: Vec<u32> = (0..graph.vertex_count() as usize)
                .map(|v| depths[v * sources.len() + i])
                .collect();
            assert_eq!(lane, reference_bfs(&graph, &[s]).depths, "search {i}");
        }
    }
    let sent = commands.lock().unwrap().clone();
    (result, sent)
}

#[test]
fn batch_passes_fuse_only_where_the_backend_runs_batch_fused_waves() {
    let fused = |commands: &[WaveCommand]| {
        commands
            .iter()
            .filter(|c| c.topology == MegakernelExecutionTopology::FusedWave)
            .count()
    };
    let (result, commands) = launch_bound_batch(true, TopologyChoice::Auto);
    let levels = &result.unwrap().passes[0].levels;
    assert!(fused(&commands) > 0, "the policy never fused the batch");
    assert!(
        levels
            .iter()
            .filter(|l| l.topology == MegakernelExecutionTopology::FusedWave)
            .count()
            > levels.len() / 2
    );
    // The same device, its backend without a batch FusedWave: the policy
    // plans as if there were no barrier, and chains instead.
    let (result, commands) = launch_bound_batch(false, TopologyChoice::Auto);
    let levels = &result.unwrap().passes[0].levels;
    assert_eq!(fused(&commands), 0);
    assert!(
        levels
            .iter()
            .all(|l| l.topology != MegakernelExecutionTopology::FusedWave)
    );
    assert!(
        commands.iter().any(|c| c.max_levels > 1),
        "launch-bound levels chain"
    );
}

#[test]
fn a_forced_batch_fused_wave_is_refused_where_the_backend_runs_none() {
    let forced = TopologyChoice::Forced(MegakernelExecutionTopology::FusedWave);
    let (result, commands) = launch_bound_batch(false, forced);
    let err = result.unwrap_err();
    assert!(
        matches!(err, EngineError::TopologyUnavailable { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("no FusedWave in batch passes"),
        "{message}"
    );
    assert!(message.contains("Fix:"), "{message}");
    assert!(commands.is_empty(), "nothing ran");
    // Where the backend runs them, the forced batch fuses.
    let (result, commands) = launch_bound_batch(true, forced);
    assert!(result.is_ok());
    assert!(
        commands
            .iter()
            .all(|c| c.topology == MegakernelExecutionTopology::FusedWave)
    );
}
