//! Copies between host arrays and device buffers through the layout's
//! host-visible staging buffer, one staging-sized piece at a time (the
//! layout's staging is all the host-visible memory the plan allows).

use ash::vk;
use vyre_driver::backend::BackendError;

use crate::barrier::{EARLIER_WRITES, HOST_READ, TRANSFER, TRANSFER_WRITE, barrier};
use crate::gpu::Gpu;
use crate::memory::DeviceBuffer;
use crate::submit::Submission;

fn unmapped() -> BackendError {
    BackendError::device(
        "the staging buffer is not host-visible. Fix: this device has no host-visible memory vyre can map; use another device or backend."
            .to_string(),
    )
}

/// Copy `bytes` from `src` at `src_offset` to `dst` at `dst_offset`, then
/// make the result visible to whatever reads it next (later submissions
/// wait on the fence, so a barrier to the host and to transfers suffices).
fn copy(
    gpu: &Gpu,
    src: vk::Buffer,
    src_offset: u64,
    dst: vk::Buffer,
    dst_offset: u64,
    bytes: u64,
) -> Result<(), BackendError> {
    let submission = Submission::begin(gpu, "copying through the staging buffer")?;
    barrier(&gpu.device, submission.command, EARLIER_WRITES, &[TRANSFER]);
    let region = vk::BufferCopy::default()
        .src_offset(src_offset)
        .dst_offset(dst_offset)
        .size(bytes);
    // SAFETY: both buffers are live with TRANSFER usage and the region lies
    // within them (callers bound it by both sizes).
    unsafe {
        gpu.device
            .cmd_copy_buffer(submission.command, src, dst, &[region]);
    }
    barrier(
        &gpu.device,
        submission.command,
        TRANSFER_WRITE,
        &[TRANSFER, HOST_READ],
    );
    submission.finish("copying through the staging buffer")
}

/// Write `words` to the start of `dst`, a staging-sized piece at a time;
/// `convert` turns each source element into its device word.
pub(crate) fn upload<T: Copy>(
    gpu: &Gpu,
    staging: &mut DeviceBuffer,
    dst: &DeviceBuffer,
    values: &[T],
    convert: impl Fn(T) -> u32,
) -> Result<(), BackendError> {
    let per_piece = usize::try_from(staging.size / 4)
        .unwrap_or(usize::MAX)
        .max(1);
    let mut offset = 0u64;
    for piece in values.chunks(per_piece) {
        let mapped = staging.mapped_mut().ok_or_else(unmapped)?;
        for (slot, &value) in mapped.chunks_exact_mut(4).zip(piece) {
            slot.copy_from_slice(&convert(value).to_le_bytes());
        }
        let bytes = (piece.len() * 4) as u64;
        copy(gpu, staging.buffer, 0, dst.buffer, offset, bytes)?;
        offset += bytes;
    }
    Ok(())
}

/// Read the first `out.len()` words of `src` into `out`.
pub(crate) fn read_back(
    gpu: &Gpu,
    staging: &DeviceBuffer,
    src: &DeviceBuffer,
    out: &mut [u32],
) -> Result<(), BackendError> {
    read_back_at(gpu, staging, (src, 0), out)
}

/// Read `out.len()` words of `src.0` from byte `src.1` into `out`.
pub(crate) fn read_back_at(
    gpu: &Gpu,
    staging: &DeviceBuffer,
    src: (&DeviceBuffer, u64),
    out: &mut [u32],
) -> Result<(), BackendError> {
    let (src, mut offset) = src;
    let per_piece = usize::try_from(staging.size / 4)
        .unwrap_or(usize::MAX)
        .max(1);
    for piece in out.chunks_mut(per_piece) {
        let bytes = (piece.len() * 4) as u64;
        copy(gpu, src.buffer, offset, staging.buffer, 0, bytes)?;
        let mapped = staging.mapped().ok_or_else(unmapped)?;
        for (word, raw) in piece.iter_mut().zip(mapped.chunks_exact(4)) {
            *word = u32::from_le_bytes([raw[0], raw[1], raw[2], raw[3]]);
        }
        offset += bytes;
    }
    Ok(())
}
