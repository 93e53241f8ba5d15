//! The parallel direction-optimizing BFS (Beamer, Asanović and Patterson),
//! built from the level steps in [`steps`](super::steps).

use super::BfsTree;
use super::steps::{
    FrontierBitmap, SearchState, bitmap_to_queue, bottom_up_step, queue_to_bitmap, top_down_step,
};
use crate::Graph;

/// Which level steps a search may use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    /// Switch between top-down and bottom-up by Beamer's heuristic.
    #[default]
    Optimizing,
    /// Top-down steps only.
    TopDown,
    /// Bottom-up steps only.
    BottomUp,
}

/// Tuning of [`parallel_bfs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParallelBfsOptions {
    /// Go bottom-up once the frontier's out-edges exceed the unexplored
    /// edges divided by `alpha` (Beamer: 15).
    pub alpha: u64,
    /// Return top-down once the frontier shrinks below the vertex count
    /// divided by `beta` (Beamer: 18).
    pub beta: u64,
    /// Which steps to use.
    pub direction: Direction,
}

impl Default for ParallelBfsOptions {
    fn default() -> Self {
        Self {
            alpha: 15,
            beta: 18,
            direction: Direction::Optimizing,
        }
    }
}

/// The reusable memory of a search: depths, parents and two frontier
/// bitmaps. Reusing it across searches on one graph skips allocation.
#[derive(Debug)]
pub struct BfsWorkspace {
    /// Depths and parents of the last search.
    pub state: SearchState,
    front: FrontierBitmap,
    next: FrontierBitmap,
}

impl BfsWorkspace {
    /// A workspace for graphs of `vertex_count` vertices.
    #[must_use]
    pub fn new(vertex_count: u32) -> Self {
        Self {
            state: SearchState::new(vertex_count),
            front: FrontierBitmap::new(vertex_count),
            next: FrontierBitmap::new(vertex_count),
        }
    }
}

/// Search `graph` from every vertex of `sources` at once (depth 0 each) in
/// parallel. Depths equal [`reference_bfs`](super::reference_bfs)'s;
/// parents may differ but each is a neighbour one level up. Out-of-range
/// sources are ignored.
#[must_use]
pub fn parallel_bfs(graph: &Graph, sources: &[u32], options: ParallelBfsOptions) -> BfsTree {
    let mut workspace = BfsWorkspace::new(graph.vertex_count());
    parallel_bfs_in(&mut workspace, graph, sources, options);
    workspace.state.to_tree()
}

/// [`parallel_bfs`] into a reused workspace; the result is in
/// `workspace.state`. Returns the largest depth reached (0 when the search
/// found nothing past its sources, or had none).
///
/// # Panics
///
/// When the workspace was made for another vertex count.
pub fn parallel_bfs_in(
    workspace: &mut BfsWorkspace,
    graph: &Graph,
    sources: &[u32],
    options: ParallelBfsOptions,
) -> u32 {
    let n = u64::from(graph.vertex_count());
    assert_eq!(workspace.state.vertex_count(), graph.vertex_count());
    workspace.state.reset();
    let mut queue = workspace.state.start(sources);
    let out = graph.out_edges();
    let mut scout: u64 = queue.iter().map(|&s| out.degree(s)).sum();
    let mut unexplored = graph.edge_count();
    let (alpha, beta) = (options.alpha.max(1), options.beta.max(1));
    let mut level = 0u32;
    let state = &workspace.state;
    while !queue.is_empty() {
        let bottom_up = match options.direction {
            Direction::TopDown => false,
            Direction::BottomUp => true,
            Direction::Optimizing => scout > unexplored / alpha,
        };
        if !bottom_up {
            unexplored = unexplored.saturating_sub(scout);
            let step = top_down_step(graph, state, &queue, level);
            scout = step.stats.frontier_out_edges;
            queue = step.next;
            level += 1;
            continue;
        }
        let (front, next) = (&mut workspace.front, &mut workspace.next);
        front.clear();
        queue_to_bitmap(&queue, front);
        let mut awake = queue.len() as u64;
        loop {
            next.clear();
            let stats = bottom_up_step(graph, state, front, next, level);
            level += 1;
            let previous = awake;
            awake = u64::from(stats.frontier_out);
            unexplored = unexplored.saturating_sub(stats.frontier_out_edges);
            std::mem::swap(front, next);
            let stay = match options.direction {
                Direction::BottomUp => awake > 0,
                _ => awake > 0 && (awake >= previous || awake > n / beta),
            };
            if !stay {
                break;
            }
        }
        queue = bitmap_to_queue(front);
        scout = queue.iter().map(|&v| out.degree(v)).sum();
    }
    level.saturating_sub(1)
}
