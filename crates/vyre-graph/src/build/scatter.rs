//! Counting and scattering edges into preallocated rows.
//!
//! Both passes read the edges in chunks: tasks read blocks of a chunk in
//! parallel and sort each edge's stored copies into per-owner buckets;
//! then each owner (a range of vertices with its own slice of the counts,
//! cursors and rows) applies its buckets. Owners write only their own
//! slices, so no atomic read-modify-write serializes the random writes
//! that dominate a build.

use std::ops::Range;

use rayon::prelude::*;

use super::{BuildOptions, EdgeSource};
use crate::GraphError;
use crate::memory::{try_with_capacity, try_zeroed};

/// Edges per parallel reading task.
const BLOCK: u64 = 1 << 16;
/// Edges read before the owners apply them (bounds the bucket memory to
/// about 16 bytes per edge of a chunk).
const CHUNK: u64 = 1 << 22;

/// Rows filled but not yet sorted or deduplicated.
pub(super) struct Scattered {
    /// `vertex_count + 1` row starts.
    pub offsets: Vec<u64>,
    /// One scratch word per vertex, free for the next phase.
    pub scratch: Vec<u64>,
    /// Targets, grouped by row in arbitrary order within a row.
    pub targets: Vec<u32>,
}

/// The stored (directed) copies of edge `(u, v)`: itself, and `(v, u)` too
/// when symmetrizing a non-loop; none for a dropped self-loop.
#[inline]
fn store_copies(u: u32, v: u32, options: BuildOptions, mut store: impl FnMut(u32, u32)) {
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
}

/// Vertex ranges, one per owner, with a table for finding a vertex's owner
/// in one lookup: ranges start at multiples of `2^shift`.
struct Owners {
    shift: u32,
    table: Vec<u16>,
    bounds: Vec<u32>,
}

impl Owners {
    /// `parts` ranges of about equal `weight(first_vertex)` steps, where
    /// `cumulative(v)` is the weight of the vertices below `v`.
    fn new(vertex_count: u32, parts: usize, cumulative: impl Fn(u32) -> u64) -> Self {
        let mut shift = 0;
        while (u64::from(vertex_count) >> shift) > 1 << 16 {
            shift += 1;
        }
        let n = u64::from(vertex_count);
        let cells = (n >> shift) + 1;
        // The first vertex of a cell, clamped to the vertex count (in u64:
        // the last cell may start at 2^32).
        let cell_start = |cell: u64| (cell << shift).min(n) as u32;
        let total = cumulative(vertex_count);
        let mut bounds = vec![0u32];
        for p in 1..parts as u64 {
            let goal = total / parts as u64 * p;
            // First cell whose start reaches the goal.
            let (mut lo, mut hi) = (u64::from(*bounds.last().unwrap_or(&0)) >> shift, cells);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                if cumulative(cell_start(mid)) < goal {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            bounds.push(cell_start(lo));
        }
        bounds.push(vertex_count);
        let mut table = vec![0u16; cells as usize];
        for (p, w) in bounds.windows(2).enumerate() {
            let (first, last) = (u64::from(w[0]), u64::from(w[1]));
            for cell in (first >> shift)..last.div_ceil(1 << shift).min(cells) {
                if cell << shift >= first {
                    table[cell as usize] = p as u16;
                }
            }
        }
        Self {
            shift,
            table,
            bounds,
        }
    }

    fn of(&self, v: u32) -> usize {
        usize::from(self.table[(v >> self.shift) as usize])
    }

    fn ranges(&self) -> impl Iterator<Item = Range<usize>> + '_ {
        self.bounds.windows(2).map(|w| w[0] as usize..w[1] as usize)
    }
}

