//! Where a search stands: its sources, and its position between commands.
//!
//! The engine owns the position and puts it in every command; a backend holds
//! device buffers only and reads from the command which of them hold the
//! frontier.

use vyre_graph::Graph;

use super::wave::{FrontierForm, LevelRecord, frontier_form_of};
use crate::megakernel_execution::MegakernelExecutionTopology;

/// Why a list of sources cannot start a search.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum SourceError {
    /// No source was given.
    Empty,
    /// A batch was given more sources than it has lanes.
    TooManyLanes {
        /// Sources given.
        given: usize,
    },
    /// A source is not a vertex of the graph.
    OutOfRange {
        /// The offending source.
        source: u32,
        /// Vertices of the graph.
        vertex_count: u32,
    },
}

/// The sources of one search: at least one, each a vertex of the graph, each
/// once (in order of first appearance). Only [`SearchSources::new`] builds
/// one, so a backend handed these needs no checks of its own.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct SearchSources {
    ids: Vec<u32>,
    out_edges: u64,
}

impl SearchSources {
    /// Check `requested` against `graph`, dropping repeats.
    ///
    /// # Errors
    ///
    /// [`SourceError`] when `requested` is empty or names a vertex the graph
    /// does not have.
    pub fn new(requested: &[u32], graph: &Graph) -> Result<Self, SourceError> {
        let vertex_count = graph.vertex_count();
        if requested.is_empty() {
            return Err(SourceError::Empty);
        }
        if let Some(&source) = requested.iter().find(|&&s| s >= vertex_count) {
            return Err(SourceError::OutOfRange {
                source,
                vertex_count,
            });
        }
        let mut seen = std::collections::HashSet::with_capacity(requested.len());
        let ids: Vec<u32> = requested
            .iter()
            .copied()
            .filter(|s| seen.insert(*s))
            .collect();
        let out_edges = ids.iter().map(|&s| graph.out_edges().degree(s)).sum();
        Ok(Self { ids, out_edges })
    }

    /// The distinct sources.
    #[must_use]
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// How many there are (never 0, at most the vertex count).
    #[must_use]
    pub fn len(&self) -> u32 {
        u32::try_from(self.ids.len()).unwrap_or(u32::MAX)
    }

    /// Always false: a search has at least one source.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The sum of their out-degrees.
    #[must_use]
    pub fn out_edges(&self) -> u64 {
        self.out_edges
    }
}

/// Where a search stands between two commands.
///
/// The layout holds two frontier buffers of each form (two queues, two
/// bitmaps). The frontier lives in buffer [`SearchPosition::buffer`] of form
/// [`SearchPosition::form`]. A command whose topology reads the other form
/// first converts it into buffer `buffer` of that form; its level `k` then
/// reads buffer `buffer ^ (k & 1)` and writes buffer `buffer ^ (!k & 1)`.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub struct SearchPosition {
    /// Depth of the vertices in the current frontier.
    pub level: u32,
    /// Vertices in the current frontier.
    pub frontier_len: u32,
    /// Their out-edges.
    pub frontier_edges: u64,
    /// Form the frontier is held in.
    pub form: FrontierForm,
    /// Which of the two buffers of that form holds it (0 or 1).
    pub buffer: u32,
}

impl SearchPosition {
    /// The position right after `begin_search`: the sources queued in
    /// queue 0 at depth 0.
    #[must_use]
    pub fn start(sources: &SearchSources) -> Self {
        Self {
            level: 0,
            frontier_len: sources.len(),
            frontier_edges: sources.out_edges(),
            form: FrontierForm::Queue,
            buffer: 0,
        }
    }

    /// The position right after `begin_batch`: the distinct sources queued
    /// in queue 0 (their words in word array 0) at depth 0.
    #[must_use]
    pub fn start_batch(sources: &super::BatchSources) -> Self {
        Self {
            level: 0,
            frontier_len: sources.distinct(),
            frontier_edges: sources.out_edges(),
            form: FrontierForm::Queue,
            buffer: 0,
        }
    }

    /// The position after a command of `topology` ran `levels_run` levels
    /// (at least one), the last of which is `last`.
    #[must_use]
    pub fn after(
        self,
        topology: MegakernelExecutionTopology,
        levels_run: u32,
        last: &LevelRecord,
    ) -> Self {
        Self {
            level: self.level.saturating_add(levels_run),
            frontier_len: last.frontier_out,
            frontier_edges: last.frontier_out_edges,
            form: frontier_form_of(topology),
            buffer: self.buffer ^ (levels_run & 1),
        }
    }

    /// Buffer that level `k` of a command reads (`reads`) or writes.
    #[must_use]
    pub fn buffer_of_level(&self, k: u32, reads: bool) -> u32 {
        self.buffer ^ (k & 1) ^ u32::from(!reads)
    }
}

#[cfg(test)]
mod tests {
    use vyre_graph::build::{BuildOptions, build_graph};

    use super::*;

    fn star() -> Graph {
        let edges: Vec<_> = (1..6u32).map(|v| (0, v)).collect();
        build_graph(6, &edges, BuildOptions::UNDIRECTED).unwrap()
    }

    #[test]
    fn sources_are_checked_and_repeats_dropped() {
        let g = star();
        assert_eq!(SearchSources::new(&[], &g), Err(SourceError::Empty));
        assert_eq!(
            SearchSources::new(&[2, 6], &g),
            Err(SourceError::OutOfRange {
                source: 6,
                vertex_count: 6
            })
        );
        let s = SearchSources::new(&[3, 0, 3, 1], &g).unwrap();
        assert_eq!(s.ids(), &[3, 0, 1]);
        // Hub 0 has 5 out-edges, leaves 3 and 1 one each.
        assert_eq!(s.out_edges(), 7);
        let start = SearchPosition::start(&s);
        assert_eq!((start.frontier_len, start.frontier_edges), (3, 7));
    }

    #[test]
    fn buffers_alternate_by_level_parity() {
        let g = star();
        let start = SearchPosition::start(&SearchSources::new(&[0], &g).unwrap());
        assert_eq!(
            (
                start.buffer_of_level(0, true),
                start.buffer_of_level(0, false)
            ),
            (0, 1)
        );
        assert_eq!(
            (
                start.buffer_of_level(1, true),
                start.buffer_of_level(1, false)
            ),
            (1, 0)
        );
        let last = LevelRecord {
            frontier_out: 4,
            frontier_out_edges: 40,
            ..LevelRecord::default()
        };
        let odd = start.after(MegakernelExecutionTopology::HybridFrontier, 3, &last);
        assert_eq!(
            (odd.level, odd.frontier_len, odd.frontier_edges, odd.buffer),
            (3, 4, 40, 1)
        );
        let even = odd.after(MegakernelExecutionTopology::DenseFrontier, 2, &last);
        assert_eq!(
            (even.level, even.buffer, even.form),
            (5, 1, FrontierForm::Bitmap)
        );
    }
}
