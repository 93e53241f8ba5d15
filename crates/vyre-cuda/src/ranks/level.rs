//! [`Levels`]: one command's levels on every rank, the exchange between
//! them, and the all-reduced counts that make each level's record.

use std::time::Instant;

use vyre_driver::backend::{BackendError, CheckedCommand, LaunchShape, LevelRecord};
use vyre_driver::collective::{ExchangeKind, reduced_level};
use vyre_graph::partition::Partition;

use super::collective::{DeviceCollective, Transfer};
use super::grid::{Kernel, grid};
use super::state::{LEVEL_COUNTS, RANK_COUNTS, RankState};
use crate::device::Device;
use crate::error::during;
use crate::kernels::launch_rank;

/// Everything a command's levels touch.
pub(crate) struct Levels<'a> {
    pub devices: &'a mut [Device],
    pub ranks: &'a mut [RankState],
    pub collective: &'a mut dyn DeviceCollective,
    pub partition: &'a Partition,
    pub launch: LaunchShape,
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
                    self.each(level, Kernel::ExpandPieces)?;
                    readback += self.exchange_lists()?;
                    self.each(level, Kernel::Merge)?;
                    self.each(level, Kernel::ClearSent)?;
                }
                ExchangeKind::Bitmap => {
                    for rank in self.ranks.iter_mut() {
                        rank.sent_clean = false;
                    }
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
            // One rank has no other rank to queue pairs for.
            let exchanges = self.partition.ranks() > 1;
            match kernel {
                Kernel::Expand if exchanges => {
                    if !rank.sent_clean {
                        stream
                            .memset_zeros(&mut rank.words)
                            .map_err(during("sent bits clear"))?;
                    }
                    rank.sent_clean = false;
                    stream
                        .memset_zeros(&mut rank.outbox_len)
                        .map_err(during("outbox clear"))?;
                }
                Kernel::FrontierWords => stream
                    .memset_zeros(&mut rank.block)
                    .map_err(during("frontier words clear"))?,
                _ => {}
            }
            if let Some(shape) = grid(kernel, rank, &self.launch) {
                let kernels = &self.devices[rank.device].kernels.rank;
                let function = match kernel {
                    Kernel::Expand => &kernels.expand,
                    Kernel::ExpandPieces => &kernels.expand_pieces,
                    Kernel::Merge => &kernels.merge,
                    Kernel::ClearSent => &kernels.clear_sent,
                    Kernel::FrontierWords => &kernels.frontier_words,
                    Kernel::Pull => &kernels.pull,
                };
                launch_rank(&stream, function, shape, &rank.args(level))?;
            }
            if kernel == Kernel::ClearSent {
                // Enqueued after the exchange (or nothing was sent): the
                // next level finds every bit clear.
                rank.sent_clean = true;
            }
        }
        Ok(())
    }

    /// All-gather every rank's pair count per destination, read the counts
    /// back, then move the pairs. Returns the bytes read back.
    fn exchange_lists(&mut self) -> Result<u64, BackendError> {
        let p = self.ranks.len();
        if p == 1 {
            // One rank owns every target: nothing was queued.
            self.ranks[0].pair_count = 0;
            self.ranks[0].sent_pairs = 0;
            return Ok(0);
        }
        {
            let (send, mut recv): (Vec<_>, Vec<_>) = self
                .ranks
                .iter_mut()
                .map(|r| (r.outbox_len.slice(0..p), &mut r.matrix))
                .unzip();
            self.collective.all_gather(&send, &mut recv)?;
        }
        // Every rank gathered the same matrix: rank 0's is read.
        let first = &mut self.ranks[0];
        first
            .stream
            .memcpy_dtoh(&first.matrix.slice(0..p * p), &mut first.host.matrix)
            .map_err(during("pair count readback"))?;
        let watchdog = &mut self.devices[first.device].watchdog;
        watchdog.wait(&first.stream, "the pair counts' all-gather and readback")?;
        let matrix = first
            .host
            .matrix
            .as_slice()
            .map_err(during("pair count readback"))?
            .to_vec();
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
        for (from, rank) in self.ranks.iter_mut().enumerate() {
            let row = &matrix[from * p..(from + 1) * p];
            rank.sent_pairs = row.iter().map(|&c| u64::from(c)).sum();
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
        // One rank's counts are the totals.
        let reduce = self.ranks.len() > 1;
        if reduce {
            let (send, mut recv): (Vec<_>, Vec<_>) = self
                .ranks
                .iter_mut()
                .map(|r| (r.counts.slice(0..LEVEL_COUNTS), &mut r.totals))
                .unzip();
            self.collective.all_reduce_sum(&send, &mut recv)?;
        }
        for rank in self.ranks.iter_mut() {
            rank.stream
                .memcpy_dtoh(&rank.counts.slice(0..RANK_COUNTS), &mut rank.host.counts)
                .map_err(during("rank count readback"))?;
        }
        let first = &mut self.ranks[0];
        if reduce {
            first
                .stream
                .memcpy_dtoh(&first.totals.slice(0..LEVEL_COUNTS), &mut first.host.totals)
                .map_err(during("level count readback"))?;
        }
        self.wait_all("a level's kernels, exchange and count readback")?;
        let mut counts = vec![[0u64; RANK_COUNTS]; self.ranks.len()];
        for (rank, host) in self.ranks.iter().zip(counts.iter_mut()) {
            let read = rank.host.counts.as_slice();
            host.copy_from_slice(read.map_err(during("rank count readback"))?);
        }
        let mut totals = [0u64; LEVEL_COUNTS];
        match reduce {
            true => {
                let read = self.ranks[0].host.totals.as_slice();
                totals.copy_from_slice(read.map_err(during("level count readback"))?);
            }
            false => totals.copy_from_slice(&counts[0][..LEVEL_COUNTS]),
        }
        for (rank, host) in self.ranks.iter_mut().zip(&counts) {
            rank.advance(host[0], host[1])?;
        }
        let reduced = if reduce { LEVEL_COUNTS } else { 0 };
        let bytes = 8 * (reduced + RANK_COUNTS * self.ranks.len()) as u64;
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
