//! Shared harness of the CUDA integration tests: opening the device (or
//! skipping visibly) here, a corpus of graph shapes (`graphs`), a small wave
//! loop standing in for the engine (`waves`), and checks against the
//! reference BFS (`checks`).
#![allow(dead_code, unused_imports)]

mod checks;
mod graphs;
mod waves;

pub use checks::*;
pub use graphs::*;
pub use waves::*;

use std::sync::{Mutex, MutexGuard};

use vyre_cuda::{CudaBackend, CudaOpenRequest, driver_present};
use vyre_driver::backend::{Backend, BackendErrorKind};

/// Whether the tests run against the CPU stand-in for libcuda
/// (`emu/cargo_test.sh`): the same checks on smaller graphs and launches.
pub fn emulated() -> bool {
    std::env::var_os("VYRE_CUDA_EMULATED").is_some()
}

/// Whether the tests use small graphs and launches and check no timing:
/// under the emulator, or with `VYRE_CUDA_SMALL=1` (the sanitizer runs of
/// `sanitize.sh`).
pub fn small() -> bool {
    emulated() || std::env::var("VYRE_CUDA_SMALL").is_ok_and(|v| v == "1")
}

/// `full` on a GPU, `small` under the emulator or the sanitizers.
pub fn size(full: u32, small_size: u32) -> u32 {
    if small() { small_size } else { full }
}

/// Levels one command may record (sizes the history buffer).
pub const HISTORY_LEVELS: u32 = 4096;

/// Tests share one GPU; cooperative launches must not compete for it.
static GPU: Mutex<()> = Mutex::new(());

/// The device and the lock that keeps other tests off it.
pub struct Gpu<B = CudaBackend> {
    pub backend: B,
    _lock: MutexGuard<'static, ()>,
}

/// Print a line the test harness does not capture, so skips show in a plain
/// `cargo test` run.
pub fn visible(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Whether `VYRE_REQUIRE_BACKENDS` names cuda: a skip is then a failure.
pub fn required() -> bool {
    std::env::var("VYRE_REQUIRE_BACKENDS").is_ok_and(|v| v.to_ascii_lowercase().contains("cuda"))
}

/// Open device 0, or print why not and return `None` (a visible skip) —
/// unless `VYRE_REQUIRE_BACKENDS` names cuda, in which case fail.
pub fn open_gpu(test: &str) -> Option<Gpu> {
    open_gpu_with(test, || CudaBackend::open(&open_request()))
}

/// [`open_gpu`] for a backend `open` makes.
pub fn open_gpu_with<B>(
    test: &str,
    open: impl FnOnce() -> Result<B, vyre_driver::backend::BackendError>,
) -> Option<Gpu<B>> {
    let lock = GPU
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if !driver_present() {
        assert!(
            !required(),
            "{test}: VYRE_REQUIRE_BACKENDS includes cuda but no CUDA driver was found"
        );
        visible(&format!("{test}: skipped: no CUDA driver"));
        return None;
    }
    match open() {
        Ok(backend) => Some(Gpu {
            backend,
            _lock: lock,
        }),
        Err(e) if e.kind() == BackendErrorKind::Unavailable && !required() => {
            visible(&format!("{test}: skipped: no usable CUDA device: {e}"));
            None
        }
        Err(e) => panic!("{test}: the CUDA backend did not open: {e}"),
    }
}

/// How the tests open the device: the default request with the cluster
/// launch offered, and the wait limit of `VYRE_CUDA_WAIT_LIMIT_S` when set
/// (the sanitizers slow kernels down).
pub fn open_request() -> CudaOpenRequest {
    let wait_limit = std::env::var("VYRE_CUDA_WAIT_LIMIT_S")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(std::time::Duration::from_secs);
    CudaOpenRequest {
        wait_limit,
        // Measured where the device has one (the emulated one with
        // VYRE_FAKE_CUDA_CLUSTERS=1); tests that launch it skip otherwise.
        fused_cluster: true,
        ..CudaOpenRequest::default()
    }
}

/// Whether the device can run FusedWave; prints a skip line when not, and
/// fails when `VYRE_REQUIRE_BACKENDS` names cuda (a missing barrier is then
/// a fault, not a skip).
pub fn has_barrier(gpu: &Gpu) -> bool {
    let caps = gpu.backend.capabilities();
    if caps.can_fuse() {
        return true;
    }
    assert!(
        !required(),
        "VYRE_REQUIRE_BACKENDS includes cuda but {} has no device-wide barrier: {}",
        caps.device_name,
        caps.barrier_reason
    );
    visible(&format!(
        "skipped: {} has no device-wide barrier: {}",
        caps.device_name, caps.barrier_reason
    ));
    false
}
