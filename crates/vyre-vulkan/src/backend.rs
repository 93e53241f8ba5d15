//! [`VulkanBackend`]: the [`Backend`] contract over one Vulkan device.

use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::time::Duration;

use vyre_driver::backend::{
    Backend, BackendError, BatchLayout, BatchReport, BatchSources, CheckedCommand,
    DEVICE_WAIT_LIMIT, DeviceCapabilities, DeviceLayout, PrepareRequest, SearchSources, WaveReport,
};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology;
use vyre_graph::Graph;
use vyre_wgsl_abi::Kernel;
use vyre_wgsl_abi::batch::check_batch_layout;
use vyre_wgsl_abi::records::LevelGrids;

use crate::batch::{BatchState, check_bindable};
use crate::calibrate::launch_overhead_ns;
use crate::capabilities::{
    BudgetSource, Measured, Overrides, binding_limit, capabilities, check_usable, memory_budget,
};
use crate::error::{no_batch, not_uploaded, poisoned};
use crate::gpu::{Gpu, GpuRequest};
use crate::kernels::Kernels;
use crate::probe::probe_device;
use crate::record::{ChainShape, CommandCache, Recorded};
use crate::resident::{Resident, allocate, check_layout};
use crate::select::Choice;
use crate::timing::HostTiming;
use crate::transfer::read_back;
use crate::validation::ValidationLog;
use crate::wave::{Outcome, WaveContext};
use vyre_wgsl_abi::probe::BarrierVerdict;

/// Recorded chains kept per graph (each a command buffer).
const RECORDED_CHAINS: usize = 64;

/// How to open a [`VulkanBackend`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VulkanOpenRequest {
    /// Use only a device whose name contains this (case-insensitive).
    pub device_name_contains: Option<String>,
    /// Memory budget to report instead of the measured one, in bytes.
    pub memory_budget_bytes: Option<u64>,
    /// Report at most this many bytes per edge binding, so that small graphs
    /// are split into several edge segments (for tests of the split).
    pub max_binding_bytes_override: Option<u64>,
    /// Refuse software devices (lavapipe). Automatic backend selection sets
    /// this: vyre's CPU backend is much faster than a software GPU.
    pub skip_software_devices: bool,
    /// Load the Khronos validation layer when it is installed and collect
    /// its messages ([`VulkanBackend::validation_log`]).
    pub validation: bool,
    /// Refuse device buffers beyond this many bytes in all, as if the device
    /// had no more (to exercise the out-of-memory path).
    pub allocation_limit_bytes: Option<u64>,
    /// Longest wait for one command, `run_wave` (default
    /// [`DEVICE_WAIT_LIMIT`], which bounds every other wait). A fused launch
    /// still running then is aborted through its abort word; a chain still
    /// running leaves the backend refusing further work.
    pub device_wait_limit: Option<Duration>,
    /// Tests only: report a device-wide barrier for this many workgroups of
    /// the fused kernel whatever the probe measured (1 runs the fused
    /// kernel's logic on lavapipe, where one workgroup is trivially
    /// co-resident; more exercises the bounded waits and the abort).
    #[doc(hidden)]
    pub force_resident_workgroups_for_tests: Option<u32>,
}

/// A Vulkan device running vyre's SPIR-V kernels.
pub struct VulkanBackend {
    // Dropped by hand (Drop): recordings, then the graph's buffers and sets
    // they name, then the pipelines, then the device; or all leaked when
    // the device is poisoned (it may still run work that uses them).
    pub(crate) records: ManuallyDrop<CommandCache<ChainShape, Recorded>>,
    /// The batch pass begun last, until the next upload.
    pub(crate) batch: ManuallyDrop<Option<BatchState>>,
    pub(crate) resident: ManuallyDrop<Option<Resident>>,
    pub(crate) kernels: ManuallyDrop<Kernels>,
    pub(crate) gpu: ManuallyDrop<Gpu>,
    caps: DeviceCapabilities,
    barrier: BarrierVerdict,
    budget_source: BudgetSource,
    binding_limit: u64,
    /// Chains recorded since open (a cache miss records one).
    recordings: u64,
    last_timing: HostTiming,
    last_grids: Vec<u32>,
}

impl std::fmt::Debug for VulkanBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VulkanBackend")
            .field("device", &self.caps.device_name)
            .field("allocated_bytes", &self.allocated_bytes())
            .finish_non_exhaustive()
    }
}

