//! NCCL ranks: the driver's [`Communicator`] contract over NCCL, one rank
//! per GPU of this process (`ncclCommInitAll`), through cudarc's `nccl`
//! module (loaded at run time, like the driver).
//!
//! The collectives take host slices and stage them through device buffers
//! on the rank's stream: what a partitioned search on host ranks needs, and
//! the check that NCCL works on a machine ([`open_nccl_group`] then
//! `vyre_driver::collective::exercise`). The partitioned search
//! (`crate::ranks`) calls NCCL on its own device buffers instead.
//!
//! libnccl is loaded by the names cudarc tries (`libnccl.so` first, never
//! `libnccl.so.2`, the only name the `nvidia-nccl-cu13` wheel ships), so
//! [`nccl_present`] is asked before any NCCL call and a missing library is
//! a typed error naming the file found and the link to make.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use cudarc::nccl::{Comm, ReduceOp};
use vyre_driver::backend::{BackendError, BackendErrorKind};
use vyre_driver::collective::Communicator;

use crate::device::driver_present;
use crate::error::during;

/// Environment variable naming a directory to look in for `libnccl.so.2`
/// when NCCL does not load (only to say which link to make).
pub const NCCL_DIR_ENV: &str = "VYRE_NCCL_DIR";

/// Whether NCCL can be loaded by the names cudarc tries.
#[must_use]
pub fn nccl_present() -> bool {
    // SAFETY: only tries to dlopen libnccl by its usual names; no NCCL
    // function is called.
    unsafe { cudarc::nccl::sys::is_culib_present() }
}

/// One GPU's rank of an NCCL group.
pub struct NcclRank {
    comm: Comm,
    stream: Arc<CudaStream>,
    rank: u32,
    ranks: u32,
}

// SAFETY: an NCCL communicator and its stream may be used from any thread,
// one thread at a time (NCCL forbids only concurrent use of a communicator,
// which `&mut self` on every collective rules out).
unsafe impl Send for NcclRank {}

