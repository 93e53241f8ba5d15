//! [`RankRows`]: the edges one rank stores.

use std::ops::Range;

use super::{Partition, PartitionError};
use crate::memory::try_with_capacity;
use crate::{Csr, Graph};

/// Rows of the vertices one rank owns, in CSR form with global ids: the
/// out-edges, and for directed graphs the in-edges (bottom-up levels scan
/// them). A symmetric graph's in-edges are its out-edges, stored once.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct RankRows {
    range: Range<u32>,
    out: LocalRows,
    incoming: Option<LocalRows>,
}

/// CSR rows of a vertex range: `offsets[i]..offsets[i + 1]` are the
/// neighbours of vertex `range.start + i`.
#[derive(Clone, Debug, Eq, PartialEq)]
struct LocalRows {
    offsets: Vec<u64>,
    targets: Vec<u32>,
}

impl LocalRows {
    fn of(csr: &Csr, range: &Range<u32>) -> Result<Self, PartitionError> {
        let all = csr.offsets();
        let (lo, hi) = (all[range.start as usize], all[range.end as usize]);
        let count = range.len() + 1;
        let mut offsets = try_with_capacity(count, || format!("{count} rank row offsets"))?;
        offsets.extend(
            all[range.start as usize..=range.end as usize]
                .iter()
                .map(|o| o - lo),
        );
        let edges = (hi - lo) as usize;
        let mut targets = try_with_capacity(edges, || format!("{edges} rank row targets"))?;
        targets.extend_from_slice(&csr.targets()[lo as usize..hi as usize]);
        Ok(Self { offsets, targets })
    }

    fn row(&self, local: usize) -> &[u32] {
        let (lo, hi) = (self.offsets[local], self.offsets[local + 1]);
        &self.targets[lo as usize..hi as usize]
    }

    fn bytes(&self) -> u64 {
        self.offsets.len() as u64 * 8 + self.targets.len() as u64 * 4
    }
}

impl RankRows {
    /// Rank `rank`'s rows of `graph` under `partition`.
    ///
    /// # Errors
    ///
    /// [`PartitionError::Memory`] when the rows cannot be allocated;
    /// [`PartitionError::OtherGraph`] when the partition is not `graph`'s.
    pub fn of(graph: &Graph, partition: &Partition, rank: u32) -> Result<Self, PartitionError> {
        if partition.vertex_count() != graph.vertex_count() {
            return Err(PartitionError::OtherGraph {
                partitioned: partition.vertex_count(),
                vertices: graph.vertex_count(),
            });
        }
        let range = partition.range(rank);
        let out = LocalRows::of(graph.out_edges(), &range)?;
        let incoming = if graph.is_symmetric() {
            None
        } else {
            Some(LocalRows::of(graph.in_edges(), &range)?)
        };
        Ok(Self {
            range,
            out,
            incoming,
        })
    }

    /// The vertices whose rows these are.
    #[must_use]
    pub fn range(&self) -> Range<u32> {
        self.range.clone()
    }

    /// Out-neighbours (global ids) of owned vertex `v`.
    ///
    /// # Panics
    ///
    /// When `v` is not owned.
    #[must_use]
    pub fn out_neighbors(&self, v: u32) -> &[u32] {
        self.out.row(self.local(v))
    }

    /// In-neighbours (global ids) of owned vertex `v`.
    ///
    /// # Panics
    ///
    /// When `v` is not owned.
    #[must_use]
    pub fn in_neighbors(&self, v: u32) -> &[u32] {
        self.incoming
            .as_ref()
            .unwrap_or(&self.out)
            .row(self.local(v))
    }

    /// Out-degree of owned vertex `v`.
    ///
    /// # Panics
    ///
    /// When `v` is not owned.
    #[must_use]
    pub fn out_degree(&self, v: u32) -> u64 {
        self.out_neighbors(v).len() as u64
    }

    /// The out-edge rows as CSR arrays: `offsets` (one per owned vertex
    /// plus one, from 0) and the global ids they index, for a device copy.
    #[must_use]
    pub fn out_csr(&self) -> (&[u64], &[u32]) {
        (&self.out.offsets, &self.out.targets)
    }

    /// The in-edge rows as CSR arrays, or `None` for a symmetric graph,
    /// whose in-edges are its out-edges ([`RankRows::out_csr`]).
    #[must_use]
    pub fn in_csr(&self) -> Option<(&[u64], &[u32])> {
        self.incoming
            .as_ref()
            .map(|r| (&r.offsets[..], &r.targets[..]))
    }

    /// Stored edges (out-edges, plus in-edges when held separately).
    #[must_use]
    pub fn stored_edges(&self) -> u64 {
        self.out.targets.len() as u64 + self.incoming.as_ref().map_or(0, |r| r.targets.len() as u64)
    }

    /// Bytes the rows occupy.
    #[must_use]
    pub fn bytes(&self) -> u64 {
        self.out.bytes() + self.incoming.as_ref().map_or(0, LocalRows::bytes)
    }

    fn local(&self, v: u32) -> usize {
        assert!(
            self.range.contains(&v),
            "vertex {v} is not owned by this rank"
        );
        (v - self.range.start) as usize
    }
}
