//! Sorting, deduplicating and compacting scattered rows in place.

use std::ops::Range;

use rayon::prelude::*;

use super::scatter::Scattered;

/// Smallest number of edges worth a parallel task of its own.
const MIN_CHUNK_EDGES: u64 = 1 << 14;

/// Split vertices into runs of roughly equal edge counts.
fn vertex_chunks(offsets: &[u64]) -> Vec<Range<usize>> {
    let n = offsets.len() - 1;
    let m = offsets[n];
    let tasks = 16 * rayon::current_num_threads() as u64;
    let per_chunk = (m / tasks).max(MIN_CHUNK_EDGES);
    let mut chunks = Vec::new();
    let mut start = 0usize;
    while start < n {
        let goal = offsets[start] + per_chunk;
        // First vertex whose row starts at or past the goal, at least start + 1.
        let end = offsets[..n]
            .partition_point(|&o| o < goal)
            .clamp(start + 1, n);
        chunks.push(start..end);
        start = end;
    }
    chunks
}

/// Sort one row and, with `dedup`, move its distinct targets to its front.
/// Returns how many targets the row keeps.
fn finish_row(row: &mut [u32], dedup: bool) -> usize {
    row.sort_unstable();
    if !dedup || row.is_empty() {
        return row.len();
    }
    let mut kept = 1;
    for i in 1..row.len() {
        if row[i] != row[kept - 1] {
            row[kept] = row[i];
            kept += 1;
        }
    }
    kept
}

/// Sort and deduplicate every row of `chunk` (whose first edge is at
/// `base`), moving kept targets to the chunk's front. Records each vertex's
/// new start relative to the chunk in `starts`; returns the chunk's kept
/// edge count.
fn finish_chunk(
    vertices: Range<usize>,
    chunk: &mut [u32],
    offsets: &[u64],
    starts: &mut [u64],
    dedup: bool,
) -> usize {
    let base = offsets[vertices.start];
    let first = vertices.start;
    let mut write = 0usize;
    for v in vertices {
        let (start, end) = (
            (offsets[v] - base) as usize,
            (offsets[v + 1] - base) as usize,
        );
        let kept = finish_row(&mut chunk[start..end], dedup);
        if write != start {
            chunk.copy_within(start..start + kept, write);
        }
        starts[v - first] = write as u64;
        write += kept;
    }
    write
}

/// Turn scattered rows into a finished CSR's arrays.
pub(super) fn finish_rows(scattered: Scattered, dedup: bool) -> (Vec<u64>, Vec<u32>) {
    let Scattered {
        mut offsets,
        mut scratch,
        mut targets,
    } = scattered;
    let chunks = vertex_chunks(&offsets);

    let mut pieces = Vec::with_capacity(chunks.len());
    let mut rest = targets.as_mut_slice();
    let mut rest_starts = scratch.as_mut_slice();
    for range in &chunks {
        let len = (offsets[range.end] - offsets[range.start]) as usize;
        let (head, tail) = rest.split_at_mut(len);
        let (starts, starts_tail) = rest_starts.split_at_mut(range.len());
        pieces.push((range.clone(), head, starts));
        rest = tail;
        rest_starts = starts_tail;
    }
    let kept: Vec<usize> = pieces
        .into_par_iter()
        .map(|(range, piece, starts)| finish_chunk(range, piece, &offsets, starts, dedup))
        .collect();

    // Slide each chunk's kept prefix down; new starts never pass old ones.
    let mut write = 0usize;
    for (range, kept) in chunks.iter().zip(kept) {
        let old_base = offsets[range.start] as usize;
        if write != old_base {
            targets.copy_within(old_base..old_base + kept, write);
        }
        for v in range.clone() {
            offsets[v] = write as u64 + scratch[v];
        }
        write += kept;
    }
    let n = offsets.len() - 1;
    offsets[n] = write as u64;
    targets.truncate(write);
    targets.shrink_to_fit();
    (offsets, targets)
}
