// DenseFrontier: bottom-up. Every unvisited vertex looks through its
// in-edges for a parent whose bit is set in the current frontier bitmap
// (bottom_up.wgsl); discoveries set their bit in the next bitmap (cleared by
// dense_clear_next before the level).

fn mark_next(v: u32) {
    atomicOr(&bitmap_out[v >> 5u], 1u << (v & 31u));
}

@compute @workgroup_size(WG)
fn dense(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    if !begin_level(lid, wid, dispatched) {
        return;
    }
    let nwg = level_grid(dispatched);
    // Vertices from C_IN_EDGE_END on have no in-edges: none can be found.
    let end = uniform_ctl(lid, C_IN_EDGE_END);
    let next_depth = discovery_depth();
    let per = ctl(C_IN_PER_SEG);
    // Chunks of 4 * WG vertices: four candidates per invocation.
    let chunks = div_ceil(end, 4u * WG);
    for (var c = group_index(wid, nwg); c < chunks; c += group_total(nwg)) {
        begin_candidates(lid);
        workgroupBarrier();
        let v = c * 4u * WG + lid + vec4<u32>(0u, WG, 2u * WG, 3u * WG);
        let found = pull_four(v, end, next_depth, per);
        if found.x {
            mark_next(v.x);
        }
        if found.y {
            mark_next(v.y);
        }
        if found.z {
            mark_next(v.z);
        }
        if found.w {
            mark_next(v.w);
        }
        let heavy = heavy_count(lid);
        for (var j = 0u; j < heavy; j += 1u) {
            let hv = pull_heavy(lid, j, next_depth, per);
            if hv != UNREACHED {
                mark_next(hv);
            }
        }
        workgroupBarrier();
    }
    flush_counters(lid, true);
}

// Clear the next-frontier bitmap before a Dense level. Dispatched with the
// level's own grid; a level a chain does not run leaves the bitmaps alone
// (it may hold the frontier the command ends with).
@compute @workgroup_size(WG)
fn dense_clear_next(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    if !begin_level(lid, wid, dispatched) {
        return;
    }
    let nwg = level_grid(dispatched);
    let words = (ctl(C_VERTEX_COUNT) + 31u) / 32u;
    let lanes = lane_total(nwg);
    for (var w = group_index(wid, nwg) * WG + lid; w < words; w += lanes) {
        atomicStore(&bitmap_out[w], 0u);
    }
}
