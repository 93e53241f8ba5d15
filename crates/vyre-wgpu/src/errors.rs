//! Turning wgpu's errors into [`BackendError`]s instead of panics.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use vyre_driver::backend::{BackendError, BackendErrorKind, DEVICE_WAIT_LIMIT, poll_until};

use crate::memory_budget::MemoryBudget;

/// Collects the errors wgpu reports outside an error scope (by default wgpu
/// panics on them); the backend turns them into a [`BackendError`] at the
/// next check.
#[derive(Clone)]
pub(crate) struct ErrorSink {
    errors: Arc<Mutex<Vec<wgpu::Error>>>,
    /// The device's budget, which an out-of-memory error explains.
    budget: MemoryBudget,
}

impl ErrorSink {
    /// Route `device`'s uncaptured errors into a new sink.
    pub(crate) fn install(device: &wgpu::Device, budget: MemoryBudget) -> Self {
        let sink = Self {
            errors: Arc::default(),
            budget,
        };
        let errors = Arc::clone(&sink.errors);
        device.on_uncaptured_error(Arc::new(move |error: wgpu::Error| {
            errors
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(error);
        }));
        sink
    }

    /// The first error recorded since the last check, as a [`BackendError`].
    pub(crate) fn check(&self, doing: &str) -> Result<(), BackendError> {
        let mut errors = self.errors.lock().unwrap_or_else(PoisonError::into_inner);
        let first = errors.drain(..).next();
        match first {
            None => Ok(()),
            Some(error) => Err(self.explain(&error, doing)),
        }
    }

    /// A wgpu error met while `doing` something, as a [`BackendError`].
    pub(crate) fn explain(&self, error: &wgpu::Error, doing: &str) -> BackendError {
        from_wgpu(error, doing, &self.budget)
    }
}

/// A wgpu error met while `doing` something on a device with `budget`, as a
/// [`BackendError`].
fn from_wgpu(error: &wgpu::Error, doing: &str, budget: &MemoryBudget) -> BackendError {
    match error {
        wgpu::Error::OutOfMemory { .. } => BackendError::with_kind(
            BackendErrorKind::OutOfMemory,
            format!(
                "wgpu ran out of device memory while {doing}: {error}. The graph fit the plan, but {budget}. Fix: give a budget that fits the memory free on the device (--memory-budget BYTES on the command line, memory_budget_bytes in the open request), free device memory, or use a smaller graph."
            ),
        ),
        _ => BackendError::device(format!(
            "wgpu reported an error while {doing}: {error}. Fix: this is a bug in vyre-wgpu or the driver; rerun with WGPU_BACKEND=vulkan and report the message."
        )),
    }
}

/// Wait for the device to finish all submitted work, at most
/// [`DEVICE_WAIT_LIMIT`].
pub(crate) fn wait_idle(device: &wgpu::Device, doing: &str) -> Result<(), BackendError> {
    poll_device_until(device, doing, |status| status.is_queue_empty())
}

/// Poll `device` without blocking until `ready` (given each poll's status)
/// says so, at most [`DEVICE_WAIT_LIMIT`]: spinning, then yielding, then
/// sleeping (`poll_until`), as the CUDA and Vulkan backends wait. A blocking
/// `PollType::Wait` wakes the host late, which every command of a search
/// would pay.
pub(crate) fn poll_device_until(
    device: &wgpu::Device,
    doing: &str,
    mut ready: impl FnMut(wgpu::PollStatus) -> bool,
) -> Result<(), BackendError> {
    let until = Instant::now() + DEVICE_WAIT_LIMIT;
    let lost = |e: wgpu::PollError| {
        BackendError::device(format!(
            "waiting for the device failed while {doing}: {e}. Fix: the device was lost or hung; reopen the backend, and report it with the graph and topology if it repeats."
        ))
    };
    let done = poll_until(until, || {
        device
            .poll(wgpu::PollType::Poll)
            .map(&mut ready)
            .map_err(lost)
    })?;
    if done {
        return Ok(());
    }
    Err(BackendError::device(format!(
        "the device did not finish within {} s while {doing}. Fix: the device hung; reopen the backend, and report it with the graph and topology if it repeats.",
        DEVICE_WAIT_LIMIT.as_secs()
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_out_of_memory_explains_the_budget_and_how_to_lower_it() {
        let error = wgpu::Error::OutOfMemory {
            source: "no room".into(),
        };
        let e = from_wgpu(
            &error,
            "uploading the graph",
            &MemoryBudget::of_heap(10_000),
        );
        assert_eq!(e.kind(), BackendErrorKind::OutOfMemory);
        let text = e.message();
        assert!(text.contains("8000 bytes, 80% of the largest device-local heap (10000 bytes) and not the memory free"), "{text}");
        assert!(text.contains("Fix: give a budget"), "{text}");
        assert!(text.contains("--memory-budget"), "{text}");
    }
}
