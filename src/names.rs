//! Short command-line names of the topologies and vertex orders.

use vyre_runtime::{LevelTrace, VertexOrder};

use crate::Topology;

/// The short name of `topology` used on command lines and in reports.
#[must_use]
pub fn topology_name(topology: Topology) -> &'static str {
    match topology {
        Topology::WarpSparseFrontier => "warp-sparse",
        Topology::SparseFrontier => "sparse",
        Topology::HybridFrontier => "hybrid",
        Topology::DenseFrontier => "dense",
        Topology::BlockDenseFrontier => "block-dense",
        Topology::FusedWave => "fused",
    }
}

/// Parse a short name (`sparse`) or the full variant name (`SparseFrontier`).
///
/// # Errors
///
/// A message listing the valid names when `name` is none of them.
pub fn parse_topology(name: &str) -> Result<Topology, String> {
    Topology::ALL
        .into_iter()
        .find(|&t| topology_name(t) == name || format!("{t:?}") == name)
        .ok_or_else(|| {
            let names: Vec<_> = Topology::ALL.into_iter().map(topology_name).collect();
            format!(
                "unknown topology '{name}'. Fix: use auto or one of {}.",
                names.join(", ")
            )
        })
}

/// The name of `order` used on command lines and in reports.
#[must_use]
pub fn vertex_order_name(order: VertexOrder) -> &'static str {
    order.name()
}

/// Parse a vertex order's name (`auto`, `by-degree`, `by-breadth`,
/// `as-given`).
///
/// # Errors
///
/// A message listing the valid names when `name` is none of them.
pub fn parse_vertex_order(name: &str) -> Result<VertexOrder, String> {
    VertexOrder::ALL
        .into_iter()
        .find(|order| order.name() == name)
        .ok_or_else(|| {
            let names: Vec<_> = VertexOrder::ALL
                .into_iter()
                .map(VertexOrder::name)
                .collect();
            format!(
                "unknown vertex order '{name}'. Fix: use one of {}.",
                names.join(", ")
            )
        })
}

/// The topologies a search ran, in order, with repeats counted:
/// `sparse x2 > block-dense x3 > sparse`.
#[must_use]
pub fn topology_sequence(levels: &[LevelTrace]) -> String {
    let mut runs: Vec<(&'static str, usize)> = Vec::new();
    for level in levels {
        let name = topology_name(level.topology);
        match runs.last_mut() {
            Some((last, count)) if *last == name => *count += 1,
            _ => runs.push((name, 1)),
        }
    }
    runs.iter()
        .map(|&(name, count)| {
            if count > 1 {
                format!("{name} x{count}")
            } else {
                name.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" > ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_topology_round_trips_by_both_names() {
        for t in Topology::ALL {
            assert_eq!(parse_topology(topology_name(t)), Ok(t));
            assert_eq!(parse_topology(&format!("{t:?}")), Ok(t));
        }
        assert!(parse_topology("diagonal").unwrap_err().contains("Fix:"));
    }

    #[test]
    fn every_vertex_order_round_trips_by_its_name() {
        for order in VertexOrder::ALL {
            assert_eq!(parse_vertex_order(vertex_order_name(order)), Ok(order));
        }
        assert_eq!(vertex_order_name(VertexOrder::AsGiven), "as-given");
        assert!(parse_vertex_order("sideways").unwrap_err().contains("Fix:"));
    }
}
