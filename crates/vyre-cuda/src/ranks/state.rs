//! [`RankState`]: what one rank holds on its GPU: its rows, the depth and
//! parent of the vertices it owns, its frontier queues, its counts and its
//! exchange buffers.

use std::ops::Range;
use std::sync::Arc;

use cudarc::driver::{
    CudaSlice, CudaStream, DevicePtr, DeviceRepr, PinnedHostSlice, ValidAsZeroBits,
};
use vyre_driver::backend::{BackendError, BackendErrorKind};
use vyre_driver::collective::{outbox_room, piece_list_words};
use vyre_graph::partition::{Partition, RankRows};

use crate::args::RankArgs;
use crate::error::during;

/// Words of [`RankState::counts`]: found, their out-edges, examined (the
/// level's counts, all-reduced), the level's pieces, then the frontier
/// length (`VYRE_RANK_*` in `common.cuh`).
pub(crate) const RANK_COUNTS: usize = 5;

/// Index of the frontier length in [`RankState::counts`]; every word before
/// it starts each level at zero.
const FRONTIER: usize = RANK_COUNTS - 1;

/// The level's counts the ranks all-reduce.
pub(crate) const LEVEL_COUNTS: usize = 3;

/// One rank's device buffers. Lengths are at least 1 (the driver refuses
/// empty allocations); the rank's range says how much is used.
pub(crate) struct RankState {
    /// Index of the GPU (and stream) the rank runs on.
    pub device: usize,
    pub range: Range<u32>,
    pub stream: Arc<CudaStream>,
    out_offsets: CudaSlice<u64>,
    out_targets: CudaSlice<u32>,
    /// In-edge rows of a directed graph; `None` when they are the out-edges.
    in_rows: Option<(CudaSlice<u64>, CudaSlice<u32>)>,
    pub depth: CudaSlice<u32>,
    pub parent: CudaSlice<u32>,
    pub queues: [CudaSlice<u32>; 2],
    /// The queue holding the current frontier.
    pub current: usize,
    /// Owned vertices in the current frontier (the host's copy).
    pub frontier_len: u64,
    /// Their out-edges (the host's copy).
    pub frontier_edges: u64,
    pub counts: CudaSlice<u64>,
    /// The level's counts summed over the ranks.
    pub totals: CudaSlice<u64>,
    /// One bit per vertex of the graph: during a top-down level, the
    /// vertices queued for their owners; during a bottom-up level, the whole
    /// frontier. A level uses only one of the two, so they share memory.
    pub words: CudaSlice<u32>,
    /// Whether no `sent` bit is set: a lists level clears the bits it set
    /// once its exchange is enqueued; a bitmap level or a failed level
    /// leaves `words` to be cleared before the next lists level.
    pub sent_clean: bool,
    /// Pairs this rank queued in the last lists level (sizes the clear).
    pub sent_pairs: u64,
    pub outbox: CudaSlice<u32>,
    pub outbox_len: CudaSlice<u32>,
    /// Where each destination's pairs start in `outbox` (ranks + 1 words).
    pub outbox_start: Vec<u64>,
    outbox_start_device: CudaSlice<u64>,
    starts: CudaSlice<u32>,
    /// Pairs queued per destination, by sender (ranks x ranks).
    pub matrix: CudaSlice<u32>,
    /// Page-locked copies the host reads a level's results from: copies
    /// into them are asynchronous, so one wait covers a level's kernels,
    /// collectives and readbacks.
    pub host: HostCopies,
    /// Pairs received this level (grown when a level needs more).
    pub inbox: CudaSlice<u32>,
    pub pair_count: u64,
    /// This rank's frontier words, and every rank's (a bitmap all-gather).
    pub block: CudaSlice<u32>,
    pub gathered: CudaSlice<u32>,
    /// The frontier's pieces, two words each (`vyre_rank_expand`).
    work: CudaSlice<u32>,
    ranks: u32,
}

