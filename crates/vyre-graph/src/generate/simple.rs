//! Regular graphs: chains, stars and grids (undirected).

use crate::build::{BuildOptions, build_graph};
use crate::{Graph, GraphError};

/// A path `0 - 1 - ... - (n-1)`: diameter `n - 1`.
///
/// # Errors
///
/// Never for `n >= 1`; kept fallible like every generator.
pub fn chain(n: u32) -> Result<Graph, GraphError> {
    let edges: Vec<_> = (1..n).map(|v| (v - 1, v)).collect();
    build_graph(n, &edges, BuildOptions::UNDIRECTED)
}

/// A star: vertex 0 joined to each of `leaves` leaves `1..=leaves`.
///
/// # Errors
///
/// [`GraphError::InvalidCsr`] when `leaves + 1` does not fit `u32`.
pub fn star(leaves: u32) -> Result<Graph, GraphError> {
    let n = leaves
        .checked_add(1)
        .ok_or_else(|| GraphError::InvalidCsr {
            reason: format!("a star of {leaves} leaves has more than u32::MAX vertices"),
        })?;
    let edges: Vec<_> = (1..n).map(|v| (0, v)).collect();
    build_graph(n, &edges, BuildOptions::UNDIRECTED)
}

/// A `width x height` 4-neighbour grid; vertex `(x, y)` is `y * width + x`.
/// From a corner the deepest vertex is at depth `width + height - 2`.
///
/// # Errors
///
/// [`GraphError::InvalidCsr`] when `width * height` does not fit `u32`.
pub fn grid_2d(width: u32, height: u32) -> Result<Graph, GraphError> {
    let n = width
        .checked_mul(height)
        .ok_or_else(|| GraphError::InvalidCsr {
            reason: format!("a {width}x{height} grid has more than u32::MAX vertices"),
        })?;
    let mut edges = Vec::with_capacity(2 * n as usize);
    for y in 0..height {
        for x in 0..width {
            let v = y * width + x;
            if x + 1 < width {
                edges.push((v, v + 1));
            }
            if y + 1 < height {
                edges.push((v, v + width));
            }
        }
    }
    build_graph(n, &edges, BuildOptions::UNDIRECTED)
}

/// Largest `n` that [`complete`] accepts: `n (n - 1)` stored edges must stay
/// in the low billions.
pub const COMPLETE_MAX_VERTICES: u32 = 1 << 16;

/// Every vertex pair of `0..n` joined (undirected, no self-loops):
/// `n (n - 1)` stored edges, diameter 1 (for `n >= 2`).
///
/// # Errors
///
/// [`GraphError::InvalidParameter`] when `n` exceeds
/// [`COMPLETE_MAX_VERTICES`].
pub fn complete(n: u32) -> Result<Graph, GraphError> {
    if n > COMPLETE_MAX_VERTICES {
        return Err(GraphError::parameter(
            format!(
                "a complete graph of {n} vertices stores {} edges",
                u64::from(n) * u64::from(n.saturating_sub(1))
            ),
            format!("use at most {COMPLETE_MAX_VERTICES} vertices"),
        ));
    }
    // Every ordered pair, loops dropped: already both directions.
    let pairs = AllPairs(n);
    let options = BuildOptions {
        symmetrize: false,
        ..BuildOptions::UNDIRECTED
    };
    Ok(Graph::symmetric(crate::build::build_csr(
        n, &pairs, options,
    )?))
}

/// The `n * n` ordered pairs `(i / n, i % n)`.
struct AllPairs(u32);

impl crate::build::EdgeSource for AllPairs {
    fn edge_count(&self) -> u64 {
        u64::from(self.0) * u64::from(self.0)
    }

    fn for_each_in(&self, range: std::ops::Range<u64>, mut visit: impl FnMut(u32, u32)) {
        let n = u64::from(self.0);
        for i in range {
            visit((i / n) as u32, (i % n) as u32);
        }
    }
}
