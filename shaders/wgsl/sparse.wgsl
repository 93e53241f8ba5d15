// SparseFrontier: edge-balanced top-down push. A workgroup takes a chunk of
// WG frontier vertices, scans their degrees in workgroup memory, and its
// invocations walk the chunk's edges in strides of WG, finding each edge's
// vertex by binary search in the scan. Discoveries are appended atomically.

var<workgroup> s_scan: array<u32, WG>;   // inclusive prefix sums of degrees
var<workgroup> s_start: array<u32, WG>;  // first edge of each chunk vertex
var<workgroup> s_vertex: array<u32, WG>;
var<workgroup> s_count: u32;
var<workgroup> s_total: u32;

@compute @workgroup_size(WG)
fn sparse(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    if lid == 0u {
        s_count = ctl(C_CUR_COUNT);
    }
    let count = workgroupUniformLoad(&s_count);
    let next_depth = ctl(C_LEVEL) + 1u;
    let per = ctl(C_OUT_PER_SEG);
    let chunks = count / WG + select(0u, 1u, count % WG != 0u);
    for (var c = group_index(wid, nwg); c < chunks; c += group_total(nwg)) {
        let i = c * WG + lid;
        var degree = 0u;
        s_vertex[lid] = 0u;
        s_start[lid] = 0u;
        if i < count {
            let u = queue_in[i];
            s_vertex[lid] = u;
            s_start[lid] = out_offsets[u];
            degree = out_offsets[u + 1u] - out_offsets[u];
        }
        s_scan[lid] = degree;
        workgroupBarrier();
        for (var offset = 1u; offset < WG; offset <<= 1u) {
            var add = 0u;
            if lid >= offset {
                add = s_scan[lid - offset];
            }
            workgroupBarrier();
            s_scan[lid] += add;
            workgroupBarrier();
        }
        if lid == WG - 1u {
            s_total = s_scan[lid];
            p_examined += s_scan[lid];
        }
        let total = workgroupUniformLoad(&s_total);
        for (var k = lid; k < total; k += WG) {
            // The chunk vertex owning edge k: the first j with s_scan[j] > k.
            var lo = 0u;
            var hi = WG - 1u;
            while lo < hi {
                let mid = (lo + hi) / 2u;
                if s_scan[mid] > k {
                    hi = mid;
                } else {
                    lo = mid + 1u;
                }
            }
            var before = 0u;
            if lo > 0u {
                before = s_scan[lo - 1u];
            }
            let u = s_vertex[lo];
            push_visit(u, out_edge(s_start[lo] + (k - before), per), next_depth);
        }
        flush_appends(lid);
    }
    flush_counters(lid, false);
}
