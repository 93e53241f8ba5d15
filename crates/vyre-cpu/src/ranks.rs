//! [`CpuRanks`]: one graph partitioned over simulated ranks (threads of
//! this process) that exchange every level's frontier through the driver's
//! [`Communicator`] contract, exactly as GPUs do through NCCL. It is the
//! partitioned device for machines without several GPUs, and the check of
//! the partition, exchange and merge logic against the reference.

use std::sync::Arc;
use std::time::Instant;

use vyre_driver::backend::{
    Backend, BackendError, BackendErrorKind, BatchLayout, BatchReport, BatchSources,
    CheckedCommand, DeviceCapabilities, DeviceLayout, LevelRecord, SearchSources, WaveReport,
};
use vyre_driver::collective::{
    Communicator, ExchangeKind, RankPlan, ThreadGroup, batches_refused, rank_memory_error,
    reduced_level,
};
use vyre_graph::Graph;
use vyre_graph::partition::{Outbox, Partition, RankRows, RankSearch, assemble_bitmap};

use crate::backend::{check_len, not_uploaded};
use crate::capabilities::{HostDevice, available_memory, host_capabilities};

/// How to open simulated ranks.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct CpuRanksOpenRequest {
    /// Number of ranks (each one thread).
    pub ranks: u32,
    /// Bytes all ranks together may plan for, split evenly; `None` = the
    /// memory available now.
    pub memory_budget_bytes: Option<u64>,
}

/// One rank: its rows, its share of the search, and its exchange buffers.
struct Rank {
    rows: RankRows,
    search: RankSearch,
    outbox: Outbox,
    /// This rank's block of a bitmap all-gather.
    block: Vec<u32>,
    /// Every rank's block.
    gathered: Vec<u32>,
    /// The whole frontier, one bit per vertex.
    global: Vec<u32>,
}

struct Uploaded {
    graph: Arc<Graph>,
    partition: Partition,
    ranks: Vec<Rank>,
}

/// A partitioned device of simulated ranks.
pub struct CpuRanks {
    caps: DeviceCapabilities,
    ranks: u32,
    budget_per_rank: u64,
    uploaded: Option<Uploaded>,
}

impl CpuRanks {
    /// Open `request.ranks` simulated ranks.
    ///
    /// # Errors
    ///
    /// [`BackendError`] for 0 ranks or more than the partition supports.
    pub fn open(request: &CpuRanksOpenRequest) -> Result<Self, BackendError> {
        let ranks = request.ranks;
        if ranks == 0 || ranks > vyre_graph::partition::MAX_RANKS {
            return Err(BackendError::new(format!(
                "{ranks} simulated ranks were asked for. Fix: ask for 1 to {} ranks.",
                vyre_graph::partition::MAX_RANKS
            )));
        }
        let budget = request
            .memory_budget_bytes
            .or_else(available_memory)
            .unwrap_or(u64::MAX / 4);
        let caps = host_capabilities(HostDevice {
            device_name: format!("CPU, {ranks} simulated ranks (one thread each)"),
            barrier_reason: format!(
                "the graph is partitioned over {ranks} ranks and every level ends with an exchange between them; there is no barrier across ranks inside a launch"
            ),
            resident_lanes: ranks,
            budget,
            launch_overhead_ns: calibrate_level_ns(ranks),
        });
        Ok(Self {
            caps,
            ranks,
            budget_per_rank: budget / u64::from(ranks),
            uploaded: None,
        })
    }
}

/// Median cost of starting the ranks and one collective among them: what
/// a level costs beyond its work.
fn calibrate_level_ns(ranks: u32) -> f64 {
    let mut samples: Vec<u64> = (0..16)
        .map(|_| {
            let start = Instant::now();
            std::thread::scope(|scope| {
                for mut comm in ThreadGroup::new(ranks) {
                    scope.spawn(move || comm.all_reduce_max(&mut [0]));
                }
            });
            u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
        })
        .collect();
    samples.sort_unstable();
    samples[samples.len() / 2] as f64
}

impl Rank {
    /// Run up to `command.max_levels` levels with the other ranks through
    /// `comm`; every rank returns the same (all-reduced) records.
    fn run(
        &mut self,
        partition: &Partition,
        command: &CheckedCommand,
        mut comm: ThreadGroup,
    ) -> Result<Vec<LevelRecord>, BackendError> {
        let exchange = ExchangeKind::of(command.topology);
        let mut frontier_in = command.position.frontier_len;
        let mut records = Vec::new();
        for k in 0..command.max_levels {
            let level = command.position.level + k;
            let started = Instant::now();
            let examined = match exchange {
                ExchangeKind::Lists => {
                    let examined =
                        self.search
                            .expand(&self.rows, partition, level, &mut self.outbox);
                    for pairs in comm.all_to_all_v(self.outbox.lists())? {
                        self.search.merge(&pairs, level);
                    }
                    examined
                }
                ExchangeKind::Bitmap => {
                    self.search.frontier_words(&mut self.block);
                    comm.all_gather(&self.block, &mut self.gathered)?;
                    assemble_bitmap(partition, &self.gathered, &mut self.global);
                    self.search.pull(&self.rows, &self.global, level)
                }
            };
            let stats = self.search.advance(&self.rows, examined);
            let mut counts = [
                u64::from(stats.frontier_out),
                stats.frontier_out_edges,
                stats.edges_examined,
            ];
            comm.all_reduce_sum(&mut counts)?;
            let mut ns = [u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX)];
            comm.all_reduce_max(&mut ns)?;
            let (record, last) = reduced_level(command, k, frontier_in, counts, ns[0]);
            records.push(record);
            if last {
                break;
            }
            frontier_in = record.frontier_out;
        }
        Ok(records)
    }

    fn bytes(&self) -> u64 {
        let buffers = self.block.capacity() + self.gathered.capacity() + self.global.capacity();
        let lists: usize = self.outbox.lists().iter().map(Vec::capacity).sum();
        self.rows.bytes() + self.search.bytes() + 4 * (buffers + lists) as u64
    }
}