/// Read every edge and hand each stored copy `(from, to)` to
/// `apply(&mut states[owner of from], from, to)`. Returns the first edge
/// (index, endpoints) with an endpoint out of range; such edges are skipped.
fn distribute<S, T, I>(
    edges: &S,
    vertex_count: u32,
    options: BuildOptions,
    owners: &Owners,
    states: &mut [T],
    make: impl Fn(u32, u32) -> I + Sync,
    apply: impl Fn(&mut T, I) + Sync,
) -> Option<(u64, u32, u32)>
where
    S: EdgeSource + ?Sized,
    T: Send,
    I: Copy + Send + Sync,
{
    let m = edges.edge_count();
    let parts = states.len();
    debug_assert_eq!(parts, owners.bounds.len() - 1);
    let share = (BLOCK as usize * copies(options)).div_ceil(parts);
    let mut first_bad = None;
    // Bucket memory is reused from chunk to chunk: fresh pages would cost
    // the kernel as much time as filling them.
    type Block<I> = (Vec<Vec<I>>, Option<(u64, u32, u32)>);
    let mut pool: Vec<Block<I>> = (0..CHUNK.div_ceil(BLOCK).min(m.div_ceil(BLOCK)))
        .map(|_| (vec![Vec::new(); parts], None))
        .collect();
    let mut start = 0;
    while start < m {
        let end = (start + CHUNK).min(m);
        let block_count = (end - start).div_ceil(BLOCK) as usize;
        let blocks = &mut pool[..block_count];
        blocks
            .par_iter_mut()
            .enumerate()
            .for_each(|(b, (buckets, bad))| {
                let from = start + b as u64 * BLOCK;
                let range = from..(from + BLOCK).min(end);
                buckets.iter_mut().for_each(Vec::clear);
                *bad = None;
                let mut index = range.start;
                edges.for_each_in(range, |u, v| {
                    if u >= vertex_count || v >= vertex_count {
                        *bad = bad.or(Some((index, u, v)));
                    } else {
                        store_copies(u, v, options, |a, t| buckets[owners.of(a)].push(make(a, t)));
                    }
                    index += 1;
                });
            });
        let blocks = &*blocks;
        states.par_iter_mut().enumerate().for_each(|(p, state)| {
            for (buckets, _) in blocks {
                for &item in &buckets[p] {
                    apply(state, item);
                }
            }
        });
        if first_bad.is_none() {
            first_bad = blocks.iter().find_map(|(_, bad)| *bad);
        }
        pool[..block_count]
            .par_iter_mut()
            .for_each(|(buckets, _)| trim(buckets, share));
        start = end;
    }
    first_bad
}

/// Stored copies per edge at most: two when symmetrizing.
fn copies(options: BuildOptions) -> usize {
    if options.symmetrize { 2 } else { 1 }
}

/// Keep bucket memory for the next chunk, but at most twice what each
/// bucket held plus an even `share`: input sorted by source fills one
/// owner's buckets per chunk, and keeping every owner's peak would hold
/// `parts` times the chunk.
fn trim<I>(buckets: &mut [Vec<I>], share: usize) {
    for bucket in buckets {
        if bucket.capacity() > 2 * bucket.len() + share {
            bucket.shrink_to(bucket.len() + share);
        }
    }
}

/// Owner ranges per pass: a few per thread, for balance.
fn part_count() -> usize {
    (4 * rayon::current_num_threads()).clamp(1, 1024)
}

/// The most bytes [`scatter`] holds at once for `vertices` and `edges`
/// read (its output included): the scatter pass's counts, offsets,
/// targets (every stored copy, before deduplication) and buckets. The
/// counting pass before it holds less (counts and 4-byte buckets).
pub(super) fn peak_bytes(vertices: u64, edges: u64, options: BuildOptions) -> u64 {
    let copies = copies(options) as u64;
    let stored = edges.saturating_mul(copies);
    let arrays = vertices
        .saturating_mul(16)
        .saturating_add(8)
        .saturating_add(stored.saturating_mul(4));
    // Per block of a chunk, `trim` leaves at most 3 × the block's items of
    // capacity and growth by doubling adds at most 2 × them; each bucket
    // also has its vector header.
    let item = std::mem::size_of::<(u32, u32)>() as u64;
    let blocks = (CHUNK / BLOCK).min(edges.div_ceil(BLOCK));
    let per_block = 5 * BLOCK.min(edges) * copies * item
        + part_count() as u64 * std::mem::size_of::<Vec<(u32, u32)>>() as u64;
    // Two owner tables of at most 2^16 + 1 two-byte cells; the owner
    // states, the block pool's spine and the row phase's chunk lists (a
    // few per thread) take less than the rest of a MiB.
    let small = 1 << 20;
    arrays
        .saturating_add(blocks.saturating_mul(per_block))
        .saturating_add(small)
}

/// Split `slice` into consecutive pieces of the given lengths.
fn split_by<T>(mut slice: &mut [T], lengths: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut pieces = Vec::new();
    for len in lengths {
        let (head, tail) = slice.split_at_mut(len);
        pieces.push(head);
        slice = tail;
    }
    pieces
}

