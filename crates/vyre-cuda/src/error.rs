//! Turning CUDA driver errors into [`BackendError`]s.

use cudarc::driver::DriverError;
use cudarc::driver::sys::CUresult;
use vyre_driver::backend::{BackendError, BackendErrorKind};

/// A driver failure while doing `what`, classified by its code.
pub(crate) fn driver_error(what: &str, error: DriverError) -> BackendError {
    let code = error.0;
    let (kind, fix) = match code {
        CUresult::CUDA_ERROR_OUT_OF_MEMORY => (
            BackendErrorKind::OutOfMemory,
            "free device memory (other processes, earlier graphs) or use a smaller graph",
        ),
        CUresult::CUDA_ERROR_NO_DEVICE
        | CUresult::CUDA_ERROR_INVALID_DEVICE
        | CUresult::CUDA_ERROR_NOT_INITIALIZED
        | CUresult::CUDA_ERROR_STUB_LIBRARY
        | CUresult::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
        | CUresult::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE
        | CUresult::CUDA_ERROR_DEVICE_UNAVAILABLE => (
            BackendErrorKind::Unavailable,
            "check `nvidia-smi`, the device ordinal, and that the driver supports CUDA 13 (driver 580 or newer)",
        ),
        CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE => (
            BackendErrorKind::InvalidRequest,
            "launch FusedWave with at most capabilities().resident_workgroups workgroups",
        ),
        CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION | CUresult::CUDA_ERROR_INVALID_PTX => (
            BackendErrorKind::Unavailable,
            "use an NVRTC no newer than the driver (put the toolkit matching the driver first on LD_LIBRARY_PATH) and delete ~/.cache/vyre/ptx",
        ),
        _ => (
            BackendErrorKind::Device,
            "the device state is lost; reopen the backend, and if it repeats run under compute-sanitizer and report it",
        ),
    };
    // The code's name, not `error`'s Debug: that asks the driver for a
    // description, which panics when no driver library is loaded.
    BackendError::with_kind(kind, format!("CUDA {what} failed: {code:?}. Fix: {fix}."))
}

/// `Result` adapter: `.map_err(during("kernel launch"))`.
pub(crate) fn during(what: &'static str) -> impl Fn(DriverError) -> BackendError {
    move |e| driver_error(what, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_map_to_kinds_and_messages_end_with_a_fix() {
        let oom = driver_error(
            "allocation",
            DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY),
        );
        assert_eq!(oom.kind(), BackendErrorKind::OutOfMemory);
        let none = driver_error("init", DriverError(CUresult::CUDA_ERROR_NO_DEVICE));
        assert_eq!(none.kind(), BackendErrorKind::Unavailable);
        let big = driver_error(
            "launch",
            DriverError(CUresult::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE),
        );
        assert_eq!(big.kind(), BackendErrorKind::InvalidRequest);
        let other = driver_error("copy", DriverError(CUresult::CUDA_ERROR_ILLEGAL_ADDRESS));
        assert_eq!(other.kind(), BackendErrorKind::Device);
        for e in [oom, none, big, other] {
            assert!(e.message().starts_with("CUDA "), "{e}");
            assert!(e.message().contains(". Fix: "), "{e}");
        }
    }
}
