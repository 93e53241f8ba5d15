//! Batch passes ([`BatchSources`]): the pass's lane words, lane counts and
//! kept depths on the device, allocated exactly as the [`BatchLayout`]
//! lists them, and what a batch command adds to a single search's
//! (`shaders/cuda/batch.cu`): the word arrays of each level, the lane counts
//! read back after the command, and which word array a pull left stale.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use vyre_driver::backend::{
    BATCH_LANES, BackendError, BatchLayout, BatchSources, CheckedCommand, FrontierForm, LaneCounts,
    frontier_form_of,
};

use crate::args::KernelArgs;
use crate::buffers::{DeviceGraph, alloc};
use crate::error::during;

/// The device state of the batch pass begun last.
pub(crate) struct DeviceBatch {
    pub layout: BatchLayout,
    /// The lanes that have reached each vertex.
    seen: CudaSlice<u64>,
    /// The two frontier word arrays (zero outside their frontier).
    words: [CudaSlice<u64>; 2],
    /// `BATCH_LANES` counters per level of a command.
    lane_counts: CudaSlice<u32>,
    /// Kept depths, vertex-major.
    depths: Option<CudaSlice<u32>>,
    /// Whether a word array holds a pull's stale source words, which a push
    /// must clear before it writes there.
    stale: [bool; 2],
    lane_mask: u64,
    /// Bytes of every buffer above.
    pub bytes: u64,
}

/// Check that `layout` fits the uploaded graph and `sources`.
fn check_layout(
    graph: &DeviceGraph,
    sources: &BatchSources,
    layout: &BatchLayout,
) -> Result<(), BackendError> {
    let n = graph.layout.vertex_count;
    if layout.vertex_count != n {
        return Err(BackendError::new(format!(
            "the batch layout is for {} vertices but the uploaded graph has {n}. Fix: plan the batch layout for the uploaded graph.",
            layout.vertex_count
        )));
    }
    if layout.lanes != sources.lanes() {
        return Err(BackendError::new(format!(
            "the batch layout has {} lanes but {} sources were given. Fix: plan the layout with lanes = the number of sources.",
            layout.lanes,
            sources.lanes()
        )));
    }
    if layout.max_levels_per_command < graph.layout.max_levels_per_command {
        return Err(BackendError::new(format!(
            "the batch layout counts lanes for {} levels per command but commands may run {}. Fix: plan the batch layout with the search layout's max_levels_per_command.",
            layout.max_levels_per_command, graph.layout.max_levels_per_command
        )));
    }
    Ok(())
}

impl DeviceBatch {
    /// Allocate the buffers `layout` lists (uninitialised: [`Self::start`]
    /// writes them).
    fn allocate(stream: &Arc<CudaStream>, layout: &BatchLayout) -> Result<Self, BackendError> {
        let words = layout.word_array_bytes();
        let depths = if layout.keep_depths {
            Some(alloc(stream, layout.depth_bytes())?)
        } else {
            None
        };
        Ok(Self {
            layout: *layout,
            seen: alloc(stream, words)?,
            words: [alloc(stream, words)?, alloc(stream, words)?],
            lane_counts: alloc(stream, layout.lane_history_bytes())?,
            depths,
            stale: [false; 2],
            lane_mask: 0,
            bytes: 0,
        }
        .counted())
    }

    fn counted(self) -> Self {
        let words = |s: &CudaSlice<u64>| s.num_bytes() as u64;
        let counts = |s: &CudaSlice<u32>| s.num_bytes() as u64;
        Self {
            bytes: words(&self.seen)
                + self.words.iter().map(words).sum::<u64>()
                + counts(&self.lane_counts)
                + self.depths.as_ref().map_or(0, counts),
            ..self
        }
    }

    /// The pass for `sources`: `previous`'s buffers when its layout is the
    /// same, new ones otherwise. The caller starts it ([`Self::start`]).
    pub(crate) fn prepare(
        stream: &Arc<CudaStream>,
        graph: &DeviceGraph,
        previous: Option<Self>,
        sources: &BatchSources,
        layout: &BatchLayout,
    ) -> Result<Self, BackendError> {
        check_layout(graph, sources, layout)?;
        let mut pass = match previous {
            Some(pass) if pass.layout == *layout => pass,
            previous => {
                // Free the previous pass's buffers first so their memory can
                // be reused.
                drop(previous);
                Self::allocate(stream, layout)?
            }
        };
        pass.stale = [false; 2];
        pass.lane_mask = sources.lane_mask();
        Ok(pass)
    }

