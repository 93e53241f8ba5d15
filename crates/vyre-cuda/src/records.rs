//! The level records in pinned host memory that the device writes directly.
//!
//! Per-wave kernels store each level's record through a mapped pointer (the
//! epoch word last, after a system-wide fence when the host reads it early),
//! so the host sees each level of a chain finish while it is still
//! enqueuing the later ones (see `wave.rs`). The fused kernel keeps its
//! records in device memory while it runs and copies them here as it exits.
//! Either way a command's report needs no device-to-host copy.

use std::mem::{ManuallyDrop, offset_of};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use cudarc::driver::CudaStream;
use vyre_driver::backend::{BackendError, FrontierBand, LEVEL_RECORD_BYTES, LevelRecord};

use crate::args::DeviceRecord;
use crate::pinned::MappedWords;
use crate::wait::wait_idle;

const RECORD_WORDS: usize = (LEVEL_RECORD_BYTES / 4) as usize;

/// Words of one level's times after the records: its start and end, `u64`
/// nanoseconds of the device's clock (`level_times` in `common.cuh`).
const TIME_WORDS: usize = 4;

/// Word `field` (a byte offset in [`DeviceRecord`]) of record `index`.
const fn word_of(index: u32, field: usize) -> usize {
    index as usize * RECORD_WORDS + field / 4
}

/// Records of up to `levels` levels in mapped, page-locked host memory.
pub(crate) struct HostRecords {
    words: ManuallyDrop<MappedWords>,
    levels: u32,
    /// The stream kernels write through: idle before the memory is freed.
    stream: Arc<CudaStream>,
    wait_limit: Duration,
}

impl HostRecords {
    /// Allocate room for `levels` records, all marked unwritten. Dropping
    /// them waits up to `wait_limit` for `stream`.
    pub(crate) fn new(
        stream: &Arc<CudaStream>,
        levels: u32,
        wait_limit: Duration,
    ) -> Result<Self, BackendError> {
        let words = MappedWords::new(
            stream.context(),
            levels as usize * (RECORD_WORDS + TIME_WORDS),
        )?;
        Ok(Self {
            words: ManuallyDrop::new(words),
            levels,
            stream: Arc::clone(stream),
            wait_limit,
        })
    }

    /// The address kernels write records through.
    pub(crate) fn device_ptr(&self) -> u64 {
        self.words.device_ptr()
    }

    /// The address kernels write level times through: after the records.
    pub(crate) fn times_ptr(&self) -> u64 {
        self.words.device_ptr() + u64::from(self.levels) * LEVEL_RECORD_BYTES
    }

    /// When level `index` (below the levels allocated) started and ended on
    /// the device's clock; read once its record shows (the kernel writes
    /// the times before the record).
    pub(crate) fn times(&self, index: u32) -> (u64, u64) {
        let first = self.levels as usize * RECORD_WORDS + index as usize * TIME_WORDS;
        let at = |i| self.words.wide(first + i).load(Ordering::Acquire);
        (at(0), at(2))
    }

    /// Mark every record unwritten (epoch 0, which no command has). Records
    /// of earlier commands carry other epochs, so this is needed only when
    /// the numbering starts again ([`Self::prepare`]). Call only while no
    /// kernel runs.
    pub(crate) fn clear(&self) {
        for index in 0..self.levels {
            let epoch = word_of(index, offset_of!(DeviceRecord, epoch));
            self.words.word(epoch).store(0, Ordering::Relaxed);
        }
    }

    /// Make the records ready for the command numbered `epoch`: a record
    /// counts as written only once it carries its command's epoch, and
    /// epochs only repeat once the numbering wraps, so the records are
    /// cleared then (epoch 1) and not before every command (a fused
    /// command may run a thousand levels: that many stores to host memory
    /// the device wrote cost microseconds). Call only while no kernel runs.
    pub(crate) fn prepare(&self, epoch: u32) {
        if epoch <= 1 {
            self.clear();
        }
    }

    /// Record `index` if the command numbered `epoch` wrote it already.
    pub(crate) fn read(&self, index: u32, epoch: u32) -> Option<LevelRecord> {
        if index >= self.levels {
            return None;
        }
        // The kernel stores the epoch after a system-wide fence, so once the
        // acquire load shows it, the other fields are final.
        let word = |field| {
            self.words
                .word(word_of(index, field))
                .load(Ordering::Acquire)
        };
        let wide = |field| {
            self.words
                .wide(word_of(index, field))
                .load(Ordering::Acquire)
        };
        if word(offset_of!(DeviceRecord, epoch)) != epoch {
            return None;
        }
        Some(LevelRecord {
            level: word(offset_of!(DeviceRecord, level)),
            frontier_in: word(offset_of!(DeviceRecord, frontier_in)),
            frontier_out: word(offset_of!(DeviceRecord, frontier_out)),
            frontier_out_edges: wide(offset_of!(DeviceRecord, frontier_out_edges)),
            edges_examined: wide(offset_of!(DeviceRecord, edges_examined)),
            device_ns: None,
        })
    }
}

impl Drop for HostRecords {
    fn drop(&mut self) {
        // A kernel still running may write the records: the memory goes
        // back only once the stream is idle (or failed, which ends its
        // kernels), and is leaked if it stays busy.
        let until = Instant::now() + self.wait_limit;
        if !matches!(wait_idle(&self.stream, until), Ok(false)) {
            // SAFETY: dropped once, here, and never used again.
            unsafe { ManuallyDrop::drop(&mut self.words) };
        } else {
            tracing::warn!(
                "the CUDA stream did not go idle within {:?}; leaking its level records",
                self.wait_limit
            );
        }
    }
}

/// Whether a level with `record` stops a multi-level command whose band is
/// `band` (the rule of `finish_level` and the fused kernel).
pub(crate) fn stops(record: &LevelRecord, band: FrontierBand) -> bool {
    band.ends_after(record.frontier_out, record.frontier_out_edges)
}

/// The error for a command whose records do not add up.
pub(crate) fn inconsistent(what: String) -> BackendError {
    BackendError::device(format!(
        "{what}. Fix: this is a bug in the vyre CUDA kernels; run under compute-sanitizer and report it."
    ))
}
