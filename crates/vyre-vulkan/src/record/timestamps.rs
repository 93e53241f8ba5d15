//! A timestamp query pool of two: one timestamp before a chain's first
//! level and one after its last, read back as the command's device
//! nanoseconds. A chain is timed as a whole, as on the other backends: a
//! timestamp after every level cost about 0.7 µs of a 10 µs chained level
//! on the H200 (docs/BENCHMARKS.md).

use ash::vk;
use vyre_driver::backend::BackendError;

use crate::error::vk_error;

/// The two timestamps of a command; destroyed on drop.
pub(crate) struct Timestamps {
    device: ash::Device,
    pub pool: vk::QueryPool,
    period_ns: f64,
}

/// Queries in the pool: the command's begin and end.
pub(crate) const QUERIES: u32 = 2;

impl Timestamps {
    /// A pool of two timestamps ticking every `period_ns`.
    pub(crate) fn new(device: &ash::Device, period_ns: f64) -> Result<Self, BackendError> {
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(QUERIES);
        // SAFETY: a valid create info on a live device.
        let pool = unsafe { device.create_query_pool(&info, None) }
            .map_err(|e| vk_error(e, "creating a timestamp query pool"))?;
        Ok(Self {
            device: device.clone(),
            pool,
            period_ns,
        })
    }

    /// Device nanoseconds from the first timestamp to the second of the
    /// last submission (which the caller waited for).
    pub(crate) fn command_ns(&self) -> Result<u64, BackendError> {
        let mut ticks = [0u64; QUERIES as usize];
        // SAFETY: the submission that wrote these queries finished (its
        // fence was waited for); WAIT makes the call block until available.
        unsafe {
            self.device.get_query_pool_results(
                self.pool,
                0,
                &mut ticks,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .map_err(|e| vk_error(e, "reading timestamps"))?;
        Ok((ticks[1].saturating_sub(ticks[0]) as f64 * self.period_ns) as u64)
    }
}

impl Drop for Timestamps {
    fn drop(&mut self) {
        // SAFETY: no submission writing the pool is in flight.
        unsafe { self.device.destroy_query_pool(self.pool, None) };
    }
}
