//! Turning wgpu's errors into [`BackendError`]s instead of panics.

use std::sync::{Arc, Mutex, PoisonError};

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

/// Wait for the device to finish all submitted work.
pub(crate) fn wait_idle(device: &wgpu::Device, doing: &str) -> Result<(), BackendError> {
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map(|_| ())
        .map_err(|e| {
            BackendError::device(format!(
                "waiting for the device failed while {doing}: {e}. Fix: the device was lost or hung; reopen the backend."
            ))
        })
}
