//! Graph500 traversed-edges-per-second counting.
//!
//! TEPS = [`searched_edges`] / seconds for one search; a benchmark reports
//! the [`harmonic_mean`] over searches from [`sample_sources`].

use rayon::prelude::*;

use crate::generate::rng::SplitMix;
use crate::{Graph, UNREACHED};

/// Edges a search from the reached vertices counts as traversed.
///
/// - Symmetric graphs: the undirected edges within the searched component,
///   each counted once (it is stored twice); a kept self-loop (stored once)
///   counts once.
/// - Directed graphs: the stored edges whose source was reached.
///
/// Edges are counted as stored, after the build removed duplicates (and
/// self-loops, by default), so this can be below Graph500's count over the
/// raw generated edge list.
///
/// # Panics
///
/// When `depths` does not have one entry per vertex.
#[must_use]
pub fn searched_edges(graph: &Graph, depths: &[u32]) -> u64 {
    assert_eq!(depths.len(), graph.vertex_count() as usize);
    let csr = graph.out_edges();
    let symmetric = graph.is_symmetric();
    let (stored, loops) = depths
        .par_iter()
        .enumerate()
        .with_min_len(4096)
        .filter(|&(_, &d)| d != UNREACHED)
        .map(|(u, _)| {
            let row = csr.neighbors(u as u32);
            let has_loop = symmetric && row.binary_search(&(u as u32)).is_ok();
            (row.len() as u64, u64::from(has_loop))
        })
        .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    if symmetric {
        (stored - loops) / 2 + loops
    } else {
        stored
    }
}

/// The harmonic mean of `values` (Graph500's mean of TEPS rates); 0 for no
/// values or when any value is 0 or less.
#[must_use]
pub fn harmonic_mean(values: &[f64]) -> f64 {
    if values.is_empty() || values.iter().any(|&x| x.is_nan() || x <= 0.0) {
        return 0.0;
    }
    values.len() as f64 / values.iter().map(|x| 1.0 / x).sum::<f64>()
}

/// Up to `count` distinct search sources among the vertices with an
/// out-edge to another vertex (Graph500: degree at least 1, self-loops not
/// counted), chosen at random but the same for the same graph and seed.
/// Fewer come back only when the graph has fewer such vertices.
#[must_use]
pub fn sample_sources(graph: &Graph, count: usize, seed: u64) -> Vec<u32> {
    let n = graph.vertex_count();
    let csr = graph.out_edges();
    // No more sources than vertices can be found; this also bounds the
    // attempts below whatever `count` a caller passes.
    let count = count.min(n as usize);
    let searchable = |v: u32| csr.neighbors(v).iter().any(|&w| w != v);
    let mut chosen = Vec::with_capacity(count);
    let mut taken = std::collections::HashSet::new();
    let mut rng = SplitMix::stream(seed, 0);
    // Rejection sampling; bounded so that a sparse graph falls through to
    // the exhaustive pass instead of spinning.
    let attempts = (count as u64).saturating_mul(64).saturating_add(1024);
    for _ in 0..attempts {
        if chosen.len() == count || n == 0 {
            break;
        }
        let v = rng.below(n);
        if searchable(v) && taken.insert(v) {
            chosen.push(v);
        }
    }
    if chosen.len() < count {
        let mut rest: Vec<u32> = (0..n)
            .filter(|&v| searchable(v) && !taken.contains(&v))
            .collect();
        while chosen.len() < count && !rest.is_empty() {
            let i = rng.below(rest.len() as u32) as usize;
            chosen.push(rest.swap_remove(i));
        }
    }
    chosen
}

#[cfg(test)]
mod tests;
