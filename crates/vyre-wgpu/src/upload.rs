//! Copying host arrays into device buffers in bounded pieces.
//!
//! `Queue::write_buffer` keeps a staging copy of everything written until the
//! next submission finishes, so a multi-GiB edge array written at once would
//! need as much again in staging memory. Writes here go in pieces of
//! [`PIECE_BYTES`], and after every [`FLUSH_BYTES`] the queue is submitted and
//! drained so that staging never holds more than that.

use vyre_driver::backend::BackendError;

use crate::errors::wait_idle;

/// Largest single write.
const PIECE_BYTES: usize = 16 << 20;
/// Staging held before the queue is drained.
const FLUSH_BYTES: usize = 256 << 20;

/// Writes host data into device buffers with bounded staging.
pub(crate) struct Uploader<'a> {
    device: &'a wgpu::Device,
    queue: &'a wgpu::Queue,
    pending: usize,
}

impl<'a> Uploader<'a> {
    pub(crate) fn new(device: &'a wgpu::Device, queue: &'a wgpu::Queue) -> Self {
        Self {
            device,
            queue,
            pending: 0,
        }
    }

    /// Write `words` at the start of `buffer`.
    pub(crate) fn write(
        &mut self,
        buffer: &wgpu::Buffer,
        words: &[u32],
    ) -> Result<(), BackendError> {
        let per_piece = PIECE_BYTES / 4;
        for (i, piece) in words.chunks(per_piece).enumerate() {
            let offset = (i * PIECE_BYTES) as u64;
            self.queue
                .write_buffer(buffer, offset, bytemuck::cast_slice(piece));
            self.account(piece.len() * 4)?;
        }
        Ok(())
    }

    /// Write `values` narrowed to u32 (the caller checked they fit).
    pub(crate) fn write_narrowed(
        &mut self,
        buffer: &wgpu::Buffer,
        values: &[u64],
    ) -> Result<(), BackendError> {
        let per_piece = PIECE_BYTES / 4;
        let mut piece = Vec::with_capacity(per_piece.min(values.len()));
        for (i, chunk) in values.chunks(per_piece).enumerate() {
            piece.clear();
            piece.extend(chunk.iter().map(|&v| u32::try_from(v).unwrap_or(u32::MAX)));
            let offset = (i * PIECE_BYTES) as u64;
            self.queue
                .write_buffer(buffer, offset, bytemuck::cast_slice(&piece));
            self.account(piece.len() * 4)?;
        }
        Ok(())
    }

    fn account(&mut self, bytes: usize) -> Result<(), BackendError> {
        self.pending += bytes;
        if self.pending >= FLUSH_BYTES {
            self.queue.submit([]);
            wait_idle(self.device, "uploading the graph")?;
            self.pending = 0;
        }
        Ok(())
    }
}
