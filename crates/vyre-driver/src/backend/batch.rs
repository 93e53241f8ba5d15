//! Batched searches: up to [`BATCH_LANES`] independent BFS searches in one
//! pass over the graph. Every vertex holds one 64-bit word per state (seen,
//! frontier, next) with one bit per search ("lane"), so one edge visit serves
//! every search at once.
//!
//! A batch pass runs the same waves as a single search: the engine plans
//! each with the seed policy from the batched frontier (the vertices with
//! any lane active and their out-edges) and sends an ordinary
//! [`super::CheckedCommand`] (from [`super::WaveCommand::check_batch`]:
//! `FusedWave` only where the backend says
//! [`super::DeviceCapabilities::batch_fused_wave`]) to
//! [`super::Backend::run_batch_wave`]. The
//! position's buffer and form name where the frontier lives:
//! - both forms keep the frontier's words in word array `buffer` (zero for
//!   vertices outside the frontier);
//! - the queue form also lists the frontier's vertices in queue `buffer`.
//!
//! Top-down topologies push a frontier vertex's active lanes to its
//! neighbours' unseen lanes; bottom-up ones let a vertex not yet seen by
//! every lane gather the OR of its in-neighbours' frontier words, stopping
//! once every missing lane is found.

use vyre_graph::Graph;

use super::WaveReport;
use super::position::SourceError;

/// Most searches one batch pass runs: one bit of a 64-bit word each.
pub const BATCH_LANES: u32 = 64;

/// The sources of one batch pass: lane `j` searches from source `j`. Only
/// [`BatchSources::new`] builds one. The same vertex may start two lanes:
/// the searches are independent.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct BatchSources {
    ids: Vec<u32>,
    distinct: u32,
    out_edges: u64,
}

impl BatchSources {
    /// Check `requested` (1 to [`BATCH_LANES`] vertices of `graph`).
    ///
    /// # Errors
    ///
    /// [`SourceError`] when `requested` is empty, longer than
    /// [`BATCH_LANES`] or names a vertex the graph does not have.
    pub fn new(requested: &[u32], graph: &Graph) -> Result<Self, SourceError> {
        let vertex_count = graph.vertex_count();
        if requested.is_empty() {
            return Err(SourceError::Empty);
        }
        if requested.len() > BATCH_LANES as usize {
            return Err(SourceError::TooManyLanes {
                given: requested.len(),
            });
        }
        if let Some(&source) = requested.iter().find(|&&s| s >= vertex_count) {
            return Err(SourceError::OutOfRange {
                source,
                vertex_count,
            });
        }
        let mut distinct: Vec<u32> = requested.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        let out_edges = distinct.iter().map(|&s| graph.out_edges().degree(s)).sum();
        Ok(Self {
            ids: requested.to_vec(),
            distinct: distinct.len() as u32,
            out_edges,
        })
    }

    /// Lane `j`'s source at index `j`.
    #[must_use]
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Lanes (1 to [`BATCH_LANES`]).
    #[must_use]
    pub fn lanes(&self) -> u32 {
        self.ids.len() as u32
    }

    /// The mask of the lanes in use: the low [`BatchSources::lanes`] bits.
    #[must_use]
    pub fn lane_mask(&self) -> u64 {
        lane_mask(self.lanes())
    }

    /// Distinct source vertices: the first frontier's length.
    #[must_use]
    pub fn distinct(&self) -> u32 {
        self.distinct
    }

    /// Out-edges of the distinct sources: the first frontier's edges.
    #[must_use]
    pub fn out_edges(&self) -> u64 {
        self.out_edges
    }