    /// Fill in the pass's buffers: word array `words_in` is read by the
    /// level and `words_out` written (the indices of the command's
    /// position, see [`vyre_driver::backend::SearchPosition::buffer_of_level`]).
    pub(crate) fn fill_args(
        &self,
        stream: &CudaStream,
        args: &mut KernelArgs,
        words_in: u32,
        words_out: u32,
    ) {
        let ptr64 = |s: &CudaSlice<u64>| s.device_ptr(stream).0;
        args.seen = ptr64(&self.seen);
        args.words_in = ptr64(&self.words[words_in as usize & 1]);
        args.words_out = ptr64(&self.words[words_out as usize & 1]);
        args.lane_counts = self.lane_counts.device_ptr(stream).0;
        args.lane_depths = self.depths.as_ref().map_or(0, |d| d.device_ptr(stream).0);
        args.lane_mask = self.lane_mask;
        args.lanes = self.layout.lanes;
    }

    /// Put the lanes' sources (at most [`BATCH_LANES`]) where
    /// `vyre_batch_seed` reads them: the lane counters, which always hold
    /// at least one level's.
    pub(crate) fn upload_sources(
        &mut self,
        stream: &Arc<CudaStream>,
        ids: &[u32],
    ) -> Result<(), BackendError> {
        stream
            .memcpy_htod(ids, &mut self.lane_counts.slice_mut(0..ids.len()))
            .map_err(during("source upload"))
    }

    /// Before `command`'s levels: the counters of its levels zeroed, and the word
    /// array its first push level writes cleared if a pull left it stale.
    pub(crate) fn before(
        &mut self,
        stream: &Arc<CudaStream>,
        command: &CheckedCommand,
    ) -> Result<(), BackendError> {
        let counters =
            (command.max_levels.max(1) as usize * BATCH_LANES as usize).min(self.lane_counts.len());
        stream
            .memset_zeros(&mut self.lane_counts.slice_mut(0..counters))
            .map_err(during("lane count clear"))?;
        let target = command.position.buffer_of_level(0, false) as usize & 1;
        if frontier_form_of(command.topology) == FrontierForm::Queue && self.stale[target] {
            stream
                .memset_zeros(&mut self.words[target])
                .map_err(during("frontier word clear"))?;
            self.stale[target] = false;
        }
        Ok(())
    }

    /// After `command` ran `levels` levels: a pull's last source array is
    /// stale; a push consumed every word it read.
    pub(crate) fn after(&mut self, command: &CheckedCommand, levels: u32) {
        self.stale = [false; 2];
        if frontier_form_of(command.topology) == FrontierForm::Bitmap && levels > 0 {
            let last = command.position.buffer_of_level(levels - 1, true) as usize & 1;
            self.stale[last] = true;
        }
    }

    /// Each lane's discoveries at the first `levels` levels of the command
    /// that just ran (the stream is idle).
    pub(crate) fn lane_counts(
        &self,
        stream: &Arc<CudaStream>,
        levels: usize,
    ) -> Result<Vec<LaneCounts>, BackendError> {
        let lanes = BATCH_LANES as usize;
        let mut flat = vec![0u32; levels * lanes];
        if levels > 0 {
            stream
                .memcpy_dtoh(&self.lane_counts.slice(0..levels * lanes), &mut flat)
                .map_err(during("lane count readback"))?;
        }
        Ok(flat
            .chunks_exact(lanes)
            .map(|level| {
                let mut counts = [0u32; BATCH_LANES as usize];
                counts.copy_from_slice(level);
                counts
            })
            .collect())
    }

    /// Copy the kept depths into `out` (the stream is idle).
    pub(crate) fn read_depths(
        &self,
        stream: &Arc<CudaStream>,
        out: &mut [u32],
    ) -> Result<(), BackendError> {
        let depths = self.depths.as_ref().ok_or_else(|| {
            BackendError::new(
                "this batch pass keeps no depths. Fix: begin the batch with keep_depths.",
            )
        })?;
        let expected = self.layout.vertex_count as usize * self.layout.lanes as usize;
        if out.len() != expected {
            return Err(BackendError::new(format!(
                "the output has {} entries but the pass has {expected} depths ({} vertices x {} lanes). Fix: pass a slice of exactly {expected} entries.",
                out.len(),
                self.layout.vertex_count,
                self.layout.lanes
            )));
        }
        if expected == 0 {
            return Ok(());
        }
        stream
            .memcpy_dtoh(&depths.slice(0..expected), out)
            .map_err(during("batch depth readback"))
    }
}
