//! Opening a device: a named backend, or the best one present.

use std::fmt;
use std::str::FromStr;

use vyre_driver::backend::{Backend, BackendError};
use vyre_runtime::Engine;

use crate::{BackendKind, Device, VyreError};

/// Which backend to open.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub enum BackendChoice {
    /// The best present: CUDA, then Vulkan on a hardware device, then wgpu
    /// on a hardware adapter, then the CPU.
    #[default]
    Auto,
    /// Exactly this backend (wgpu and Vulkan may then be a software device
    /// such as lavapipe).
    Only(BackendKind),
}

impl FromStr for BackendChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "auto" {
            return Ok(Self::Auto);
        }
        BackendKind::from_name(s).map(Self::Only).ok_or_else(|| {
            let mut names: Vec<_> = BackendKind::PREFERENCE.map(BackendKind::name).to_vec();
            names.sort_unstable();
            format!(
                "unknown backend '{s}'. Fix: use auto or one of {}.",
                names.join(", ")
            )
        })
    }
}

impl fmt::Display for BackendChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Auto => f.write_str("auto"),
            Self::Only(kind) => write!(f, "{kind}"),
        }
    }
}

/// How to open a device.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct OpenRequest {
    /// Which backend.
    pub backend: BackendChoice,
    /// Plan against this many bytes instead of what the device reports.
    pub memory_budget_bytes: Option<u64>,
    /// Worker threads of the CPU backend (`None` = one per core).
    pub cpu_threads: Option<usize>,
    /// Partition every graph over this many ranks: GPUs for CUDA (ordinals
    /// `0..ranks`, exchanging through NCCL), simulated ranks (threads) for
    /// the CPU backend. `None` = one device. `auto` tries only CUDA for a
    /// partitioned device: it never falls back to simulated ranks.
    pub ranks: Option<u32>,
    /// CUDA: offer light graphs' fused commands a launch of one thread-block
    /// cluster where the device has one (`CudaOpenRequest::fused_cluster`;
    /// off by default: on H100s its levels took longer than the grid
    /// barrier's at every shape timed, docs/BENCHMARKS.md).
    pub cuda_fused_cluster: bool,
}

impl OpenRequest {
    /// Open `backend` with everything else measured from the device.
    #[must_use]
    pub fn new(backend: BackendChoice) -> Self {
        Self {
            backend,
            ..Self::default()
        }
    }
}

/// The backends compiled into this build, best first.
#[must_use]
pub fn available_backends() -> Vec<BackendKind> {
    BackendKind::PREFERENCE
        .into_iter()
        .filter(|&k| k.compiled())
        .collect()
}

/// Open a device.
///
/// # Errors
///
/// [`VyreError::NotCompiled`] for a backend this build lacks,
/// [`VyreError::Backend`] when the named backend finds no device, and
/// [`VyreError::NoBackend`] (with each backend's reason) when `auto` finds
/// none.
pub fn open(request: &OpenRequest) -> Result<Device, VyreError> {
    if let Some(ranks) = request.ranks {
        return open_partitioned(request, ranks);
    }
    let mut tried = Vec::new();
    let (kind, backend) = match request.backend {
        BackendChoice::Only(kind) => {
            if !kind.compiled() {
                return Err(VyreError::NotCompiled(kind));
            }
            let backend = open_backend(kind, request, true).map_err(VyreError::Backend)?;
            (kind, backend)
        }
        BackendChoice::Auto => {
            let mut opened = None;
            for kind in available_backends() {
                match open_backend(kind, request, false) {
                    Ok(backend) => {
                        opened = Some((kind, backend));
                        break;
                    }
                    Err(why) => tried.push((kind, why)),
                }
            }
            match opened {
                Some(backend) => backend,
                None => return Err(VyreError::NoBackend(tried)),
            }
        }
    };
    let mut engine = Engine::new(backend);
    engine.set_memory_budget(request.memory_budget_bytes);
    let reason = selection_reason(request.backend, &tried, kind, engine.capabilities());
    tracing::info!(target: "vyre::open", "{reason}");
    Ok(Device::new(kind, engine, reason))
}

/// A device of `ranks` ranks: CUDA GPUs, or simulated ranks on the CPU
/// when asked for by name.
fn open_partitioned(request: &OpenRequest, ranks: u32) -> Result<Device, VyreError> {
    let kind = match request.backend {
        BackendChoice::Auto => BackendKind::Cuda,
        BackendChoice::Only(kind) => kind,
    };
    if !kind.compiled() {
        return Err(VyreError::NotCompiled(kind));
    }
    let backend = match kind {
        BackendKind::Cpu => open_cpu_ranks(request, ranks),
        BackendKind::Cuda => open_cuda_ranks(request, ranks),
        BackendKind::Wgpu | BackendKind::Vulkan => Err(BackendError::unavailable(format!(
            "the {kind} backend has no partitioned device. Fix: use --backend cuda for {ranks} GPUs, or --backend cpu to simulate {ranks} ranks."
        ))),
    }
    .map_err(VyreError::Backend)?;
    let mut engine = Engine::new(backend);
    engine.set_memory_budget(request.memory_budget_bytes);
    let reason = format!(
        "{kind}: {}: as requested, using {kind} over {ranks} ranks",
        engine.capabilities().device_name
    );
    tracing::info!(target: "vyre::open", "{reason}");
    Ok(Device::new(kind, engine, reason))
}

