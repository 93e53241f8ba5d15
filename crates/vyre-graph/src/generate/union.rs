//! Disjoint unions: several graphs side by side, for disconnected inputs.

use crate::{Csr, Graph, GraphError};

/// The graphs placed side by side: vertex `v` of `parts[k]` becomes
/// `v + (vertices of parts[..k])`. No edge joins two parts, so a search
/// from one part reaches nothing of another.
///
/// The result is symmetric when every part is, otherwise directed (a
/// symmetric part then contributes both directions of each edge).
///
/// # Errors
///
/// [`GraphError::TooLarge`] when the total vertex count does not fit `u32`.
pub fn disjoint_union(parts: &[Graph]) -> Result<Graph, GraphError> {
    let total: u64 = parts.iter().map(|g| u64::from(g.vertex_count())).sum();
    if total > u64::from(u32::MAX) {
        return Err(GraphError::TooLarge {
            what: format!("{total} vertices in the union"),
        });
    }
    let out = concat(parts.iter().map(Graph::out_edges));
    if parts.iter().all(Graph::is_symmetric) {
        return Ok(Graph::symmetric(out));
    }
    let reverse = concat(parts.iter().map(Graph::in_edges));
    Graph::directed(out, reverse)
}

fn concat<'a>(parts: impl Iterator<Item = &'a Csr> + Clone) -> Csr {
    let vertices: usize = parts.clone().map(|c| c.vertex_count() as usize).sum();
    let edges: usize = parts.clone().map(|c| c.targets().len()).sum();
    let mut offsets = Vec::with_capacity(vertices + 1);
    let mut targets = Vec::with_capacity(edges);
    offsets.push(0u64);
    let mut id_base = 0u32;
    for csr in parts {
        let edge_base = targets.len() as u64;
        offsets.extend(csr.offsets()[1..].iter().map(|&o| o + edge_base));
        targets.extend(csr.targets().iter().map(|&t| t + id_base));
        id_base += csr.vertex_count();
    }
    Csr::from_built(offsets, targets)
}
