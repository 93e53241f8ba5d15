//! Counting and scattering edges into preallocated rows.

use std::ops::Range;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::{BuildOptions, EdgeSource};
use crate::GraphError;

/// Edges per parallel task when reading a source.
const BLOCK: u64 = 1 << 16;

/// Rows filled but not yet sorted or deduplicated.
pub(super) struct Scattered {
    /// `vertex_count + 1` row starts.
    pub offsets: Vec<u64>,
    /// One scratch word per vertex, free for the next phase.
    pub scratch: Vec<AtomicU64>,
    /// Targets, grouped by row in arbitrary order within a row.
    pub targets: Vec<u32>,
}

fn blocks(edge_count: u64) -> impl IndexedParallelIterator<Item = Range<u64>> {
    let block_count = usize::try_from(edge_count.div_ceil(BLOCK)).unwrap_or(usize::MAX);
    (0..block_count).into_par_iter().map(move |b| {
        let start = b as u64 * BLOCK;
        start..(start + BLOCK).min(edge_count)
    })
}

/// Visit the stored (directed) copies of every kept edge: `(u, v)`, and
/// `(v, u)` too when symmetrizing a non-loop.
fn for_each_stored<S: EdgeSource + ?Sized>(
    edges: &S,
    range: Range<u64>,
    options: BuildOptions,
    mut store: impl FnMut(u32, u32),
) {
    edges.for_each_in(range, |u, v| {
        if u == v {
            if !options.remove_self_loops {
                store(u, v);
            }
        } else {
            store(u, v);
            if options.symmetrize {
                store(v, u);
            }
        }
    });
}

/// Count degrees, then scatter every stored edge into its row.
pub(super) fn scatter<S: EdgeSource + ?Sized>(
    vertex_count: u32,
    edges: &S,
    options: BuildOptions,
) -> Result<Scattered, GraphError> {
    let n = vertex_count as usize;
    let m = edges.edge_count();
    let counts: Vec<AtomicU64> = (0..n).into_par_iter().map(|_| AtomicU64::new(0)).collect();

    let first_bad = blocks(m)
        .filter_map(|range| {
            let mut index = range.start;
            let mut bad = None;
            edges.for_each_in(range, |u, v| {
                if (u >= vertex_count || v >= vertex_count) && bad.is_none() {
                    bad = Some((index, u, v));
                }
                index += 1;
            });
            bad
        })
        .min_by_key(|&(index, _, _)| index);
    if let Some((index, u, v)) = first_bad {
        return Err(GraphError::InvalidCsr {
            reason: format!(
                "edge {index} ({u}, {v}) has an endpoint not below the vertex count {vertex_count}"
            ),
        });
    }

    blocks(m).for_each(|range| {
        for_each_stored(edges, range, options, |u, _| {
            counts[u as usize].fetch_add(1, Relaxed);
        });
    });

    let mut offsets = Vec::with_capacity(n + 1);
    let mut total = 0u64;
    offsets.push(0);
    for c in &counts {
        total += c.load(Relaxed);
        offsets.push(total);
    }
    if total > (isize::MAX as u64) / 4 {
        return Err(GraphError::TooLarge {
            what: format!("{total} stored edges"),
        });
    }
    counts
        .par_iter()
        .zip(offsets.par_iter())
        .for_each(|(cursor, &start)| cursor.store(start, Relaxed));

    let slots: Vec<AtomicU32> = (0..total as usize)
        .into_par_iter()
        .map(|_| AtomicU32::new(0))
        .collect();
    blocks(m).for_each(|range| {
        for_each_stored(edges, range, options, |u, v| {
            let at = counts[u as usize].fetch_add(1, Relaxed);
            slots[at as usize].store(v, Relaxed);
        });
    });
    // Same size and alignment: std reuses the allocation, no second copy.
    let targets: Vec<u32> = slots.into_iter().map(AtomicU32::into_inner).collect();
    Ok(Scattered {
        offsets,
        scratch: counts,
        targets,
    })
}
