//! A batch pass's device state: the buffers its [`BatchLayout`] lists
//! (seen words, two frontier word arrays, and the tallies: the lane counts
//! of a command's levels and the kept depths), the bind group of each
//! frontier set (a search's, with the batch state where a search binds its
//! parents and bitmaps), and the start of a pass
//! (`shaders/wgsl/batch.wgsl` says what they hold).

use vyre_driver::backend::{BackendError, BackendErrorKind, BatchLayout, BatchSources};
use vyre_wgsl_abi::batch::{BatchSeeds, C_BATCH_MASK_LO, batch_words, tallies_bytes};
use vyre_wgsl_abi::bindings::{
    BATCH_STORAGE_BINDINGS, BatchBinding, BatchBuffer, batch_state_binding,
};

use crate::device_graph::{DeviceGraph, bind_group};

/// The buffers of one batch layout, kept while passes repeat it.
pub(crate) struct BatchBuffers {
    pub layout: BatchLayout,
    pub seen: wgpu::Buffer,
    pub words: [wgpu::Buffer; 2],
    pub tallies: wgpu::Buffer,
    /// Group `d` reads word array `d` and writes `1 - d`.
    pub groups: Vec<wgpu::BindGroup>,
    /// Bytes of the buffers: exactly the layout's.
    pub bytes: u64,
}

/// Refuse a layout whose arrays the device cannot bind.
pub(crate) fn check_bindable(layout: &BatchLayout, binding_limit: u64) -> Result<(), BackendError> {
    for (what, bytes) in [
        ("word arrays", layout.word_array_bytes()),
        ("lane counts and kept depths", tallies_bytes(layout)),
    ] {
        if bytes > binding_limit {
            return Err(BackendError::with_kind(
                BackendErrorKind::OutOfMemory,
                format!(
                    "the batch's {what} need a {bytes}-byte binding but this adapter binds at most {binding_limit} bytes. Fix: run fewer lanes per pass or keep no depths (only the counts), use a smaller graph, or a device that binds more."
                ),
            ));
        }
    }
    Ok(())
}

/// Allocate the buffers of `layout` and their bind groups (of
/// `group_layout`) over `graph`.
pub(crate) fn allocate(
    device: &wgpu::Device,
    group_layout: &wgpu::BindGroupLayout,
    graph: &DeviceGraph,
    layout: &BatchLayout,
) -> BatchBuffers {
    use wgpu::BufferUsages as U;
    let usage = U::STORAGE | U::COPY_SRC | U::COPY_DST;
    let mut bytes = 0;
    let mut buffer = |label: &str, size: u64| {
        bytes += size;
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage,
            mapped_at_creation: false,
        })
    };
    let seen = buffer("vyre batch seen", layout.word_array_bytes());
    let words = [
        buffer("vyre batch words 0", layout.word_array_bytes()),
        buffer("vyre batch words 1", layout.word_array_bytes()),
    ];
    let tallies = buffer("vyre batch tallies", tallies_bytes(layout));
    let group = |d: u32| {
        bind_group(
            device,
            group_layout,
            BATCH_STORAGE_BINDINGS,
            |binding| match batch_state_binding(binding, d) {
                BatchBinding::Batch(BatchBuffer::Seen) => seen.as_entire_binding(),
                BatchBinding::Batch(BatchBuffer::Words(i)) => words[i as usize].as_entire_binding(),
                BatchBinding::Batch(BatchBuffer::Tallies) => tallies.as_entire_binding(),
                BatchBinding::Search(search) => graph.binding(search),
            },
        )
    };
    let groups = vec![group(0), group(1)];
    BatchBuffers {
        layout: *layout,
        seen,
        words,
        tallies,
        groups,
        bytes,
    }
}

impl BatchBuffers {
    /// Start a pass from `sources` on `graph`: every lane unreached, the
    /// stamps (the search's depth array) cleared, then the seeds: queue 0,
    /// the sources' words, their kept depths, and the batch words.
    pub(crate) fn begin(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        graph: &DeviceGraph,
        sources: &BatchSources,
    ) {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("vyre batch start"),
        });
        for buffer in [&self.seen, &self.words[0], &self.words[1]] {
            encoder.clear_buffer(buffer, 0, None);
        }
        graph.depth.clear(&mut encoder, 0, None);
        if self.layout.keep_depths {
            let lanes = self.layout.lane_history_bytes();
            encoder.clear_buffer(&self.tallies, lanes, None);
        }
        // Writes below run at the next submission, after this one.
        queue.submit([encoder.finish()]);
        let seeds = BatchSeeds::of(sources, &self.layout);
        let (queue0, at) = graph.queues[0].at(0);
        queue.write_buffer(queue0, at, bytemuck::cast_slice(&seeds.queue));
        for &(v, mask) in &seeds.words {
            let at = u64::from(v) * 8;
            queue.write_buffer(&self.seen, at, &mask.to_le_bytes());
            queue.write_buffer(&self.words[0], at, &mask.to_le_bytes());
        }
        for &slot in &seeds.depth_slots {
            queue.write_buffer(&self.tallies, slot * 4, &1u32.to_le_bytes());
        }
        let words = batch_words(sources, &self.layout);
        let (control, at) = graph.control.at((C_BATCH_MASK_LO * 4) as u64);
        queue.write_buffer(control, at, bytemuck::cast_slice(&words));
        queue.submit([]);
    }
}
