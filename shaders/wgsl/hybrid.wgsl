// HybridFrontier: each frontier vertex is expanded by as many invocations as
// its degree needs.
// - Light (at most LIGHT_DEGREE out-edges): by its own invocation.
// - Mid (up to PIECE_EDGES): gathered per workgroup chunk; the whole
//   workgroup walks their edges together through a scan of their degrees, up
//   to MID_ROUNDS rounds' worth: the mid vertices that start beyond that go
//   to the piece dispatch whole, so a chunk full of them is spread too.
// - Heavy (more than PIECE_EDGES): cut into pieces of at most PIECE_EDGES
//   edges, appended as (vertex, first edge) to the work array, and expanded
//   by the second dispatch (`hybrid_pieces`), one workgroup per piece, so
//   that a frontier of a hundred hubs is spread over hundreds of workgroups.
//
// Both dispatches run on the level's grid (the engine's, sized by the
// frontier's edges too); the piece dispatch strides when the pieces
// outnumber its workgroups. The host records it wherever pieces can occur
// (a vertex above LIGHT_DEGREE, and a band that admits more edges than one
// chunk walks).

var<workgroup> h_mid: array<u32, WG>;
var<workgroup> h_mid_len: atomic<u32>;
var<workgroup> h_mid_count: u32;
var<workgroup> h_kept: u32;
var<workgroup> h_piece: vec3<u32>;   // vertex, first edge, end edge
var<workgroup> h_pieces: u32;

// Piece j of `u` starts at edge `start + j * PIECE_EDGES`.
fn append_pieces(u: u32, start: u32, degree: u32) {
    let pieces = div_ceil(degree, PIECE_EDGES);
    let first = atomicAdd(&this_level[L_PIECES], pieces);
    for (var j = 0u; j < pieces; j += 1u) {
        work[2u * (first + j)] = u;
        work[2u * (first + j) + 1u] = start + j * PIECE_EDGES;
    }
}

@compute @workgroup_size(WG)
fn hybrid(
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
    let chunks = div_ceil(count, WG);
    for (var c = group_index(wid, nwg); c < chunks; c += group_total(nwg)) {
        if lid == 0u {
            atomicStore(&h_mid_len, 0u);
        }
        workgroupBarrier();
        let i = c * WG + lid;
        if i < count {
            let u = queue_in[i];
            let start = out_offsets[u];
            let degree = out_offsets[u + 1u] - start;
            if degree <= LIGHT_DEGREE {
                for (var e = start; e < start + degree; e += 1u) {
                    push_visit_unreached(u, out_edge(e, per), next_depth);
                }
                p_examined += degree;
            } else if degree <= PIECE_EDGES {
                h_mid[atomicAdd(&h_mid_len, 1u)] = u;
            } else {
                append_pieces(u, start, degree);
            }
        }
        workgroupBarrier();
        if lid == 0u {
            h_mid_count = atomicLoad(&h_mid_len);
        }
        let mid = workgroupUniformLoad(&h_mid_count);
        if mid != 0u {
            var degree = 0u;
            var start = 0u;
            if lid < mid {
                start = out_offsets[h_mid[lid]];
                degree = out_offsets[h_mid[lid] + 1u] - start;
            }
            let total = workgroup_scan(lid, degree, mid);
            // The chunk walks the mid vertices that start within its budget;
            // the others become one piece each.
            let budget = WG * MID_ROUNDS;
            if lid == 0u {
                h_kept = total;
                if total > budget {
                    // First vertex whose inclusive prefix reaches the budget.
                    var lo = 0u;
                    var top = mid - 1u;
                    while lo < top {
                        let m = (lo + top) / 2u;
                        if w_scan[m] >= budget {
                            top = m;
                        } else {
                            lo = m + 1u;
                        }
                    }
                    h_kept = w_scan[lo];
                }
            }
            if lid < mid && w_scan[lid] - degree >= budget {
                append_pieces(h_mid[lid], start, degree);
            }
            let kept = workgroupUniformLoad(&h_kept);
            var j = 0u;
            for (var base = 0u; base < kept; base += WG) {
                let k = base + lid;
                if k < kept {
                    j = scan_owner(j, mid - 1u, k);
                    let u = h_mid[j];
                    push_visit_unreached(u, out_edge(out_offsets[u] + k - scan_before(j), per), next_depth);
                }
                if base % (2u * WG) != 0u && kept - base > WG {
                    flush_appends(lid);
                }
            }
            if lid == 0u {
                p_examined += kept;
            }
        }
        flush_appends(lid);
    }
    flush_counters(lid, false);
}

@compute @workgroup_size(WG)
fn hybrid_pieces(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    if !begin_level(lid, wid, dispatched) {
        return;
    }
    let nwg = level_grid(dispatched);
    if lid == 0u {
        h_pieces = atomicLoad(&this_level[L_PIECES]);
    }
    let pieces = workgroupUniformLoad(&h_pieces);
    let next_depth = discovery_depth();
    let per = ctl(C_OUT_PER_SEG);
    for (var p = group_index(wid, nwg); p < pieces; p += group_total(nwg)) {
        if lid == 0u {
            let v = work[2u * p];
            let first = work[2u * p + 1u];
            h_piece = vec3<u32>(v, first, first + min(PIECE_EDGES, out_offsets[v + 1u] - first));
        }
        let piece = workgroupUniformLoad(&h_piece);
        let u = piece.x;
        let last = piece.z;
        for (var base = piece.y; base < last; base += WG) {
            let e = base + lid;
            if e < last {
                push_visit_unreached(u, out_edge(e, per), next_depth);
            }
            if (base - piece.y) % (2u * WG) != 0u || last - base <= WG {
                flush_appends(lid);
            }
        }
        if lid == 0u {
            p_examined += last - piece.y;
        }
    }
    flush_counters(lid, false);
}
