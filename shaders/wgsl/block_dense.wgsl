// BlockDenseFrontier: bottom-up by tiles. A workgroup owns a tile of WG
// bitmap words (32 * WG vertices) and walks it in 32 rows of WG vertices,
// one vertex per invocation (consecutive invocations take consecutive
// vertices, so depth and row loads coalesce). It assembles the tile's
// next-frontier words in workgroup memory and writes them whole (so the
// next bitmap needs no clearing). Each vertex is searched as bottom_up.wgsl
// says.

var<workgroup> b_next: array<atomic<u32>, WG>;  // next-frontier words of the tile

fn tile_mark(v: u32, tile_first_word: u32) {
    atomicOr(&b_next[(v >> 5u) - tile_first_word], 1u << (v & 31u));
}

@compute @workgroup_size(WG)
fn block_dense(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    if !begin_level(lid, wid, nwg) {
        return;
    }
    let n = uniform_ctl(lid, C_VERTEX_COUNT);
    // Vertices from C_IN_EDGE_END on have no in-edges: none can be found,
    // so they are never searched (their tiles' words are written empty).
    let end = uniform_ctl(lid, C_IN_EDGE_END);
    let next_depth = discovery_depth();
    let per = ctl(C_IN_PER_SEG);
    let words = div_ceil(n, 32u);
    let tiles = div_ceil(words, WG);
    for (var t = group_index(wid, nwg); t < tiles; t += group_total(nwg)) {
        let first_word = t * WG;
        atomicStore(&b_next[lid], 0u);
        let tile_first_vertex = first_word * 32u;
        // Rows past the last vertex with an in-edge hold nothing to find.
        let rows = min(32u, div_ceil(max(end, tile_first_vertex) - tile_first_vertex, WG));
        for (var r = 0u; r < rows; r += 1u) {
            begin_candidates(lid);
            workgroupBarrier();
            let v = tile_first_vertex + r * WG + lid;
            if v < end && atomicLoad(&depth[v]) == UNREACHED && pull_light_or_defer(v, next_depth, per) {
                tile_mark(v, first_word);
            }
            let heavy = heavy_count(lid);
            for (var j = 0u; j < heavy; j += 1u) {
                let hv = pull_heavy(lid, j, next_depth, per);
                if hv != UNREACHED {
                    tile_mark(hv, first_word);
                }
            }
        }
        workgroupBarrier();
        let w = first_word + lid;
        if w < words {
            atomicStore(&bitmap_out[w], atomicLoad(&b_next[lid]));
        }
        workgroupBarrier();
    }
    flush_counters(lid, true);
}
