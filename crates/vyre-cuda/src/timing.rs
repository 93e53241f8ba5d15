//! Device timing with CUDA events.

use std::sync::Arc;

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaEvent, CudaStream};
use vyre_driver::backend::BackendError;

use crate::error::during;

/// Most events one command records; a longer chain is timed as a whole
/// only.
pub(crate) const MAX_EVENTS: usize = 1026;

/// Timing events, created on first use and reused by every command.
#[derive(Default)]
pub(crate) struct EventPool {
    events: Vec<CudaEvent>,
}

impl EventPool {
    /// Make sure at least `count` events exist.
    pub(crate) fn reserve(
        &mut self,
        ctx: &Arc<CudaContext>,
        count: usize,
    ) -> Result<(), BackendError> {
        while self.events.len() < count {
            // Events made with the default flags of cudarc cannot time.
            let event = ctx
                .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(during("event creation"))?;
            self.events.push(event);
        }
        Ok(())
    }

    /// Record event `index` (reserved before) on `stream`.
    pub(crate) fn record(&self, index: usize, stream: &CudaStream) -> Result<(), BackendError> {
        self.events[index]
            .record(stream)
            .map_err(during("event record"))
    }

    /// Nanoseconds between events `from` and `to`. Call only after the
    /// stream they were recorded on went idle: unlike cudarc's
    /// `elapsed_ms` this does not wait on each event first (two driver calls
    /// saved per level of a chain).
    pub(crate) fn elapsed_ns(&self, from: usize, to: usize) -> Result<u64, BackendError> {
        let (start, end) = (&self.events[from], &self.events[to]);
        // SAFETY: both events were made by cuEventCreate in `reserve` and are
        // alive (the pool owns them); they were recorded on the backend's one
        // stream, which the caller saw idle, so both are complete.
        let ms =
            unsafe { cudarc::driver::result::event::elapsed(start.cu_event(), end.cu_event()) }
                .map_err(during("event timing"))?;
        Ok((f64::from(ms.max(0.0)) * 1e6).round() as u64)
    }
}
