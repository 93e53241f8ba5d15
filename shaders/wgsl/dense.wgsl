// DenseFrontier: bottom-up. Every unvisited vertex looks through its
// in-edges for a parent whose bit is set in the current frontier bitmap and
// stops at the first one; discoveries set their bit in the next bitmap
// (cleared by dense_clear_next before the level). A vertex with more than
// SCAN_ALONE in-edges is not scanned by its own invocation: it is collected
// in workgroup memory and scanned by the whole workgroup with a shared early
// exit, so no invocation walks a long list alone.

const SCAN_ALONE: u32 = 256u;

var<workgroup> d_heavy: array<u32, WG>;
var<workgroup> d_heavy_len: atomic<u32>;
var<workgroup> d_heavy_count: u32;
var<workgroup> d_found: atomic<u32>;
var<workgroup> d_parent: atomic<u32>;
var<workgroup> d_n: u32;

fn mark_next(v: u32) {
    atomicOr(&bitmap_out[v >> 5u], 1u << (v & 31u));
}

@compute @workgroup_size(WG)
fn dense(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    if chain_stopped(lid) {
        return;
    }
    if lid == 0u {
        d_n = ctl(C_VERTEX_COUNT);
    }
    let n = workgroupUniformLoad(&d_n);
    let next_depth = ctl(C_LEVEL) + 1u;
    let per = ctl(C_IN_PER_SEG);
    let chunks = n / WG + select(0u, 1u, n % WG != 0u);
    for (var c = group_index(wid, nwg); c < chunks; c += group_total(nwg)) {
        if lid == 0u {
            atomicStore(&d_heavy_len, 0u);
        }
        workgroupBarrier();
        let v = c * WG + lid;
        if v < n && atomicLoad(&depth[v]) == UNREACHED {
            let start = in_offsets[v];
            let end = in_offsets[v + 1u];
            if end - start <= SCAN_ALONE {
                for (var e = start; e < end; e += 1u) {
                    p_examined += 1u;
                    let u = in_edge(e, per);
                    if in_frontier_bitmap(u) {
                        pull_visit(v, u, next_depth);
                        mark_next(v);
                        break;
                    }
                }
            } else {
                d_heavy[atomicAdd(&d_heavy_len, 1u)] = v;
            }
        }
        workgroupBarrier();
        if lid == 0u {
            d_heavy_count = atomicLoad(&d_heavy_len);
        }
        let heavy = workgroupUniformLoad(&d_heavy_count);
        for (var j = 0u; j < heavy; j += 1u) {
            let hv = d_heavy[j];
            if lid == 0u {
                atomicStore(&d_found, 0u);
                atomicStore(&d_parent, UNREACHED);
            }
            workgroupBarrier();
            let end = in_offsets[hv + 1u];
            for (var e = in_offsets[hv] + lid; e < end; e += WG) {
                if atomicLoad(&d_found) != 0u {
                    break;
                }
                p_examined += 1u;
                let u = in_edge(e, per);
                if in_frontier_bitmap(u) {
                    atomicMin(&d_parent, u);
                    atomicStore(&d_found, 1u);
                }
            }
            workgroupBarrier();
            if lid == 0u {
                let u = atomicLoad(&d_parent);
                if u != UNREACHED {
                    pull_visit(hv, u, next_depth);
                    mark_next(hv);
                }
            }
        }
        workgroupBarrier();
    }
    flush_counters(lid, true);
    finish_level(lid, nwg, true);
}

// Clear the next-frontier bitmap before a Dense level. Dispatched with the
// level's own grid; a level a chain does not run leaves the bitmaps alone.
@compute @workgroup_size(WG)
fn dense_clear_next(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    if chain_stopped(lid) {
        return;
    }
    let words = (ctl(C_VERTEX_COUNT) + 31u) / 32u;
    let lanes = lane_total(nwg);
    for (var w = group_index(wid, nwg) * WG + lid; w < words; w += lanes) {
        atomicStore(&bitmap_out[w], 0u);
    }
}
