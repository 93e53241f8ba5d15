//! Batch passes on the CPU: `vyre_graph::bfs::batch`'s level steps driven
//! by the engine's checked commands, like the single search's.

use std::sync::Arc;
use std::time::Instant;

use vyre_driver::backend::{
    BackendError, BackendErrorKind, BatchLayout, BatchReport, BatchSources, CheckedCommand,
    FrontierForm, LevelRecord, WaveReport, frontier_form_of,
};
use vyre_graph::Graph;
use vyre_graph::bfs::batch::BatchState;

/// The state of the batch pass begun last, and the queue form of its
/// frontier.
pub(crate) struct BatchPass {
    layout: BatchLayout,
    state: BatchState,
    queue: Vec<u32>,
}

impl BatchPass {
    /// Bytes held: the state and the queue's capacity.
    pub(crate) fn bytes(&self) -> u64 {
        self.state.bytes() + self.queue.capacity() as u64 * 4
    }

    /// Start a pass, reusing `previous` when its layout is the same.
    pub(crate) fn begin(
        previous: Option<Self>,
        sources: &BatchSources,
        layout: &BatchLayout,
    ) -> Result<Self, BackendError> {
        let mut pass = match previous {
            Some(pass) if pass.layout == *layout => pass,
            _ => {
                let state = BatchState::new(layout.vertex_count, layout.lanes, layout.keep_depths)
                    .map_err(|e| {
                        BackendError::with_kind(BackendErrorKind::OutOfMemory, e.to_string())
                    })?;
                Self {
                    layout: *layout,
                    state,
                    queue: Vec::new(),
                }
            }
        };
        pass.queue = pass.state.start(sources.ids());
        Ok(pass)
    }

    /// Run one command's levels.
    pub(crate) fn run(&mut self, graph: &Arc<Graph>, command: &CheckedCommand) -> BatchReport {
        let started = Instant::now();
        let position = command.position;
        let form = frontier_form_of(command.topology);
        if position.form == FrontierForm::Bitmap && form == FrontierForm::Queue {
            self.queue = self.state.queue_of(position.buffer as usize);
        }
        let mut report = BatchReport::default();
        let mut frontier_in = position.frontier_len;
        let mut kernel_ns = 0u64;
        for k in 0..command.max_levels {
            let level = position.level + k;
            let from = position.buffer_of_level(k, true) as usize;
            let step_start = Instant::now();
            let step = match form {
                FrontierForm::Queue => {
                    let step = self.state.push(graph, &self.queue, from, level);
                    self.queue.clone_from(&step.next);
                    step
                }
                FrontierForm::Bitmap => self.state.pull(graph, from, level),
            };
            let ns = u64::try_from(step_start.elapsed().as_nanos()).unwrap_or(u64::MAX);
            kernel_ns = kernel_ns.saturating_add(ns);
            report.wave.levels.push(LevelRecord {
                level,
                frontier_in,
                frontier_out: step.stats.frontier_out,
                frontier_out_edges: step.stats.frontier_out_edges,
                edges_examined: step.stats.edges_examined,
                device_ns: Some(ns),
            });
            report.lanes.push(step.lanes);
            frontier_in = step.stats.frontier_out;
            if command.ends_after(frontier_in, step.stats.frontier_out_edges) {
                break;
            }
        }
        report.wave = WaveReport {
            wall_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
            device_ns: Some(kernel_ns),
            ..report.wave
        };
        report
    }

    /// The pass's depths, vertex-major.
    pub(crate) fn read_depths(&self, out: &mut [u32]) -> Result<(), BackendError> {
        self.state
            .read_depths(out)
            .map_err(|why| BackendError::new(format!("{why}. Fix: begin the batch with keep_depths and pass a slice of vertices x lanes words.")))
    }
}
