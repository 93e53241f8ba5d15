//! Vulkan results and allocator failures as [`BackendError`]s.

use ash::vk;
use vyre_driver::backend::{BackendError, BackendErrorKind};

/// A failed Vulkan call made while `doing` something.
pub(crate) fn vk_error(result: vk::Result, doing: &str) -> BackendError {
    match result {
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => {
            out_of_memory(&format!("{result} while {doing}"))
        }
        vk::Result::ERROR_DEVICE_LOST => BackendError::device(format!(
            "the Vulkan device was lost while {doing}. Fix: reopen the backend; if it repeats, report the graph and topology with the driver version."
        )),
        _ => BackendError::device(format!(
            "Vulkan returned {result} while {doing}. Fix: this is a bug in vyre-vulkan or the driver; rerun the tests with the Khronos validation layer installed (vulkan-validationlayers) and report the message."
        )),
    }
}

/// The device (or the allocation limit it was opened with) has no room.
pub(crate) fn out_of_memory(detail: &str) -> BackendError {
    BackendError::with_kind(
        BackendErrorKind::OutOfMemory,
        format!(
            "the Vulkan device ran out of memory: {detail}. Fix: use a smaller graph, or lower the memory budget (VulkanOpenRequest::memory_budget_bytes) so the engine plans within what the device really has."
        ),
    )
}

/// A `gpu-allocator` failure while allocating `what`.
pub(crate) fn allocation_error(error: &gpu_allocator::AllocationError, what: &str) -> BackendError {
    match error {
        gpu_allocator::AllocationError::OutOfMemory => {
            out_of_memory(&format!("no room for the {what}"))
        }
        other => BackendError::device(format!(
            "allocating the {what} failed: {other}. Fix: this device lacks a memory type vyre needs (device-local storage, host-visible staging); use another device or backend."
        )),
    }
}

/// The backend gave up waiting for earlier work that the device may still
/// run.
pub(crate) fn poisoned() -> BackendError {
    BackendError::device(
        "an earlier command did not finish in time and the device may still be running it, so this backend does no further work. Fix: open the backend again.".to_string(),
    )
}

/// No graph has been uploaded.
pub(crate) fn not_uploaded() -> BackendError {
    BackendError::new("no graph is uploaded. Fix: call upload before searching.".to_string())
}

pub(crate) fn no_batch() -> BackendError {
    BackendError::new("no batch pass is begun. Fix: call begin_batch before run_batch_wave.")
}
