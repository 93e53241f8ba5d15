//! [`WgpuBackend`]: the [`Backend`] contract over one wgpu device.

use std::sync::Arc;

use vyre_driver::backend::{
    Backend, BackendError, BatchLayout, BatchReport, BatchSources, CheckedCommand,
    DeviceCapabilities, DeviceLayout, PrepareRequest, SearchSources, WaveReport,
};
use vyre_graph::Graph;

use vyre_wgsl_abi::START_WIDTH;
use vyre_wgsl_abi::batch::{check_batch_layout, check_depth_output, decode_depths};
use vyre_wgsl_abi::bindings::{BATCH_STORAGE_BINDINGS, FUSED_STORAGE_BINDINGS};
use vyre_wgsl_abi::control::{C_CUR_COUNT, COMMAND_WORDS};
use vyre_wgsl_abi::overrides::start_groups;

use crate::batch::{BatchBuffers, check_bindable};
use crate::device_graph::{AllocateRequest, DeviceGraph, allocate, check_layout};
use crate::errors::{ErrorSink, wait_idle};
use crate::host_writes::{HostWrites, UploadSlots};
use crate::kernels::{Kernel, Kernels};
use crate::open::{WgpuOpenRequest, open};
use crate::readback::read_words;
use crate::timing::CommandTiming;
use crate::wave::{WaveContext, run};

/// A wgpu device running vyre's WGSL kernels.
pub struct WgpuBackend {
    device: wgpu::Device,
    queue: wgpu::Queue,
    caps: DeviceCapabilities,
    kernels: Kernels,
    slots: UploadSlots,
    errors: ErrorSink,
    binding_limit: u64,
    storage_buffers: u32,
    timestamp_period_ns: f64,
    graph: Option<DeviceGraph>,
    /// The batch pass begun last, until the next upload.
    batch: Option<BatchBuffers>,
    last_timing: CommandTiming,
    last_grids: Vec<u32>,
}

impl std::fmt::Debug for WgpuBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WgpuBackend")
            .field("device", &self.caps.device_name)
            .field("allocated_bytes", &self.allocated_bytes())
            .finish_non_exhaustive()
    }
}

fn not_uploaded() -> BackendError {
    BackendError::new("no graph is uploaded. Fix: call upload before searching.".to_string())
}

fn no_batch() -> BackendError {
    BackendError::new("no batch pass is begun. Fix: call begin_batch before run_batch_wave.")
}

impl WgpuBackend {
    /// Open the best wgpu adapter matching `request` (discrete GPU first, the
    /// CPU's lavapipe last) and measure its capabilities, including the
    /// launch overhead.
    ///
    /// # Errors
    ///
    /// [`BackendError`] of kind `Unavailable` when no adapter matches or the
    /// device cannot be opened.
    pub fn open(request: &WgpuOpenRequest) -> Result<Self, BackendError> {
        let opened = open(request)?;
        let slots = UploadSlots::new(&opened.device);
        Ok(Self {
            device: opened.device,
            queue: opened.queue,
            caps: opened.caps,
            kernels: opened.kernels,
            slots,
            errors: opened.errors,
            binding_limit: opened.binding_limit,
            storage_buffers: opened.storage_buffers,
            timestamp_period_ns: opened.timestamp_period_ns,
            graph: None,
            batch: None,
            last_timing: CommandTiming::default(),
            last_grids: Vec::new(),
        })
    }

    /// Host-side phases of the last `run_wave` (recording, submission,
    /// waiting), for overhead measurements.
    #[must_use]
    pub fn last_command_timing(&self) -> CommandTiming {
        self.last_timing
    }

    /// Workgroups each level of the last `run_wave` ran with, in order: the
    /// command's launch grid, then what the engine's rule gave for each
    /// later level on the device.
    #[must_use]
    pub fn last_level_grids(&self) -> &[u32] {
        &self.last_grids
    }

    /// Compute pipelines built so far (one per kernel and workgroup width).
    #[must_use]
    pub fn pipeline_count(&self) -> usize {
        self.kernels.pipeline_count()
    }

