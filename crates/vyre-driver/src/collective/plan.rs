//! [`RankPlan`]: which vertices each rank owns and the bytes that costs
//! it, checked against each rank's budget before anything is allocated.

use vyre_graph::Graph;
use vyre_graph::partition::{Partition, PartitionError, PartitionRequest};

use crate::backend::{BackendError, BackendErrorKind, DeviceLayout, WORK_PIECE_EDGES};

/// What one rank holds for a partitioned graph, in bytes (upper bounds).
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct RankBytes {
    /// Its rows: out-edges with their offsets, and in-edges when the graph
    /// is directed.
    pub rows: u64,
    /// Depth, parent and visited bit of each owned vertex, two frontier
    /// queues, and one bit per vertex of the graph (what it sent this level).
    pub state: u64,
    /// Exchange buffers: the all-gathered and the assembled bitmap, and the
    /// largest lists a top-down level can send and receive (each vertex at
    /// most once per sender, never more than the sender's out-edges).
    pub exchange: u64,
    /// Scratch of a level: the frontier cut into pieces for edge-balanced
    /// expansion (two words per owned vertex and per [`WORK_PIECE_EDGES`]
    /// out-edges), and the level's counters and pair counts (a few words
    /// per pair of ranks).
    pub scratch: u64,
}

impl RankBytes {
    /// All of it.
    #[must_use]
    pub fn total(&self) -> u64 {
        self.rows
            .saturating_add(self.state)
            .saturating_add(self.exchange)
            .saturating_add(self.scratch)
    }
}

/// The partition of a graph across ranks (the one place it is decided:
/// [`Partition::balanced`]) and each rank's bytes.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct RankPlan {
    /// Which vertices each rank owns.
    pub partition: Partition,
    /// Bytes of each rank, by rank.
    pub bytes: Vec<RankBytes>,
}

impl RankPlan {
    /// Partition `graph` across as many ranks as `budgets` has entries and
    /// check each rank's bytes against its budget.
    ///
    /// # Errors
    ///
    /// [`BackendError`] (`InvalidRequest`) when the graph cannot be
    /// partitioned that way, or (`OutOfMemory`) naming the first rank whose
    /// share does not fit.
    pub fn for_graph(graph: &Graph, budgets: &[u64]) -> Result<Self, BackendError> {
        let ranks = u32::try_from(budgets.len()).unwrap_or(u32::MAX);
        let partition = Partition::balanced(graph, &PartitionRequest { ranks })
            .map_err(|e| BackendError::new(e.to_string()))?;
        let bytes: Vec<RankBytes> = (0..ranks)
            .map(|r| rank_bytes(graph, &partition, r))
            .collect();
        for (r, (need, &budget)) in bytes.iter().zip(budgets).enumerate() {
            if need.total() > budget {
                return Err(BackendError::with_kind(
                    BackendErrorKind::OutOfMemory,
                    format!(
                        "rank {r} of {ranks} needs {} bytes for its share of the graph ({} rows, {} search state, {} exchange buffers) but may use {budget}. Fix: use more ranks, devices with more memory, or a smaller graph.",
                        need.total(),
                        need.rows,
                        need.state,
                        need.exchange
                    ),
                ));
            }
        }
        Ok(Self { partition, bytes })
    }
}

impl RankPlan {
    /// What a partitioned backend's upload starts with: check that `layout`
    /// is `graph`'s, then [`RankPlan::for_graph`] with `ranks` budgets of
    /// `budget_per_rank`.
    ///
    /// # Errors
    ///
    /// [`BackendError`] (`InvalidRequest`) for a layout of another graph,
    /// else those of [`RankPlan::for_graph`].
    pub fn for_upload(
        graph: &Graph,
        layout: &DeviceLayout,
        ranks: u32,
        budget_per_rank: u64,
    ) -> Result<Self, BackendError> {
        if layout.vertex_count != graph.vertex_count() || layout.edge_count != graph.edge_count() {
            return Err(BackendError::new(
                "the layout is for another graph. Fix: compute the layout from this graph.",
            ));
        }
        Self::for_graph(graph, &vec![budget_per_rank; ranks as usize])
    }
}

/// A rank's rows or state that could not be allocated, as an
/// `OutOfMemory` error.
#[must_use]
pub fn rank_memory_error(error: PartitionError) -> BackendError {
    BackendError::with_kind(BackendErrorKind::OutOfMemory, error.to_string())
}

