//! [`NcclDevices`]: the [`DeviceCollective`] of ranks on separate GPUs,
//! NCCL on the ranks' device buffers. One host thread drives every rank,
//! so each collective is one NCCL group holding every rank's call.

use cudarc::driver::{CudaSlice, CudaView};
use cudarc::nccl::result::{NcclError, group_end, group_start};
use cudarc::nccl::{Comm, ReduceOp};
use vyre_driver::backend::BackendError;

use super::collective::{DeviceCollective, Transfer, block_len, check_transfer};
use crate::nccl::nccl_error;

/// One communicator per rank (GPU), each on its rank's stream.
pub(crate) struct NcclDevices {
    pub comms: Vec<Comm>,
}

// SAFETY: NCCL communicators may be used from any thread, one thread at a
// time; `&mut self` on every collective rules out concurrent use.
unsafe impl Send for NcclDevices {}

/// Run `calls` inside one NCCL group, which is ended whatever they return.
fn grouped(what: &str, calls: impl FnOnce() -> Result<(), NcclError>) -> Result<(), BackendError> {
    group_start().map_err(|e| nccl_error(what, &e))?;
    let called = calls();
    let ended = group_end();
    called.map_err(|e| nccl_error(what, &e))?;
    ended.map(|_| ()).map_err(|e| nccl_error(what, &e))
}

impl DeviceCollective for NcclDevices {
    fn all_gather(
        &mut self,
        send: &[CudaView<'_, u32>],
        recv: &mut [&mut CudaSlice<u32>],
    ) -> Result<(), BackendError> {
        let ranks = self.comms.len();
        let total = block_len(ranks, send, recv, ranks)? * ranks;
        grouped("all-gather", || {
            for ((comm, mine), out) in self.comms.iter().zip(send).zip(recv.iter_mut()) {
                comm.all_gather(mine, &mut out.slice_mut(0..total))?;
            }
            Ok(())
        })
    }

    fn all_reduce_sum(
        &mut self,
        send: &[CudaView<'_, u64>],
        recv: &mut [&mut CudaSlice<u64>],
    ) -> Result<(), BackendError> {
        let len = block_len(self.comms.len(), send, recv, 1)?;
        grouped("all-reduce", || {
            for ((comm, mine), out) in self.comms.iter().zip(send).zip(recv.iter_mut()) {
                comm.all_reduce(mine, &mut out.slice_mut(0..len), &ReduceOp::Sum)?;
            }
            Ok(())
        })
    }

    fn send_recv(
        &mut self,
        outboxes: &[&CudaSlice<u32>],
        inboxes: &mut [&mut CudaSlice<u32>],
        transfers: &[Transfer],
    ) -> Result<(), BackendError> {
        for t in transfers {
            check_transfer(t, outboxes, inboxes)?;
        }
        let comms = &self.comms;
        grouped("send and receive", || {
            for t in transfers {
                let from = outboxes[t.from].slice(t.from_offset..t.from_offset + t.len);
                comms[t.from].send(&from, t.to as i32)?;
                let mut to = inboxes[t.to].slice_mut(t.to_offset..t.to_offset + t.len);
                comms[t.to].recv(&mut to, t.from as i32)?;
            }
            Ok(())
        })
    }
}
