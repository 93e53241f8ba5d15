//! [`RankSearch`]: one rank's part of a partitioned search, and the
//! exchange plans between ranks ([`Outbox`], [`assemble_bitmap`]).

use std::ops::Range;

use super::{Partition, PartitionError, RANK_ALIGN, RankRows};
use crate::UNREACHED;
use crate::bfs::steps::StepStats;
use crate::memory::try_with_capacity;

/// What a top-down level sends: for each destination rank, the vertices it
/// owns that this rank discovered, as `(vertex, parent)` pairs flattened
/// into one list (the all-to-all's per-destination buffers).
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct Outbox {
    lists: Vec<Vec<u32>>,
}

impl Outbox {
    /// Empty lists for `ranks` destinations.
    #[must_use]
    pub fn new(ranks: u32) -> Self {
        Self {
            lists: vec![Vec::new(); ranks as usize],
        }
    }

    /// The list for each destination rank: `[v0, parent0, v1, parent1, ...]`.
    #[must_use]
    pub fn lists(&self) -> &[Vec<u32>] {
        &self.lists
    }

    /// Empty every list (keeping their memory for the next level).
    pub fn clear(&mut self) {
        self.lists.iter_mut().for_each(Vec::clear);
    }

    /// Pairs queued for all destinations.
    #[must_use]
    pub fn pairs(&self) -> u64 {
        self.lists.iter().map(|l| l.len() as u64 / 2).sum()
    }
}

/// Copy an all-gathered bitmap (`ranks` blocks of `partition.max_words()`
/// words, rank `r`'s owned words first in block `r`) into the global bitmap
/// `out` (one bit per vertex of the graph).
///
/// # Panics
///
/// When `gathered` or `out` are shorter than the partition needs.
pub fn assemble_bitmap(partition: &Partition, gathered: &[u32], out: &mut [u32]) {
    let block = partition.max_words();
    for r in 0..partition.ranks() {
        let words = partition.words(r);
        let from = r as usize * block;
        out[words.clone()].copy_from_slice(&gathered[from..from + words.len()]);
    }
}

/// One rank's share of a search: depth, parent and visited bit of each
/// vertex it owns, its part of the frontier, and what it already sent this
/// level. Only the owner ever sets a vertex's depth and parent, so every
/// level is exact once the exchange has delivered each discovery to its
/// owner.
#[derive(Clone, Debug)]
pub struct RankSearch {
    range: Range<u32>,
    depths: Vec<u32>,
    parents: Vec<u32>,
    /// Visited bits of the owned range (its start is word-aligned).
    visited: Vec<u32>,
    frontier: Vec<u32>,
    next: Vec<u32>,
    /// Global bits of the vertices sent to another rank this level, so a
    /// vertex reached by many edges is sent once.
    sent: Vec<u32>,
    sent_list: Vec<u32>,
}

impl RankSearch {
    /// The state of the rank owning `range` of a graph of `vertex_count`
    /// vertices, every vertex unreached.
    ///
    /// # Errors
    ///
    /// [`PartitionError::Memory`] when the state cannot be allocated.
    pub fn new(range: Range<u32>, vertex_count: u32) -> Result<Self, PartitionError> {
        let owned = range.len();
        let filled = |len: usize, value: u32, what: &str| {
            let mut v = try_with_capacity(len, || format!("{len} words of a rank's {what}"))?;
            v.resize(len, value);
            Ok::<_, PartitionError>(v)
        };
        Ok(Self {
            depths: filled(owned, UNREACHED, "depths")?,
            parents: filled(owned, UNREACHED, "parents")?,
            visited: filled(owned.div_ceil(RANK_ALIGN as usize), 0, "visited bits")?,
            sent: filled(vertex_count.div_ceil(32) as usize, 0, "sent bits")?,
            range,
            frontier: Vec::new(),
            next: Vec::new(),
            sent_list: Vec::new(),
        })
    }

    /// Every owned vertex unreached, then each owned vertex of `sources` a
    /// root (depth 0, its own parent) and the owned frontier.
    pub fn start(&mut self, sources: &[u32]) {
        self.depths.fill(UNREACHED);
        self.parents.fill(UNREACHED);
        self.visited.fill(0);
        self.frontier.clear();
        self.next.clear();
        for &s in sources {
            if self.range.contains(&s) {
                self.claim(s, s, 0);
            }
        }
        std::mem::swap(&mut self.frontier, &mut self.next);
    }

    /// The owned vertices of the current frontier.
    #[must_use]
    pub fn frontier(&self) -> &[u32] {
        &self.frontier
    }

