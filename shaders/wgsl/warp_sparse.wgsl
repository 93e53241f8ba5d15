// WarpSparseFrontier: a virtual warp of WARP_LANES (32, level_sizing.wgsl)
// consecutive lanes per frontier vertex; the lanes stride over its
// out-edges. No subgroup operations: the lanes only share the vertex id.

@compute @workgroup_size(WG)
fn warp_sparse(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    if !begin_level(lid, wid, dispatched) {
        return;
    }
    let nwg = level_grid(dispatched);
    let count = level_count();
    let next_depth = discovery_depth();
    let per = ctl(C_OUT_PER_SEG);
    let lanes = lane_total(nwg);
    // A launch narrower than one warp makes one warp of all its lanes.
    let warp_width = min(WARP_LANES, lanes);
    let warps = lanes / warp_width;
    let gid = group_index(wid, nwg) * WG + lid;
    let lane = gid % warp_width;
    let in_a_warp = gid < warps * warp_width;
    // Rounds are uniform so that every round can flush its discoveries.
    let rounds = count / warps + select(0u, 1u, count % warps != 0u);
    for (var round = 0u; round < rounds; round += 1u) {
        let i = round * warps + gid / warp_width;
        if in_a_warp && i < count {
            let u = queue_in[i];
            let end = out_offsets[u + 1u];
            for (var e = out_offsets[u] + lane; e < end; e += warp_width) {
                push_visit(u, out_edge(e, per), next_depth);
                p_examined += 1u;
            }
        }
        flush_appends(lid);
    }
    flush_counters(lid, false);
}
