//! [`CpuBackend`]: the [`Backend`] contract over host memory.

use std::sync::Arc;
use std::time::Instant;

use vyre_driver::backend::{
    Backend, BackendError, BatchLayout, BatchReport, BatchSources, CheckedCommand,
    DeviceCapabilities, DeviceLayout, FrontierForm, LevelRecord, SearchSources, WaveReport,
    frontier_form_of,
};
use vyre_graph::Graph;
use vyre_graph::bfs::steps::{
    FrontierBitmap, SearchState, StepStats, bitmap_to_queue, bottom_up_step, queue_to_bitmap,
    top_down_step,
};

use crate::batch::BatchPass;
use crate::capabilities::{available_memory, cpu_capabilities};

/// How to open the CPU backend.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct CpuOpenRequest {
    /// Worker threads; `None` = one per available core.
    pub threads: Option<usize>,
    /// Bytes the engine may plan for; `None` = the memory available now.
    pub memory_budget_bytes: Option<u64>,
}

/// One uploaded graph and the buffers of its search (the search's position
/// is the engine's, in every command).
struct Uploaded {
    graph: Arc<Graph>,
    state: SearchState,
    /// The frontier queue: one suffices on the host, so both queue buffers
    /// of the layout are this one.
    queue: Vec<u32>,
    bitmaps: [FrontierBitmap; 2],
    /// The batch pass begun last, if any.
    batch: Option<BatchPass>,
}

/// The multi-threaded CPU backend.
pub struct CpuBackend {
    pool: rayon::ThreadPool,
    caps: DeviceCapabilities,
    uploaded: Option<Uploaded>,
}

impl CpuBackend {
    /// Open a CPU "device" with its own thread pool.
    ///
    /// # Errors
    ///
    /// [`BackendError`] when the thread pool cannot be created.
    pub fn open(request: &CpuOpenRequest) -> Result<Self, BackendError> {
        let mut builder = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("vyre-cpu-{i}"));
        if let Some(threads) = request.threads {
            builder = builder.num_threads(threads.max(1));
        }
        let pool = builder.build().map_err(|e| {
            BackendError::unavailable(format!(
                "could not start the CPU thread pool: {e}. Fix: lower the thread count or raise the process's thread limit."
            ))
        })?;
        let budget = request
            .memory_budget_bytes
            .or_else(available_memory)
            .unwrap_or(u64::MAX / 4);
        let caps = cpu_capabilities(&pool, budget);
        Ok(Self {
            pool,
            caps,
            uploaded: None,
        })
    }

    fn uploaded(&mut self) -> Result<&mut Uploaded, BackendError> {
        self.uploaded.as_mut().ok_or_else(not_uploaded)
    }
}

impl Uploaded {
    /// Move the frontier held in buffer `buffer` of form `from` into buffer
    /// `buffer` of form `to`.
    fn convert(&mut self, from: FrontierForm, to: FrontierForm, buffer: usize) {
        match (from, to) {
            (FrontierForm::Queue, FrontierForm::Bitmap) => {
                let bitmap = &self.bitmaps[buffer];
                bitmap.clear();
                queue_to_bitmap(&self.queue, bitmap);
            }
            (FrontierForm::Bitmap, FrontierForm::Queue) => {
                self.queue = bitmap_to_queue(&self.bitmaps[buffer]);
            }
            _ => {}
        }
    }

    /// One level in `form` reading frontier buffer `from`; the next
    /// frontier goes to the other buffer.
    fn step(&mut self, form: FrontierForm, from: usize, level: u32) -> StepStats {
        match form {
            FrontierForm::Queue => {
                let out = top_down_step(&self.graph, &self.state, &self.queue, level);
                self.queue = out.next;
                out.stats
            }
            FrontierForm::Bitmap => {
                let next = 1 - from;
                self.bitmaps[next].clear();
                bottom_up_step(
                    &self.graph,
                    &self.state,
                    &self.bitmaps[from],
                    &self.bitmaps[next],
                    level,
                )
            }
        }
    }