/// Count degrees, then scatter every stored edge into its row.
pub(super) fn scatter<S: EdgeSource + ?Sized>(
    vertex_count: u32,
    edges: &S,
    options: BuildOptions,
) -> Result<Scattered, GraphError> {
    let n = vertex_count as usize;
    let parts = part_count();

    let mut counts = try_zeroed::<u64>(n, || format!("the degrees of {n} vertices"))?;
    let owners = Owners::new(vertex_count, parts, u64::from);
    let mut states: Vec<(usize, &mut [u64])> = owners
        .ranges()
        .map(|r| r.start)
        .zip(split_by(&mut counts, owners.ranges().map(|r| r.len())))
        .collect();
    // Counting needs only each copy's source.
    let first_bad = distribute(
        edges,
        vertex_count,
        options,
        &owners,
        &mut states,
        |a, _| a,
        |(lo, c), a| c[a as usize - *lo] += 1,
    );
    if let Some((index, u, v)) = first_bad {
        return Err(GraphError::InvalidCsr {
            reason: format!(
                "edge {index} ({u}, {v}) has an endpoint not below the vertex count {vertex_count}"
            ),
        });
    }

    let mut offsets = try_with_capacity(n + 1, || format!("the offsets of {n} vertices"))?;
    let mut total = 0u64;
    offsets.push(0);
    for c in &mut counts {
        let degree = *c;
        *c = total;
        total += degree;
        offsets.push(total);
    }
    if total > (isize::MAX as u64) / 4 {
        return Err(GraphError::TooLarge {
            what: format!("{total} stored edges"),
        });
    }
    let mut targets = try_zeroed::<u32>(total as usize, || format!("{total} stored edges"))?;
    let owners = Owners::new(vertex_count, parts, |v| offsets[v as usize]);
    let cursors = split_by(&mut counts, owners.ranges().map(|r| r.len()));
    let rows = split_by(
        &mut targets,
        owners
            .ranges()
            .map(|r| (offsets[r.end] - offsets[r.start]) as usize),
    );
    let mut states: Vec<(usize, u64, &mut [u64], &mut [u32])> = owners
        .ranges()
        .zip(cursors.into_iter().zip(rows))
        .map(|(r, (c, t))| (r.start, offsets[r.start], c, t))
        .collect();
    distribute(
        edges,
        vertex_count,
        options,
        &owners,
        &mut states,
        |a, t| (a, t),
        |(lo, base, c, t), (a, to)| {
            let cursor = &mut c[a as usize - *lo];
            t[(*cursor - *base) as usize] = to;
            *cursor += 1;
        },
    );
    Ok(Scattered {
        offsets,
        scratch: counts,
        targets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trimming_keeps_at_most_twice_each_bucket_plus_a_share() {
        let bucket = |capacity: usize, len: usize| {
            let mut b: Vec<u32> = Vec::with_capacity(capacity);
            b.resize(len, 7);
            b
        };
        // A bucket an earlier chunk filled and this one left empty, a
        // full one, one within its share.
        let mut buckets = vec![bucket(65_536, 0), bucket(65_536, 65_536), bucket(100, 60)];
        trim(&mut buckets, 1000);
        let capacities: Vec<_> = buckets.iter().map(Vec::capacity).collect();
        assert!((1000..=1100).contains(&capacities[0]), "{capacities:?}");
        assert_eq!(&capacities[1..], &[65_536, 100]);
        assert_eq!(buckets[2], vec![7; 60]);
    }

    #[test]
    fn owners_cover_every_vertex_even_near_u32_max() {
        for n in [0u32, 1, 5, 1000, 65_537, 1 << 20, u32::MAX - 3, u32::MAX] {
            for parts in [1usize, 3, 8] {
                let owners = Owners::new(n, parts, u64::from);
                let ranges: Vec<_> = owners.ranges().collect();
                assert_eq!(ranges.len(), parts);
                assert_eq!(ranges.first().map(|r| r.start), Some(0));
                assert_eq!(ranges.last().map(|r| r.end), Some(n as usize));
                assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
                let probes = [0, 1, n / 3, n / 2, n.saturating_sub(2), n.saturating_sub(1)];
                for v in probes.into_iter().filter(|&v| v < n) {
                    assert!(ranges[owners.of(v)].contains(&(v as usize)), "n {n}, v {v}");
                }
            }
        }
    }
}