    /// Set every vertex unreached and, when `sources` are given, write
    /// them to queue 0 and seed them.
    fn record_start(&mut self, sources: Option<&[u32]>) -> Result<(), BackendError> {
        let Some(graph) = self.graph.as_ref() else {
            return Err(not_uploaded());
        };
        let count = sources.map_or(0, |s| u32::try_from(s.len()).unwrap_or(u32::MAX));
        let mut words = [0u32; COMMAND_WORDS];
        words[C_CUR_COUNT] = count;
        let mut writes = HostWrites::default();
        writes.put(graph.control.at(0), &words);
        if let Some(ids) = sources.filter(|s| !s.is_empty()) {
            writes.put(graph.queues[0].at(0), ids);
        }
        let n = graph.layout.vertex_count;
        let limit = self.caps.max_compute_workgroups_per_dimension;
        let reset_groups = start_groups(n, limit);
        let seed_groups = start_groups(count, limit);
        let reset = self
            .kernels
            .pipeline(&self.device, Kernel::ResetState, START_WIDTH);
        let seed_pipeline = self
            .kernels
            .pipeline(&self.device, Kernel::SeedSources, START_WIDTH);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("vyre search start"),
            });
        let used = self.slots.record(&self.queue, &mut encoder, &writes);
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("vyre search start"),
                timestamp_writes: None,
            });
            pass.set_bind_group(0, &graph.state_groups[0], &[]);
            if n > 0 {
                pass.set_pipeline(&reset);
                pass.dispatch_workgroups(reset_groups, 1, 1);
            }
            if count > 0 {
                pass.set_pipeline(&seed_pipeline);
                pass.dispatch_workgroups(seed_groups, 1, 1);
            }
        }
        self.queue.submit([encoder.finish()]);
        self.slots.submitted(used);
        Ok(())
    }

    fn read_vertex_array(&mut self, out: &mut [u32], parents: bool) -> Result<(), BackendError> {
        let graph = self.graph.as_ref().ok_or_else(not_uploaded)?;
        let n = graph.layout.vertex_count as usize;
        if out.len() != n {
            return Err(BackendError::new(format!(
                "the output slice holds {} entries but the graph has {n} vertices. Fix: pass a slice of vertex_count entries.",
                out.len()
            )));
        }
        let source = if parents { &graph.parent } else { &graph.depth };
        read_words(&self.device, &self.queue, source.at(0), &graph.staging, out)?;
        self.errors.check("reading results back")
    }
}

impl vyre_wgsl_abi::records::LevelGrids for WgpuBackend {
    fn last_level_grids(&self) -> &[u32] {
        &self.last_grids
    }
}

impl Backend for WgpuBackend {
    fn capabilities(&self) -> &DeviceCapabilities {
        &self.caps
    }

    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError> {
        check_layout(graph, layout, self.binding_limit)?;
        // Free the previous graph (and batch state) before allocating the next.
        self.batch = None;
        self.graph = None;
        let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let fused_layout = (self.storage_buffers >= FUSED_STORAGE_BINDINGS)
            .then(|| self.kernels.wide_layout(&self.device).clone());
        let graph = allocate(
            &AllocateRequest {
                device: &self.device,
                queue: &self.queue,
                kernels: &self.kernels,
                fused_layout: fused_layout.as_ref(),
                timestamps: self.caps.device_timestamps,
            },
            graph,
            layout,
        );
        let validation_error = pollster::block_on(validation.pop());
        let oom_error = pollster::block_on(oom.pop());
        if let Some(error) = oom_error.or(validation_error) {
            drop(graph);
            return Err(self.errors.explain(&error, "uploading the graph"));
        }
        self.graph = Some(graph?);
        let started = self.record_start(None);
        let waited = wait_idle(&self.device, "uploading the graph");
        let checked = self.errors.check("uploading the graph");
        if let Err(error) = started.and(waited).and(checked) {
            self.graph = None;
            return Err(error);
        }
        Ok(())
    }

    /// Creates the pipeline of every kernel a search's per-wave commands
    /// dispatch, at each width the engine uses (the driver compiles at
    /// pipeline creation, which a search would otherwise pay for).
    fn prepare(&mut self, request: &PrepareRequest) -> Result<(), BackendError> {
        for &width in &request.per_wave_widths {
            self.kernels
                .build_all(&self.device, &Kernel::PER_WAVE, width);
        }
        self.errors.check("building the kernels' pipelines")
    }

