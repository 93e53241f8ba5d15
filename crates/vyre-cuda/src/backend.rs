//! [`CudaBackend`]: the [`Backend`] contract on one CUDA device.

use std::mem::ManuallyDrop;
use std::sync::Arc;

use vyre_driver::backend::{
    Backend, BackendError, BatchLayout, BatchReport, BatchSources, CheckedCommand,
    DeviceCapabilities, DeviceLayout, SearchSources, WaveReport,
};
use vyre_graph::Graph;

use crate::args::KernelArgs;
use crate::batch::DeviceBatch;
use crate::buffers::DeviceGraph;
use crate::device::{CudaOpenRequest, Device, open_device};
use crate::error::during;
use crate::kernels::{Launch, SETUP_WIDTH, launch};
use crate::ptx_cache::PtxOrigin;
use crate::timing::EventPool;
use crate::wave::{grids, run_command};

/// One CUDA device running vyre's kernels.
///
/// Kernels are compiled by NVRTC for the device's architecture when the
/// backend opens (or read from the PTX cache). All work goes to one stream;
/// every command ends with one wait, within the wait limit, and the levels
/// it ran are read from mapped host memory. The backend holds device buffers
/// only: where the search stands comes in every command.
pub struct CudaBackend {
    /// Leaked instead of dropped when the device is stuck: freeing would
    /// wait for the stuck kernel.
    held: ManuallyDrop<Held>,
    /// Number of the current command (never 0, never reused before it
    /// wraps): kernels of a chain stop once the control block's stop flag
    /// holds it, and the host knows a level record is this command's by it.
    epoch: u32,
    /// What the device buffers hold that commands may continue (the
    /// queues and control block serve one at a time): set by `begin_search`
    /// or `begin_batch`, cleared by an upload and by a command that failed
    /// (its counters and queues are in an unknown state).
    begun: Begun,
}

/// What a [`CudaBackend`]'s commands may continue.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
enum Begun {
    Nothing,
    Search,
    Batch,
}

/// What the backend holds on the device, in the order it is freed.
struct Held {
    /// The last batch pass's state (freed with the graph it is for).
    batch: Option<DeviceBatch>,
    graph: Option<DeviceGraph>,
    events: EventPool,
    device: Device,
}

impl CudaBackend {
    /// Open device `request.ordinal`.
    ///
    /// # Errors
    ///
    /// [`BackendError`] of kind `Unavailable` when there is no CUDA driver,
    /// no such device, or no NVRTC; a device error when the driver fails.
    pub fn open(request: &CudaOpenRequest) -> Result<Self, BackendError> {
        Ok(Self {
            held: ManuallyDrop::new(Held {
                batch: None,
                graph: None,
                events: EventPool::default(),
                device: open_device(request)?,
            }),
            epoch: 0,
            begun: Begun::Nothing,
        })
    }

    /// The architecture the kernels were compiled for, e.g. `sm_90`.
    #[must_use]
    pub fn arch(&self) -> &str {
        self.held.device.arch.as_str()
    }

    /// Where the kernels' PTX came from when the backend opened.
    #[must_use]
    pub fn ptx_origin(&self) -> PtxOrigin {
        self.held.device.ptx_origin
    }

    fn next_epoch(&mut self) -> u32 {
        self.epoch = self.epoch.wrapping_add(1).max(1);
        self.epoch
    }

    /// The epoch of the next command, once the device is usable, a graph is
    /// uploaded and `begun` (else `not_begun`).
    fn command_epoch(&mut self, begun: bool, not_begun: &str) -> Result<u32, BackendError> {
        self.held.device.watchdog.ready()?;
        if self.held.graph.is_none() {
            return Err(not_uploaded());
        }
        if !begun {
            return Err(BackendError::new(not_begun));
        }
        Ok(self.next_epoch())
    }