impl Backend for CpuRanks {
    fn capabilities(&self) -> &DeviceCapabilities {
        &self.caps
    }

    fn ranks(&self) -> u32 {
        self.ranks
    }

    fn partitioned(&self) -> bool {
        true
    }

    fn upload(&mut self, graph: &Arc<Graph>, layout: &DeviceLayout) -> Result<(), BackendError> {
        self.uploaded = None;
        let plan = RankPlan::for_upload(graph, layout, self.ranks, self.budget_per_rank)?;
        let partition = plan.partition;
        let n = graph.vertex_count();
        let block = partition.max_words();
        let memory = rank_memory_error;
        let ranks = (0..self.ranks)
            .map(|r| {
                Ok(Rank {
                    rows: RankRows::of(graph, &partition, r).map_err(memory)?,
                    search: RankSearch::new(partition.range(r), n).map_err(memory)?,
                    outbox: Outbox::new(self.ranks),
                    block: vec![0; block],
                    gathered: vec![0; block * self.ranks as usize],
                    global: vec![0; n.div_ceil(32) as usize],
                })
            })
            .collect::<Result<Vec<_>, BackendError>>()?;
        self.uploaded = Some(Uploaded {
            graph: Arc::clone(graph),
            partition,
            ranks,
        });
        Ok(())
    }

    fn allocated_bytes(&self) -> u64 {
        self.uploaded
            .as_ref()
            .map_or(0, |up| up.ranks.iter().map(Rank::bytes).sum())
    }

    fn begin_search(&mut self, sources: &SearchSources) -> Result<(), BackendError> {
        let up = self.uploaded.as_mut().ok_or_else(not_uploaded)?;
        for rank in &mut up.ranks {
            rank.search.start(sources.ids());
        }
        Ok(())
    }

    fn run_wave(&mut self, command: &CheckedCommand) -> Result<WaveReport, BackendError> {
        let started = Instant::now();
        let up = self.uploaded.as_mut().ok_or_else(not_uploaded)?;
        let partition = &up.partition;
        // A fresh group per command: a failed command leaves nothing behind.
        let group = ThreadGroup::new(self.ranks);
        let results: Vec<Result<Vec<LevelRecord>, BackendError>> = std::thread::scope(|scope| {
            let runs: Vec<_> = up
                .ranks
                .iter_mut()
                .zip(group)
                .map(|(rank, comm)| scope.spawn(move || rank.run(partition, command, comm)))
                .collect();
            runs.into_iter()
                .map(|run| run.join().unwrap_or_else(|_| Err(rank_panicked())))
                .collect()
        });
        // The first rank's own error explains the others' aborted
        // collectives; every rank's records are the same all-reduced ones.
        let mut records = None;
        let mut aborted = None;
        for result in results {
            match result {
                Ok(r) => records = records.or(Some(r)),
                Err(e) if e.kind() == BackendErrorKind::Device && aborted.is_none() => {
                    aborted = Some(e);
                }
                Err(e) => return Err(e),
            }
        }
        if let Some(e) = aborted {
            return Err(e);
        }
        let levels = records.ok_or_else(rank_panicked)?;
        let device_ns = levels.iter().filter_map(|l| l.device_ns).sum();
        Ok(WaveReport {
            levels,
            wall_ns: u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX),
            device_ns: Some(device_ns),
            readback_bytes: 0,
        })
    }

    fn read_depths(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        let up = self.uploaded.as_ref().ok_or_else(not_uploaded)?;
        check_len(out, up.graph.vertex_count())?;
        up.ranks.iter().for_each(|r| r.search.write_depths(out));
        Ok(())
    }

    fn read_parents(&mut self, out: &mut [u32]) -> Result<(), BackendError> {
        let up = self.uploaded.as_ref().ok_or_else(not_uploaded)?;
        check_len(out, up.graph.vertex_count())?;
        up.ranks.iter().for_each(|r| r.search.write_parents(out));
        Ok(())
    }

    fn begin_batch(&mut self, _: &BatchSources, _: &BatchLayout) -> Result<(), BackendError> {
        Err(batches_refused())
    }

    fn run_batch_wave(&mut self, _: &CheckedCommand) -> Result<BatchReport, BackendError> {
        Err(batches_refused())
    }

    fn read_batch_depths(&mut self, _: &mut [u32]) -> Result<(), BackendError> {
        Err(batches_refused())
    }
}

fn rank_panicked() -> BackendError {
    BackendError::device(
        "a simulated rank's thread panicked. Fix: this is a bug in vyre; report it with the graph and sources.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_graph::generate::chain;

    #[test]
    fn a_layout_of_another_graph_is_refused_with_a_fix() {
        let mut ranks = CpuRanks::open(&CpuRanksOpenRequest {
            ranks: 2,
            memory_budget_bytes: None,
        })
        .unwrap();
        let graph = Arc::new(chain(100).unwrap());
        let other = Arc::new(chain(90).unwrap());
        let layout = DeviceLayout::for_graph(&graph, ranks.capabilities(), 4).unwrap();
        ranks.upload(&graph, &layout).unwrap();
        let error = ranks.upload(&other, &layout).unwrap_err();
        assert_eq!(error.kind(), BackendErrorKind::InvalidRequest);
        assert!(error.message().contains("Fix: "), "{error}");
        assert_eq!(ranks.allocated_bytes(), 0, "nothing stays after a refusal");
    }
}
