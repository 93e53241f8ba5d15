//! [`CudaRanks`]: one graph partitioned over CUDA GPUs, each rank's rows and
//! search state on its own GPU, exchanging every level's frontier on device
//! buffers through NCCL. The model is `vyre_cpu::CpuRanks` (the same
//! partition, exchanges and counts); here the expansion, merge and pull are
//! kernels (`shaders/cuda/ranks.cu`) and one host thread drives every rank.
//!
//! A level with a lists exchange expands each rank's frontier (owned
//! targets claimed at once, the others queued once with a parent for their
//! owner), all-gathers the per-destination pair counts, reads them back,
//! and moves the pairs with grouped NCCL sends and receives; a merge kernel
//! claims what arrived. A level with a bitmap exchange all-gathers each
//! rank's frontier words and pulls over the owned unreached vertices'
//! in-edges. Both end with an all-reduce of the three counts, read back.
//!
//! [`CudaRanksOpenRequest::one_device`] puts every rank on GPU 0 and
//! exchanges by copies ([`collective::OneDevice`]): NCCL refuses two ranks
//! on one GPU, so that is how the partitioned search is tested on one GPU
//! or on the emulator. A request for several GPUs never falls back to it.

mod collective;
mod grid;
mod level;
mod nccl;
mod state;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::nccl::Comm;
use vyre_driver::backend::{
    Backend, BackendError, BatchLayout, BatchReport, BatchSources, CheckedCommand,
    DeviceCapabilities, DeviceLayout, SearchSources, WaveReport,
};
use vyre_driver::collective::{RankPlan, batches_refused, rank_memory_error};
use vyre_driver::megakernel_execution::MegakernelDeviceCapabilities;
use vyre_graph::Graph;
use vyre_graph::partition::{MAX_RANKS, Partition, RankRows};

use crate::device::{CudaOpenRequest, Device, open_device};
use crate::error::during;
use crate::kernels::{Launch, SETUP_WIDTH, launch_rank};
use crate::nccl::{nccl_error, nccl_preflight};
use crate::ptx_cache::PtxCachePolicy;
use collective::{DeviceCollective, OneDevice};
use level::Levels;
use state::{RANK_COUNTS, RankState};

/// How to open a partitioned CUDA device.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct CudaRanksOpenRequest {
    /// Number of ranks: GPUs `0..ranks`, one rank each.
    pub ranks: u32,
    /// Put every rank on GPU 0 and exchange by device-to-device copies
    /// instead of NCCL: for tests of the partitioned search on one GPU.
    pub one_device: bool,
    /// Where compiled PTX is cached between runs.
    pub ptx_cache: PtxCachePolicy,
    /// Bytes all ranks together may hold, split evenly; `None` = each
    /// GPU's free memory at open minus [`crate::memory_margin`].
    pub memory_budget_bytes: Option<u64>,
    /// Longest wait on a GPU; `None` = the driver's `DEVICE_WAIT_LIMIT`.
    pub wait_limit: Option<Duration>,
}

struct Uploaded {
    graph: Arc<Graph>,
    partition: Partition,
    ranks: Vec<RankState>,
}

/// A partitioned device of CUDA ranks.
pub struct CudaRanks {
    devices: Vec<Device>,
    collective: Option<Box<dyn DeviceCollective>>,
    caps: DeviceCapabilities,
    ranks: u32,
    budget_per_rank: u64,
    uploaded: Option<Uploaded>,
    /// Whether a search is in progress whose state the last command left
    /// consistent.
    searching: bool,
}

