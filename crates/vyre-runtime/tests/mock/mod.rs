//! A scripted backend for the engine's tests: a device whose timings and
//! capabilities the test chooses, so the policy's fused and chained paths run
//! without a GPU. The mock computes levels serially (topology only changes
//! speed, never results) and records every command it receives.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use vyre_driver::backend::{
    Backend, BackendError, BatchLayout, BatchReport, BatchSources, CheckedCommand,
    DeviceCapabilities, DeviceLayout, FrontierForm, LevelRecord, PrepareRequest, SearchSources,
    WaveCommand, WaveReport, frontier_form_of,
};
use vyre_driver::collective::RankPlan;
use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities, MegakernelExecutionTopology,
};
use vyre_graph::bfs::batch::BatchState;
use vyre_graph::generate::grid_2d;
use vyre_graph::{Graph, UNREACHED};

pub struct Mock {
    pub caps: DeviceCapabilities,
    pub graph: Option<Arc<Graph>>,
    pub depths: Vec<u32>,
    pub parents: Vec<u32>,
    pub queue: Vec<u32>,
    /// Wall and device ns reported per level.
    pub timing: (u64, u64),
    pub extra_bytes: u64,
    pub held: u64,
    pub commands: Arc<Mutex<Vec<WaveCommand>>>,
    /// Every `Backend::prepare` request, in order.
    pub prepared: Arc<Mutex<Vec<PrepareRequest>>>,
    /// Added to every reported frontier_in: a backend that lost track.
    pub skew: u32,
    /// What `Backend::ranks` reports.
    pub ranks: u32,
    /// Split over ranks as the driver's `RankPlan` plans it, even over one.
    pub partitioned: bool,
    /// The batch pass begun last: vyre-graph's CPU batch state and queue.
    pub pass: Option<(BatchState, Vec<u32>)>,
}

/// Lanes the mock holds at once when it reports a device-wide barrier.
pub const RESIDENT_LANES: u32 = 6 * 128;

pub fn caps(barrier: bool) -> DeviceCapabilities {
    DeviceCapabilities {
        fused_cluster: vyre_driver::backend::FusedCluster::NONE,
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
    pub fn new(barrier: bool, timing: (u64, u64)) -> (Self, Arc<Mutex<Vec<WaveCommand>>>) {
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
            prepared: Arc::default(),
            skew: 0,
            ranks: 1,
            partitioned: false,
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

    fn partitioned(&self) -> bool {
        self.partitioned || self.ranks > 1
    }

    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError> {
        self.graph = Some(Arc::clone(graph));
        let planned = if self.partitioned() {
            let budgets = vec![u64::MAX; self.ranks as usize];
            let plan = RankPlan::for_graph(graph, &budgets)?;
            plan.bytes.iter().map(|b| b.total()).sum()
        } else {
            layout.total_bytes()
        };
        self.held = planned + self.extra_bytes;
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

    fn prepare(&mut self, request: &PrepareRequest) -> Result<(), BackendError> {
        self.prepared.lock().unwrap().push(request.clone());
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
            if command.ends_after(self.queue.len() as u32, next_edges) {
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
            if command.ends_after(frontier_in, step.stats.frontier_out_edges) {
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

pub fn grid() -> Arc<Graph> {
    Arc::new(grid_2d(60, 40).unwrap())
}
