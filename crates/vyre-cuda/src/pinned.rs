//! Page-locked host memory mapped into the device: words the kernels write
//! (level records) or read (the abort word) while the host watches them
//! without a copy or a synchronisation. The host touches them only through
//! atomics.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64};

use cudarc::driver::{CudaContext, result, sys};
use vyre_driver::backend::BackendError;

use crate::error::during;

/// `len` words of mapped, page-locked host memory. It keeps its context
/// alive, so that the context outlives the allocation and the memory is
/// freed, not released with the context.
pub(crate) struct MappedWords {
    words: *mut u32,
    len: usize,
    device_ptr: u64,
    ctx: Arc<CudaContext>,
}

// SAFETY: `words` points to memory this value owns alone; the host reaches
// it only through atomics (`word`, `wide`), which may be shared between
// threads.
unsafe impl Send for MappedWords {}
// SAFETY: as above: every access is atomic.
unsafe impl Sync for MappedWords {}

impl MappedWords {
    /// Allocate `len` words (at least one), zeroed, in `ctx`.
    pub(crate) fn new(ctx: &Arc<CudaContext>, len: usize) -> Result<Self, BackendError> {
        let len = len.max(1);
        ctx.bind_to_thread().map_err(during("context binding"))?;
        // SAFETY: a plain page-locked allocation of `len` words, mapped into
        // the device's address space; freed in Drop. Page-locked memory is
        // page-aligned, so every word and every even pair of words is
        // aligned for its atomic.
        let host = unsafe { result::malloc_host(len * 4, sys::CU_MEMHOSTALLOC_DEVICEMAP) }
            .map_err(during("pinned host allocation"))?;
        let mut device_ptr: sys::CUdeviceptr = 0;
        // SAFETY: `host` was allocated above with DEVICEMAP in the current
        // context; flags must be 0.
        let mapped =
            unsafe { sys::cuMemHostGetDevicePointer_v2(&raw mut device_ptr, host, 0) }.result();
        let this = Self {
            words: host.cast::<u32>(),
            len,
            device_ptr,
            ctx: Arc::clone(ctx),
        };
        mapped.map_err(during("mapped pointer query"))?;
        for i in 0..len {
            this.word(i).store(0, std::sync::atomic::Ordering::Relaxed);
        }
        Ok(this)
    }

    /// The address kernels reach these words through.
    pub(crate) fn device_ptr(&self) -> u64 {
        self.device_ptr
    }

    /// Word `i` (`i < len`).
    pub(crate) fn word(&self, i: usize) -> &AtomicU32 {
        assert!(i < self.len, "word {i} of {}", self.len);
        // SAFETY: `i < len`, so the word lies inside the allocation, which
        // is aligned for u32 and lives as long as `self`; the host reaches it
        // only atomically.
        unsafe { AtomicU32::from_ptr(self.words.add(i)) }
    }

    /// Words `i` and `i + 1` as one little-endian u64 (`i` even).
    pub(crate) fn wide(&self, i: usize) -> &AtomicU64 {
        assert!(
            i.is_multiple_of(2) && i + 1 < self.len,
            "wide word {i} of {}",
            self.len
        );
        // SAFETY: both words lie inside the allocation; an even word index
        // of page-aligned memory is 8-byte aligned; accesses are atomic.
        unsafe { AtomicU64::from_ptr(self.words.add(i).cast::<u64>()) }
    }
}

impl Drop for MappedWords {
    fn drop(&mut self) {
        // The free needs the context current on this thread.
        if self.ctx.bind_to_thread().is_err() {
            return;
        }
        // SAFETY: allocated by cuMemHostAlloc in `new` and freed once, here,
        // in its own context (kept alive by `self.ctx`); owners keep this
        // alive (or leak it) while a kernel may use it.
        let _ = unsafe { result::free_host(self.words.cast()) };
    }
}