impl CudaRanks {
    /// Open `request.ranks` ranks: one per GPU over NCCL, or all on GPU 0
    /// when `request.one_device`.
    ///
    /// # Errors
    ///
    /// `InvalidRequest` for 0 ranks or more than the partition supports;
    /// `Unavailable` when the GPUs, the driver, NVRTC or NCCL are missing;
    /// a device error when the driver or NCCL fail.
    pub fn open(request: &CudaRanksOpenRequest) -> Result<Self, BackendError> {
        let ranks = request.ranks;
        if ranks == 0 || ranks > MAX_RANKS {
            return Err(BackendError::new(format!(
                "{ranks} CUDA ranks were asked for. Fix: ask for 1 to {MAX_RANKS} ranks (one per GPU)."
            )));
        }
        let per_gpu = match request.one_device {
            true => request.memory_budget_bytes,
            false => request.memory_budget_bytes.map(|b| b / u64::from(ranks)),
        };
        let device_request = |ordinal| CudaOpenRequest {
            ordinal,
            ptx_cache: request.ptx_cache.clone(),
            memory_budget_bytes: per_gpu,
            wait_limit: request.wait_limit,
            // Ranks run per-level kernels only.
            fused_cluster: false,
        };
        let (devices, collective): (Vec<Device>, Box<dyn DeviceCollective>) = if request.one_device
        {
            let device = open_device(&device_request(0))?;
            let collective = OneDevice {
                ranks: ranks as usize,
                stream: Arc::clone(&device.stream),
                limit: device.watchdog.limit(),
            };
            (vec![device], Box::new(collective))
        } else {
            nccl_preflight(ranks)?;
            let devices = (0..ranks as usize)
                .map(|ordinal| open_device(&device_request(ordinal)))
                .collect::<Result<Vec<_>, _>>()?;
            let streams = devices.iter().map(|d| Arc::clone(&d.stream)).collect();
            let comms =
                Comm::from_devices(streams).map_err(|e| nccl_error("initialisation", &e))?;
            (devices, Box::new(nccl::NcclDevices { comms }))
        };
        let budgets: Vec<u64> = devices.iter().map(|d| d.caps.memory_budget_bytes).collect();
        let budget_per_rank = match request.one_device {
            true => budgets[0] / u64::from(ranks),
            false => budgets.iter().copied().min().unwrap_or(0),
        };
        let caps = capabilities(&devices[0].caps, ranks, request.one_device, &budgets);
        Ok(Self {
            devices,
            collective: Some(collective),
            caps,
            ranks,
            budget_per_rank,
            uploaded: None,
            searching: false,
        })
    }

    /// Wait for every GPU's stream.
    fn wait_all(&mut self, what: &str) -> Result<(), BackendError> {
        for device in &mut self.devices {
            let stream = Arc::clone(&device.stream);
            device.watchdog.wait(&stream, what)?;
        }
        Ok(())
    }

    fn read_owned(&mut self, depth: bool, out: &mut [u32]) -> Result<(), BackendError> {
        let n = self
            .uploaded
            .as_ref()
            .ok_or_else(not_uploaded)?
            .graph
            .vertex_count();
        if out.len() != n as usize {
            return Err(BackendError::new(format!(
                "the output has {} entries but the graph has {n} vertices. Fix: pass a slice of exactly {n} entries.",
                out.len()
            )));
        }
        self.wait_all("the work before the result readback")?;
        let up = self.uploaded.as_ref().ok_or_else(not_uploaded)?;
        for rank in up.ranks.iter().filter(|r| r.owned() > 0) {
            let source = if depth { &rank.depth } else { &rank.parent };
            let range = rank.range.start as usize..rank.range.end as usize;
            rank.stream
                .memcpy_dtoh(&source.slice(0..rank.owned()), &mut out[range])
                .map_err(during("result readback"))?;
        }
        self.wait_all("the result readback")
    }
}

/// The capabilities of `ranks` ranks on GPUs like `gpu`: no device-wide
/// barrier across ranks (so never a fused wave), no batch passes, and the
/// memory of every GPU.
fn capabilities(
    gpu: &DeviceCapabilities,
    ranks: u32,
    one_device: bool,
    budgets: &[u64],
) -> DeviceCapabilities {
    let how = match one_device {
        true => format!("{ranks} ranks on one GPU, exchanging by copies (a test setup)"),
        false => format!("{ranks} GPUs, one rank each, exchanging through NCCL"),
    };
    DeviceCapabilities {
        device_name: format!("{}, {how}", gpu.device_name),
        megakernel: MegakernelDeviceCapabilities::FUSION_INCAPABLE,
        barrier_reason: format!(
            "the graph is partitioned over {ranks} ranks and every level ends with an exchange between them; there is no barrier across ranks inside a launch"
        ),
        batch_fused_wave: false,
        resident_workgroups: 0,
        resident_workgroup_size: 0,
        memory_budget_bytes: budgets.iter().copied().fold(0, u64::saturating_add),
        ..gpu.clone()
    }
}

impl Backend for CudaRanks {
    fn capabilities(&self) -> &DeviceCapabilities {
        &self.caps
    }

    fn ranks(&self) -> u32 {
        self.ranks
    }

