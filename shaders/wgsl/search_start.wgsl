// Start of a search: every vertex unreached, then the sources (held in
// queue_in, C_CUR_COUNT of them) at depth 0 with themselves as parent.

@compute @workgroup_size(WG)
fn reset_state(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let n = ctl(C_VERTEX_COUNT);
    let lanes = lane_total(nwg);
    for (var v = group_index(wid, nwg) * WG + lid; v < n; v += lanes) {
        atomicStore(&depth[v], UNREACHED);
        parent[v] = UNREACHED;
    }
}

@compute @workgroup_size(WG)
fn seed_sources(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let count = ctl(C_CUR_COUNT);
    let lanes = lane_total(nwg);
    for (var i = group_index(wid, nwg) * WG + lid; i < count; i += lanes) {
        let s = queue_in[i];
        atomicStore(&depth[s], 0u);
        parent[s] = s;
    }
}