    /// Every buffer of the layout, exactly; the timestamp query set (two
    /// 8-byte queries per level, not a buffer) and the backend's upload
    /// slots (16 KiB of host-visible memory, kept across uploads) are not
    /// counted.
    fn allocated_bytes(&self) -> u64 {
        self.graph.as_ref().map_or(0, |g| g.allocated) + self.batch.as_ref().map_or(0, |b| b.bytes)
    }

    fn begin_search(&mut self, sources: &SearchSources) -> Result<(), BackendError> {
        self.record_start(Some(sources.ids()))?;
        self.errors.check("starting a search")
    }

    fn run_wave(&mut self, command: &CheckedCommand) -> Result<WaveReport, BackendError> {
        Ok(self.run_command(command, false)?.report)
    }

    fn read_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        self.read_vertex_array(out, false)
    }

    fn read_parents(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        self.read_vertex_array(out, true)
    }

    fn begin_batch(
        &mut self,
        sources: &BatchSources,
        layout: &BatchLayout,
    ) -> Result<(), BackendError> {
        let graph = self.graph.as_ref().ok_or_else(not_uploaded)?;
        check_batch_layout(layout, sources, &graph.layout)?;
        if self.storage_buffers < BATCH_STORAGE_BINDINGS {
            return Err(BackendError::unavailable(format!(
                "{} allows {} storage buffers per shader stage; a batch pass's kernels bind {BATCH_STORAGE_BINDINGS}. Fix: run the searches one by one, or use another adapter or backend.",
                self.caps.device_name, self.storage_buffers
            )));
        }
        check_bindable(layout, self.binding_limit)?;
        if self.batch.as_ref().is_none_or(|b| b.layout != *layout) {
            self.batch = None;
            let oom = self.device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
            let group_layout = self.kernels.wide_layout(&self.device);
            let batch = crate::batch::allocate(&self.device, group_layout, graph, layout);
            if let Some(error) = pollster::block_on(oom.pop()) {
                return Err(self.errors.explain(&error, "allocating a batch pass"));
            }
            self.batch = Some(batch);
        }
        let batch = self.batch.as_ref().ok_or_else(no_batch)?;
        batch.begin(&self.device, &self.queue, graph, sources);
        self.errors.check("starting a batch pass")
    }

    fn run_batch_wave(&mut self, command: &CheckedCommand) -> Result<BatchReport, BackendError> {
        let outcome = self.run_command(command, true)?;
        Ok(BatchReport {
            wave: outcome.report,
            lanes: outcome.lanes,
        })
    }

    fn read_batch_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        let graph = self.graph.as_ref().ok_or_else(not_uploaded)?;
        let batch = self.batch.as_ref().ok_or_else(no_batch)?;
        check_depth_output(&batch.layout, out.len())?;
        let at = batch.layout.lane_history_bytes();
        read_words(
            &self.device,
            &self.queue,
            (&batch.tallies, at),
            &graph.staging,
            out,
        )?;
        decode_depths(out);
        self.errors.check("reading a batch's depths back")
    }
}

impl WgpuBackend {
    /// Run one command of a search, or of the batch pass begun last.
    fn run_command(
        &mut self,
        command: &CheckedCommand,
        batch: bool,
    ) -> Result<crate::wave::CommandOutcome, BackendError> {
        let graph = self.graph.as_ref().ok_or_else(not_uploaded)?;
        let batch = match batch {
            true => Some(self.batch.as_ref().ok_or_else(no_batch)?),
            false => None,
        };
        let outcome = run(
            WaveContext {
                device: &self.device,
                queue: &self.queue,
                kernels: &mut self.kernels,
                slots: &mut self.slots,
                graph,
                timestamp_period_ns: self.timestamp_period_ns,
            },
            command,
            batch,
        )?;
        self.last_timing = outcome.timing;
        self.last_grids.clone_from(&outcome.grids);
        self.errors.check("running a wave")?;
        Ok(outcome)
    }
}