impl Drop for VulkanBackend {
    fn drop(&mut self) {
        if self.gpu.poisoned() {
            return;
        }
        // SAFETY: each field is dropped once, here, in the order that frees
        // what uses a handle before the handle (no submission is in flight:
        // every one was waited for, or the device would be poisoned).
        unsafe {
            ManuallyDrop::drop(&mut self.records);
            ManuallyDrop::drop(&mut self.batch);
            ManuallyDrop::drop(&mut self.resident);
            ManuallyDrop::drop(&mut self.kernels);
            ManuallyDrop::drop(&mut self.gpu);
        }
    }
}

impl VulkanBackend {
    /// Load libvulkan, open the best device matching `request` (discrete
    /// GPU first, a software device last and never when
    /// `skip_software_devices`), and measure it: limits, memory budget,
    /// launch overhead and the device-wide barrier probe.
    ///
    /// # Errors
    ///
    /// [`BackendError`] of kind `Unavailable` when there is no Vulkan loader
    /// or no matching device; `Device` when the device fails while measured.
    pub fn open(request: &VulkanOpenRequest) -> Result<Self, BackendError> {
        let gpu = Gpu::open(&GpuRequest {
            choice: Choice {
                name_contains: request.device_name_contains.as_deref(),
                skip_software: request.skip_software_devices,
            },
            validation: request.validation,
            command_limit: request.device_wait_limit.unwrap_or(DEVICE_WAIT_LIMIT),
        })?;
        check_usable(&gpu.facts)?;
        let mut kernels = Kernels::new(&gpu.device)?;
        let measured = Measured {
            launch_overhead_ns: launch_overhead_ns(&gpu, &mut kernels)?,
            barrier: probe_device(&gpu, &mut kernels)?,
        };
        let overrides = Overrides {
            memory_budget_bytes: request.memory_budget_bytes,
            max_binding_bytes: request.max_binding_bytes_override,
            resident_workgroups: request.force_resident_workgroups_for_tests,
        };
        let caps = capabilities(&gpu.facts, overrides, &measured);
        // The limit is for graphs: the probe's buffers are gone by now.
        gpu.memory.limit_to(request.allocation_limit_bytes);
        let (budget, budget_source) = memory_budget(&gpu.facts, request.memory_budget_bytes);
        tracing::info!(
            target: "vyre::vulkan",
            device = %caps.device_name,
            budget_bytes = budget,
            budget = %budget_source,
            barrier = %caps.barrier_reason,
            resident_workgroups = caps.resident_workgroups,
            launch_overhead_ns = caps.launch_overhead_ns,
            subgroup_size = caps.subgroup_size,
            subgroup_range = ?gpu.facts.subgroup_range,
            timestamp_period_ns = ?gpu.facts.timestamp_period_ns,
            "opened a Vulkan device"
        );
        Ok(Self {
            records: ManuallyDrop::new(CommandCache::new(RECORDED_CHAINS)),
            batch: ManuallyDrop::new(None),
            resident: ManuallyDrop::new(None),
            kernels: ManuallyDrop::new(kernels),
            binding_limit: binding_limit(&gpu.facts),
            gpu: ManuallyDrop::new(gpu),
            barrier: measured.barrier,
            caps,
            budget_source,
            recordings: 0,
            last_timing: HostTiming::default(),
            last_grids: Vec::new(),
        })
    }

    /// The barrier probe's verdict.
    #[must_use]
    pub fn barrier_verdict(&self) -> &BarrierVerdict {
        &self.barrier
    }

    /// Where the memory budget came from (the extension, a heap share, or
    /// the caller).
    #[must_use]
    pub fn memory_budget_source(&self) -> BudgetSource {
        self.budget_source
    }

    /// Nanoseconds per device timestamp tick (`None` without timestamps).
    #[must_use]
    pub fn timestamp_period_ns(&self) -> Option<f64> {
        self.gpu.facts.timestamp_period_ns
    }

    /// Messages of the validation layer (inactive unless requested and
    /// installed). Keep it past the backend's drop to see messages sent
    /// while the device is destroyed.
    #[must_use]
    pub fn validation_log(&self) -> ValidationLog {
        self.gpu.validation_log()
    }

    /// Live device allocations and the bytes of device memory the allocator
    /// reserved for them (its memory blocks; at least
    /// [`Backend::allocated_bytes`] while a graph is held).
    #[must_use]
    pub fn allocator_report(&self) -> (usize, u64) {
        self.gpu.memory.report()
    }

    /// Command buffers recorded for commands since open: a command whose
    /// chain shape (topology, levels, width, frontier set, conversion,
    /// dispatches) was recorded for this graph is submitted again instead.
    #[must_use]
    pub fn chains_recorded(&self) -> u64 {
        self.recordings
    }