    /// Whether there are no lanes (never: a batch has at least one).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// The low `lanes` bits set (all 64 for 64 or more).
#[must_use]
pub fn lane_mask(lanes: u32) -> u64 {
    if lanes >= 64 {
        u64::MAX
    } else {
        (1u64 << lanes) - 1
    }
}

/// The device memory a batch pass needs beyond the search layout (whose
/// queues, control block and level history it shares). The engine plans it
/// against the budget before [`super::Backend::begin_batch`] allocates it.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct BatchLayout {
    /// Vertices of the graph.
    pub vertex_count: u32,
    /// Lanes of the pass.
    pub lanes: u32,
    /// Whether every lane's depth of every vertex is kept (`n x lanes`
    /// words); otherwise only the per-lane counts of each level are.
    pub keep_depths: bool,
    /// Levels one command may run (as the search layout's).
    pub max_levels_per_command: u32,
}

impl BatchLayout {
    /// Bytes of one word array (seen, or one of the two frontier arrays).
    #[must_use]
    pub fn word_array_bytes(&self) -> u64 {
        u64::from(self.vertex_count).max(1) * 8
    }

    /// Bytes of the per-lane depths (0 unless kept).
    #[must_use]
    pub fn depth_bytes(&self) -> u64 {
        if self.keep_depths {
            (u64::from(self.vertex_count) * u64::from(self.lanes)).max(1) * 4
        } else {
            0
        }
    }

    /// Bytes of the per-level lane counts: [`BATCH_LANES`] words a level.
    #[must_use]
    pub fn lane_history_bytes(&self) -> u64 {
        u64::from(self.max_levels_per_command.max(1)) * u64::from(BATCH_LANES) * 4
    }

    /// Every byte: seen, two frontier word arrays, depths, lane history.
    #[must_use]
    pub fn total_bytes(&self) -> u64 {
        3 * self.word_array_bytes() + self.depth_bytes() + self.lane_history_bytes()
    }
}

/// Discoveries of each lane at one level: `counts[j]` vertices first
/// reached by lane `j`.
pub type LaneCounts = [u32; BATCH_LANES as usize];

/// What one batch command measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchReport {
    /// The levels as for a single search: `frontier_in`/`frontier_out` count
    /// vertices with any lane active, edges their out-edges.
    pub wave: WaveReport,
    /// Per level run, in order: each lane's discoveries.
    pub lanes: Vec<LaneCounts>,
}

#[cfg(test)]
mod tests {
    use vyre_graph::build::{BuildOptions, build_graph};

    use super::*;

    #[test]
    fn lanes_keep_their_order_and_repeats_and_are_checked() {
        let edges: Vec<_> = (1..6u32).map(|v| (0, v)).collect();
        let g = build_graph(6, &edges, BuildOptions::UNDIRECTED).unwrap();
        let s = BatchSources::new(&[3, 0, 3], &g).unwrap();
        assert_eq!(s.ids(), &[3, 0, 3]);
        assert_eq!((s.lanes(), s.distinct(), s.out_edges()), (3, 2, 6));
        assert_eq!(s.lane_mask(), 0b111);
        assert_eq!(BatchSources::new(&[], &g), Err(SourceError::Empty));
        assert_eq!(
            BatchSources::new(&[6], &g),
            Err(SourceError::OutOfRange {
                source: 6,
                vertex_count: 6
            })
        );
        let many = vec![1u32; 65];
        assert_eq!(
            BatchSources::new(&many, &g),
            Err(SourceError::TooManyLanes { given: 65 })
        );
        assert_eq!(
            BatchSources::new(&many[..64], &g).unwrap().lane_mask(),
            u64::MAX
        );
    }

    #[test]
    fn the_layout_counts_three_word_arrays_the_lane_history_and_kept_depths() {
        let layout = BatchLayout {
            vertex_count: 1000,
            lanes: 10,
            keep_depths: false,
            max_levels_per_command: 4,
        };
        assert_eq!(layout.total_bytes(), 3 * 8000 + 4 * 64 * 4);
        let kept = BatchLayout {
            keep_depths: true,
            ..layout
        };
        assert_eq!(kept.total_bytes() - layout.total_bytes(), 1000 * 10 * 4);
        assert_eq!(lane_mask(0), 0);
        assert_eq!(lane_mask(1), 1);
        assert_eq!(lane_mask(70), u64::MAX);
    }
}
