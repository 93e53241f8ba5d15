//! [`DeviceCollective`]: the collectives of a partitioned search on the
//! ranks' own device buffers, called once for all ranks from the one host
//! thread that drives them; and [`OneDevice`], the same collectives between
//! ranks that share one GPU, by copies.
//!
//! Every call enqueues its work on the ranks' streams and returns: the
//! caller waits (within its limit) before reading anything back.

use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::{CudaSlice, CudaStream, CudaView};
use vyre_driver::backend::BackendError;

use crate::error::during;
use crate::wait::wait_idle;

/// One point-to-point transfer of [`DeviceCollective::send_recv`]: `len`
/// words of rank `from`'s outbox at `from_offset` into rank `to`'s inbox
/// at `to_offset`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Transfer {
    pub from: usize,
    pub to: usize,
    pub from_offset: usize,
    pub to_offset: usize,
    pub len: usize,
}

/// Collectives among every rank of a partitioned device, one entry per rank
/// in each argument.
pub(crate) trait DeviceCollective: Send {
    /// Every rank's `send` (all the same length `b`) into every rank's
    /// `recv`, rank `q`'s at `q * b`.
    fn all_gather(
        &mut self,
        send: &[CudaView<'_, u32>],
        recv: &mut [&mut CudaSlice<u32>],
    ) -> Result<(), BackendError>;

    /// Every rank's `recv` (as long as each `send`) becomes the sum of all
    /// ranks' `send`.
    fn all_reduce_sum(
        &mut self,
        send: &[CudaView<'_, u64>],
        recv: &mut [&mut CudaSlice<u64>],
    ) -> Result<(), BackendError>;

    /// Every transfer, between `outboxes[t.from]` and `inboxes[t.to]`.
    fn send_recv(
        &mut self,
        outboxes: &[&CudaSlice<u32>],
        inboxes: &mut [&mut CudaSlice<u32>],
        transfers: &[Transfer],
    ) -> Result<(), BackendError>;
}

/// Check that every argument has one entry per rank, every `send` the same
/// length and every `recv` room for `factor` of them; that length.
pub(crate) fn block_len<T>(
    ranks: usize,
    send: &[CudaView<'_, T>],
    recv: &[&mut CudaSlice<T>],
    factor: usize,
) -> Result<usize, BackendError> {
    let sizes: Vec<usize> = send.iter().map(CudaView::len).collect();
    let room: Vec<usize> = recv.iter().map(|r| r.len()).collect();
    check_shapes(ranks, &sizes, &room, factor)?;
    Ok(sizes.first().copied().unwrap_or(0))
}

/// [`block_len`] on the lengths alone.
fn check_shapes(
    ranks: usize,
    send: &[usize],
    recv: &[usize],
    factor: usize,
) -> Result<(), BackendError> {
    let len = send.first().copied().unwrap_or(0);
    if send.len() != ranks
        || recv.len() != ranks
        || send.iter().any(|&s| s != len)
        || recv.iter().any(|&r| r < len * factor)
    {
        return Err(BackendError::device(format!(
            "a collective over {ranks} ranks got {} blocks of {send:?} words into {} buffers of {recv:?}. Fix: this is a bug in vyre's CUDA ranks; report it with the graph.",
            send.len(),
            recv.len()
        )));
    }
    Ok(())
}

/// Check that a transfer lies inside both buffers.
pub(crate) fn check_transfer(
    t: &Transfer,
    outboxes: &[&CudaSlice<u32>],
    inboxes: &[&mut CudaSlice<u32>],
) -> Result<(), BackendError> {
    let fits = |len: Option<usize>, offset: usize| len.is_some_and(|l| offset + t.len <= l);
    if !fits(outboxes.get(t.from).map(|o| o.len()), t.from_offset)
        || !fits(inboxes.get(t.to).map(|i| i.len()), t.to_offset)
    {
        return Err(BackendError::device(format!(
            "the transfer {t:?} does not fit the ranks' buffers. Fix: this is a bug in vyre's CUDA ranks; report it with the graph."
        )));
    }
    Ok(())
}

/// Ranks that share one GPU and one stream: NCCL refuses two ranks on one
/// device, so every exchange is a copy between the ranks' allocations (the
/// sum of an all-reduce is taken on the host). For tests of the partitioned
/// search on a machine with one GPU or none (the emulator); never chosen
/// for a request of several GPUs.
pub(crate) struct OneDevice {
    pub ranks: usize,
    pub stream: Arc<CudaStream>,
    pub limit: Duration,
}

impl OneDevice {
    fn wait(&self, what: &str) -> Result<(), BackendError> {
        if wait_idle(&self.stream, Instant::now() + self.limit)? {
            return Ok(());
        }
        Err(BackendError::device(format!(
            "the device did not finish the work before {what} within {:?}. Fix: begin the search again; if it recurs, report it with the graph.",
            self.limit
        )))
    }
}

impl DeviceCollective for OneDevice {
    fn all_gather(
        &mut self,
        send: &[CudaView<'_, u32>],
        recv: &mut [&mut CudaSlice<u32>],
    ) -> Result<(), BackendError> {
        let block = block_len(self.ranks, send, recv, self.ranks)?;
        for out in recv.iter_mut() {
            for (q, mine) in send.iter().enumerate() {
                self.stream
                    .memcpy_dtod(mine, &mut out.slice_mut(q * block..(q + 1) * block))
                    .map_err(during("all-gather copy"))?;
            }
        }
        Ok(())
    }

    fn all_reduce_sum(
        &mut self,
        send: &[CudaView<'_, u64>],
        recv: &mut [&mut CudaSlice<u64>],
    ) -> Result<(), BackendError> {
        let len = block_len(self.ranks, send, recv, 1)?;
        self.wait("an all-reduce")?;
        let mut sum = vec![0u64; len];
        let mut part = vec![0u64; len];
        for values in send {
            self.stream
                .memcpy_dtoh(values, &mut part)
                .map_err(during("all-reduce copy"))?;
            self.wait("an all-reduce")?;
            sum.iter_mut()
                .zip(&part)
                .for_each(|(s, p)| *s = s.wrapping_add(*p));
        }
        for out in recv.iter_mut() {
            self.stream
                .memcpy_htod(&sum, &mut out.slice_mut(0..len))
                .map_err(during("all-reduce copy"))?;
        }
        Ok(())
    }

    fn send_recv(
        &mut self,
        outboxes: &[&CudaSlice<u32>],
        inboxes: &mut [&mut CudaSlice<u32>],
        transfers: &[Transfer],
    ) -> Result<(), BackendError> {
        for t in transfers {
            check_transfer(t, outboxes, inboxes)?;
            let from = outboxes[t.from].slice(t.from_offset..t.from_offset + t.len);
            let mut to = inboxes[t.to].slice_mut(t.to_offset..t.to_offset + t.len);
            self.stream
                .memcpy_dtod(&from, &mut to)
                .map_err(during("exchange copy"))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_need_one_entry_per_rank_and_room_for_every_block() {
        assert!(check_shapes(2, &[3, 3], &[6, 6], 2).is_ok());
        assert!(check_shapes(2, &[3, 3], &[6, 7], 2).is_ok());
        assert!(check_shapes(2, &[3, 3], &[6, 5], 2).is_err());
        assert!(check_shapes(2, &[3, 4], &[8, 8], 2).is_err());
        assert!(check_shapes(3, &[3, 3], &[6, 6], 2).is_err());
        let error = check_shapes(2, &[3], &[6, 6], 2).unwrap_err();
        assert!(error.message().contains("Fix: "), "{error}");
    }
}
