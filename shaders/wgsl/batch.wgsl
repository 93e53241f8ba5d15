// A batch pass's discoveries (after common.wgsl, for every kernel of a
// batch pass): up to 64 independent searches ("lanes") at once, one bit
// each in a 64-bit word per vertex (vyre_driver::backend::batch). WGSL has
// no 64-bit atomics, so a word is two u32 halves, lanes 0..32 in the low
// one (x) and 32..64 in the high one (y), at indices 2v and 2v + 1.
//
// The batch state takes the bindings of a search's parents and bitmaps,
// which a batch pass does without, and one more (vyre-wgsl-abi's
// bindings.rs): the seen words, the frontier words of this set (read) and
// of the other (written), and the tallies: the lane counts of each level of
// the command (64 words from 64 * level), then from C_BATCH_DEPTHS_AT the
// kept depths (`lanes` words per vertex, vertex-major, each the depth + 1,
// so that a cleared array means unreached).
//
// Word arrays hold zero outside the frontier they carry. A top-down level
// ORs each discovered vertex's new lanes into the other set's words and
// queues the vertex once, when the depth array's stamp for it moves to
// this level (the search's depth array is a stamp array during a batch: a
// 64-bit "went from zero" cannot be decided with two 32-bit atomics). Its
// last dispatch (batch_push_end, batch_frontier.wgsl) zeroes the words it
// read, counts the lanes of the vertices it queued and keeps their depths.
// A bottom-up level writes every word of the other set and counts as it
// goes (batch_pull.wgsl).

// Control words written by begin_batch (vyre-wgsl-abi's control.rs).
const C_BATCH_MASK_LO: u32 = 32u;   // lanes in use, low half
const C_BATCH_MASK_HI: u32 = 33u;   // lanes in use, high half
const C_BATCH_LANES: u32 = 34u;     // lanes: kept depths per vertex
const C_BATCH_KEEP: u32 = 35u;      // 1 when depths are kept
const C_BATCH_DEPTHS_AT: u32 = 36u; // first word of the kept depths in the tallies

@group(0) @binding(4) var<storage, read_write> seen: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read_write> words_in: array<vec2<u32>>;
@group(0) @binding(8) var<storage, read_write> words_out: array<atomic<u32>>;
@group(0) @binding(29) var<storage, read_write> tallies: array<atomic<u32>>;

fn seen_word(v: u32) -> vec2<u32> {
    return vec2<u32>(atomicLoad(&seen[2u * v]), atomicLoad(&seen[2u * v + 1u]));
}

fn lane_mask() -> vec2<u32> {
    return vec2<u32>(ctl(C_BATCH_MASK_LO), ctl(C_BATCH_MASK_HI));
}

fn any_lane(w: vec2<u32>) -> bool {
    return (w.x | w.y) != 0u;
}

// OR `lanes` into v's seen word; returns the lanes that were not seen.
fn mark_seen(v: u32, lanes: vec2<u32>) -> vec2<u32> {
    var fresh = vec2<u32>(0u);
    if lanes.x != 0u {
        fresh.x = lanes.x & ~atomicOr(&seen[2u * v], lanes.x);
    }
    if lanes.y != 0u {
        fresh.y = lanes.y & ~atomicOr(&seen[2u * v + 1u], lanes.y);
    }
    return fresh;
}

// Top-down: frontier vertex `u` offers its lanes to `v`; the lanes v had
// not seen join its next-frontier word, and the first invocation to give v
// any lane at this level queues it.
fn push_visit(u: u32, v: u32, next_depth: u32) {
    let offered = words_in[u] & ~seen_word(v);
    if !any_lane(offered) {
        return;
    }
    let found = mark_seen(v, offered);
    if !any_lane(found) {
        return;
    }
    if found.x != 0u {
        atomicOr(&words_out[2u * v], found.x);
    }
    if found.y != 0u {
        atomicOr(&words_out[2u * v + 1u], found.y);
    }
    let stamp = next_depth + 1u;
    if atomicMax(&depth[v], stamp) < stamp {
        append_next(v);
        p_out_edges += out_degree(v);
    }
}

// The wide levels' visit (visit.wgsl's push_visit_unreached): the seen
// words read first already spare v's atomics where it has every lane.
fn push_visit_unreached(u: u32, v: u32, next_depth: u32) {
    push_visit(u, v, next_depth);
}

// Lane counts of the running level, per workgroup, added to the tallies by
// flush_lanes (workgroup memory starts zeroed).
var<workgroup> w_lanes: array<atomic<u32>, 64>;

fn count_half(bits_in: u32, first_lane: u32) {
    var bits = bits_in;
    while bits != 0u {
        atomicAdd(&w_lanes[first_lane + firstTrailingBit(bits)], 1u);
        bits &= bits - 1u;
    }
}

// `v` was first reached at `depth` by the lanes of `found`: count them and
// keep their depths.
fn settle_lanes(v: u32, found: vec2<u32>, depth: u32) {
    count_half(found.x, 0u);
    count_half(found.y, 32u);
    if ctl(C_BATCH_KEEP) == 0u {
        return;
    }
    let row = ctl(C_BATCH_DEPTHS_AT) + v * ctl(C_BATCH_LANES);
    var bits = found.x;
    while bits != 0u {
        atomicStore(&tallies[row + firstTrailingBit(bits)], depth + 1u);
        bits &= bits - 1u;
    }
    bits = found.y;
    while bits != 0u {
        atomicStore(&tallies[row + 32u + firstTrailingBit(bits)], depth + 1u);
        bits &= bits - 1u;
    }
}

// Add the workgroup's lane counts to the running level's. Call from every
// invocation, in uniform control flow, once the workgroup's settles are
// done.
fn flush_lanes(lid: u32) {
    workgroupBarrier();
    for (var lane = lid; lane < 64u; lane += WG) {
        let count = atomicExchange(&w_lanes[lane], 0u);
        if count != 0u {
            atomicAdd(&tallies[64u * p_level + lane], count);
        }
    }
}
