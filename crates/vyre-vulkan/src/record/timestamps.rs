//! A timestamp query pool: one timestamp before a chain and one after each
//! of its levels, read back as device nanoseconds per level.

use ash::vk;
use vyre_driver::backend::BackendError;

use crate::error::vk_error;

/// Timestamps for chains of up to `levels` levels; destroyed on drop.
pub(crate) struct Timestamps {
    device: ash::Device,
    pub pool: vk::QueryPool,
    levels: u32,
    period_ns: f64,
}

impl Timestamps {
    /// A pool of `levels + 1` timestamps ticking every `period_ns`.
    pub(crate) fn new(
        device: &ash::Device,
        levels: u32,
        period_ns: f64,
    ) -> Result<Self, BackendError> {
        let info = vk::QueryPoolCreateInfo::default()
            .query_type(vk::QueryType::TIMESTAMP)
            .query_count(levels + 1);
        // SAFETY: a valid create info on a live device.
        let pool = unsafe { device.create_query_pool(&info, None) }
            .map_err(|e| vk_error(e, "creating a timestamp query pool"))?;
        Ok(Self {
            device: device.clone(),
            pool,
            levels,
            period_ns,
        })
    }

    /// Levels a chain may have.
    pub(crate) fn levels(&self) -> u32 {
        self.levels
    }

    /// Device nanoseconds of each of the first `levels` levels of the last
    /// submission (which the caller waited for).
    pub(crate) fn level_ns(&self, levels: u32) -> Result<Vec<u64>, BackendError> {
        let count = levels.min(self.levels) as usize + 1;
        let mut ticks = vec![0u64; count];
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
        Ok(ticks
            .windows(2)
            .map(|w| (w[1].saturating_sub(w[0]) as f64 * self.period_ns) as u64)
            .collect())
    }
}

impl Drop for Timestamps {
    fn drop(&mut self) {
        // SAFETY: no submission writing the pool is in flight.
        unsafe { self.device.destroy_query_pool(self.pool, None) };
    }
}
