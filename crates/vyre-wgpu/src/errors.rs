//! Turning wgpu's errors into [`BackendError`]s instead of panics.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use vyre_driver::backend::{BackendError, BackendErrorKind};

/// Collects the errors wgpu reports outside an error scope (by default wgpu
/// panics on them); the backend turns them into a [`BackendError`] at the
/// next check.
#[derive(Clone, Default)]
pub(crate) struct ErrorSink(Arc<Mutex<Vec<wgpu::Error>>>);

impl ErrorSink {
    /// Route `device`'s uncaptured errors into this sink.
    pub(crate) fn install(&self, device: &wgpu::Device) {
        let sink = self.clone();
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            sink.0
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(error);
        }));
    }

    /// The first error recorded since the last check, as a [`BackendError`].
    pub(crate) fn check(&self, doing: &str) -> Result<(), BackendError> {
        let mut errors = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let first = errors.drain(..).next();
        match first {
            None => Ok(()),
            Some(error) => Err(from_wgpu(&error, doing)),
        }
    }
}

/// A wgpu error met while `doing` something, as a [`BackendError`].
pub(crate) fn from_wgpu(error: &wgpu::Error, doing: &str) -> BackendError {
    match error {
        wgpu::Error::OutOfMemory { .. } => BackendError::with_kind(
            BackendErrorKind::OutOfMemory,
            format!(
                "wgpu ran out of device memory while {doing}: {error}. Fix: use a smaller graph or lower the memory budget (WgpuOpenRequest::memory_budget_bytes) so the engine plans within what the device really has."
            ),
        ),
        _ => BackendError::device(format!(
            "wgpu reported an error while {doing}: {error}. Fix: this is a bug in vyre-wgpu or the driver; rerun with WGPU_BACKEND=vulkan and report the message."
        )),
    }
}

/// Longest wait for one submission (a command of at most a few hundred
/// levels, an upload flush, a readback). Nothing vyre submits takes this
/// long even on lavapipe, so a longer wait means the device hung, and the
/// caller gets an error instead of a process that never returns.
pub const DEVICE_WAIT_LIMIT: Duration = Duration::from_secs(300);

/// Wait for the device to finish all submitted work, at most
/// [`DEVICE_WAIT_LIMIT`].
pub(crate) fn wait_idle(device: &wgpu::Device, doing: &str) -> Result<(), BackendError> {
    device
        .poll(wgpu::PollType::Wait {
            submission_index: None,
            timeout: Some(DEVICE_WAIT_LIMIT),
        })
        .map(|_| ())
        .map_err(|e| {
            BackendError::device(format!(
                "waiting for the device failed while {doing} (limit {} s): {e}. Fix: the device was lost or hung; reopen the backend, and report it with the graph and topology if it repeats.",
                DEVICE_WAIT_LIMIT.as_secs()
            ))
        })
}