/// The page-locked host buffers of one rank's readbacks.
pub(crate) struct HostCopies {
    /// The rank's [`RANK_COUNTS`] counts.
    pub counts: PinnedHostSlice<u64>,
    /// The all-reduced [`LEVEL_COUNTS`] counts.
    pub totals: PinnedHostSlice<u64>,
    /// The all-gathered pair counts (ranks x ranks).
    pub matrix: PinnedHostSlice<u32>,
}

/// `len` elements of page-locked host memory in the context of `stream`.
fn pinned<T: DeviceRepr>(
    stream: &Arc<CudaStream>,
    len: usize,
) -> Result<PinnedHostSlice<T>, BackendError> {
    // SAFETY: the host reads these elements only after a copy of as many
    // from the device completed (the copies cover the whole slice).
    unsafe { stream.context().alloc_pinned_with_flags(len, 0) }
        .map_err(during("pinned host allocation"))
}

/// Allocate `len` zeroed elements (at least 1).
pub(crate) fn zeros<T: DeviceRepr + ValidAsZeroBits>(
    stream: &Arc<CudaStream>,
    len: usize,
) -> Result<CudaSlice<T>, BackendError> {
    stream
        .alloc_zeros(len.max(1))
        .map_err(during("rank buffer allocation"))
}

/// A copy of `host` on the device (one zero when empty).
fn copy<T: DeviceRepr + ValidAsZeroBits>(
    stream: &Arc<CudaStream>,
    host: &[T],
) -> Result<CudaSlice<T>, BackendError> {
    if host.is_empty() {
        return zeros(stream, 1);
    }
    stream.clone_htod(host).map_err(during("rank row upload"))
}

/// Word offsets of each destination's pairs: `2 x room` each, in order.
pub(crate) fn outbox_starts(room: &[u64]) -> Vec<u64> {
    let mut starts = Vec::with_capacity(room.len() + 1);
    let mut at = 0u64;
    starts.push(0);
    for r in room {
        at += 2 * r;
        starts.push(at);
    }
    starts
}

/// Bytes [`RankState::upload`] allocates for `rows` (before any inbox
/// growth), to check against the rank's budget first.
pub(crate) fn planned_bytes(rows: &RankRows, partition: &Partition, rank: u32) -> u64 {
    let owned = rows.range().len() as u64;
    let ranks = u64::from(partition.ranks());
    let n = u64::from(partition.vertex_count());
    let out_edges = rows.out_csr().1.len() as u64;
    let outbox: u64 = outbox_room(partition, rank, out_edges).iter().sum::<u64>() * 2;
    let blocks = partition.max_words() as u64 * (ranks + 1);
    rows.bytes()
        + 4 * (4 * owned
            + n.div_ceil(32)
            + outbox
            + ranks * (ranks + 2)
            + 1
            + blocks
            + piece_list_words(owned, out_edges))
        + 8 * (RANK_COUNTS + LEVEL_COUNTS) as u64
        + 8 * (ranks + 1)
}

