//! [`CudaBackend`]: the [`Backend`] contract on one CUDA device.

use std::sync::Arc;

use vyre_driver::backend::{
    Backend, BackendError, DeviceCapabilities, DeviceLayout, WaveCommand, WaveReport,
};
use vyre_graph::Graph;

use crate::buffers::DeviceGraph;
use crate::command::{DeviceLimits, SearchState, plan_command};
use crate::device::{CudaOpenRequest, Device, open_device};
use crate::error::during;
use crate::kernels::{Launch, launch};
use crate::ptx_cache::PtxOrigin;
use crate::timing::EventPool;
use crate::wave::run_command;

/// One CUDA device running vyre's kernels.
///
/// Kernels are compiled by NVRTC for the device's architecture when the
/// backend opens (or read from the PTX cache). All work goes to one stream;
/// every command ends with one readback of the levels it ran.
pub struct CudaBackend {
    device: Device,
    graph: Option<DeviceGraph>,
    search: Option<SearchState>,
    /// Number of the current command (never 0, never reused before it
    /// wraps): kernels of a chain stop once the control block's stop flag
    /// holds it, and the host knows a level record is this command's by it.
    epoch: u32,
    events: EventPool,
}

impl CudaBackend {
    /// Open device `request.ordinal`.
    ///
    /// # Errors
    ///
    /// [`BackendError`] of kind `Unavailable` when there is no CUDA driver,
    /// no such device, or no NVRTC (and no cached PTX); a device error when
    /// the driver fails.
    pub fn open(request: &CudaOpenRequest) -> Result<Self, BackendError> {
        Ok(Self {
            device: open_device(request)?,
            graph: None,
            search: None,
            epoch: 0,
            events: EventPool::default(),
        })
    }

    /// The architecture the kernels were compiled for, e.g. `sm_90`.
    #[must_use]
    pub fn arch(&self) -> &str {
        self.device.arch.as_str()
    }

    /// Where the kernels' PTX came from when the backend opened.
    #[must_use]
    pub fn ptx_origin(&self) -> PtxOrigin {
        self.device.ptx_origin
    }

    fn graph_mut(&mut self) -> Result<&mut DeviceGraph, BackendError> {
        self.graph.as_mut().ok_or_else(not_uploaded)
    }

    fn next_epoch(&mut self) -> u32 {
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.epoch
    }

    /// A set-up launch of `kernel` over `items` work items.
    fn setup_launch(
        &self,
        kernel: &cudarc::driver::CudaFunction,
        items: u64,
        args: &crate::args::KernelArgs,
    ) -> Result<(), BackendError> {
        let grid = Launch::setup(items, self.device.sm_count.saturating_mul(16));
        launch(&self.device.stream, kernel, grid, args, false)
    }

    fn read_vertex_array(&mut self, depth: bool, out: &mut [u32]) -> Result<(), BackendError> {
        let stream = std::sync::Arc::clone(&self.device.stream);
        let graph = self.graph_mut()?;
        let n = graph.layout.vertex_count as usize;
        if out.len() != n {
            return Err(BackendError::new(format!(
                "the output has {} entries but the graph has {n} vertices. Fix: pass a slice of exactly {n} entries.",
                out.len()
            )));
        }
        if n == 0 {
            return Ok(());
        }
        let source = if depth { &graph.depth } else { &graph.parent };
        stream
            .memcpy_dtoh(&source.slice(0..n), out)
            .map_err(during("result readback"))?;
        stream.synchronize().map_err(during("synchronize"))
    }
}

impl Backend for CudaBackend {
    fn capabilities(&self) -> &DeviceCapabilities {
        &self.device.caps
    }

    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError> {
        // Free the previous graph first so its memory can be reused.
        self.search = None;
        self.graph = None;
        let stream = &self.device.stream;
        let uploaded = DeviceGraph::upload(stream, graph, layout)?;
        let args = uploaded.base_args(stream);
        self.setup_launch(
            &self.device.kernels.init_search,
            u64::from(layout.vertex_count),
            &args,
        )?;
        // Surface allocation and copy failures here, not in the first wave.
        stream.synchronize().map_err(during("upload"))?;
        self.graph = Some(uploaded);
        Ok(())
    }

