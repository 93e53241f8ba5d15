//! The level records in pinned host memory that the device writes directly.
//!
//! Per-wave kernels store each level's record through a mapped pointer (the
//! epoch word last, after a system-wide fence when the host reads it early),
//! so the host sees each level of a chain finish while it is still
//! enqueuing the later ones (see `wave.rs`). The fused kernel keeps its
//! records in device memory while it runs and copies them here as it exits.
//! Either way a command's report needs no device-to-host copy.

use std::sync::Arc;
use std::sync::atomic::{Ordering, fence};

use cudarc::driver::{CudaStream, result, sys};
use vyre_driver::backend::{BackendError, LEVEL_RECORD_BYTES, LevelRecord};

use crate::args::RECORD_WORDS;
use crate::error::during;

/// Word of a record holding the epoch of the command that wrote it.
const EPOCH_WORD: usize = 3;

/// Records of up to `levels` levels in mapped, page-locked host memory.
pub(crate) struct HostRecords {
    words: *mut u32,
    levels: u32,
    device_ptr: u64,
    /// The stream kernels write through; synchronized before the memory is
    /// freed.
    stream: Arc<CudaStream>,
}

// SAFETY: `words` points to host memory this value owns alone; the host only
// touches it through `&self` methods that use volatile accesses of whole
// words, and the device writes it only while a command runs on `stream`.
unsafe impl Send for HostRecords {}

impl HostRecords {
    /// Allocate room for `levels` records, all marked unwritten.
    pub(crate) fn new(stream: &Arc<CudaStream>, levels: u32) -> Result<Self, BackendError> {
        let bytes = levels as usize * LEVEL_RECORD_BYTES as usize;
        stream
            .context()
            .bind_to_thread()
            .map_err(during("context binding"))?;
        // SAFETY: a plain page-locked allocation of `bytes` (at least one
        // record: layouts hold max_levels_per_command >= 1), mapped into the
        // device's address space; freed in Drop.
        let host = unsafe { result::malloc_host(bytes.max(4), sys::CU_MEMHOSTALLOC_DEVICEMAP) }
            .map_err(during("pinned host allocation"))?;
        let mut device_ptr: sys::CUdeviceptr = 0;
        // SAFETY: `host` was allocated above with DEVICEMAP in the current
        // context; flags must be 0.
        let mapped =
            unsafe { sys::cuMemHostGetDevicePointer_v2(&raw mut device_ptr, host, 0) }.result();
        let this = Self {
            words: host.cast::<u32>(),
            levels,
            device_ptr,
            stream: Arc::clone(stream),
        };
        mapped.map_err(during("mapped pointer query"))?;
        this.clear(levels);
        Ok(this)
    }

    /// The address kernels write records through.
    pub(crate) fn device_ptr(&self) -> u64 {
        self.device_ptr
    }

    fn epoch_word(&self, index: u32) -> *mut u32 {
        debug_assert!(index < self.levels);
        // SAFETY: index < levels, so the word lies inside the allocation.
        unsafe { self.words.add(index as usize * RECORD_WORDS + EPOCH_WORD) }
    }

    /// Mark records `0..count` unwritten (epoch 0, which no command has).
    /// Call only while no kernel runs.
    pub(crate) fn clear(&self, count: u32) {
        for index in 0..count.min(self.levels) {
            // SAFETY: an aligned word of the allocation; no kernel writes it
            // now (the caller's contract).
            unsafe { self.epoch_word(index).write_volatile(0) };
        }
    }

    /// Record `index` if the command numbered `epoch` wrote it already.
    pub(crate) fn read(&self, index: u32, epoch: u32) -> Option<LevelRecord> {
        if index >= self.levels {
            return None;
        }
        // SAFETY: aligned words of the allocation, read volatile because
        // the device writes them. The kernel stores the epoch after a
        // system-wide fence, so once it shows, the other words are final;
        // the acquire fence keeps the reads below after this one.
        unsafe {
            if self.epoch_word(index).read_volatile() != epoch {
                return None;
            }
            fence(Ordering::Acquire);
            let base = self.words.add(index as usize * RECORD_WORDS);
            let word = |i: usize| base.add(i).read_volatile();
            let wide = |lo: usize| u64::from(word(lo)) | (u64::from(word(lo + 1)) << 32);
            Some(LevelRecord {
                level: word(0),
                frontier_in: word(1),
                frontier_out: word(2),
                frontier_out_edges: wide(4),
                edges_examined: wide(6),
                device_ns: None,
            })
        }
    }
}

impl Drop for HostRecords {
    fn drop(&mut self) {
        // A kernel still running may write the records: wait for the stream
        // before the memory goes back.
        let _ = self.stream.synchronize();
        // SAFETY: allocated by cuMemHostAlloc in `new` and freed once, here.
        let _ = unsafe { result::free_host(self.words.cast()) };
    }
}

/// Whether a level with `record` stops a multi-level command whose band is
/// `band` (the rule of `finish_level` and the fused kernel).
pub(crate) fn stops(record: &LevelRecord, band: u64) -> bool {
    record.frontier_out == 0 || record.frontier_out_edges > band
}

/// The error for a command whose records do not add up.
pub(crate) fn inconsistent(what: String) -> BackendError {
    BackendError::device(format!(
        "{what}. Fix: this is a bug in the vyre CUDA kernels; run under compute-sanitizer and report it."
    ))
}