    fn read_vertex_array(&mut self, depth: bool, out: &mut [u32]) -> Result<(), BackendError> {
        let held = &mut *self.held;
        held.device.watchdog.ready()?;
        let graph = held.graph.as_mut().ok_or_else(not_uploaded)?;
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
        let stream = Arc::clone(&held.device.stream);
        // A copy into pageable memory returns only once the stream reaches
        // it: wait for the stream first, within the limit.
        let watchdog = &mut held.device.watchdog;
        let result = watchdog
            .wait(&stream, "the work before the result readback")
            .and_then(|()| {
                let source = if depth { &graph.depth } else { &graph.parent };
                stream
                    .memcpy_dtoh(&source.slice(0..n), out)
                    .map_err(during("result readback"))
            })
            .and_then(|()| watchdog.wait(&stream, "the result readback"));
        if result.is_err() && self.begun == Begun::Search {
            self.begun = Begun::Nothing;
        }
        result
    }
}

/// A set-up launch of `kernel` over `items` work items, at most a
/// device-full of blocks (the kernels stride).
fn setup_launch(
    device: &Device,
    kernel: &cudarc::driver::CudaFunction,
    items: u64,
    args: &KernelArgs,
) -> Result<(), BackendError> {
    let most = (device.caps.resident_lanes / SETUP_WIDTH).max(1);
    launch(
        &device.stream,
        kernel,
        Launch::setup(items, most),
        args,
        false,
    )
}

impl Backend for CudaBackend {
    fn capabilities(&self) -> &DeviceCapabilities {
        &self.held.device.caps
    }

    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError> {
        self.held.device.watchdog.ready()?;
        self.begun = Begun::Nothing;
        let held = &mut *self.held;
        // Free the previous graph and batch first so their memory can be
        // reused.
        held.batch = None;
        held.graph = None;
        let device = &mut held.device;
        let stream = Arc::clone(&device.stream);
        let limit = device.watchdog.limit();
        let uploaded = DeviceGraph::upload(&stream, graph, layout, limit)?;
        let args = uploaded.base_args(&stream, device.watchdog.abort_ptr());
        let vertices = u64::from(layout.vertex_count);
        setup_launch(device, &device.kernels.init_search, vertices, &args)?;
        // Surface allocation and copy failures here, not in the first wave.
        device.watchdog.wait(&stream, "the graph upload")?;
        held.graph = Some(uploaded);
        Ok(())
    }

    fn allocated_bytes(&self) -> u64 {
        self.held.graph.as_ref().map_or(0, |g| g.bytes)
            + self.held.batch.as_ref().map_or(0, |b| b.bytes)
    }

    fn begin_search(&mut self, sources: &SearchSources) -> Result<(), BackendError> {
        let held = &mut *self.held;
        held.device.watchdog.ready()?;
        let graph = held.graph.as_mut().ok_or_else(not_uploaded)?;
        self.begun = Begun::Nothing;
        let device = &held.device;
        let stream = &device.stream;
        let ids = sources.ids();
        stream
            .memset_zeros(&mut graph.control)
            .map_err(during("control block clear"))?;
        stream
            .memcpy_htod(ids, &mut graph.queues[0].slice_mut(0..ids.len()))
            .map_err(during("source upload"))?;
        let mut args = graph.base_args(stream, device.watchdog.abort_ptr());
        args.queue_out = graph.queue_ptr(stream, 0);
        args.aux = sources.len();
        let vertices = u64::from(graph.layout.vertex_count);
        setup_launch(device, &device.kernels.init_search, vertices, &args)?;
        setup_launch(
            device,
            &device.kernels.seed_sources,
            u64::from(sources.len()),
            &args,
        )?;
        self.begun = Begun::Search;
        Ok(())
    }

