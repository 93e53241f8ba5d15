// BlockDenseFrontier: bottom-up by tiles. A workgroup owns a tile of WG
// bitmap words (32 * WG vertices) and walks it in 32 rows of WG vertices,
// four rows a round: each invocation takes its vertex of each of the four
// (consecutive invocations take consecutive vertices, so depth and row
// loads coalesce). It assembles the tile's next-frontier words in workgroup
// memory and writes them whole (so the next bitmap needs no clearing). Each
// vertex is searched as bottom_up.wgsl says.

var<workgroup> b_next: array<atomic<u32>, WG>;  // next-frontier words of the tile

fn tile_mark(v: u32, tile_first_word: u32) {
    atomicOr(&b_next[(v >> 5u) - tile_first_word], 1u << (v & 31u));
}

@compute @workgroup_size(WG)
fn block_dense(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    if !begin_level(lid, wid, dispatched) {
        return;
    }
    let nwg = level_grid(dispatched);
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
        // Four rows a round; those past `rows` lie past `end`.
        for (var r = 0u; r < rows; r += 4u) {
            begin_candidates(lid);
            workgroupBarrier();
            let v = tile_first_vertex + r * WG + lid + vec4<u32>(0u, WG, 2u * WG, 3u * WG);
            let found = pull_four(v, end, next_depth, per);
            if found.x {
                tile_mark(v.x, first_word);
            }
            if found.y {
                tile_mark(v.y, first_word);
            }
            if found.z {
                tile_mark(v.z, first_word);
            }
            if found.w {
                tile_mark(v.w, first_word);
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
