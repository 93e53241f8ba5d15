//! A batch pass's device state: the buffers its [`BatchLayout`] lists
//! (seen words, two frontier word arrays, and the tallies: the lane counts
//! of a command's levels and the kept depths), a descriptor set per
//! frontier set (a search's, with the batch state where a search binds its
//! parents and bitmaps), the start of a pass and the readback of its
//! depths (`shaders/wgsl/batch.wgsl` says what they hold).

use ash::vk;
use vyre_driver::backend::{BackendError, BatchLayout, BatchSources};
use vyre_wgsl_abi::batch::{
    BatchSeeds, C_BATCH_MASK_LO, batch_words, check_depth_output, decode_depths, tallies_bytes,
};
use vyre_wgsl_abi::bindings::{
    BATCH_STORAGE_BINDINGS, BatchBinding, BatchBuffer, batch_state_binding,
};

use crate::barrier::{COMPUTE, EARLIER_WRITES, TRANSFER, TRANSFER_WRITE, barrier};
use crate::gpu::Gpu;
use crate::kernels::{Descriptors, Kernels, Range};
use crate::memory::DeviceBuffer;
use crate::resident::{Resident, STATE};
use crate::submit::Submission;
use crate::transfer::read_back_at;

// Batch sets are sets of the one layout every kernel binds (the fused
// kernel's host-words binding holds the tallies), so that batch kernels
// share the pipeline layout.
const _: () = assert!(BATCH_STORAGE_BINDINGS == vyre_wgsl_abi::bindings::FUSED_STORAGE_BINDINGS);

/// The buffers and sets of one batch layout, kept while passes repeat it.
pub(crate) struct BatchState {
    // Field order is drop order: the sets before the buffers.
    descriptors: Descriptors,
    /// Set `d` reads word array `d` and writes `1 - d`.
    pub sets: [vk::DescriptorSet; 2],
    pub layout: BatchLayout,
    seen: DeviceBuffer,
    words: [DeviceBuffer; 2],
    pub tallies: DeviceBuffer,
}

/// Refuse a layout whose arrays the device cannot bind.
pub(crate) fn check_bindable(
    layout: &BatchLayout,
    binding_limit: u64,
    device: &str,
) -> Result<(), BackendError> {
    for (what, bytes) in [
        ("word arrays", layout.word_array_bytes()),
        ("lane counts and kept depths", tallies_bytes(layout)),
    ] {
        if bytes > binding_limit {
            return Err(crate::error::out_of_memory(&format!(
                "the batch's {what} need a {bytes}-byte binding but {device} binds at most {binding_limit} bytes"
            )));
        }
    }
    Ok(())
}

impl BatchState {
    /// The buffers of `layout` and their sets over `resident`.
    pub(crate) fn allocate(
        gpu: &Gpu,
        kernels: &Kernels,
        resident: &Resident,
        layout: &BatchLayout,
    ) -> Result<Self, BackendError> {
        let buffer = |name: &str, bytes| gpu.memory.buffer(name, bytes, STATE, false);
        let words = layout.word_array_bytes();
        let mut state = Self {
            descriptors: Descriptors::new(&gpu.device, 2)?,
            sets: [vk::DescriptorSet::null(); 2],
            layout: *layout,
            seen: buffer("batch seen words", words)?,
            words: [
                buffer("batch words 0", words)?,
                buffer("batch words 1", words)?,
            ],
            tallies: buffer("batch tallies", tallies_bytes(layout))?,
        };
        let set = |d: u32| {
            let ranges: Vec<Range> = (0..BATCH_STORAGE_BINDINGS)
                .map(|binding| match batch_state_binding(binding, d) {
                    BatchBinding::Batch(BatchBuffer::Seen) => Range::whole(state.seen.buffer),
                    BatchBinding::Batch(BatchBuffer::Words(i)) => {
                        Range::whole(state.words[i as usize].buffer)
                    }
                    BatchBinding::Batch(BatchBuffer::Tallies) => Range::whole(state.tallies.buffer),
                    BatchBinding::Search(search) => resident.range(search),
                })
                .collect();
            state.descriptors.set(kernels.set_layout(), &ranges)
        };
        state.sets = [set(0)?, set(1)?];
        Ok(state)
    }

    /// Bytes of the buffers: exactly the layout's.
    pub(crate) fn bytes(&self) -> u64 {
        self.seen.size + self.words[0].size + self.words[1].size + self.tallies.size
    }

    /// Start a pass from `sources`, in one submission: every lane
    /// unreached, the stamps (the search's depth array) cleared, then the
    /// seeds: queue 0, the sources' words, their kept depths, and the
    /// batch words.
    pub(crate) fn begin(
        &self,
        gpu: &Gpu,
        resident: &Resident,
        sources: &BatchSources,
    ) -> Result<(), BackendError> {
        let doing = "starting a batch pass";
        let seeds = BatchSeeds::of(sources, &self.layout);
        let words: Vec<u8> = batch_words(sources, &self.layout)
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        let queue: Vec<u8> = seeds.queue.iter().flat_map(|v| v.to_le_bytes()).collect();
        let submission = Submission::begin(gpu, doing)?;
        let command = submission.command;
        let device = &gpu.device;
        let depths_at = self.layout.lane_history_bytes();
        // SAFETY: the command buffer is recording; every buffer is live with
        // TRANSFER_DST usage until the submission is waited for; each fill
        // and update lies within its buffer (seeds are vertices and lanes of
        // this layout) and is 4-byte aligned and at most 64 KiB.
        unsafe {
            barrier(device, command, EARLIER_WRITES, &[TRANSFER]);
            for buffer in [&self.seen, &self.words[0], &self.words[1], &resident.depth] {
                device.cmd_fill_buffer(command, buffer.buffer, 0, vk::WHOLE_SIZE, 0);
            }
            if self.layout.keep_depths {
                device.cmd_fill_buffer(command, self.tallies.buffer, depths_at, vk::WHOLE_SIZE, 0);
            }
            barrier(device, command, TRANSFER_WRITE, &[TRANSFER]);
            device.cmd_update_buffer(command, resident.queues[0].buffer, 0, &queue);
            for &(v, mask) in &seeds.words {
                let at = u64::from(v) * 8;
                device.cmd_update_buffer(command, self.seen.buffer, at, &mask.to_le_bytes());
                device.cmd_update_buffer(command, self.words[0].buffer, at, &mask.to_le_bytes());
            }
            for &slot in &seeds.depth_slots {
                let one = 1u32.to_le_bytes();
                device.cmd_update_buffer(command, self.tallies.buffer, slot * 4, &one);
            }
            let at = (C_BATCH_MASK_LO * 4) as u64;
            device.cmd_update_buffer(command, resident.control.buffer, at, &words);
            barrier(device, command, TRANSFER_WRITE, &[TRANSFER, COMPUTE]);
        }
        submission.finish(doing)
    }

    /// Copy the pass's depths into `out` (vertex-major).
    pub(crate) fn read_depths(
        &self,
        gpu: &Gpu,
        resident: &Resident,
        out: &mut [u32],
    ) -> Result<(), BackendError> {
        check_depth_output(&self.layout, out.len())?;
        let at = self.layout.lane_history_bytes();
        read_back_at(gpu, &resident.staging, (&self.tallies, at), out)?;
        decode_depths(out);
        Ok(())
    }
}
