//! [`Levels`]: one command's levels on every rank, the exchange between
//! them, and the all-reduced counts that make each level's record.

use std::time::Instant;

use vyre_driver::backend::{BackendError, CheckedCommand, LaunchShape, LevelRecord};
use vyre_driver::collective::{ExchangeKind, reduced_level};
use vyre_graph::partition::Partition;

use super::collective::{DeviceCollective, Transfer};
use super::state::{LEVEL_COUNTS, RANK_COUNTS, RankState};
use crate::device::Device;
use crate::error::during;
use crate::kernels::{Launch, launch_rank};

/// Everything a command's levels touch.
pub(crate) struct Levels<'a> {
    pub devices: &'a mut [Device],
    pub ranks: &'a mut [RankState],
    pub collective: &'a mut dyn DeviceCollective,
    pub partition: &'a Partition,
    pub launch: LaunchShape,
}

/// Which rank kernel to launch.
#[derive(Clone, Copy)]
enum Kernel {
    Expand,
    Merge,
    FrontierWords,
    Pull,
}

/// The engine's grid for a kernel over `items` items (none when there is
/// nothing to do).
fn grid(launch: &LaunchShape, items: u64) -> Option<Launch> {
    (items > 0).then(|| Launch {
        blocks: launch.workgroups_for_items(items),
        width: launch.workgroup_size_x,
        shared_bytes: 0,
    })
}

