// A search's discoveries (after common.wgsl, for every per-wave kernel of a
// search): its parents and frontier bitmaps, top-down claims of a vertex's
// depth and bottom-up visits.

@group(0) @binding(4) var<storage, read_write> parent: array<u32>;
@group(0) @binding(7) var<storage, read_write> bitmap_in: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> bitmap_out: array<atomic<u32>>;

// Top-down discovery of `v` from frontier vertex `u`: the invocation that
// claims v writes its parent and appends it to the next queue.
fn push_visit(u: u32, v: u32, next_depth: u32) {
    if claim(v, next_depth) {
        visited_from(u, v);
    }
}

// push_visit for wide levels (base.wgsl's claim_unreached).
fn push_visit_unreached(u: u32, v: u32, next_depth: u32) {
    if claim_unreached(v, next_depth) {
        visited_from(u, v);
    }
}

fn visited_from(u: u32, v: u32) {
    parent[v] = u;
    append_next(v);
    p_out_edges += out_degree(v);
}

fn bit_set(word: u32, bit: u32) -> bool {
    return ((word >> bit) & 1u) != 0u;
}

// Bottom-up discovery of `v` (owned by exactly one invocation) with frontier
// parent `u`: depth, parent and counters; the caller records the next-frontier bit.
fn pull_visit(v: u32, u: u32, next_depth: u32) {
    atomicStore(&depth[v], next_depth);
    parent[v] = u;
    p_found += 1u;
    p_out_edges += out_degree(v);
}
