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
// One round of candidates: begin_candidates, a barrier, pull_four for each
// invocation's four candidates, then pull_heavy(j) for every j below
// heavy_count.

const SCAN_ALONE: u32 = 256u;

// The current frontier bitmap (bitmap_in's binding) as plain words: no
// invocation of a bottom-up level writes it, so its words may stay in the
// caches near the invocations, where an atomic load goes to the device's
// coherent cache every time. The hubs' few words are read by nearly every
// unvisited vertex. (read_write, as the binding's layout says: wgpu wants
// the shader's access to match it.)
@group(0) @binding(7) var<storage, read_write> frontier_words: array<u32>;

fn in_frontier(u: u32) -> bool {
    return bit_set(frontier_words[u >> 5u], u & 31u);
}

var<workgroup> u_heavy: array<u32, 4u * WG>;  // four candidates per invocation
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

// Search four candidates, `v` (those at or past `end` are not candidates),
// alone or defer them to the heavy list. Their first probes (depth, in-edge
// row, first in-edge, its frontier word) are loaded side by side, so the
// four chains of dependent loads overlap; most vertices of a graph
// relabelled by degree end there. Which of the four were discovered.
fn pull_four(v: vec4<u32>, end: u32, next_depth: u32, per: u32) -> vec4<bool> {
    // Loads of a non-candidate read the last candidate's words, unused.
    let c = min(v, vec4<u32>(end - 1u));
    let d = vec4<u32>(
        atomicLoad(&depth[c.x]),
        atomicLoad(&depth[c.y]),
        atomicLoad(&depth[c.z]),
        atomicLoad(&depth[c.w]),
    );
    let open = (v < vec4<u32>(end)) & (d == vec4<u32>(UNREACHED));
    // Written out per component: a loop would index the vectors with a
    // variable, which compilers may answer by moving them out of registers.
    var start = vec4<u32>(0u);
    var stop = vec4<u32>(0u);
    if open.x {
        start.x = in_offsets[v.x];
        stop.x = in_offsets[v.x + 1u];
    }
    if open.y {
        start.y = in_offsets[v.y];
        stop.y = in_offsets[v.y + 1u];
    }
    if open.z {
        start.z = in_offsets[v.z];
        stop.z = in_offsets[v.z + 1u];
    }
    if open.w {
        start.w = in_offsets[v.w];
        stop.w = in_offsets[v.w + 1u];
    }
    var first = vec4<u32>(UNREACHED);
    if start.x < stop.x {
        first.x = in_edge(start.x, per);
    }
    if start.y < stop.y {
        first.y = in_edge(start.y, per);
    }
    if start.z < stop.z {
        first.z = in_edge(start.z, per);
    }
    if start.w < stop.w {
        first.w = in_edge(start.w, per);
    }
    var word = vec4<u32>(0u);
    if first.x != UNREACHED {
        word.x = frontier_words[first.x >> 5u];
    }
    if first.y != UNREACHED {
        word.y = frontier_words[first.y >> 5u];
    }
    if first.z != UNREACHED {
        word.z = frontier_words[first.z >> 5u];
    }
    if first.w != UNREACHED {
        word.w = frontier_words[first.w >> 5u];
    }
    return vec4<bool>(
        finish_alone(v.x, first.x, word.x, start.x, stop.x, next_depth, per),
        finish_alone(v.y, first.y, word.y, start.y, stop.y, next_depth, per),
        finish_alone(v.z, first.z, word.z, start.z, stop.z, next_depth, per),
        finish_alone(v.w, first.w, word.w, start.w, stop.w, next_depth, per),
    );
}

// The rest of pull_four for one candidate whose first in-edge `first` (row
// start..stop, UNREACHED when it has none) has frontier word `word`: visit
// it from that parent, else scan the rest of its first SCAN_ALONE in-edges,
// else defer a longer row. Whether it was discovered.
fn finish_alone(v: u32, first: u32, word: u32, start: u32, stop: u32, next_depth: u32, per: u32) -> bool {
    if first == UNREACHED {
        return false;
    }
    p_examined += 1u;
    if bit_set(word, first & 31u) {
        pull_visit(v, first, next_depth);
        return true;
    }
    let alone = min(stop, start + SCAN_ALONE);
    for (var e = start + 1u; e < alone; e += 1u) {
        p_examined += 1u;
        let u = in_edge(e, per);
        if in_frontier(u) {
            pull_visit(v, u, next_depth);
            return true;
        }
    }
    if stop > alone {
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
    // Its first SCAN_ALONE in-edges held no parent (finish_alone).
    for (var e = in_offsets[hv] + SCAN_ALONE + lid; e < end; e += WG) {
        if atomicLoad(&u_found) != 0u {
            break;
        }
        p_examined += 1u;
        let u = in_edge(e, per);
        if in_frontier(u) {
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