    /// Compute pipelines built so far (one per kernel and width).
    #[must_use]
    pub fn pipeline_count(&self) -> usize {
        self.kernels.built()
    }

    /// Where the host time of the last `run_wave` went: recording (0 when
    /// the chain was recorded before), submission, waiting.
    #[must_use]
    pub fn last_command_timing(&self) -> HostTiming {
        self.last_timing
    }

    fn usable(&self) -> Result<(), BackendError> {
        if self.gpu.poisoned() {
            return Err(poisoned());
        }
        Ok(())
    }

    fn read_vertex_array(&self, out: &mut [u32], parents: bool) -> Result<(), BackendError> {
        self.usable()?;
        let resident = self.resident.as_ref().ok_or_else(not_uploaded)?;
        resident.layout.check_vertex_output(out.len())?;
        let source = if parents {
            &resident.parent
        } else {
            &resident.depth
        };
        read_back(&self.gpu, &resident.staging, source, out)
    }
}

impl LevelGrids for VulkanBackend {
    fn last_level_grids(&self) -> &[u32] {
        &self.last_grids
    }
}

impl Backend for VulkanBackend {
    fn capabilities(&self) -> &DeviceCapabilities {
        &self.caps
    }

    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError> {
        self.usable()?;
        check_layout(graph, layout, &self.caps, self.binding_limit)?;
        // Recordings name the previous graph's buffers and sets: drop them,
        // then the buffers, before allocating the next graph.
        self.records.new_graph();
        *self.batch = None;
        *self.resident = None;
        let mut resident = allocate(&self.gpu, &self.kernels, graph, layout)?;
        resident.fill(&self.gpu, graph)?;
        *self.resident = Some(resident);
        Ok(())
    }

    /// Builds the pipeline of every kernel a search's per-wave commands
    /// dispatch, at each width the engine uses (the driver compiles at
    /// pipeline creation, which a search would otherwise pay for).
    fn prepare(&mut self, request: &PrepareRequest) -> Result<(), BackendError> {
        self.usable()?;
        for &width in &request.per_wave_widths {
            self.kernels.build_all(&Kernel::PER_WAVE, width)?;
        }
        Ok(())
    }

    /// Every buffer of the layout, exactly as sized there (the allocator's
    /// blocks may reserve a little more: [`VulkanBackend::allocator_report`]).
    fn allocated_bytes(&self) -> u64 {
        self.resident.as_ref().map_or(0, Resident::bytes)
            + self.batch.as_ref().map_or(0, BatchState::bytes)
    }

    fn begin_search(&mut self, sources: &SearchSources) -> Result<(), BackendError> {
        self.usable()?;
        let resident = self.resident.as_mut().ok_or_else(not_uploaded)?;
        crate::search::begin(&self.gpu, &mut self.kernels, resident, sources)
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
        self.usable()?;
        let resident = self.resident.as_ref().ok_or_else(not_uploaded)?;
        check_batch_layout(layout, sources, &resident.layout)?;
        check_bindable(layout, self.binding_limit, &self.caps.device_name)?;
        if self.batch.as_ref().is_none_or(|b| b.layout != *layout) {
            // Recordings name the old batch's sets: drop them, then the
            // batch's buffers, before allocating the new ones.
            self.records.new_graph();
            *self.batch = None;
            *self.batch = Some(BatchState::allocate(
                &self.gpu,
                &self.kernels,
                resident,
                layout,
            )?);
        }
        let batch = self.batch.as_ref().ok_or_else(no_batch)?;
        batch.begin(&self.gpu, resident, sources)
    }

    fn run_batch_wave(&mut self, command: &CheckedCommand) -> Result<BatchReport, BackendError> {
        let outcome = self.run_command(command, true)?;
        Ok(BatchReport {
            wave: outcome.report,
            lanes: outcome.lanes,
        })
    }

    fn read_batch_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        self.usable()?;
        let resident = self.resident.as_ref().ok_or_else(not_uploaded)?;
        let batch = self.batch.as_ref().ok_or_else(no_batch)?;
        batch.read_depths(&self.gpu, resident, out)
    }
}