    fn bytes(&self) -> u64 {
        let n = u64::from(self.graph.vertex_count()).max(1);
        let bitmap = n.div_ceil(32) * 4;
        // depth + parent, two bitmaps, the one queue held, a batch pass.
        8 * n
            + 2 * bitmap
            + self.queue.capacity() as u64 * 4
            + self.batch.as_ref().map_or(0, BatchPass::bytes)
    }
}

impl Backend for CpuBackend {
    fn capabilities(&self) -> &DeviceCapabilities {
        &self.caps
    }

    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError> {
        self.uploaded = None;
        if layout.vertex_count != graph.vertex_count() || layout.edge_count != graph.edge_count() {
            return Err(BackendError::new(format!(
                "the layout is for {} vertices and {} edges, the graph has {} and {}. Fix: compute the layout from this graph.",
                layout.vertex_count,
                layout.edge_count,
                graph.vertex_count(),
                graph.edge_count()
            )));
        }
        let n = graph.vertex_count();
        self.uploaded = Some(Uploaded {
            graph: Arc::clone(graph),
            state: SearchState::new(n),
            queue: Vec::new(),
            bitmaps: [FrontierBitmap::new(n), FrontierBitmap::new(n)],
            batch: None,
        });
        Ok(())
    }

    fn allocated_bytes(&self) -> u64 {
        self.uploaded.as_ref().map_or(0, Uploaded::bytes)
    }

    fn begin_search(&mut self, sources: &SearchSources) -> Result<(), BackendError> {
        let pool = &self.pool;
        let up = self.uploaded.as_mut().ok_or_else(not_uploaded)?;
        pool.install(|| up.state.reset());
        up.queue = up.state.start(sources.ids());
        Ok(())
    }

    fn run_wave(&mut self, command: &CheckedCommand) -> Result<WaveReport, BackendError> {
        let started = Instant::now();
        let pool = &self.pool;
        let up = self.uploaded.as_mut().ok_or_else(not_uploaded)?;
        let position = command.position;
        let form = frontier_form_of(command.topology);
        let buffer = position.buffer as usize;
        pool.install(|| up.convert(position.form, form, buffer));
        let vertex_count = up.graph.vertex_count() as usize;
        let mut levels = Vec::with_capacity(command.max_levels.min(64) as usize);
        let mut frontier_in = position.frontier_len;
        let mut kernel_ns = 0u64;
        for k in 0..command.max_levels {
            let level = position.level + k;
            let from = position.buffer_of_level(k, true) as usize;
            let step_start = Instant::now();
            let stats = pool.install(|| up.step(form, from, level));
            let ns = u64::try_from(step_start.elapsed().as_nanos()).unwrap_or(u64::MAX);
            kernel_ns = kernel_ns.saturating_add(ns);
            levels.push(LevelRecord {
                level,
                frontier_in,
                frontier_out: stats.frontier_out,
                frontier_out_edges: stats.frontier_out_edges,
                edges_examined: stats.edges_examined,
                device_ns: Some(ns),
            });
            if command.ends_after(stats.frontier_out, stats.frontier_out_edges) {
                break;
            }
            frontier_in = stats.frontier_out;
        }
        if up.queue.capacity() > vertex_count.max(1) {
            up.queue.shrink_to(vertex_count.max(1));
        }
        Ok(WaveReport {
            levels,
            wall_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
            device_ns: Some(kernel_ns),
            readback_bytes: 0,
        })
    }