impl Levels<'_> {
    /// Run up to `command.max_levels` levels; the records and the bytes
    /// read back.
    pub(crate) fn run(
        &mut self,
        command: &CheckedCommand,
    ) -> Result<(Vec<LevelRecord>, u64), BackendError> {
        let exchange = ExchangeKind::of(command.topology);
        let mut frontier_in = command.position.frontier_len;
        let mut records = Vec::new();
        let mut readback = 0;
        for k in 0..command.max_levels {
            let level = command.position.level + k;
            let started = Instant::now();
            match exchange {
                ExchangeKind::Lists => {
                    self.each(level, Kernel::Expand)?;
                    readback += self.exchange_lists()?;
                    self.each(level, Kernel::Merge)?;
                }
                ExchangeKind::Bitmap => {
                    self.each(level, Kernel::FrontierWords)?;
                    self.gather_frontier()?;
                    self.each(level, Kernel::Pull)?;
                }
            }
            let (counts, bytes) = self.finish_level()?;
            readback += bytes;
            let ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            let (record, last) = reduced_level(command, k, frontier_in, counts, ns);
            records.push(record);
            if last {
                break;
            }
            frontier_in = record.frontier_out;
        }
        Ok((records, readback))
    }

    /// Prepare and launch `kernel` on every rank with work for it.
    fn each(&mut self, level: u32, kernel: Kernel) -> Result<(), BackendError> {
        for r in 0..self.ranks.len() {
            let rank = &mut self.ranks[r];
            let stream = std::sync::Arc::clone(&rank.stream);
            let items = match kernel {
                Kernel::Expand => {
                    stream
                        .memset_zeros(&mut rank.words)
                        .map_err(during("sent bits clear"))?;
                    stream
                        .memset_zeros(&mut rank.outbox_len)
                        .map_err(during("outbox clear"))?;
                    rank.frontier_len * 32
                }
                Kernel::Merge => rank.pair_count,
                Kernel::FrontierWords => {
                    stream
                        .memset_zeros(&mut rank.block)
                        .map_err(during("frontier words clear"))?;
                    rank.frontier_len
                }
                Kernel::Pull => rank.owned() as u64,
            };
            let Some(grid) = grid(&self.launch, items) else {
                continue;
            };
            let kernels = &self.devices[rank.device].kernels.rank;
            let function = match kernel {
                Kernel::Expand => &kernels.expand,
                Kernel::Merge => &kernels.merge,
                Kernel::FrontierWords => &kernels.frontier_words,
                Kernel::Pull => &kernels.pull,
            };
            launch_rank(&stream, function, grid, &rank.args(level))?;
        }
        Ok(())
    }

    /// All-gather every rank's pair count per destination, read the counts
    /// back, then move the pairs. Returns the bytes read back.
    fn exchange_lists(&mut self) -> Result<u64, BackendError> {
        let p = self.ranks.len();
        {
            let (send, mut recv): (Vec<_>, Vec<_>) = self
                .ranks
                .iter_mut()
                .map(|r| (r.outbox_len.slice(0..p), &mut r.matrix))
                .unzip();
            self.collective.all_gather(&send, &mut recv)?;
        }
        // Every rank gathered the same matrix: rank 0's is read.
        let mut matrix = vec![0u32; p * p];
        let first = &self.ranks[0];
        let watchdog = &mut self.devices[first.device].watchdog;
        watchdog.wait(&first.stream, "the pair counts' all-gather")?;
        first
            .stream
            .memcpy_dtoh(&first.matrix.slice(0..p * p), &mut matrix)
            .map_err(during("pair count readback"))?;
        watchdog.wait(&first.stream, "the pair count readback")?;
        let mut transfers = Vec::new();
        for to in 0..p {
            let mut at = 0;
            for from in (0..p).filter(|&from| from != to) {
                let len = 2 * matrix[from * p + to] as usize;
                let starts = &self.ranks[from].outbox_start;
                let (start, end) = (starts[to] as usize, starts[to + 1] as usize);
                if start + len > end {
                    return Err(BackendError::device(format!(
                        "rank {from} queued {} pairs for rank {to}, which has room for {}. Fix: this is a bug in vyre's CUDA ranks; report it with the graph.",
                        len / 2,
                        (end - start) / 2
                    )));
                }
                if len > 0 {
                    transfers.push(Transfer {
                        from,
                        to,
                        from_offset: start,
                        to_offset: at,
                        len,
                    });
                }
                at += len;
            }
            self.ranks[to].reserve_inbox(at)?;
            self.ranks[to].pair_count = (at / 2) as u64;
        }
        let (outboxes, mut inboxes): (Vec<_>, Vec<_>) = self
            .ranks
            .iter_mut()
            .map(|r| (&r.outbox, &mut r.inbox))
            .unzip();
        self.collective
            .send_recv(&outboxes, &mut inboxes, &transfers)?;
        Ok(4 * (p * p) as u64)
    }

    /// All-gather every rank's frontier words, then place each rank's block
    /// at its words of the whole bitmap.
    fn gather_frontier(&mut self) -> Result<(), BackendError> {
        {
            let block = self.partition.max_words().max(1);
            let (send, mut recv): (Vec<_>, Vec<_>) = self
                .ranks
                .iter_mut()
                .map(|r| (r.block.slice(0..block), &mut r.gathered))
                .unzip();
            self.collective.all_gather(&send, &mut recv)?;
        }
        let block = self.partition.max_words();
        for rank in self.ranks.iter_mut() {
            for q in 0..self.partition.ranks() {
                let words = self.partition.words(q);
                if words.is_empty() {
                    continue;
                }
                let from = q as usize * block;
                rank.stream
                    .memcpy_dtod(
                        &rank.gathered.slice(from..from + words.len()),
                        &mut rank.words.slice_mut(words),
                    )
                    .map_err(during("frontier bitmap copy"))?;
            }
        }
        Ok(())
    }

    /// All-reduce the level's counts, read them and each rank's discoveries
    /// back, and make the discoveries the frontier. Returns the summed
    /// counts and the bytes read back.
    fn finish_level(&mut self) -> Result<([u64; LEVEL_COUNTS], u64), BackendError> {
        {
            let (send, mut recv): (Vec<_>, Vec<_>) = self
                .ranks
                .iter_mut()
                .map(|r| (r.counts.slice(0..LEVEL_COUNTS), &mut r.totals))
                .unzip();
            self.collective.all_reduce_sum(&send, &mut recv)?;
        }
        self.wait_all("a level's kernels and exchange")?;
        let mut totals = [0u64; LEVEL_COUNTS];
        let mut counts = vec![[0u64; RANK_COUNTS]; self.ranks.len()];
        let first = &self.ranks[0];
        first
            .stream
            .memcpy_dtoh(&first.totals.slice(0..LEVEL_COUNTS), &mut totals[..])
            .map_err(during("level count readback"))?;
        for (rank, host) in self.ranks.iter().zip(counts.iter_mut()) {
            rank.stream
                .memcpy_dtoh(&rank.counts.slice(0..RANK_COUNTS), &mut host[..])
                .map_err(during("rank count readback"))?;
        }
        self.wait_all("the level's count readback")?;
        for (rank, host) in self.ranks.iter_mut().zip(&counts) {
            rank.advance(host[0])?;
        }
        let bytes = 8 * (LEVEL_COUNTS + RANK_COUNTS * self.ranks.len()) as u64;
        Ok((totals, bytes))
    }

    /// Wait for every GPU's stream, within each one's limit.
    pub(crate) fn wait_all(&mut self, what: &str) -> Result<(), BackendError> {
        for device in self.devices.iter_mut() {
            let stream = std::sync::Arc::clone(&device.stream);
            device.watchdog.wait(&stream, what)?;
        }
        Ok(())
    }
}