impl RankState {
    /// Copy `rows` of rank `rank` to the GPU of `stream`, with every buffer
    /// a search needs.
    pub(crate) fn upload(
        device: usize,
        stream: &Arc<CudaStream>,
        rows: &RankRows,
        partition: &Partition,
        rank: u32,
        budget: u64,
    ) -> Result<Self, BackendError> {
        let need = planned_bytes(rows, partition, rank);
        if need > budget {
            return Err(BackendError::with_kind(
                BackendErrorKind::OutOfMemory,
                format!(
                    "rank {rank} of {} needs {need} bytes of its GPU for its share of the graph but may use {budget}. Fix: use more GPUs, GPUs with more memory, or a smaller graph.",
                    partition.ranks()
                ),
            ));
        }
        let range = rows.range();
        let owned = range.len();
        let ranks = partition.ranks() as usize;
        let n = partition.vertex_count() as usize;
        let (offsets, targets) = rows.out_csr();
        let in_rows = match rows.in_csr() {
            Some((o, t)) => Some((copy(stream, o)?, copy(stream, t)?)),
            None => None,
        };
        let room = outbox_room(partition, rank, targets.len() as u64);
        let outbox_start = outbox_starts(&room);
        let outbox_words = usize::try_from(outbox_start[ranks]).unwrap_or(usize::MAX);
        let starts: Vec<u32> = (0..=partition.ranks())
            .map(|r| match r == partition.ranks() {
                true => partition.vertex_count(),
                false => partition.range(r).start,
            })
            .collect();
        let block = partition.max_words();
        let work = usize::try_from(piece_list_words(owned as u64, targets.len() as u64))
            .unwrap_or(usize::MAX);
        Ok(Self {
            device,
            range,
            stream: Arc::clone(stream),
            out_offsets: copy(stream, offsets)?,
            out_targets: copy(stream, targets)?,
            in_rows,
            depth: zeros(stream, owned)?,
            parent: zeros(stream, owned)?,
            queues: [zeros(stream, owned)?, zeros(stream, owned)?],
            current: 0,
            frontier_len: 0,
            frontier_edges: 0,
            counts: zeros(stream, RANK_COUNTS)?,
            totals: zeros(stream, LEVEL_COUNTS)?,
            words: zeros(stream, n.div_ceil(32))?,
            sent_clean: true,
            sent_pairs: 0,
            outbox: zeros(stream, outbox_words)?,
            outbox_len: zeros(stream, ranks)?,
            outbox_start_device: copy(stream, &outbox_start)?,
            outbox_start,
            starts: copy(stream, &starts)?,
            matrix: zeros(stream, ranks * ranks)?,
            host: HostCopies {
                counts: pinned(stream, RANK_COUNTS)?,
                totals: pinned(stream, LEVEL_COUNTS)?,
                matrix: pinned(stream, ranks * ranks)?,
            },
            inbox: zeros(stream, 1)?,
            pair_count: 0,
            block: zeros(stream, block)?,
            gathered: zeros(stream, block * ranks)?,
            work: zeros(stream, work)?,
            ranks: partition.ranks(),
        })
    }

    /// Vertices the rank owns.
    pub(crate) fn owned(&self) -> usize {
        self.range.len()
    }

    /// Make room for `words` words of received pairs.
    pub(crate) fn reserve_inbox(&mut self, words: usize) -> Result<(), BackendError> {
        if words > self.inbox.len() {
            self.inbox = zeros(&self.stream, words.next_power_of_two())?;
        }
        Ok(())
    }

    /// End a level that found `found` owned vertices with `edges`
    /// out-edges: they become the frontier (the other queue) and the counts
    /// start again from zero.
    pub(crate) fn advance(&mut self, found: u64, edges: u64) -> Result<(), BackendError> {
        let stream = Arc::clone(&self.stream);
        let (level, frontier) = self.counts.split_at_mut(FRONTIER);
        let mut frontier = frontier;
        stream
            .memcpy_dtod(&level.slice(0..1), &mut frontier)
            .map_err(during("frontier length copy"))?;
        let mut level = level;
        stream
            .memset_zeros(&mut level)
            .map_err(during("level count clear"))?;
        self.frontier_len = found;
        self.frontier_edges = edges;
        self.current = 1 - self.current;
        Ok(())
    }

    /// The kernels' arguments at `level`.
    pub(crate) fn args(&self, level: u32) -> RankArgs {
        let s = &self.stream;
        let p32 = |b: &CudaSlice<u32>| b.device_ptr(s).0;
        let p64 = |b: &CudaSlice<u64>| b.device_ptr(s).0;
        let (in_offsets, in_targets) = match &self.in_rows {
            Some((o, t)) => (p64(o), p32(t)),
            None => (p64(&self.out_offsets), p32(&self.out_targets)),
        };
        RankArgs {
            out_offsets: p64(&self.out_offsets),
            out_targets: p32(&self.out_targets),
            in_offsets,
            in_targets,
            depth: p32(&self.depth),
            parent: p32(&self.parent),
            queue_in: p32(&self.queues[self.current]),
            queue_out: p32(&self.queues[1 - self.current]),
            counts: p64(&self.counts),
            sent: p32(&self.words),
            outbox: p32(&self.outbox),
            outbox_len: p32(&self.outbox_len),
            outbox_start: p64(&self.outbox_start_device),
            starts: p32(&self.starts),
            pairs: p32(&self.inbox),
            bitmap: p32(&self.words),
            block: p32(&self.block),
            work: p32(&self.work),
            pair_count: self.pair_count,
            work_words: self.work.len() as u64,
            range_start: self.range.start,
            range_end: self.range.end,
            ranks: self.ranks,
            level,
        }
    }

