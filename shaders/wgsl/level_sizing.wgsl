// The engine's rule for the grid of a level only the device knows
// (vyre_driver::backend::LevelSizing::workgroups): enough workgroups of
// `width` for the level's vertex slots and, for edge-balanced topologies, for
// its out-edges at `per_lane` edges a lane, between 1 and `cap`. It is the
// larger of the two grids groups_for_lanes gives for lanes_by_vertices and
// lanes_by_edges, which is how chain.wgsl builds it from counters that grow
// while a level runs. The parameters come from the command (control words
// C_SLOT_KIND, C_EDGES_PER_LANE, C_MAX_WORKGROUPS); nothing here is a choice
// of this backend's.
//
// Prepended, after common.wgsl, to every kernel file.

// Slot kinds (C_SLOT_KIND), mirroring vyre_driver::backend::slots_for.
const SLOTS_WARP: u32 = 0u;        // WARP_LANES per frontier vertex
const SLOTS_FRONTIER: u32 = 1u;    // one per frontier vertex
const SLOTS_VERTICES: u32 = 2u;    // one per vertex of the graph
const SLOTS_WORDS: u32 = 3u;       // one per 32-vertex bitmap word

// Lanes that cooperate on one frontier vertex in WarpSparseFrontier
// (vyre_driver::backend::WARP_LANES).
const WARP_LANES: u32 = 32u;

// Lanes a level of `count` frontier vertices needs by its vertices, on a
// graph of `n` (saturating).
fn lanes_by_vertices(kind: u32, count: u32, n: u32) -> u32 {
    switch kind {
        case 0u: {
            if count > 0xffffffffu / WARP_LANES {
                return 0xffffffffu;
            }
            return count * WARP_LANES;
        }
        case 2u: { return n; }
        case 3u: { return div_ceil(n, 32u); }
        default: { return count; }
    }
}

// Lanes a level needs by its `edges` out-edges: none when the topology is
// sized by vertices alone (`per_lane` = 0).
fn lanes_by_edges(edges: u32, per_lane: u32) -> u32 {
    if per_lane == 0u {
        return 0u;
    }
    return div_ceil(edges, per_lane);
}

fn groups_for_lanes(lanes: u32, width: u32, cap: u32) -> u32 {
    return clamp(div_ceil(lanes, max(width, 1u)), 1u, max(cap, 1u));
}