/// Pairs rank `rank` (storing `out_edges` out-edges) may queue for each
/// destination in one level: each vertex the destination owns at most once,
/// and never more than the edges the rank stores; nothing for itself.
#[must_use]
pub fn outbox_room(partition: &Partition, rank: u32, out_edges: u64) -> Vec<u64> {
    (0..partition.ranks())
        .map(|d| match d == rank {
            true => 0,
            false => (partition.range(d).len() as u64).min(out_edges),
        })
        .collect()
}

/// Words of a rank's piece list: a frontier of `owned` vertices with
/// `out_edges` out-edges cut into pieces of at most [`WORK_PIECE_EDGES`]
/// edges, two words per piece (at most one per vertex and one per full
/// piece).
#[must_use]
pub fn piece_list_words(owned: u64, out_edges: u64) -> u64 {
    2 * (owned + out_edges / WORK_PIECE_EDGES)
}

fn rank_bytes(graph: &Graph, partition: &Partition, rank: u32) -> RankBytes {
    let range = partition.range(rank);
    let owned = u64::from(range.end - range.start);
    let n = u64::from(graph.vertex_count());
    let offsets = graph.out_edges().offsets();
    let out_edges = offsets[range.end as usize] - offsets[range.start as usize];
    let in_rows = if graph.is_symmetric() {
        0
    } else {
        let offsets = graph.in_edges().offsets();
        8 * (owned + 1) + 4 * (offsets[range.end as usize] - offsets[range.start as usize])
    };
    let bitmap = n.div_ceil(32) * 4;
    let ranks = u64::from(partition.ranks());
    let others = ranks - 1;
    let sent: u64 = outbox_room(partition, rank, out_edges).iter().sum();
    RankBytes {
        rows: 8 * (owned + 1) + 4 * out_edges + in_rows,
        state: 8 * owned + owned.div_ceil(32) * 4 + 8 * owned + bitmap,
        exchange: 4 * partition.max_words() as u64 * ranks + bitmap + 8 * sent + 8 * others * owned,
        scratch: 4 * piece_list_words(owned, out_edges) + 8 * (ranks + 1) * (ranks + 8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vyre_graph::generate::{KroneckerSpec, chain, kronecker};

    #[test]
    fn a_destination_gets_room_for_each_vertex_it_owns_or_each_edge_sent() {
        let graph = chain(200).unwrap();
        let p = Partition::balanced(&graph, &PartitionRequest { ranks: 3 }).unwrap();
        let room = outbox_room(&p, 1, 1000);
        assert_eq!(room[1], 0, "nothing is queued for the rank itself");
        assert_eq!(room[0], p.range(0).len() as u64);
        assert_eq!(room[2], p.range(2).len() as u64);
        assert_eq!(outbox_room(&p, 1, 5), vec![5, 0, 5]);
    }

    #[test]
    fn every_rank_is_planned_and_a_small_budget_names_the_rank() {
        let graph = kronecker(KroneckerSpec {
            scale: 10,
            ..KroneckerSpec::default()
        })
        .unwrap();
        let plan = RankPlan::for_graph(&graph, &[u64::MAX; 3]).unwrap();
        assert_eq!(plan.partition.ranks(), 3);
        let rows: u64 = plan.bytes.iter().map(|b| b.rows).sum();
        // Each stored edge once (4 bytes), each vertex's offset once plus
        // one closing offset per rank (8 bytes).
        assert_eq!(
            rows,
            4 * graph.edge_count() + 8 * (u64::from(graph.vertex_count()) + 3)
        );
        let mut budgets = [u64::MAX; 3];
        budgets[1] = plan.bytes[1].total() - 1;
        let error = RankPlan::for_graph(&graph, &budgets).unwrap_err();
        assert_eq!(error.kind(), BackendErrorKind::OutOfMemory);
        assert!(error.message().starts_with("rank 1 of 3 needs"), "{error}");
        budgets[1] += 1;
        assert!(RankPlan::for_graph(&graph, &budgets).is_ok());
    }

    #[test]
    fn no_ranks_is_an_invalid_request_with_a_fix() {
        let graph = kronecker(KroneckerSpec {
            scale: 6,
            ..KroneckerSpec::default()
        })
        .unwrap();
        let error = RankPlan::for_graph(&graph, &[]).unwrap_err();
        assert_eq!(error.kind(), BackendErrorKind::InvalidRequest);
        assert!(error.message().contains("Fix: "), "{error}");
    }
}
