//! Where a build reads its edges from.

use std::ops::Range;

use crate::Csr;

/// A finite, indexable sequence of `(source, target)` edges that can be read
/// from several threads and more than once.
///
/// The builder reads it twice (count, then scatter), each time split into
/// index ranges handled in parallel. Generators implement it to recompute
/// their edges instead of holding them in memory.
pub trait EdgeSource: Sync {
    /// Number of edges.
    fn edge_count(&self) -> u64;

    /// Call `visit(source, target)` for each edge whose index is in `range`,
    /// in index order. `range` lies within `0..edge_count()`.
    fn for_each_in(&self, range: Range<u64>, visit: impl FnMut(u32, u32));
}

impl EdgeSource for [(u32, u32)] {
    fn edge_count(&self) -> u64 {
        self.len() as u64
    }

    fn for_each_in(&self, range: Range<u64>, mut visit: impl FnMut(u32, u32)) {
        let (start, end) = (range.start as usize, range.end as usize);
        for &(u, v) in &self[start..end] {
            visit(u, v);
        }
    }
}

impl EdgeSource for Vec<(u32, u32)> {
    fn edge_count(&self) -> u64 {
        self.as_slice().edge_count()
    }

    fn for_each_in(&self, range: Range<u64>, visit: impl FnMut(u32, u32)) {
        self.as_slice().for_each_in(range, visit);
    }
}

/// The edges of a CSR, each reversed: `(target, source)`. Edge `i` is the
/// CSR's `i`-th stored edge.
#[derive(Clone, Copy, Debug)]
pub struct ReversedCsr<'a>(pub &'a Csr);

impl EdgeSource for ReversedCsr<'_> {
    fn edge_count(&self) -> u64 {
        self.0.edge_count()
    }

    fn for_each_in(&self, range: Range<u64>, mut visit: impl FnMut(u32, u32)) {
        let offsets = self.0.offsets();
        let targets = self.0.targets();
        if range.start >= range.end {
            return;
        }
        // The row holding edge `range.start`: the last row starting at or before it.
        let mut u = offsets.partition_point(|&o| o <= range.start) - 1;
        let mut i = range.start;
        while i < range.end {
            while offsets[u + 1] <= i {
                u += 1;
            }
            let row_end = offsets[u + 1].min(range.end);
            for &v in &targets[i as usize..row_end as usize] {
                visit(v, u as u32);
            }
            i = row_end;
        }
    }
}