/// Open one NCCL rank on each of the GPUs `0..ranks`.
///
/// # Errors
///
/// `Unavailable` when there is no CUDA driver, fewer GPUs than `ranks`, or
/// no loadable NCCL (the message says where `libnccl.so.2` was found and
/// what to link); `Device` when NCCL fails to initialise.
pub fn open_nccl_group(ranks: u32) -> Result<Vec<NcclRank>, BackendError> {
    nccl_preflight(ranks)?;
    let streams = (0..ranks as usize)
        .map(|ordinal| {
            let ctx = CudaContext::new(ordinal).map_err(during("context creation"))?;
            ctx.new_stream().map_err(during("stream creation"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let comms =
        Comm::from_devices(streams.clone()).map_err(|e| nccl_error("initialisation", &e))?;
    Ok(comms
        .into_iter()
        .zip(streams)
        .enumerate()
        .map(|(rank, (comm, stream))| NcclRank {
            comm,
            stream,
            rank: rank as u32,
            ranks,
        })
        .collect())
}

/// Check that this machine can run `ranks` NCCL ranks, one per GPU: a
/// driver, at least `ranks` GPUs, and a loadable NCCL.
///
/// # Errors
///
/// `Unavailable`, saying which is missing and what to do.
pub(crate) fn nccl_preflight(ranks: u32) -> Result<(), BackendError> {
    if !driver_present() {
        return Err(BackendError::unavailable(
            "no CUDA driver (libcuda.so) was found on this machine. Fix: install the NVIDIA driver, or simulate ranks with --backend cpu.",
        ));
    }
    let count = CudaContext::device_count().map_err(during("driver initialisation"))?;
    let count = u32::try_from(count).unwrap_or(0);
    if ranks == 0 || ranks > count {
        return Err(BackendError::unavailable(format!(
            "{ranks} GPUs were asked for but the driver sees {count}. Fix: ask for 1 to {count} GPUs (check CUDA_VISIBLE_DEVICES), or simulate ranks with --backend cpu."
        )));
    }
    if !nccl_present() {
        return Err(nccl_missing());
    }
    Ok(())
}

/// An NCCL failure while doing `what`.
pub(crate) fn nccl_error(what: &str, error: &cudarc::nccl::result::NcclError) -> BackendError {
    BackendError::device(format!(
        "NCCL {what} failed: {error:?}. Fix: rerun with NCCL_DEBUG=INFO to see why, and keep NVLink multicast off (NCCL_NVLS_ENABLE=0)."
    ))
}

/// The error for an NCCL that cudarc cannot load, naming a `libnccl.so.2`
/// it could link to where one is found.
fn nccl_missing() -> BackendError {
    let dir = std::env::var_os(NCCL_DIR_ENV).map(PathBuf::from);
    let found = nccl_candidates(dir).into_iter().find(|p| p.is_file());
    let fix = match found {
        Some(path) => format!(
            "link it under the name cudarc loads and put that directory on the library path: mkdir -p /tmp/vyre-nccl && ln -sf {} /tmp/vyre-nccl/libnccl.so && export LD_LIBRARY_PATH=/tmp/vyre-nccl:$LD_LIBRARY_PATH",
            path.display()
        ),
        None => format!(
            "install NCCL (pip install nvidia-nccl-cu13, or the system package), link its libnccl.so.2 as libnccl.so in a directory on LD_LIBRARY_PATH; set {NCCL_DIR_ENV} to the directory holding libnccl.so.2 to have this message name the link"
        ),
    };
    BackendError::with_kind(
        BackendErrorKind::Unavailable,
        format!("NCCL (libnccl.so) could not be loaded. Fix: {fix}."),
    )
}

/// Where `libnccl.so.2` usually is: `dir` (`$VYRE_NCCL_DIR`), then the
/// `nvidia/nccl/lib` of Python's site and dist packages.
fn nccl_candidates(dir: Option<PathBuf>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = dir.into_iter().collect();
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let roots = [
        Some(PathBuf::from("/usr/local/lib")),
        Some(PathBuf::from("/usr/lib")),
        home.map(|h| h.join(".local/lib")),
    ];
    for root in roots.into_iter().flatten() {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_string_lossy().starts_with("python3") {
                for packages in ["site-packages", "dist-packages"] {
                    dirs.push(entry.path().join(packages).join("nvidia/nccl/lib"));
                }
            }
        }
    }
    dirs.iter()
        .map(|d| Path::new(d).join("libnccl.so.2"))
        .collect()
}

impl NcclRank {
    fn upload<T: cudarc::driver::DeviceRepr>(
        &self,
        host: &[T],
    ) -> Result<CudaSlice<T>, BackendError> {
        self.stream
            .clone_htod(host)
            .map_err(during("NCCL staging copy"))
    }

    fn download<T: cudarc::driver::DeviceRepr>(
        &self,
        device: &CudaSlice<T>,
        host: &mut [T],
    ) -> Result<(), BackendError> {
        self.stream
            .memcpy_dtoh(device, host)
            .map_err(during("NCCL staging copy"))?;
        self.stream
            .synchronize()
            .map_err(during("NCCL synchronisation"))
    }

    fn all_reduce(&mut self, values: &mut [u64], op: &ReduceOp) -> Result<(), BackendError> {
        let send = self.upload(values)?;
        let mut recv = self.upload(values)?;
        self.comm
            .all_reduce(&send, &mut recv, op)
            .map_err(|e| nccl_error("all-reduce", &e))?;
        self.download(&recv, values)
    }
}

impl Communicator for NcclRank {
    fn rank(&self) -> u32 {
        self.rank
    }

    fn ranks(&self) -> u32 {
        self.ranks
    }

    fn all_gather(&mut self, mine: &[u32], out: &mut [u32]) -> Result<(), BackendError> {
        if out.len() != mine.len() * self.ranks as usize || mine.is_empty() {
            return Err(BackendError::new(format!(
                "an all-gather of {} words per rank into {} words over {} ranks. Fix: pass a non-empty block and ranks x block words.",
                mine.len(),
                out.len(),
                self.ranks
            )));
        }
        let send = self.upload(mine)?;
        let mut recv = self.upload(out)?;
        self.comm
            .all_gather(&send, &mut recv)
            .map_err(|e| nccl_error("all-gather", &e))?;
        self.download(&recv, out)
    }

    fn all_to_all_v(&mut self, send: &[Vec<u32>]) -> Result<Vec<Vec<u32>>, BackendError> {
        let ranks = self.ranks as usize;
        if send.len() != ranks {
            return Err(BackendError::new(format!(
                "{} send lists for {ranks} ranks. Fix: pass one list per rank.",
                send.len()
            )));
        }
        // Every rank learns every list's length first (a row of counts per
        // rank), then each pair of ranks sends and receives exactly that.
        let counts: Vec<u32> = send
            .iter()
            .map(|l| u32::try_from(l.len()).unwrap_or(u32::MAX))
            .collect();
        let mut matrix = vec![0u32; ranks * ranks];
        self.all_gather(&counts, &mut matrix)?;
        let me = self.rank as usize;
        let outgoing = send
            .iter()
            .map(|list| self.upload(if list.is_empty() { &[0u32][..] } else { list }))
            .collect::<Result<Vec<_>, _>>()?;
        let mut incoming = (0..ranks)
            .map(|from| self.upload(&vec![0u32; (matrix[from * ranks + me] as usize).max(1)]))
            .collect::<Result<Vec<_>, _>>()?;
        {
            let mut group = self.comm.group();
            for (peer, (out, inc)) in outgoing.iter().zip(incoming.iter_mut()).enumerate() {
                let (to_len, from_len) = (send[peer].len(), matrix[peer * ranks + me] as usize);
                if to_len > 0 {
                    group
                        .send(out.slice(0..to_len), peer as i32)
                        .map_err(|e| nccl_error("send", &e))?;
                }
                if from_len > 0 {
                    group
                        .recv(inc.slice_mut(0..from_len), peer as i32)
                        .map_err(|e| nccl_error("receive", &e))?;
                }
            }
        }
        incoming
            .iter()
            .enumerate()
            .map(|(from, buf)| {
                let mut host = vec![0u32; matrix[from * ranks + me] as usize];
                if !host.is_empty() {
                    self.stream
                        .memcpy_dtoh(&buf.slice(0..host.len()), &mut host)
                        .map_err(during("NCCL staging copy"))?;
                }
                Ok(host)
            })
            .collect::<Result<Vec<_>, BackendError>>()
            .and_then(|lists| {
                self.stream
                    .synchronize()
                    .map_err(during("NCCL synchronisation"))?;
                Ok(lists)
            })
    }

    fn all_reduce_sum(&mut self, values: &mut [u64]) -> Result<(), BackendError> {
        self.all_reduce(values, &ReduceOp::Sum)
    }

    fn all_reduce_max(&mut self, values: &mut [u64]) -> Result<(), BackendError> {
        self.all_reduce(values, &ReduceOp::Max)
    }

    fn abort(&self) {
        // cudarc aborts the communicator when it is dropped; the ranks of a
        // failed command are dropped with it, so nothing waits on this one.
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_nccl_is_a_typed_error_naming_the_link_to_make() {
        let error = nccl_missing();
        assert_eq!(error.kind(), BackendErrorKind::Unavailable);
        assert!(
            error
                .message()
                .starts_with("NCCL (libnccl.so) could not be loaded. Fix: "),
            "{error}"
        );
        assert!(error.message().contains("libnccl.so"), "{error}");
    }

    #[test]
    fn the_nccl_directory_variable_is_searched_first() {
        let first = nccl_candidates(Some("/opt/some-nccl".into()))
            .into_iter()
            .next();
        assert_eq!(first, Some(PathBuf::from("/opt/some-nccl/libnccl.so.2")));
    }
}