    fn read_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        let up = self.uploaded()?;
        check_len(out, up.graph.vertex_count())?;
        up.state.depths(out);
        Ok(())
    }

    fn read_parents(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        let up = self.uploaded()?;
        check_len(out, up.graph.vertex_count())?;
        up.state.parents(out);
        Ok(())
    }

    fn begin_batch(
        &mut self,
        sources: &BatchSources,
        layout: &BatchLayout,
    ) -> Result<(), BackendError> {
        let pool = &self.pool;
        let up = self.uploaded.as_mut().ok_or_else(not_uploaded)?;
        let previous = up.batch.take();
        up.batch = Some(pool.install(|| BatchPass::begin(previous, sources, layout))?);
        Ok(())
    }

    fn run_batch_wave(&mut self, command: &CheckedCommand) -> Result<BatchReport, BackendError> {
        let pool = &self.pool;
        let up = self.uploaded.as_mut().ok_or_else(not_uploaded)?;
        let graph = Arc::clone(&up.graph);
        let pass = up.batch.as_mut().ok_or_else(no_batch)?;
        Ok(pool.install(|| pass.run(&graph, command)))
    }

    fn read_batch_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        let up = self.uploaded()?;
        up.batch.as_ref().ok_or_else(no_batch)?.read_depths(out)
    }
}

fn no_batch() -> BackendError {
    BackendError::new("no batch pass is begun. Fix: call begin_batch before run_batch_wave.")
}

pub(crate) fn not_uploaded() -> BackendError {
    BackendError::new("no graph is uploaded. Fix: call upload before searching.")
}

pub(crate) fn check_len(out: &[u32], n: u32) -> Result<(), BackendError> {
    if out.len() != n as usize {
        return Err(BackendError::new(format!(
            "the output has {} entries but the graph has {n} vertices. Fix: pass a slice of exactly {n} entries.",
            out.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::{
        LaunchShape, LevelSizing, SearchPosition, SearchSources, WaveCommand,
    };
    use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
    use vyre_graph::generate::grid_2d;

    use super::*;

    /// Levels (frontier in, found) of a chain of up to 8 levels from a
    /// corner of a 20 x 20 grid, where level k's frontier has k + 1
    /// vertices and 2k + 2 out-edges past the first levels.
    fn chain_from_corner(topology: T, max_edges: u64, max_vertices: u32) -> Vec<(u32, u32)> {
        let graph = Arc::new(grid_2d(20, 20).unwrap());
        let mut cpu = CpuBackend::open(&CpuOpenRequest::default()).unwrap();
        let layout = DeviceLayout::for_graph(&graph, cpu.capabilities(), 8).unwrap();
        cpu.upload(&graph, &layout).unwrap();
        let sources = SearchSources::new(&[0], &graph).unwrap();
        cpu.begin_search(&sources).unwrap();
        let command = WaveCommand {
            topology,
            position: SearchPosition::start(&sources),
            max_levels: 8,
            launch: LaunchShape {
                cluster: false,
                workgroup_size_x: 64,
                dispatch_grid: [1, 1, 1],
                slots_per_lane: 32,
                later: LevelSizing {
                    edges_per_lane: 0,
                    max_workgroups: 1,
                },
            },
            band_max_frontier_edges: max_edges,
            band_max_frontier_vertices: max_vertices,
        }
        .check(cpu.capabilities(), &layout)
        .unwrap();
        let report = cpu.run_wave(&command).unwrap();
        report
            .levels
            .iter()
            .map(|l| (l.frontier_in, l.frontier_out))
            .collect()
    }

    #[test]
    fn a_chain_stops_where_its_frontier_leaves_the_band() {
        for topology in [T::WarpSparseFrontier, T::SparseFrontier, T::HybridFrontier] {
            let all = chain_from_corner(topology, u64::MAX, u32::MAX);
            assert_eq!(all.len(), 8, "{topology:?}");
            // Level 2 finds 4 vertices: past a band of 3, the chain stops.
            let vertices = chain_from_corner(topology, u64::MAX, 3);
            assert_eq!(vertices, vec![(1, 2), (2, 3), (3, 4)], "{topology:?}");
            // Level 1 finds 3 vertices with 3 + 4 + 3 out-edges.
            let edges = chain_from_corner(topology, 9, u32::MAX);
            assert_eq!(edges, vec![(1, 2), (2, 3)], "{topology:?}");
        }
    }
}
