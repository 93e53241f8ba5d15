// Bottom-up levels of a batch pass (DenseFrontier and BlockDenseFrontier;
// batch.wgsl before it). Every vertex not yet seen by every lane gathers
// the lanes it misses from its in-neighbours' frontier words and stops once
// it has them all. Its next-frontier word (zero for most) is written whole,
// so the array needs no clearing; seen, lane counts and kept depths are
// settled by the vertex's one owner. An in-edge list of at most PULL_ALONE
// is gathered by its own invocation, a longer one by the whole workgroup
// with a shared early exit, as bottom_up.wgsl does for a search.
//
// DenseFrontier runs a lane per vertex and BlockDenseFrontier a lane per
// 32 (the engine's slots): a workgroup takes tiles of WG * rounds
// consecutive vertices (rounds 1 or 32), WG a round, and strides over the
// tiles whatever the grid.

const PULL_ALONE: u32 = 256u;

var<workgroup> g_heavy: array<u32, WG>;
var<workgroup> g_heavy_len: atomic<u32>;
var<workgroup> g_heavy_count: u32;
var<workgroup> g_missing: vec2<u32>;
var<workgroup> g_found: array<atomic<u32>, 2>;

// `v` gathered `found`: its whole next-frontier word and, when it found
// any lane, its seen word, lane counts, depths and the level's counters.
fn settle_pull(v: u32, found: vec2<u32>, next_depth: u32) {
    atomicStore(&words_out[2u * v], found.x);
    atomicStore(&words_out[2u * v + 1u], found.y);
    if any_lane(found) {
        mark_seen(v, found);
        settle_lanes(v, found, next_depth);
        p_found += 1u;
        p_out_edges += out_degree(v);
    }
}

// Gather the lanes `v` misses alone, or defer a long in-edge list to the
// workgroup.
fn pull_alone_or_defer(v: u32, mask: vec2<u32>, next_depth: u32, per: u32) {
    let missing = mask & ~seen_word(v);
    let start = in_offsets[v];
    let end = in_offsets[v + 1u];
    if any_lane(missing) && end - start > PULL_ALONE {
        g_heavy[atomicAdd(&g_heavy_len, 1u)] = v;
        return;
    }
    var found = vec2<u32>(0u);
    if any_lane(missing) {
        for (var e = start; e < end; e += 1u) {
            p_examined += 1u;
            found |= words_in[in_edge(e, per)] & missing;
            if all(found == missing) {
                break;
            }
        }
    }
    settle_pull(v, found, next_depth);
}

// Gather the j-th deferred vertex with the whole workgroup; each invocation
// shares the lanes it finds, and all stop once every missing lane is
// found. Call from every invocation.
fn pull_heavy(lid: u32, j: u32, mask: vec2<u32>, next_depth: u32, per: u32) {
    let hv = g_heavy[j];
    if lid == 0u {
        g_missing = mask & ~seen_word(hv);
        atomicStore(&g_found[0], 0u);
        atomicStore(&g_found[1], 0u);
    }
    workgroupBarrier();
    let missing = g_missing;
    var found = vec2<u32>(0u);
    let end = in_offsets[hv + 1u];
    for (var e = in_offsets[hv] + lid; e < end; e += WG) {
        let known = vec2<u32>(atomicLoad(&g_found[0]), atomicLoad(&g_found[1]));
        if all(known == missing) {
            break;
        }
        p_examined += 1u;
        let more = words_in[in_edge(e, per)] & missing & ~found;
        if any_lane(more) {
            found |= more;
            atomicOr(&g_found[0], more.x);
            atomicOr(&g_found[1], more.y);
        }
    }
    workgroupBarrier();
    if lid == 0u {
        settle_pull(hv, vec2<u32>(atomicLoad(&g_found[0]), atomicLoad(&g_found[1])), next_depth);
    }
}

// One tile of `rounds` rounds of WG vertices from `first`. Call from every
// invocation, in uniform control flow.
fn pull_tile(lid: u32, first: u32, rounds: u32, n: u32, next_depth: u32) {
    let mask = lane_mask();
    let per = ctl(C_IN_PER_SEG);
    for (var r = 0u; r < rounds; r += 1u) {
        if lid == 0u {
            atomicStore(&g_heavy_len, 0u);
        }
        workgroupBarrier();
        let v = first + r * WG + lid;
        if v < n {
            pull_alone_or_defer(v, mask, next_depth, per);
        }
        workgroupBarrier();
        if lid == 0u {
            g_heavy_count = atomicLoad(&g_heavy_len);
        }
        let heavy = workgroupUniformLoad(&g_heavy_count);
        for (var j = 0u; j < heavy; j += 1u) {
            pull_heavy(lid, j, mask, next_depth, per);
        }
        workgroupBarrier();
    }
}

fn pull_level(lid: u32, wid: vec3<u32>, dispatched: vec3<u32>, rounds: u32) {
    if !begin_level(lid, wid, dispatched) {
        return;
    }
    let nwg = level_grid(dispatched);
    let n = uniform_ctl(lid, C_VERTEX_COUNT);
    let next_depth = discovery_depth();
    let tile = WG * rounds;
    let tiles = div_ceil(n, tile);
    for (var t = group_index(wid, nwg); t < tiles; t += group_total(nwg)) {
        pull_tile(lid, t * tile, rounds, n, next_depth);
    }
    flush_lanes(lid);
    flush_counters(lid, true);
}

@compute @workgroup_size(WG)
fn batch_dense(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    pull_level(lid, wid, dispatched, 1u);
}

@compute @workgroup_size(WG)
fn batch_block_dense(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    pull_level(lid, wid, dispatched, 32u);
}
