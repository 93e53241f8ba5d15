// BlockDenseFrontier: bottom-up by tiles. A workgroup owns a tile of WG
// bitmap words (32 * WG vertices). It stages the tile's unvisited vertices in
// workgroup memory (a scan of per-word counts, then compaction, WG vertices
// per round), scans their in-edges for a parent in the current frontier
// bitmap, assembles the tile's next-frontier words in workgroup memory and
// writes them whole (so the next bitmap needs no clearing). Vertices with more
// than SCAN_ALONE in-edges are scanned by the whole workgroup together.

const SCAN_ALONE: u32 = 256u;

var<workgroup> b_next: array<atomic<u32>, WG>;  // next-frontier words of the tile
var<workgroup> b_mask: array<atomic<u32>, WG>;  // unvisited vertices of each tile word
var<workgroup> b_scan: array<u32, WG>;          // inclusive prefix of unvisited counts
var<workgroup> b_stage: array<u32, WG>;         // staged unvisited vertices of one round
var<workgroup> b_heavy: array<u32, WG>;
var<workgroup> b_heavy_len: atomic<u32>;
var<workgroup> b_heavy_count: u32;
var<workgroup> b_total: u32;
var<workgroup> b_found: atomic<u32>;
var<workgroup> b_parent: atomic<u32>;
var<workgroup> b_n: u32;

fn tile_mark(v: u32, tile_first_word: u32) {
    atomicOr(&b_next[(v >> 5u) - tile_first_word], 1u << (v & 31u));
}

@compute @workgroup_size(WG)
fn block_dense(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    if chain_stopped(lid) {
        return;
    }
    if lid == 0u {
        b_n = ctl(C_VERTEX_COUNT);
    }
    let n = workgroupUniformLoad(&b_n);
    let next_depth = ctl(C_LEVEL) + 1u;
    let per = ctl(C_IN_PER_SEG);
    let words = n / 32u + select(0u, 1u, n % 32u != 0u);
    let tiles = words / WG + select(0u, 1u, words % WG != 0u);
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
            if v < n && atomicLoad(&depth[v]) == UNREACHED {
                atomicOr(&b_mask[(v >> 5u) - first_word], 1u << (v & 31u));
            }
        }
        workgroupBarrier();
        let unvisited = atomicLoad(&b_mask[lid]);
        b_scan[lid] = countOneBits(unvisited);
        workgroupBarrier();
        for (var offset = 1u; offset < WG; offset <<= 1u) {
            var add = 0u;
            if lid >= offset {
                add = b_scan[lid - offset];
            }
            workgroupBarrier();
            b_scan[lid] += add;
            workgroupBarrier();
        }
        if lid == WG - 1u {
            b_total = b_scan[lid];
        }
        let total = workgroupUniformLoad(&b_total);
        let my_first = b_scan[lid] - countOneBits(unvisited);
        let my_end = b_scan[lid];
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
            if lid == 0u {
                atomicStore(&b_heavy_len, 0u);
            }
            workgroupBarrier();
            if lid < min(WG, total - round) {
                let v = b_stage[lid];
                let start = in_offsets[v];
                let end = in_offsets[v + 1u];
                if end - start <= SCAN_ALONE {
                    for (var e = start; e < end; e += 1u) {
                        p_examined += 1u;
                        let u = in_edge(e, per);
                        if in_frontier_bitmap(u) {
                            pull_visit(v, u, next_depth);
                            tile_mark(v, first_word);
                            break;
                        }
                    }
                } else {
                    b_heavy[atomicAdd(&b_heavy_len, 1u)] = v;
                }
            }
            workgroupBarrier();
            if lid == 0u {
                b_heavy_count = atomicLoad(&b_heavy_len);
            }
            let heavy = workgroupUniformLoad(&b_heavy_count);
            for (var j = 0u; j < heavy; j += 1u) {
                let hv = b_heavy[j];
                if lid == 0u {
                    atomicStore(&b_found, 0u);
                    atomicStore(&b_parent, UNREACHED);
                }
                workgroupBarrier();
                let end = in_offsets[hv + 1u];
                for (var e = in_offsets[hv] + lid; e < end; e += WG) {
                    if atomicLoad(&b_found) != 0u {
                        break;
                    }
                    p_examined += 1u;
                    let u = in_edge(e, per);
                    if in_frontier_bitmap(u) {
                        atomicMin(&b_parent, u);
                        atomicStore(&b_found, 1u);
                    }
                }
                workgroupBarrier();
                if lid == 0u {
                    let u = atomicLoad(&b_parent);
                    if u != UNREACHED {
                        pull_visit(hv, u, next_depth);
                        tile_mark(hv, first_word);
                    }
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
    finish_level(lid, nwg, true);
}
