// HybridFrontier: light frontier vertices (at most LIGHT_DEGREE out-edges)
// are expanded by their own invocation; heavy ones are collected in
// workgroup memory and expanded by the whole workgroup together, so no
// invocation walks a long adjacency list alone.

const LIGHT_DEGREE: u32 = 64u;

var<workgroup> h_heavy: array<u32, WG>;
var<workgroup> h_heavy_len: atomic<u32>;
var<workgroup> h_heavy_count: u32;
var<workgroup> h_count: u32;

@compute @workgroup_size(WG)
fn hybrid(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    if lid == 0u {
        h_count = ctl(C_CUR_COUNT);
    }
    let count = workgroupUniformLoad(&h_count);
    let next_depth = ctl(C_LEVEL) + 1u;
    let per = ctl(C_OUT_PER_SEG);
    let chunks = count / WG + select(0u, 1u, count % WG != 0u);
    for (var c = group_index(wid, nwg); c < chunks; c += group_total(nwg)) {
        if lid == 0u {
            atomicStore(&h_heavy_len, 0u);
        }
        workgroupBarrier();
        let i = c * WG + lid;
        if i < count {
            let u = queue_in[i];
            let start = out_offsets[u];
            let end = out_offsets[u + 1u];
            if end - start <= LIGHT_DEGREE {
                for (var e = start; e < end; e += 1u) {
                    push_visit(u, out_edge(e, per), next_depth);
                }
                p_examined += end - start;
            } else {
                h_heavy[atomicAdd(&h_heavy_len, 1u)] = u;
            }
        }
        workgroupBarrier();
        if lid == 0u {
            h_heavy_count = atomicLoad(&h_heavy_len);
        }
        let heavy = workgroupUniformLoad(&h_heavy_count);
        for (var j = 0u; j < heavy; j += 1u) {
            let u = h_heavy[j];
            let start = out_offsets[u];
            let end = out_offsets[u + 1u];
            for (var e = start + lid; e < end; e += WG) {
                push_visit(u, out_edge(e, per), next_depth);
                p_examined += 1u;
            }
        }
        flush_appends(lid);
    }
    flush_counters(lid, false);
}