#[cfg(feature = "cpu")]
fn open_cpu_ranks(request: &OpenRequest, ranks: u32) -> Result<Box<dyn Backend>, BackendError> {
    let cpu = vyre_cpu::CpuRanks::open(&vyre_cpu::CpuRanksOpenRequest {
        ranks,
        memory_budget_bytes: request.memory_budget_bytes,
    })?;
    Ok(Box::new(cpu))
}

#[cfg(not(feature = "cpu"))]
fn open_cpu_ranks(_: &OpenRequest, _: u32) -> Result<Box<dyn Backend>, BackendError> {
    Err(not_compiled(BackendKind::Cpu))
}

#[cfg(feature = "cuda")]
fn open_cuda_ranks(request: &OpenRequest, ranks: u32) -> Result<Box<dyn Backend>, BackendError> {
    // One rank per GPU over NCCL; a machine with fewer GPUs is an error
    // naming how many it has, never ranks sharing one GPU.
    let cuda = vyre_cuda::CudaRanks::open(&vyre_cuda::CudaRanksOpenRequest {
        ranks,
        one_device: false,
        memory_budget_bytes: request.memory_budget_bytes,
        ..Default::default()
    })?;
    Ok(Box::new(cuda))
}

#[cfg(not(feature = "cuda"))]
fn open_cuda_ranks(_: &OpenRequest, _: u32) -> Result<Box<dyn Backend>, BackendError> {
    Err(not_compiled(BackendKind::Cuda))
}

/// One line on why this backend: each backend tried before it with what
/// stopped it, then the device found.
fn selection_reason(
    choice: BackendChoice,
    tried: &[(BackendKind, BackendError)],
    kind: BackendKind,
    caps: &vyre_driver::backend::DeviceCapabilities,
) -> String {
    let mut parts: Vec<String> = tried
        .iter()
        .map(|(kind, why)| {
            let why = why.to_string();
            let short = why.split(" Fix:").next().unwrap_or(&why);
            format!("{kind}: {}", short.trim_end_matches('.'))
        })
        .collect();
    parts.push(format!("{}: {}", kind, caps.device_name));
    let how = match choice {
        BackendChoice::Auto => "using",
        BackendChoice::Only(_) => "as requested, using",
    };
    format!("{}: {how} {}", parts.join("; "), kind)
}

fn open_backend(
    kind: BackendKind,
    request: &OpenRequest,
    allow_software: bool,
) -> Result<Box<dyn Backend>, BackendError> {
    match kind {
        BackendKind::Cpu => open_cpu(request),
        BackendKind::Wgpu => open_wgpu(request, allow_software),
        BackendKind::Cuda => open_cuda(request),
        BackendKind::Vulkan => open_vulkan(request, allow_software),
    }
}

#[cfg(any(
    not(feature = "cpu"),
    not(feature = "wgpu"),
    not(feature = "cuda"),
    not(feature = "vulkan")
))]
fn not_compiled(kind: BackendKind) -> BackendError {
    BackendError::unavailable(format!(
        "the {kind} backend is not compiled in. Fix: enable the `{kind}` feature of vyre."
    ))
}

#[cfg(feature = "cpu")]
fn open_cpu(request: &OpenRequest) -> Result<Box<dyn Backend>, BackendError> {
    let cpu = vyre_cpu::CpuBackend::open(&vyre_cpu::CpuOpenRequest {
        threads: request.cpu_threads,
        memory_budget_bytes: request.memory_budget_bytes,
    })?;
    Ok(Box::new(cpu))
}

#[cfg(not(feature = "cpu"))]
fn open_cpu(_: &OpenRequest) -> Result<Box<dyn Backend>, BackendError> {
    Err(not_compiled(BackendKind::Cpu))
}

#[cfg(feature = "wgpu")]
fn open_wgpu(
    request: &OpenRequest,
    allow_software: bool,
) -> Result<Box<dyn Backend>, BackendError> {
    let wgpu = vyre_wgpu::WgpuBackend::open(&vyre_wgpu::WgpuOpenRequest {
        skip_software_adapters: !allow_software,
        memory_budget_bytes: request.memory_budget_bytes,
        ..Default::default()
    })?;
    Ok(Box::new(wgpu))
}

#[cfg(not(feature = "wgpu"))]
fn open_wgpu(_: &OpenRequest, _: bool) -> Result<Box<dyn Backend>, BackendError> {
    Err(not_compiled(BackendKind::Wgpu))
}

#[cfg(feature = "cuda")]
fn open_cuda(request: &OpenRequest) -> Result<Box<dyn Backend>, BackendError> {
    let cuda = vyre_cuda::CudaBackend::open(&vyre_cuda::CudaOpenRequest {
        memory_budget_bytes: request.memory_budget_bytes,
        fused_cluster: request.cuda_fused_cluster,
        ..Default::default()
    })?;
    Ok(Box::new(cuda))
}

#[cfg(not(feature = "cuda"))]
fn open_cuda(_: &OpenRequest) -> Result<Box<dyn Backend>, BackendError> {
    Err(not_compiled(BackendKind::Cuda))
}

#[cfg(feature = "vulkan")]
fn open_vulkan(
    request: &OpenRequest,
    allow_software: bool,
) -> Result<Box<dyn Backend>, BackendError> {
    let vulkan = vyre_vulkan::VulkanBackend::open(&vyre_vulkan::VulkanOpenRequest {
        skip_software_devices: !allow_software,
        memory_budget_bytes: request.memory_budget_bytes,
        ..Default::default()
    })?;
    Ok(Box::new(vulkan))
}

#[cfg(not(feature = "vulkan"))]
fn open_vulkan(_: &OpenRequest, _: bool) -> Result<Box<dyn Backend>, BackendError> {
    Err(not_compiled(BackendKind::Vulkan))
}
