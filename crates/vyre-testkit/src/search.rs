//! The test-only wave loop: a whole search, command by command, with every
//! level's grid.

use vyre_driver::backend::{
    Backend, CheckedCommand, DeviceCapabilities, DeviceLayout, FrontierBand, LaunchShape,
    SearchPosition, WaveCommand,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
use vyre_graph::Graph;
use vyre_wgsl_abi::records::LevelGrids;

use crate::command::{begin, launch, within_band};

/// One level of a finished search.
#[derive(Clone, Copy, Debug)]
pub struct Level {
    /// Topology the level ran with.
    pub topology: T,
    /// Depth of the frontier it expanded.
    pub level: u32,
    /// Vertices of that frontier.
    pub frontier_in: u32,
    /// Vertices it discovered.
    pub frontier_out: u32,
    /// Their out-edges.
    pub out_edges: u64,
    /// Edges it examined.
    pub examined: u64,
    /// Its device time, when the backend timed it alone.
    pub device_ns: Option<u64>,
    /// Workgroups the level ran with.
    pub grid: u32,
    /// What the command's launch (first level) or the engine's rule for its
    /// frontier (later levels) says it should have run with.
    pub engine_grid: u32,
}

/// One finished search: depths, parents and its levels.
pub struct Search {
    /// Depth of every vertex.
    pub depths: Vec<u32>,
    /// Parent of every vertex.
    pub parents: Vec<u32>,
    /// Every level that ran, in order.
    pub levels: Vec<Level>,
    /// Commands issued.
    pub commands: usize,
}

/// The launch of one command of a test search.
pub type Shape<'a> = &'a dyn Fn(&DeviceCapabilities, T, &SearchPosition) -> LaunchShape;

/// Run a whole search: each command uses `schedule(level)`'s topology and
/// chains up to `chain` levels, launched by the test-side rule [`launch`].
pub fn search<B: Backend + LevelGrids>(
    backend: &mut B,
    layout: &DeviceLayout,
    graph: &Graph,
    sources: &[u32],
    chain: u32,
    schedule: &dyn Fn(u32) -> T,
) -> Search {
    let n = graph.vertex_count();
    search_with(
        backend,
        layout,
        graph,
        sources,
        chain,
        schedule,
        &|caps, topology, at| launch(caps, topology, at, n),
    )
}

/// [`search`] with every command launched as `shape` says.
pub fn search_with<B: Backend + LevelGrids>(
    backend: &mut B,
    layout: &DeviceLayout,
    graph: &Graph,
    sources: &[u32],
    chain: u32,
    schedule: &dyn Fn(u32) -> T,
    shape: Shape<'_>,
) -> Search {
    let n = graph.vertex_count();
    let start = begin(backend, graph, sources);
    let waves = Waves {
        layout,
        chain,
        schedule,
        shape,
    };
    let (levels, commands) = waves.run(backend, start, &mut |backend, command| {
        backend.run_wave(command).expect("wave runs")
    });
    let mut depths = vec![0; n as usize];
    let mut parents = vec![0; n as usize];
    backend.read_depths(&mut depths).expect("depths read back");
    backend
        .read_parents(&mut parents)
        .expect("parents read back");
    Search {
        depths,
        parents,
        levels,
        commands,
    }
}

/// Each level of `report` as (its frontier, the vertices it found).
#[must_use]
pub fn frontiers(report: &vyre_driver::backend::WaveReport) -> Vec<(u32, u32)> {
    report
        .levels
        .iter()
        .map(|l| (l.frontier_in, l.frontier_out))
        .collect()
}

/// Check that `result`, a search of `depth` levels, took at most one
/// command per `per_command` levels, and one more.
pub fn check_command_count(result: &Search, depth: u32, per_command: u32, what: &str) {
    assert!(
        result.commands as u32 <= depth.div_ceil(per_command) + 1,
        "{what}: {} commands for {depth} levels",
        result.commands
    );
}

/// How a test checks its commands: `WaveCommand::check` or
/// `WaveCommand::check_batch`.
pub type CheckFn = fn(
    WaveCommand,
    &DeviceCapabilities,
    &DeviceLayout,
) -> Result<CheckedCommand, vyre_driver::backend::BackendError>;

/// How a test search's commands are made: each uses `schedule(level)`'s
/// topology, chains up to `chain` levels and is launched as `shape` says.
pub struct Waves<'a> {
    /// The uploaded layout.
    pub layout: &'a DeviceLayout,
    /// Most levels a command runs.
    pub chain: u32,
    /// The topology of the command starting at each level.
    pub schedule: &'a dyn Fn(u32) -> T,
    /// The launch of each command.
    pub shape: Shape<'a>,
}

impl Waves<'_> {
    /// Run commands from `start` through `run` until the frontier is empty;
    /// check that every report continues the search, and return every
    /// level with the grid it ran on, and the commands issued.
    pub fn run<B: Backend + LevelGrids>(
        &self,
        backend: &mut B,
        start: SearchPosition,
        run: &mut dyn FnMut(&mut B, &CheckedCommand) -> vyre_driver::backend::WaveReport,
    ) -> (Vec<Level>, usize) {
        self.run_with(backend, start, WaveCommand::check, run)
    }

    /// [`Self::run`] with every command checked by `check` (for a batch
    /// pass, [`WaveCommand::check_batch`]).
    pub fn run_with<B: Backend + LevelGrids>(
        &self,
        backend: &mut B,
        start: SearchPosition,
        check: CheckFn,
        run: &mut dyn FnMut(&mut B, &CheckedCommand) -> vyre_driver::backend::WaveReport,
    ) -> (Vec<Level>, usize) {
        let n = self.layout.vertex_count;
        let mut at = start;
        let mut levels = Vec::new();
        let mut commands = 0;
        while at.frontier_len > 0 {
            let topology = (self.schedule)(at.level);
            let launch = (self.shape)(backend.capabilities(), topology, &at);
            let launch = within_band(
                launch,
                topology,
                &at,
                self.layout,
                FrontierBand::of_edges(u64::MAX),
            );
            let command = WaveCommand {
                topology,
                position: at,
                max_levels: self.chain,
                launch,
                band_max_frontier_edges: u64::MAX,
                band_max_frontier_vertices: u32::MAX,
            };
            let command = check(command, backend.capabilities(), self.layout)
                .expect("the test's command is valid");
            let report = run(backend, &command);
            commands += 1;
            assert!(
                !report.levels.is_empty(),
                "a non-empty frontier runs a level"
            );
            assert!(report.levels.len() <= self.chain as usize);
            assert!(report.readback_bytes > 0);
            let grids = backend.last_level_grids();
            assert_eq!(grids.len(), report.levels.len());
            let mut engine_grid = u32::try_from(launch.workgroups()).expect("grid fits");
            for (k, (record, &grid)) in (0u32..).zip(report.levels.iter().zip(grids)) {
                assert_eq!(record.level, at.level + k);
                levels.push(Level {
                    topology,
                    level: record.level,
                    frontier_in: record.frontier_in,
                    frontier_out: record.frontier_out,
                    out_edges: record.frontier_out_edges,
                    examined: record.edges_examined,
                    device_ns: record.device_ns,
                    grid,
                    engine_grid,
                });
                engine_grid = launch.next_level_workgroups(
                    topology,
                    record.frontier_out,
                    record.frontier_out_edges,
                    n,
                );
            }
            let last = report.levels.last().expect("a level ran");
            at = at.after(topology, report.levels.len() as u32, last);
            assert!(commands <= n as usize + 1, "search does not terminate");
        }
        (levels, commands)
    }
}