    fn run_wave(&mut self, command: &CheckedCommand) -> Result<WaveReport, BackendError> {
        let epoch = self.command_epoch(
            self.begun == Begun::Search,
            "no search is in progress (none begun since the upload, or the last command failed). Fix: call begin_search before run_wave.",
        )?;
        let grids = grids(command);
        let held = &mut *self.held;
        let graph = held.graph.as_mut().ok_or_else(not_uploaded)?;
        let report = run_command(
            &mut held.device,
            graph,
            &mut held.events,
            command,
            grids,
            epoch,
            None,
        );
        if report.is_err() {
            self.begun = Begun::Nothing;
        }
        report
    }

    fn read_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        self.read_vertex_array(true, out)
    }

    fn read_parents(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        self.read_vertex_array(false, out)
    }

    fn begin_batch(
        &mut self,
        sources: &BatchSources,
        layout: &BatchLayout,
    ) -> Result<(), BackendError> {
        let held = &mut *self.held;
        held.device.watchdog.ready()?;
        let graph = held.graph.as_mut().ok_or_else(not_uploaded)?;
        self.begun = Begun::Nothing;
        let device = &held.device;
        let stream = &device.stream;
        let mut pass = DeviceBatch::prepare(stream, graph, held.batch.take(), sources, layout)?;
        let ids = sources.ids();
        stream
            .memset_zeros(&mut graph.control)
            .map_err(during("control block clear"))?;
        pass.upload_sources(stream, ids)?;
        let mut args = graph.base_args(stream, device.watchdog.abort_ptr());
        pass.fill_args(stream, &mut args, 0, 1);
        args.aux = sources.lanes();
        let items = u64::from(layout.vertex_count) * u64::from(layout.lanes);
        setup_launch(device, &device.kernels.batch_init, items, &args)?;
        setup_launch(
            device,
            &device.kernels.batch_seed,
            u64::from(sources.lanes()),
            &args,
        )?;
        held.batch = Some(pass);
        self.begun = Begun::Batch;
        Ok(())
    }

    fn run_batch_wave(&mut self, command: &CheckedCommand) -> Result<BatchReport, BackendError> {
        let epoch = self.command_epoch(
            self.begun == Begun::Batch,
            "no batch pass is in progress (none begun since the upload or the last begin_search, or the last batch command failed). Fix: call begin_batch before run_batch_wave.",
        )?;
        let grids = grids(command);
        let held = &mut *self.held;
        let graph = held.graph.as_mut().ok_or_else(not_uploaded)?;
        let pass = held.batch.as_mut().ok_or_else(not_uploaded)?;
        let result = run_command(
            &mut held.device,
            graph,
            &mut held.events,
            command,
            grids,
            epoch,
            Some(&mut *pass),
        )
        .and_then(|wave| {
            let lanes = pass.lane_counts(&held.device.stream, wave.levels.len())?;
            Ok(BatchReport { wave, lanes })
        });
        if result.is_err() {
            self.begun = Begun::Nothing;
        }
        result
    }

    fn read_batch_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        let held = &mut *self.held;
        held.device.watchdog.ready()?;
        let pass = held.batch.as_ref().ok_or_else(|| {
            BackendError::new(
                "no batch pass was begun. Fix: call begin_batch and run its waves first.",
            )
        })?;
        let stream = Arc::clone(&held.device.stream);
        let watchdog = &mut held.device.watchdog;
        watchdog
            .wait(&stream, "the work before the batch depth readback")
            .and_then(|()| pass.read_depths(&stream, out))
            .and_then(|()| watchdog.wait(&stream, "the batch depth readback"))
    }
}

impl Drop for CudaBackend {
    fn drop(&mut self) {
        if self.held.device.watchdog.is_stuck() {
            // Every driver call that frees device objects may wait for the
            // stuck kernel; the driver frees them when the process exits.
            tracing::warn!("leaking the device objects of a stuck CUDA backend");
            return;
        }
        // SAFETY: dropped once, here, and never used again.
        unsafe { ManuallyDrop::drop(&mut self.held) };
    }
}

fn not_uploaded() -> BackendError {
    BackendError::new("no graph is uploaded. Fix: call upload before searching.")
}