    fn allocated_bytes(&self) -> u64 {
        self.graph.as_ref().map_or(0, |g| g.bytes)
    }

    fn begin_search(&mut self, sources: &[u32]) -> Result<(), BackendError> {
        let stream = Arc::clone(&self.device.stream);
        let graph = self.graph.as_mut().ok_or_else(not_uploaded)?;
        let n = graph.layout.vertex_count;
        check_sources(sources, n)?;
        self.search = None;
        let count = sources.len() as u32;
        let source_edges: u64 = sources
            .iter()
            .map(|&s| graph.graph.out_edges().degree(s))
            .sum();
        stream
            .memset_zeros(&mut graph.control)
            .map_err(during("control block clear"))?;
        if count > 0 {
            stream
                .memcpy_htod(sources, &mut graph.queues[0].slice_mut(0..sources.len()))
                .map_err(during("source upload"))?;
        }
        let mut args = graph.base_args(&stream);
        args.queue_out = graph.queue_ptr(&stream, 0);
        args.aux = count;
        let kernels = &self.device.kernels;
        self.setup_launch(&kernels.init_search, u64::from(n), &args)?;
        self.setup_launch(&kernels.seed_sources, u64::from(count), &args)?;
        self.search = Some(SearchState::start(count, source_edges));
        Ok(())
    }

    fn run_wave(&mut self, command: &WaveCommand) -> Result<WaveReport, BackendError> {
        let graph = self.graph.as_ref().ok_or_else(not_uploaded)?;
        let state = self.search.ok_or_else(|| {
            BackendError::new("no search is in progress (none begun, or the last one failed). Fix: call begin_search before run_wave.")
        })?;
        let limits = DeviceLimits {
            device_name: self.device.caps.device_name.clone(),
            max_width: self.device.caps.max_workgroup_size_x,
            max_grid: self.device.max_grid_x,
            fused_width: self.device.caps.resident_workgroup_size,
            resident_workgroups: self.device.caps.resident_workgroups,
            history_levels: graph.layout.max_levels_per_command,
            resident_threads: self.device.resident_threads,
            vertex_count: graph.layout.vertex_count,
            edge_count: graph.layout.edge_count,
        };
        let plan = plan_command(command, &limits, &state)?;
        let epoch = self.next_epoch();
        let graph = self.graph.as_mut().ok_or_else(not_uploaded)?;
        match run_command(
            &self.device,
            graph,
            &mut self.events,
            command,
            &plan,
            &state,
            epoch,
        ) {
            Ok(outcome) => {
                self.search = Some(state.after(
                    command.topology,
                    outcome.levels_run,
                    outcome.frontier_len,
                    outcome.frontier_edges,
                ));
                Ok(outcome.report)
            }
            Err(e) => {
                // The device state of the search is unknown now.
                self.search = None;
                Err(e)
            }
        }
    }

    fn read_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        self.read_vertex_array(true, out)
    }

    fn read_parents(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        self.read_vertex_array(false, out)
    }
}

fn not_uploaded() -> BackendError {
    BackendError::new("no graph is uploaded. Fix: call upload before searching.")
}

/// Sources must be distinct vertices of the graph (so at most n of them).
fn check_sources(sources: &[u32], n: u32) -> Result<(), BackendError> {
    if let Some(&s) = sources.iter().find(|&&s| s >= n) {
        return Err(BackendError::new(format!(
            "source {s} is out of range for {n} vertices. Fix: pass sources below {n}."
        )));
    }
    let mut sorted = sources.to_vec();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(BackendError::new(format!(
            "source {} is given more than once. Fix: pass distinct sources.",
            w[0]
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_must_be_distinct_and_in_range() {
        assert!(check_sources(&[], 0).is_ok());
        assert!(check_sources(&[0, 4, 2], 5).is_ok());
        assert!(
            check_sources(&[5], 5)
                .unwrap_err()
                .message()
                .contains("out of range")
        );
        assert!(
            check_sources(&[1, 3, 1], 5)
                .unwrap_err()
                .message()
                .contains("more than once")
        );
    }
}
