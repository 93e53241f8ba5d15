//! The two batched level steps.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::BatchState;
use crate::Graph;
use crate::bfs::steps::StepStats;

/// Lanes of a word: searches one pass runs at most.
pub const LANES: u32 = 64;

/// The low `lanes` bits.
pub(super) fn mask_of(lanes: u32) -> u64 {
    if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    }
}

/// What one batched level step found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BatchStep {
    /// Counts over the vertices with any lane active (as a single step's).
    pub stats: StepStats,
    /// Vertices first reached by each lane.
    pub lanes: [u32; LANES as usize],
    /// With a push: the next frontier's vertices, in no set order.
    pub next: Vec<u32>,
}

impl Default for BatchStep {
    fn default() -> Self {
        Self {
            stats: StepStats::default(),
            lanes: [0; LANES as usize],
            next: Vec::new(),
        }
    }
}

impl BatchStep {
    fn merge(mut self, other: Self) -> Self {
        self.stats += other.stats;
        for (a, b) in self.lanes.iter_mut().zip(other.lanes) {
            *a += b;
        }
        self.next.extend_from_slice(&other.next);
        self
    }

    fn count(&mut self, mut found: u64) {
        while found != 0 {
            self.lanes[found.trailing_zeros() as usize] += 1;
            found &= found - 1;
        }
    }
}

/// Frontier vertices per parallel task of a push.
const PUSH_TASK: usize = 64;
/// Vertices per parallel task of a pull.
const PULL_TASK: usize = 4096;

impl BatchState {
    fn record(&self, v: u32, found: u64, depth: u32) {
        if let Some(depths) = &self.depths {
            let row = v as usize * self.lanes as usize;
            let mut bits = found;
            while bits != 0 {
                depths[row + bits.trailing_zeros() as usize].store(depth, Relaxed);
                bits &= bits - 1;
            }
        }
    }

    /// Top-down from `queue` (the vertices with words in array `from`, at
    /// depth `level`): each pushes its active lanes to its out-neighbours'
    /// unseen lanes. Consumes the frontier words; the next frontier's words
    /// go to the other array and its vertices to [`BatchStep::next`].
    pub fn push(&self, graph: &Graph, queue: &[u32], from: usize, level: u32) -> BatchStep {
        let to = 1 - from;
        if self.dirty[to].swap(false, Relaxed) {
            self.words[to].par_iter().for_each(|w| w.store(0, Relaxed));
        }
        let csr = graph.out_edges();
        let (source, target) = (&self.words[from], &self.words[to]);
        queue
            .par_chunks(PUSH_TASK)
            .fold(BatchStep::default, |mut acc, chunk| {
                for &u in chunk {
                    let active = source[u as usize].swap(0, Relaxed);
                    let neighbors = csr.neighbors(u);
                    acc.stats.edges_examined += neighbors.len() as u64;
                    for &v in neighbors {
                        let add = active & !self.seen[v as usize].load(Relaxed);
                        if add == 0 {
                            continue;
                        }
                        let found = add & !self.seen[v as usize].fetch_or(add, Relaxed);
                        if found == 0 {
                            continue;
                        }
                        acc.count(found);
                        self.record(v, found, level + 1);
                        if target[v as usize].fetch_or(found, Relaxed) == 0 {
                            acc.next.push(v);
                            acc.stats.frontier_out += 1;
                            acc.stats.frontier_out_edges += csr.degree(v);
                        }
                    }
                }
                acc
            })
            .reduce(BatchStep::default, BatchStep::merge)
    }

    /// Bottom-up from the words in array `from` (depth `level`): every
    /// vertex not yet seen by every lane gathers its in-neighbours' lanes it
    /// lacks, stopping once it has them all; the other array gets every
    /// vertex's new lanes (zero for most).
    pub fn pull(&self, graph: &Graph, from: usize, level: u32) -> BatchStep {
        let to = 1 - from;
        let incoming = graph.in_edges();
        let outgoing = graph.out_edges();
        let (source, target) = (&self.words[from], &self.words[to]);
        let step = target
            .par_iter()
            .enumerate()
            .with_min_len(PULL_TASK)
            .fold(BatchStep::default, |mut acc, (v, slot)| {
                let v = v as u32;
                let missing = self.mask & !self.seen[v as usize].load(Relaxed);
                let mut found = 0u64;
                if missing != 0 {
                    for &u in incoming.neighbors(v) {
                        acc.stats.edges_examined += 1;
                        found |= source[u as usize].load(Relaxed) & missing;
                        if found == missing {
                            break;
                        }
                    }
                }
                slot.store(found, Relaxed);
                if found != 0 {
                    self.seen[v as usize].fetch_or(found, Relaxed);
                    acc.count(found);
                    self.record(v, found, level + 1);
                    acc.stats.frontier_out += 1;
                    acc.stats.frontier_out_edges += outgoing.degree(v);
                }
                acc
            })
            .reduce(BatchStep::default, BatchStep::merge);
        self.dirty[from].store(true, Relaxed);
        step
    }
}
