//! Reading device buffers back through the staging buffer.

use std::sync::mpsc;

use vyre_driver::backend::BackendError;

use crate::errors::poll_device_until;

/// Map the first `bytes` of `staging` (already filled by submitted copies),
/// hand them to `read`, and unmap.
pub(crate) fn read_staging<T>(
    device: &wgpu::Device,
    staging: &wgpu::Buffer,
    bytes: u64,
    read: impl FnOnce(&[u8]) -> T,
) -> Result<T, BackendError> {
    let (tx, rx) = mpsc::channel();
    staging.map_async(wgpu::MapMode::Read, 0..bytes, move |result| {
        // The receiver lives until after the wait below.
        let _ = tx.send(result);
    });
    let mut mapped = None;
    let mut never = false;
    poll_device_until(device, "reading results back", |_| {
        match rx.try_recv() {
            Ok(result) => mapped = Some(result),
            Err(mpsc::TryRecvError::Disconnected) => never = true,
            Err(mpsc::TryRecvError::Empty) => {}
        }
        mapped.is_some() || never
    })?;
    let mapped = mapped.ok_or_else(|| {
        BackendError::device(
            "the staging buffer was never mapped. Fix: the device was lost; reopen the backend."
                .to_string(),
        )
    })?;
    mapped.map_err(|e| {
        BackendError::device(format!(
            "mapping the staging buffer failed: {e}. Fix: the device was lost; reopen the backend."
        ))
    })?;
    let result = {
        let view = staging.get_mapped_range(0..bytes).map_err(|e| {
            BackendError::device(format!(
                "reading the mapped staging buffer failed: {e}. Fix: this is a bug in vyre-wgpu; report it."
            ))
        })?;
        read(&view)
    };
    staging.unmap();
    Ok(result)
}

/// Words of little-endian bytes.
pub(crate) fn words_of(data: &[u8]) -> Vec<u32> {
    data.chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Copy `out.len()` words of `source.0` from byte `source.1` into `out`,
/// through `staging` in pieces of its size.
pub(crate) fn read_words(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    source: (&wgpu::Buffer, u64),
    staging: &wgpu::Buffer,
    out: &mut [u32],
) -> Result<(), BackendError> {
    let (buffer, first) = source;
    let per_piece = usize::try_from(staging.size() / 4)
        .unwrap_or(usize::MAX)
        .max(1);
    for (i, piece) in out.chunks_mut(per_piece).enumerate() {
        let bytes = (piece.len() * 4) as u64;
        let offset = first + (i * per_piece * 4) as u64;
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("vyre readback"),
        });
        encoder.copy_buffer_to_buffer(buffer, offset, staging, 0, bytes);
        queue.submit([encoder.finish()]);
        read_staging(device, staging, bytes, |data| {
            for (word, bytes) in piece.iter_mut().zip(data.chunks_exact(4)) {
                *word = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            }
        })?;
    }
    Ok(())
}