    /// Top-down level `level`: expand every owned frontier vertex; claim
    /// the owned unvisited targets here and queue each other target once,
    /// with its parent, for its owner. Returns the edges examined.
    pub fn expand(
        &mut self,
        rows: &RankRows,
        partition: &Partition,
        level: u32,
        outbox: &mut Outbox,
    ) -> u64 {
        outbox.clear();
        for &v in &self.sent_list {
            self.sent[(v / 32) as usize] = 0;
        }
        self.sent_list.clear();
        let mut examined = 0;
        let frontier = std::mem::take(&mut self.frontier);
        for &u in &frontier {
            let targets = rows.out_neighbors(u);
            examined += targets.len() as u64;
            for &v in targets {
                if self.range.contains(&v) {
                    self.claim(v, u, level + 1);
                    continue;
                }
                let (word, bit) = ((v / 32) as usize, 1 << (v % 32));
                if self.sent[word] & bit != 0 {
                    continue;
                }
                self.sent[word] |= bit;
                self.sent_list.push(v);
                let list = &mut outbox.lists[partition.owner(v) as usize];
                list.push(v);
                list.push(u);
            }
        }
        self.frontier = frontier;
        examined
    }

    /// Take the `(vertex, parent)` pairs other ranks sent this rank at level
    /// `level` (in order: the first arrival of an unvisited vertex wins;
    /// every sender is a valid parent, all are at depth `level`).
    /// Pairs for vertices this rank does not own are ignored.
    pub fn merge(&mut self, pairs: &[u32], level: u32) {
        for pair in pairs.chunks_exact(2) {
            let (v, parent) = (pair[0], pair[1]);
            if self.range.contains(&v) {
                self.claim(v, parent, level + 1);
            }
        }
    }

    /// The owned frontier as bitmap words of the owned range, written into
    /// `out` (the rank's block of a bitmap all-gather; words past the owned
    /// range stay zero).
    ///
    /// # Panics
    ///
    /// When `out` has fewer words than the owned range.
    pub fn frontier_words(&self, out: &mut [u32]) {
        out.fill(0);
        for &v in &self.frontier {
            let local = v - self.range.start;
            out[(local / 32) as usize] |= 1 << (local % 32);
        }
    }

    /// Bottom-up level `level`: each owned unvisited vertex takes the first
    /// in-neighbour set in `global` (the whole frontier, one bit per vertex
    /// of the graph) as its parent. Returns the edges examined.
    ///
    /// # Panics
    ///
    /// When `global` does not cover the graph.
    pub fn pull(&mut self, rows: &RankRows, global: &[u32], level: u32) -> u64 {
        let mut examined = 0;
        for v in self.range.clone() {
            if self.is_visited(v) {
                continue;
            }
            for &u in rows.in_neighbors(v) {
                examined += 1;
                if global[(u / 32) as usize] & (1 << (u % 32)) != 0 {
                    self.claim(v, u, level + 1);
                    break;
                }
            }
        }
        examined
    }

    /// End the level: the vertices claimed since the last call become the
    /// owned frontier. Returns the rank's counts: its discoveries, their
    /// out-edges and `edges_examined`.
    pub fn advance(&mut self, rows: &RankRows, edges_examined: u64) -> StepStats {
        std::mem::swap(&mut self.frontier, &mut self.next);
        self.next.clear();
        StepStats {
            frontier_out: self.frontier.len() as u32,
            frontier_out_edges: self.frontier.iter().map(|&v| rows.out_degree(v)).sum(),
            edges_examined,
        }
    }

    /// Write the owned depths into their range of `out` (one entry per
    /// vertex of the graph).
    ///
    /// # Panics
    ///
    /// When `out` does not cover the owned range.
    pub fn write_depths(&self, out: &mut [u32]) {
        out[self.range.start as usize..self.range.end as usize].copy_from_slice(&self.depths);
    }

    /// Write the owned parents into their range of `out`.
    ///
    /// # Panics
    ///
    /// When `out` does not cover the owned range.
    pub fn write_parents(&self, out: &mut [u32]) {
        out[self.range.start as usize..self.range.end as usize].copy_from_slice(&self.parents);
    }

    /// Bytes the state occupies.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        4 * (self.depths.capacity()
            + self.parents.capacity()
            + self.visited.capacity()
            + self.frontier.capacity()
            + self.next.capacity()
            + self.sent.capacity()
            + self.sent_list.capacity()) as u64
    }

    fn is_visited(&self, v: u32) -> bool {
        let local = v - self.range.start;
        self.visited[(local / 32) as usize] & (1 << (local % 32)) != 0
    }

    /// Claim owned `v` at `depth` with `parent` unless visited; a claimed
    /// vertex joins the next frontier.
    fn claim(&mut self, v: u32, parent: u32, depth: u32) -> bool {
        if self.is_visited(v) {
            return false;
        }
        let local = v - self.range.start;
        self.visited[(local / 32) as usize] |= 1 << (local % 32);
        self.depths[local as usize] = depth;
        self.parents[local as usize] = parent;
        self.next.push(v);
        true
    }
}
