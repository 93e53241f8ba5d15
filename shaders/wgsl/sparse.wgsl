// SparseFrontier: device-wide edge-balanced top-down push. The frontier's
// out-edges, concatenated in queue order, are split into equal shares, one
// per workgroup of the dispatch, whatever the degrees: a frontier of a few
// hubs is expanded by as many workgroups as a frontier of many light
// vertices with the same edges. Each invocation finds the owner of an edge
// by binary search in a prefix scan of the degrees.
//
// - A small frontier (sparse_chunk): every workgroup scans the whole
//   frontier's degrees in workgroup memory, then expands its share.
// - Otherwise `sparse_scan` first writes, per chunk of sparse_chunk
//   vertices, each vertex's inclusive offset within its chunk to work[i] and
//   the chunk's total to work[count + c]. `sparse` then scans the (at most
//   SCAN_CAP) chunk totals in workgroup memory, finds an edge's chunk there
//   and its vertex by a search of the chunk's offsets.
//
// Both kernels of a level run on the level's grid (the engine's) and make
// the same choice from the same values: the frontier (what the level before
// found, or the command's first frontier), the grid, and whether the host
// recorded the scan. A chunked expansion lets only as many workgroups work as
// can each take at least as many edges as there are chunk totals to scan;
// the others return at once. The expansion splits the edge total its own
// scan finds, so the frontier's edge count only decides balance.

// Frontier vertices per chunk of a Sparse level of `count` vertices and
// `edges` out-edges on `groups` workgroups, or 0 when every workgroup scans
// the whole frontier itself. A chunk is a multiple of SCAN_CAP small enough
// that there are at most SCAN_CAP chunks. Beyond SCAN_CAP vertices chunks are
// needed (the host bounds later levels' frontiers to record the scan then);
// below, they are worth a dispatch when every workgroup's scan of the whole
// frontier would load more degrees in all than REPEATED_SCAN_LOADS and than
// the level's edges, and the host recorded the scan (`scan_recorded`).
fn sparse_chunk(count: u32, edges: u32, groups: u32, scan_recorded: bool) -> u32 {
    if count <= SCAN_CAP {
        // count * groups > x, without overflow: groups > x / count.
        let repeated = groups > REPEATED_SCAN_LOADS / max(count, 1u)
            && groups > edges / max(count, 1u);
        if !(scan_recorded && repeated) {
            return 0u;
        }
    }
    return SCAN_CAP * div_ceil(count, SCAN_CAP * SCAN_CAP);
}

// The running level's chunk (uniform). Call after begin_level, from every
// invocation.
fn level_chunk(lid: u32, count: u32, nwg: vec3<u32>) -> u32 {
    let bit = select(2u, 1u, level_index() == 0u);
    let recorded = (uniform_ctl(lid, C_SCAN_RECORDED) & bit) != 0u;
    return sparse_chunk(count, level_edges(), group_total(nwg), recorded);
}

var<workgroup> s_scan: array<u32, SCAN_CAP>;  // inclusive prefix of one tile's entries

// Weight of scan entry `i`: the degree of frontier vertex i, or (chunked) the
// edge total of chunk i written by sparse_scan.
fn entry_weight(i: u32, chunked: bool, count: u32) -> u32 {
    if chunked {
        return work[count + i];
    }
    return out_degree(queue_in[i]);
}

// Inclusive prefix sums of entries [first, first + len) (len <= SCAN_CAP)
// into s_scan[0, len); returns their total. The weights are loaded four per
// invocation at a time so that their loads overlap; then each invocation
// sums a block of consecutive entries, the blocks are scanned across the
// workgroup, and each invocation adds its block's offset. Uniform control
// flow only.
fn scan_tile(lid: u32, first: u32, len: u32, chunked: bool, count: u32) -> u32 {
    var j = lid;
    for (; j + 3u * WG < len; j += 4u * WG) {
        let a = entry_weight(first + j, chunked, count);
        let b = entry_weight(first + j + WG, chunked, count);
        let c = entry_weight(first + j + 2u * WG, chunked, count);
        let d = entry_weight(first + j + 3u * WG, chunked, count);
        s_scan[j] = a;
        s_scan[j + WG] = b;
        s_scan[j + 2u * WG] = c;
        s_scan[j + 3u * WG] = d;
    }
    for (; j < len; j += WG) {
        s_scan[j] = entry_weight(first + j, chunked, count);
    }
    workgroupBarrier();
    let per = max(div_ceil(len, WG), 1u);
    let lo = min(lid * per, len);
    let hi = min(lo + per, len);
    var sum = 0u;
    for (var i = lo; i < hi; i += 1u) {
        sum += s_scan[i];
        s_scan[i] = sum;
    }
    let total = workgroup_scan(lid, sum, div_ceil(len, per));
    let carry = w_scan[lid] - sum;
    for (var i = lo; i < hi; i += 1u) {
        s_scan[i] += carry;
    }
    workgroupBarrier();
    return total;
}

