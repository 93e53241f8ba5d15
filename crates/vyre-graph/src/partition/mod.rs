//! A 1-D partition of a graph's vertices across ranks (GPUs), and what one
//! rank holds and does in a search partitioned that way.
//!
//! Each rank owns a contiguous range of vertices, chosen so that every rank
//! holds about the same number of edges ([`Partition::balanced`]). Ranges
//! start on multiples of [`RANK_ALIGN`] vertices, so a rank's part of a
//! frontier bitmap is whole 32-bit words of the global bitmap: a bitmap
//! all-gather needs no shifting. A rank holds its own rows ([`RankRows`]):
//! the out-edges of its vertices with global target ids, and their in-edges
//! where the graph is directed.
//!
//! A search is owner-computes and level-synchronous ([`RankSearch`]): only a
//! vertex's owner sets its depth and parent. A top-down level expands each
//! rank's own frontier vertices and sends every discovered vertex with a
//! parent to its owner (per-destination lists, an all-to-all); a bottom-up
//! level gives every rank the whole frontier (each rank's owned words, an
//! all-gather) and lets each rank check its own unvisited vertices'
//! in-edges. Which exchange runs is not decided here.

mod error;
mod rank;
mod rows;

pub use error::PartitionError;
pub use rank::{Outbox, RankSearch, assemble_bitmap};
pub use rows::RankRows;

use std::ops::Range;

use crate::Graph;

/// Range starts are multiples of this many vertices (one bitmap word).
pub const RANK_ALIGN: u32 = 32;

/// Most ranks a partition has.
pub const MAX_RANKS: u32 = 4096;

/// How to partition a graph.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct PartitionRequest {
    /// Number of ranks (1 to [`MAX_RANKS`]).
    pub ranks: u32,
}

/// Contiguous vertex ranges, one per rank, covering every vertex once.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Partition {
    /// `starts[r]..starts[r + 1]` is rank `r`'s range; `ranks + 1` entries.
    starts: Vec<u32>,
}

impl Partition {
    /// Ranges balanced by weight, where a vertex weighs 1 plus its
    /// out-degree plus (directed graphs) its in-degree: the edges its owner
    /// stores and scans. Every range starts on a multiple of
    /// [`RANK_ALIGN`]; a rank's weight is at most `ceil(W / ranks) + 1`
    /// plus the heaviest aligned word of 32 vertices, `W` the total. Graphs
    /// with fewer than `32 x ranks` vertices leave some ranks empty (more
    /// ranks than vertices included): an empty rank takes part in every
    /// exchange with nothing to send, so any graph runs on any rank count.
    ///
    /// # Errors
    ///
    /// [`PartitionError`] for 0 ranks or more than [`MAX_RANKS`].
    pub fn balanced(graph: &Graph, request: &PartitionRequest) -> Result<Self, PartitionError> {
        let ranks = request.ranks;
        let n = graph.vertex_count();
        if ranks == 0 {
            return Err(PartitionError::NoRanks);
        }
        if ranks > MAX_RANKS {
            return Err(PartitionError::TooManyRanks { ranks });
        }
        // Prefix weights at each word boundary: prefix[k] = weight of
        // vertices 0..32k.
        let words = n.div_ceil(RANK_ALIGN) as usize;
        let mut prefix = Vec::with_capacity(words + 1);
        prefix.push(0u64);
        let mut total = 0u64;
        for k in 0..words as u32 {
            let first = k * RANK_ALIGN;
            let end = first.saturating_add(RANK_ALIGN).min(n);
            total += (first..end).map(|v| vertex_weight(graph, v)).sum::<u64>();
            prefix.push(total);
        }
        let mut starts = Vec::with_capacity(ranks as usize + 1);
        starts.push(0);
        for r in 1..ranks {
            let target = (u128::from(total) * u128::from(r)).div_ceil(u128::from(ranks));
            let word = prefix.partition_point(|&w| u128::from(w) < target);
            starts.push((word as u32).saturating_mul(RANK_ALIGN).min(n));
        }
        starts.push(n);
        Ok(Self { starts })
    }

    /// Number of ranks.
    #[must_use]
    pub fn ranks(&self) -> u32 {
        (self.starts.len() - 1) as u32
    }

    /// Number of vertices partitioned.
    #[must_use]
    pub fn vertex_count(&self) -> u32 {
        self.starts[self.starts.len() - 1]
    }

    /// The vertices rank `rank` owns (empty for a rank out of range).
    #[must_use]
    pub fn range(&self, rank: u32) -> Range<u32> {
        let r = rank as usize;
        match (self.starts.get(r), self.starts.get(r + 1)) {
            (Some(&start), Some(&end)) => start..end,
            _ => 0..0,
        }
    }

    /// The rank owning `v` (`ranks()` for a vertex out of range).
    #[must_use]
    pub fn owner(&self, v: u32) -> u32 {
        if v >= self.vertex_count() {
            return self.ranks();
        }
        // The last start <= v: empty ranges share a start with their
        // successor, which partition_point skips.
        (self.starts.partition_point(|&s| s <= v) - 1) as u32
    }

    /// The global bitmap words rank `rank`'s vertices occupy.
    #[must_use]
    pub fn words(&self, rank: u32) -> Range<usize> {
        let range = self.range(rank);
        if range.is_empty() {
            // Trailing empty ranges start at the (unaligned) vertex count.
            return 0..0;
        }
        (range.start / RANK_ALIGN) as usize..range.end.div_ceil(RANK_ALIGN) as usize
    }

    /// The most words any rank occupies: the block each contributes to a
    /// bitmap all-gather (a collective of equal-sized blocks).
    #[must_use]
    pub fn max_words(&self) -> usize {
        (0..self.ranks())
            .map(|r| self.words(r).len())
            .max()
            .unwrap_or(0)
    }
}

/// A vertex's weight in [`Partition::balanced`].
#[must_use]
pub fn vertex_weight(graph: &Graph, v: u32) -> u64 {
    let inbound = if graph.is_symmetric() {
        0
    } else {
        graph.in_edges().degree(v)
    };
    1 + graph.out_edges().degree(v) + inbound
}

#[cfg(test)]
mod tests;