    /// Bytes of every buffer.
    pub(crate) fn bytes(&self) -> u64 {
        let w = |b: &CudaSlice<u32>| b.num_bytes() as u64;
        let d = |b: &CudaSlice<u64>| b.num_bytes() as u64;
        d(&self.out_offsets)
            + w(&self.out_targets)
            + self.in_rows.as_ref().map_or(0, |(o, t)| d(o) + w(t))
            + [&self.depth, &self.parent, &self.queues[0], &self.queues[1]]
                .into_iter()
                .map(w)
                .sum::<u64>()
            + d(&self.counts)
            + d(&self.totals)
            + d(&self.outbox_start_device)
            + [
                &self.words,
                &self.outbox,
                &self.outbox_len,
                &self.starts,
                &self.matrix,
                &self.inbox,
                &self.block,
                &self.gathered,
                &self.work,
            ]
            .into_iter()
            .map(w)
            .sum::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_graph::generate::chain;
    use vyre_graph::partition::PartitionRequest;

    #[test]
    fn each_destinations_pairs_start_after_the_last_ones() {
        assert_eq!(outbox_starts(&[5, 0, 7]), vec![0, 10, 10, 24]);
    }

    #[test]
    fn the_planned_bytes_grow_with_the_rows_and_the_ranks() {
        let graph = chain(640).unwrap();
        let plan = |ranks| {
            let p = Partition::balanced(&graph, &PartitionRequest { ranks }).unwrap();
            let rows = RankRows::of(&graph, &p, 0).unwrap();
            (planned_bytes(&rows, &p, 0), rows.bytes())
        };
        let (two, rows_two) = plan(2);
        let (four, rows_four) = plan(4);
        assert!(two > rows_two && four > rows_four);
        assert!(rows_two > rows_four, "fewer rows per rank with more ranks");
    }

    #[test]
    fn every_rank_allocates_within_the_drivers_rank_plan() {
        use vyre_driver::collective::RankPlan;
        use vyre_graph::build::{BuildOptions, build_graph};
        use vyre_graph::generate::{KroneckerSpec, grid_2d, kronecker, star};

        // A hub, a long path, a mesh, a skewed graph, and a directed graph
        // with in-rows: the shapes whose rows and exchanges differ most.
        let directed: Vec<(u32, u32)> = (0..3000u32).map(|v| (v, (v * 7 + 1) % 3000)).collect();
        let graphs = [
            star(5000).unwrap(),
            chain(4000).unwrap(),
            grid_2d(70, 60).unwrap(),
            kronecker(KroneckerSpec {
                scale: 12,
                ..KroneckerSpec::default()
            })
            .unwrap(),
            build_graph(3000, &directed, BuildOptions::DIRECTED).unwrap(),
        ];
        for graph in &graphs {
            for ranks in 1..=4 {
                let plan = RankPlan::for_graph(graph, &vec![u64::MAX; ranks as usize]).unwrap();
                for rank in 0..ranks {
                    let rows = RankRows::of(graph, &plan.partition, rank).unwrap();
                    let cuda = planned_bytes(&rows, &plan.partition, rank);
                    let driver = plan.bytes[rank as usize];
                    assert!(
                        cuda <= driver.total(),
                        "{} vertices, rank {rank} of {ranks}: {cuda} bytes against {driver:?}",
                        graph.vertex_count()
                    );
                    assert_eq!(rows.bytes(), driver.rows, "rows are planned exactly");
                }
            }
        }
    }
}
