// BlockDenseFrontier: bottom-up by tiles. A workgroup owns a tile of WG
// bitmap words (32 * WG vertices). It stages the tile's unvisited vertices in
// workgroup memory (a scan of per-word counts, then compaction, WG vertices
// per round), scans their in-edges for a parent in the current frontier
// bitmap, assembles the tile's next-frontier words in workgroup memory and
// writes them whole (so the next bitmap needs no clearing). The staged
// vertices are searched as bottom_up.wgsl says.

var<workgroup> b_next: array<atomic<u32>, WG>;  // next-frontier words of the tile
var<workgroup> b_mask: array<atomic<u32>, WG>;  // unvisited vertices of each tile word
var<workgroup> b_stage: array<u32, WG>;         // staged unvisited vertices of one round
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
    // so they are never staged (their tiles' words are written empty).
    let end = uniform_ctl(lid, C_IN_EDGE_END);
    let next_depth = discovery_depth();
    let per = ctl(C_IN_PER_SEG);
    let words = div_ceil(n, 32u);
    let tiles = div_ceil(words, WG);
    for (var t = group_index(wid, nwg); t < tiles; t += group_total(nwg)) {
        let first_word = t * WG;
        let w = first_word + lid;
        // Which vertices of the tile are unvisited: consecutive invocations
        // read consecutive depths (coalesced), 32 rounds per tile.
        atomicStore(&b_mask[lid], 0u);
        atomicStore(&b_next[lid], 0u);
        workgroupBarrier();
        let tile_first_vertex = first_word * 32u;
        for (var r = 0u; r < 32u; r += 1u) {
            let v = tile_first_vertex + r * WG + lid;
            if v < end && atomicLoad(&depth[v]) == UNREACHED {
                atomicOr(&b_mask[(v >> 5u) - first_word], 1u << (v & 31u));
            }
        }
        workgroupBarrier();
        let unvisited = atomicLoad(&b_mask[lid]);
        let total = workgroup_scan(lid, countOneBits(unvisited), WG);
        let my_end = w_scan[lid];
        let my_first = my_end - countOneBits(unvisited);
        for (var round = 0u; round < total; round += WG) {
            // Compaction: staged index i - round for this word's i-th vertex.
            if my_first < round + WG && my_end > round {
                var bits = unvisited;
                var i = my_first;
                while bits != 0u {
                    if i >= round && i < round + WG {
                        b_stage[i - round] = w * 32u + firstTrailingBit(bits);
                    }
                    i += 1u;
                    bits &= bits - 1u;
                }
            }
            begin_candidates(lid);
            workgroupBarrier();
            if lid < min(WG, total - round) {
                let v = b_stage[lid];
                if pull_light_or_defer(v, next_depth, per) {
                    tile_mark(v, first_word);
                }
            }
            let heavy = heavy_count(lid);
            for (var j = 0u; j < heavy; j += 1u) {
                let hv = pull_heavy(lid, j, next_depth, per);
                if hv != UNREACHED {
                    tile_mark(hv, first_word);
                }
            }
            workgroupBarrier();
        }
        if w < words {
            atomicStore(&bitmap_out[w], atomicLoad(&b_next[lid]));
        }
        workgroupBarrier();
    }
    flush_counters(lid, true);
}
