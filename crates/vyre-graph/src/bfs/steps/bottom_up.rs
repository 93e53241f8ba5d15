//! The bottom-up level step: each unreached vertex looks for a parent.

use std::sync::atomic::Ordering::Relaxed;

use rayon::prelude::*;

use super::{FrontierBitmap, SearchState, StepStats};
use crate::Graph;

/// Bitmap words per parallel task.
const TASK_WORDS: usize = 256;

/// Give every unreached vertex with an in-neighbour in `current` (the
/// vertices at depth `level`) depth `level + 1` and that in-neighbour as
/// parent, and set its bit in `next`. Each vertex stops scanning at the
/// first parent found. Bits already set in `next` stay set.
///
/// # Panics
///
/// When the bitmaps or `state` are for another vertex count.
#[must_use]
pub fn bottom_up_step(
    graph: &Graph,
    state: &SearchState,
    current: &FrontierBitmap,
    next: &FrontierBitmap,
    level: u32,
) -> StepStats {
    let n = graph.vertex_count();
    assert_eq!(state.vertex_count(), n);
    assert_eq!(current.vertex_count(), n);
    assert_eq!(next.vertex_count(), n);
    let incoming = graph.in_edges();
    let outgoing = graph.out_edges();
    let depth = level + 1;
    next.words()
        .par_iter()
        .enumerate()
        .with_min_len(TASK_WORDS)
        .fold(StepStats::default, |mut acc, (w, word)| {
            let first = w as u32 * 32;
            let mut found = 0u32;
            // Vertices past n have no bit and are skipped by the range.
            let mut unvisited = !state.visited().words()[w].load(Relaxed);
            while unvisited != 0 {
                let bit = unvisited.trailing_zeros();
                unvisited &= unvisited - 1;
                let v = first + bit;
                if v >= n {
                    break;
                }
                for &u in incoming.neighbors(v) {
                    acc.edges_examined += 1;
                    if current.contains(u) {
                        state.settle(v, u, depth);
                        found |= 1 << (v - first);
                        acc.frontier_out_edges += outgoing.degree(v);
                        break;
                    }
                }
            }
            if found != 0 {
                word.fetch_or(found, Relaxed);
                state.mark_visited(w, found);
                acc.frontier_out += found.count_ones();
            }
            acc
        })
        .reduce(StepStats::default, |mut a, b| {
            a += b;
            a
        })
}