// Inclusive prefix `i` of the workgroup's tile (s_scan) or of the chunk
// scanned into the work array; `in_chunk` is fixed at each call site.
fn prefix_at(in_chunk: bool, i: u32) -> u32 {
    if in_chunk {
        return work[i];
    }
    return s_scan[i];
}

// The first j in [lo, hi) whose inclusive prefix exceeds edge k (the prefix
// at hi - 1 always does). Gallops from lo, the last owner this invocation
// found: a hub's next edge costs one probe and a light vertex's a few, never
// a full binary search (which would also spend lavapipe's loop budget on
// every edge).
fn owner_of(in_chunk: bool, lo_in: u32, hi: u32, k: u32) -> u32 {
    var lo = lo_in;
    var top = hi - 1u;
    var step = 1u;
    while lo < top {
        let probe = lo + min(step - 1u, top - lo);
        if prefix_at(in_chunk, probe) > k {
            top = probe;
            break;
        }
        lo = probe + 1u;
        step <<= 1u;
    }
    while lo < top {
        let mid = (lo + top) / 2u;
        if prefix_at(in_chunk, mid) > k {
            top = mid;
        } else {
            lo = mid + 1u;
        }
    }
    return lo;
}

@compute @workgroup_size(WG)
fn sparse_scan(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    if !begin_level(lid, wid, dispatched) {
        return;
    }
    let nwg = level_grid(dispatched);
    let count = level_count();
    let chunk = level_chunk(lid, count, nwg);
    if chunk == 0u {
        return;
    }
    let chunks = div_ceil(count, chunk);
    for (var c = group_index(wid, nwg); c < chunks; c += group_total(nwg)) {
        let first = c * chunk;
        let last = min(first + chunk, count);
        var carry = 0u;
        for (var t = first; t < last; t += SCAN_CAP) {
            let len = min(SCAN_CAP, last - t);
            let total = scan_tile(lid, t, len, false, count);
            for (var j = lid; j < len; j += WG) {
                work[t + j] = s_scan[j] + carry;
            }
            carry += total;
            workgroupBarrier();
        }
        if lid == 0u {
            work[count + c] = carry;
        }
    }
}

@compute @workgroup_size(WG)
fn sparse(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) dispatched: vec3<u32>,
) {
    if !begin_level(lid, wid, dispatched) {
        return;
    }
    let nwg = level_grid(dispatched);
    let count = level_count();
    let chunk = level_chunk(lid, count, nwg);
    let depth = discovery_depth();
    let per = ctl(C_OUT_PER_SEG);
    let chunked = chunk != 0u;
    var entries = count;
    var groups = group_total(nwg);
    if chunked {
        entries = div_ceil(count, chunk);
        groups = min(groups, max(level_edges() / entries, 1u));
    }
    let g = group_index(wid, nwg);
    if g >= groups {
        // A surplus workgroup of a chunked level: its share would not pay
        // for its scan of the chunk totals.
        return;
    }
    let total = scan_tile(lid, 0u, entries, chunked, count);
    // This workgroup's share of the edges: [begin, end).
    let share = total / groups;
    let extra = total % groups;
    let begin = g * share + min(g, extra);
    let end = begin + share + select(0u, 1u, g < extra);
    // The owners of one invocation's edges never decrease: each search
    // starts at the last owner found.
    var entry = 0u;
    var last_vertex = 0u;
    for (var base = begin; base < end; base += WG) {
        let k = base + lid;
        if k < end {
            entry = owner_of(false, entry, entries, k);
            var offset = k;
            if entry > 0u {
                offset -= s_scan[entry - 1u];
            }
            var vertex = entry;
            if chunked {
                let first = entry * chunk;
                let hint = max(last_vertex, first);
                vertex = owner_of(true, hint, min(first + chunk, count), offset);
                last_vertex = vertex;
                if vertex > first {
                    offset -= work[vertex - 1u];
                }
            }
            let u = queue_in[vertex];
            push_visit(u, out_edge(out_offsets[u] + offset, per), depth);
        }
        // Two rounds discover at most 2 * WG vertices: the append list's size.
        if (base - begin) % (2u * WG) != 0u || end - base <= WG {
            flush_appends(lid);
        }
    }
    if lid == 0u {
        p_examined = end - begin;
    }
    flush_counters(lid, false);
}