    fn partitioned(&self) -> bool {
        true
    }

    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError> {
        self.uploaded = None;
        self.searching = false;
        let plan = RankPlan::for_upload(graph, layout, self.ranks, self.budget_per_rank)?;
        let partition = plan.partition;
        let mut ranks = Vec::with_capacity(self.ranks as usize);
        for r in 0..self.ranks {
            let rows = RankRows::of(graph, &partition, r).map_err(rank_memory_error)?;
            let device = if self.devices.len() == 1 {
                0
            } else {
                r as usize
            };
            let stream = Arc::clone(&self.devices[device].stream);
            ranks.push(RankState::upload(
                device,
                &stream,
                &rows,
                &partition,
                r,
                self.budget_per_rank,
            )?);
        }
        // Surface allocation and copy failures here, not in the first level.
        self.wait_all("the graph upload")?;
        self.uploaded = Some(Uploaded {
            graph: Arc::clone(graph),
            partition,
            ranks,
        });
        Ok(())
    }

    fn allocated_bytes(&self) -> u64 {
        self.uploaded
            .as_ref()
            .map_or(0, |up| up.ranks.iter().map(RankState::bytes).sum())
    }

    fn begin_search(&mut self, sources: &SearchSources) -> Result<(), BackendError> {
        self.searching = false;
        let up = self.uploaded.as_mut().ok_or_else(not_uploaded)?;
        let graph = &up.graph;
        for rank in &mut up.ranks {
            let owned: Vec<u32> = sources
                .ids()
                .iter()
                .copied()
                .filter(|s| rank.range.contains(s))
                .collect();
            let len = owned.len();
            let stream = Arc::clone(&rank.stream);
            let mut counts = [0u64; RANK_COUNTS];
            counts[RANK_COUNTS - 1] = len as u64;
            stream
                .memcpy_htod(&counts[..], &mut rank.counts)
                .map_err(during("rank count upload"))?;
            if len > 0 {
                stream
                    .memcpy_htod(&owned, &mut rank.queues[0].slice_mut(0..len))
                    .map_err(during("source upload"))?;
            }
            rank.current = 0;
            rank.frontier_len = len as u64;
            rank.frontier_edges = owned.iter().map(|&s| graph.out_edges().degree(s)).sum();
            let device = &self.devices[rank.device];
            let most = (device.caps.resident_lanes / SETUP_WIDTH).max(1);
            let args = rank.args(0);
            let kernels = &device.kernels.rank;
            for (kernel, items) in [(&kernels.init, rank.owned()), (&kernels.seed, len)] {
                if items > 0 {
                    launch_rank(&stream, kernel, Launch::setup(items as u64, most), &args)?;
                }
            }
        }
        self.searching = true;
        Ok(())
    }

    fn run_wave(&mut self, command: &CheckedCommand) -> Result<WaveReport, BackendError> {
        let started = Instant::now();
        if !self.searching {
            return Err(BackendError::new(
                "no search is in progress (none begun since the upload, or the last command failed). Fix: call begin_search before run_wave.",
            ));
        }
        let up = self.uploaded.as_mut().ok_or_else(not_uploaded)?;
        let collective = self.collective.as_deref_mut().ok_or_else(not_uploaded)?;
        let mut levels = Levels {
            devices: &mut self.devices,
            ranks: &mut up.ranks,
            collective,
            partition: &up.partition,
            launch: command.launch,
        };
        // A failed level leaves the ranks' state unknown: the search is over.
        self.searching = false;
        let (levels, readback_bytes) = levels.run(command)?;
        self.searching = true;
        let device_ns = levels.iter().filter_map(|l| l.device_ns).sum();
        Ok(WaveReport {
            levels,
            wall_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
            device_ns: Some(device_ns),
            readback_bytes,
        })
    }

    fn read_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        self.read_owned(true, out)
    }

    fn read_parents(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        self.read_owned(false, out)
    }

    fn begin_batch(&mut self, _: &BatchSources, _: &BatchLayout) -> Result<(), BackendError> {
        Err(batches_refused())
    }

    fn run_batch_wave(&mut self, _: &CheckedCommand) -> Result<BatchReport, BackendError> {
        Err(batches_refused())
    }

    fn read_batch_depths(&mut self, _: &mut [u32]) -> Result<(), BackendError> {
        Err(batches_refused())
    }
}

impl Drop for CudaRanks {
    fn drop(&mut self) {
        if self.devices.iter().any(|d| d.watchdog.is_stuck()) {
            // Freeing would wait for the stuck work; the driver frees it all
            // when the process exits.
            tracing::warn!("leaking the device objects of stuck CUDA ranks");
            std::mem::forget(self.uploaded.take());
            std::mem::forget(self.collective.take());
            std::mem::forget(std::mem::take(&mut self.devices));
        }
    }
}

fn not_uploaded() -> BackendError {
    BackendError::new("no graph is uploaded. Fix: call upload before searching.")
}
