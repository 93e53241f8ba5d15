// Bottom-up discovery shared by dense.wgsl and block_dense.wgsl (Rust
// prepends this file to both). An unvisited vertex's first SCAN_ALONE
// in-edges are scanned by its own invocation, stopping at the first parent
// in the current frontier bitmap; a longer list that has none there is
// deferred to the workgroup's heavy list and scanned by the whole workgroup
// with a shared early exit, so no invocation walks a long list alone. Rows
// that list high-degree neighbours first (a graph relabelled by degree)
// mostly end at their first in-edge, and a tile of hubs then does not turn
// into a workgroup scanning them one after another.
//
// One round of candidates: begin_candidates, a barrier, pull_light_or_defer
// for each candidate, then pull_heavy(j) for every j below heavy_count.

const SCAN_ALONE: u32 = 256u;

var<workgroup> u_heavy: array<u32, WG>;
var<workgroup> u_heavy_len: atomic<u32>;
var<workgroup> u_heavy_count: u32;
var<workgroup> u_found: atomic<u32>;
var<workgroup> u_parent: atomic<u32>;

// Empty the heavy list; the caller's next barrier publishes it.
fn begin_candidates(lid: u32) {
    if lid == 0u {
        atomicStore(&u_heavy_len, 0u);
    }
}

// Look for a parent of the unvisited vertex `v` alone, or defer it to the
// heavy list. Whether `v` was discovered here.
fn pull_light_or_defer(v: u32, next_depth: u32, per: u32) -> bool {
    let start = in_offsets[v];
    let end = in_offsets[v + 1u];
    let alone = min(end, start + SCAN_ALONE);
    for (var e = start; e < alone; e += 1u) {
        p_examined += 1u;
        let u = in_edge(e, per);
        if in_frontier_bitmap(u) {
            pull_visit(v, u, next_depth);
            return true;
        }
    }
    if end > alone {
        u_heavy[atomicAdd(&u_heavy_len, 1u)] = v;
    }
    return false;
}

// Vertices deferred this round. Call from every invocation.
fn heavy_count(lid: u32) -> u32 {
    workgroupBarrier();
    if lid == 0u {
        u_heavy_count = atomicLoad(&u_heavy_len);
    }
    return workgroupUniformLoad(&u_heavy_count);
}

// Scan the j-th deferred vertex with the whole workgroup (the smallest
// frontier parent found wins). Returns the vertex on invocation 0 when it
// was discovered, UNREACHED otherwise. Call from every invocation.
fn pull_heavy(lid: u32, j: u32, next_depth: u32, per: u32) -> u32 {
    let hv = u_heavy[j];
    if lid == 0u {
        atomicStore(&u_found, 0u);
        atomicStore(&u_parent, UNREACHED);
    }
    workgroupBarrier();
    let end = in_offsets[hv + 1u];
    // Its first SCAN_ALONE in-edges held no parent (pull_light_or_defer).
    for (var e = in_offsets[hv] + SCAN_ALONE + lid; e < end; e += WG) {
        if atomicLoad(&u_found) != 0u {
            break;
        }
        p_examined += 1u;
        let u = in_edge(e, per);
        if in_frontier_bitmap(u) {
            atomicMin(&u_parent, u);
            atomicStore(&u_found, 1u);
        }
    }
    workgroupBarrier();
    var discovered = UNREACHED;
    if lid == 0u {
        let u = atomicLoad(&u_parent);
        if u != UNREACHED {
            pull_visit(hv, u, next_depth);
            discovered = hv;
        }
    }
    return discovered;
}
