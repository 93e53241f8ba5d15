//! Graph shapes whose BFS has one level made of vertices of very different
//! degrees (hubs, mid-degree and light vertices, or degree-0 vertices), the
//! levels that load balancing across the whole grid is for.

use vyre_graph::Graph;
use vyre_graph::build::{BuildOptions, build_graph};

/// A group of vertices of one level of a [`hub_tree`], each with `children`
/// children of its own.
#[derive(Clone, Copy, Debug)]
pub struct Tier {
    /// Vertices of the tier.
    pub vertices: u32,
    /// Children of each of them.
    pub children: u32,
}

/// Tiers of `vertices` vertices with `children` children each.
pub const fn tier(vertices: u32, children: u32) -> Tier {
    Tier { vertices, children }
}

/// A path of `path_len` vertices (0 is its far end, the source of the
/// tests), whose last vertex is joined to every vertex of every tier; each
/// tier vertex has its own `children` leaves. From vertex 0, level
/// `path_len` is exactly the tier vertices (in a queue order the kernels
/// choose) and level `path_len + 1` their leaves.
///
/// Directed graphs have edges pointing away from vertex 0 only, so a tier
/// vertex without children has out-degree 0.
pub fn hub_tree(path_len: u32, tiers: &[Tier], directed: bool) -> Graph {
    assert!(path_len >= 1);
    let tier_vertices: u32 = tiers.iter().map(|t| t.vertices).sum();
    let leaves: u64 = tiers
        .iter()
        .map(|t| u64::from(t.vertices) * u64::from(t.children))
        .sum();
    let n = u64::from(path_len) + u64::from(tier_vertices) + leaves;
    let n = u32::try_from(n).expect("the shape fits u32 vertex ids");
    let mut edges = Vec::with_capacity(n as usize);
    for v in 1..path_len {
        edges.push((v - 1, v));
    }
    let last = path_len - 1;
    let mut next_tier = path_len;
    let mut next_leaf = path_len + tier_vertices;
    for t in tiers {
        for _ in 0..t.vertices {
            edges.push((last, next_tier));
            for _ in 0..t.children {
                edges.push((next_tier, next_leaf));
                next_leaf += 1;
            }
            next_tier += 1;
        }
    }
    let options = if directed {
        BuildOptions::DIRECTED
    } else {
        BuildOptions::UNDIRECTED
    };
    build_graph(n, &edges, options).expect("valid graph")
}

/// The "broom": a path of 10 vertices whose last vertex holds 8 hubs of
/// 20,000 leaves each. From vertex 0, level 10's frontier is exactly the 8
/// hubs (160,008 out-edges) and level 11 the 160,000 leaves.
pub fn broom() -> Graph {
    hub_tree(10, &[tier(8, 20_000)], false)
}