impl VulkanBackend {
    /// Run one command of a search, or of the batch pass begun last (which
    /// has no `FusedWave`: `CommandPlan::of_batch` refuses one).
    fn run_command(
        &mut self,
        command: &CheckedCommand,
        batch: bool,
    ) -> Result<Outcome, BackendError> {
        self.usable()?;
        let resident = self.resident.as_mut().ok_or_else(not_uploaded)?;
        let batch = match batch {
            true => Some(self.batch.as_ref().ok_or_else(no_batch)?),
            false => None,
        };
        let cx = WaveContext {
            gpu: &self.gpu,
            kernels: &mut self.kernels,
            records: &mut self.records,
            recordings: &mut self.recordings,
            resident,
        };
        let outcome =
            if command.topology == MegakernelExecutionTopology::FusedWave && batch.is_none() {
                crate::fused::run(cx, command)?
            } else {
                crate::wave::run(cx, command, batch)?
            };
        self.last_timing = outcome.timing;
        self.last_grids.clone_from(&outcome.grids);
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    use vyre_driver::backend::{Backend, BackendErrorKind};

    use crate::testing::open;

    #[test]
    fn opening_measures_the_device() {
        let Some(gpu) = open("opening_measures_the_device") else {
            return;
        };
        let caps = gpu.capabilities();
        assert!(caps.max_workgroup_size_x.is_power_of_two() && caps.max_workgroup_size_x <= 256);
        assert!(caps.max_compute_workgroups_per_dimension >= 65_535);
        assert!(caps.launch_overhead_ns > 0.0, "{}", caps.launch_overhead_ns);
        assert!(caps.memory_budget_bytes > 0);
        assert!(caps.max_binding_bytes >= 1 << 20);
        assert!(caps.subgroup_size >= 1);
        assert_eq!(caps.device_timestamps, gpu.timestamp_period_ns().is_some());
        assert!(!caps.barrier_reason.is_empty());
        assert!(!caps.can_fuse() || gpu.barrier_verdict().verified());
        // What the device measured, for whoever runs this on a GPU.
        crate::testing::visible(&format!(
            "opened {}: {}; budget {} bytes ({}); launch overhead {:.0} ns; subgroup {}; timestamps {:?} ns/tick",
            caps.device_name,
            caps.barrier_reason,
            caps.memory_budget_bytes,
            gpu.memory_budget_source(),
            caps.launch_overhead_ns,
            caps.subgroup_size,
            gpu.timestamp_period_ns()
        ));
        gpu.assert_valid();
    }

    #[test]
    fn searching_before_an_upload_is_a_typed_error() {
        let Some(mut gpu) = open("searching_before_an_upload_is_a_typed_error") else {
            return;
        };
        let graph = vyre_graph::build::build_graph(
            2,
            &[(0, 1)],
            vyre_graph::build::BuildOptions::UNDIRECTED,
        )
        .unwrap();
        let sources = vyre_driver::backend::SearchSources::new(&[0], &graph).unwrap();
        let err = gpu.begin_search(&sources).unwrap_err();
        assert_eq!(err.kind(), BackendErrorKind::InvalidRequest);
        assert!(
            err.message().contains("upload") && err.message().contains("Fix:"),
            "{err}"
        );
        let mut depths = [0; 2];
        assert!(gpu.read_depths(&mut depths).is_err());
    }

    #[test]
    fn a_layout_whose_staging_cannot_hold_the_host_words_is_refused() {
        let Some(mut gpu) = open("a_layout_whose_staging_cannot_hold_the_host_words_is_refused")
        else {
            return;
        };
        // One vertex and one level: 32 bytes of staging.
        let graph = std::sync::Arc::new(
            vyre_graph::build::build_graph(1, &[], vyre_graph::build::BuildOptions::UNDIRECTED)
                .unwrap(),
        );
        let layout =
            vyre_driver::backend::DeviceLayout::for_graph(&graph, gpu.capabilities(), 1).unwrap();
        let err = gpu.upload(&graph, &layout).unwrap_err();
        assert_eq!(err.kind(), BackendErrorKind::InvalidRequest);
        assert!(err.message().contains("more levels per command"), "{err}");
        assert_eq!(gpu.allocated_bytes(), 0);
    }

    #[test]
    fn uploading_a_graph_invalidates_recorded_chains() {
        let Some(mut gpu) = open("uploading_a_graph_invalidates_recorded_chains") else {
            return;
        };
        let graph = std::sync::Arc::new(
            vyre_graph::build::build_graph(
                3,
                &[(0, 1), (1, 2)],
                vyre_graph::build::BuildOptions::UNDIRECTED,
            )
            .unwrap(),
        );
        let layout =
            vyre_driver::backend::DeviceLayout::for_graph(&graph, gpu.capabilities(), 16).unwrap();
        gpu.upload(&graph, &layout).unwrap();
        let first = gpu.records.graph();
        gpu.upload(&graph, &layout).unwrap();
        assert_ne!(gpu.records.graph(), first);
        assert_eq!(gpu.records.len(), 0);
    }
}
