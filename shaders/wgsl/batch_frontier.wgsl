// A batch pass's frontier bookkeeping (batch.wgsl before it).
//
// batch_push_end: the last dispatch of every top-down level, on the level's
// grid. The level's expansion has finished (a dispatch boundary lies
// between), so the next queue (queue_out, as long as the level's found
// count) and its words are final: it counts each queued vertex's new lanes
// and keeps their depths, and zeroes the words of the frontier it expanded
// (queue_in), so that the next level, which writes that array, finds it
// clear.
//
// batch_to_queue: the conversion from the bitmap form (the words alone,
// left by a bottom-up level) to the queue form, before a top-down
// command's first level on its grid: it lists the vertices whose words are
// not zero in queue_in, and zeroes the other array (the one the bottom-up
// level read, which the top-down level writes).

@compute @workgroup_size(WG)
fn batch_push_end(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    if !begin_level(lid, wid, dispatched) {
        return;
    }
    let nwg = level_grid(dispatched);
    let count = level_count();
    let found = atomicLoad(&history[p_record + R_FOUND]);
    let depth = discovery_depth();
    let lanes = lane_total(nwg);
    let first = group_index(wid, nwg) * WG + lid;
    for (var i = first; i < count; i += lanes) {
        words_in[queue_in[i]] = vec2<u32>(0u);
    }
    for (var i = first; i < found; i += lanes) {
        let v = queue_out[i];
        let lanes_of_v = vec2<u32>(atomicLoad(&words_out[2u * v]), atomicLoad(&words_out[2u * v + 1u]));
        settle_lanes(v, lanes_of_v, depth);
    }
    flush_lanes(lid);
}

var<workgroup> c_listed: atomic<u32>;
var<workgroup> c_base: u32;

@compute @workgroup_size(WG)
fn batch_to_queue(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let n = uniform_ctl(lid, C_VERTEX_COUNT);
    let chunks = div_ceil(n, WG);
    for (var c = group_index(wid, nwg); c < chunks; c += group_total(nwg)) {
        let v = c * WG + lid;
        var slot = 0u;
        let listed = v < n && any_lane(words_in[v]);
        if listed {
            slot = atomicAdd(&c_listed, 1u);
        }
        if v < n {
            atomicStore(&words_out[2u * v], 0u);
            atomicStore(&words_out[2u * v + 1u], 0u);
        }
        workgroupBarrier();
        if lid == 0u {
            c_base = atomicAdd(&control[C_CONV_COUNT], atomicExchange(&c_listed, 0u));
        }
        let base = workgroupUniformLoad(&c_base);
        if listed {
            queue_in[base + slot] = v;
        }
    }
}
