// FusedWave with workgroup-local frontiers: the levels of a launch on a
// light graph (no vertex above LIGHT_DEGREE out-edges) over at most
// LOCAL_MAX_GROUPS workgroups, what the engine launches for the narrow
// frontiers of high-diameter graphs (chains, road networks, grids). Such a
// level has a few thousand vertices, so its time is its chain of dependent
// round trips and its barrier; this path keeps both short. Prepended:
// base.wgsl, fused.wgsl (its queues, barrier and failure words).
//
// - Every workgroup keeps the vertices it discovers, with their rows, in a
//   list in workgroup memory and expands them itself in the next level, so
//   no frontier passes through global memory between levels. What it finds
//   beyond the list's capacity spills to the next queue (one global atomic
//   each), and the spilled vertices are shared out evenly over every
//   workgroup in the next level, as the launch's first frontier is.
// - An invocation expands one vertex, LOCAL_ROUND edges at a time, with the
//   targets' rows loaded beside their claims.
// - The barrier is a slot per workgroup and level parity: two words, the
//   vertices it found and their out-edges, each tagged with the level in
//   the top 8 bits. Every workgroup reads every slot, so the poll that sees
//   the last one arrive brings the level's totals with it. Within a level
//   only depth claims cross workgroups, and they are atomics, so arriving
//   needs a fence only when the level spilled.
// - As the launch ends, each workgroup writes its list to the queue after
//   the spilled vertices, in workgroup order, where the host and the next
//   command look for the frontier.
// With one workgroup, workgroupBarrier is the barrier and no slot is used.
//
// Slots: the first 4 * groups words of the work array (level parity, then
// workgroup, then the two words), which holds at least 2n + 256 words.
// Counts fit a slot's 24 bits: a workgroup finds at most the level's
// frontier out-edges, which the launch bounds (local_fits).

// Frontier entries a workgroup keeps per list (vertex and row: 12 bytes).
const LOCAL_LIST: u32 = 256u;
// Edges of one vertex claimed together.
const LOCAL_ROUND: u32 = 4u;
// Most workgroups of a local launch. Wider launches keep fused.wgsl's
// shared frontier: on an H100 the local levels of a 3000x3000 grid over 32
// to 94 workgroups took 2-17% longer than the shared ones, those over at
// most 8 as long or less (docs/BENCHMARKS.md).
const LOCAL_MAX_GROUPS: u32 = 8u;
const SLOT_COUNT_MASK: u32 = 0xffffffu;
// Control words (zeroed by the host): each queue's spill cursor, counting
// every spill into it since the launch began.
const C_SPILLS: u32 = 29u;

var<workgroup> l_vertex: array<array<u32, LOCAL_LIST>, 2>;
var<workgroup> l_start: array<array<u32, LOCAL_LIST>, 2>;
var<workgroup> l_end: array<array<u32, LOCAL_LIST>, 2>;
// Per list: this workgroup's appends to it (spills included) and their
// out-edges, in the level that fills it.
var<workgroup> l_found: array<atomic<u32>, 2>;
var<workgroup> l_found_edges: array<atomic<u32>, 2>;
var<workgroup> l_mine: vec2<u32>;
// Polls: the slots not yet arrived (two counters, so that one is cleared
// while the other counts), and whether to give up.
var<workgroup> l_missing: array<atomic<u32>, 2>;
var<workgroup> l_poll: vec2<u32>;
var<workgroup> l_sums: array<atomic<u32>, 4>;
var<workgroup> l_totals: vec4<u32>;

// Whether the launch runs on this path: a light graph, few enough
// workgroups, their slots in the work array, and counts within a slot's
// bits (each frontier's out-edges are at most the first one's or the band's).
fn local_fits(groups: u32, heavy: bool, first_edges: u32, band: u32) -> bool {
    if heavy || groups > LOCAL_MAX_GROUPS {
        return false;
    }
    if groups == 1u {
        return true;
    }
    return 4u * groups <= arrayLength(&work)
        && max(first_edges, band) <= SLOT_COUNT_MASK / LIGHT_DEGREE;
}

fn local_slot(parity: u32, group: u32, half: u32, groups: u32) -> u32 {
    return (parity * groups + group) * 2u + half;
}

// Where workgroup g's even share of `count` pooled vertices starts.
fn share_start(count: u32, groups: u32, g: u32) -> u32 {
    return (count / groups) * g + min(g, count % groups);
}

// A vertex this workgroup claimed for the next level (list `next`): kept
// while the list has room, else spilled to the queue level `level` writes.
fn keep_found(v: u32, start: u32, end: u32, next: u32, level: u32, spilled_before: u32) {
    let at = atomicAdd(&l_found[next], 1u);
    if at < LOCAL_LIST {
        l_vertex[next][at] = v;
        l_start[next][at] = start;
        l_end[next][at] = end;
    } else {
        put_next(level, atomicAdd(&control[C_SPILLS + next], 1u) - spilled_before, v);
    }
}

// Expand frontier vertex u (edges start..end): LOCAL_ROUND targets loaded
// together, then their rows and claims together.
fn expand_local(u: u32, start: u32, end: u32, next_depth: u32, next: u32, level: u32,
                spilled_before: u32, per: u32) {
    for (var e0 = start; e0 < end; e0 += LOCAL_ROUND) {
        var v: array<u32, LOCAL_ROUND>;
        var row: array<vec2<u32>, LOCAL_ROUND>;
        for (var j = 0u; j < LOCAL_ROUND; j += 1u) {
            v[j] = UNREACHED;
            if e0 + j < end {
                v[j] = out_edge(e0 + j, per);
            }
        }
        for (var j = 0u; j < LOCAL_ROUND; j += 1u) {
            if v[j] != UNREACHED {
                row[j] = vec2<u32>(out_offsets[v[j]], out_offsets[v[j] + 1u]);
            }
        }
        for (var j = 0u; j < LOCAL_ROUND; j += 1u) {
            if v[j] != UNREACHED && claim(v[j], next_depth) {
                parent[v[j]] = u;
                p_out_edges += row[j].y - row[j].x;
                keep_found(v[j], row[j].x, row[j].y, next, level, spilled_before);
            }
        }
    }
}

// The slot barrier of level r for workgroup g, which found `found` vertices
// with `edges` out-edges: false when it gave up (the host aborted, or the
// spin limit ran out). Leaves the level's totals in l_totals: found,
// out-edges, spilled, and kept by the workgroups before g. Call from every
// invocation, in uniform control flow.
fn local_barrier(lid: u32, g: u32, groups: u32, r: u32, found: u32, edges: u32,
                 limit: u32) -> bool {
    let tag = ((r % 255u) + 1u) << 24u;
    let parity = r & 1u;
    // Release: the spilled vertices, which other workgroups read next.
    if found > LOCAL_LIST {
        storageBarrier();
    }
    if lid == 0u {
        atomicStore(&work[local_slot(parity, g, 0u, groups)], tag | found);
        atomicStore(&work[local_slot(parity, g, 1u, groups)], tag | edges);
    }
    var f = tag;
    var e = tag;
    for (var spin = 0u; ; spin += 1u) {
        if lid < groups {
            f = atomicLoad(&work[local_slot(parity, lid, 0u, groups)]);
            e = atomicLoad(&work[local_slot(parity, lid, 1u, groups)]);
            if (f & ~SLOT_COUNT_MASK) != tag || (e & ~SLOT_COUNT_MASK) != tag {
                atomicAdd(&l_missing[spin & 1u], 1u);
            }
        }
        if lid == 0u {
            // The other counter was last read before this poll's loads.
            atomicStore(&l_missing[(spin + 1u) & 1u], 0u);
        }
        workgroupBarrier();
        if lid == 0u {
            var give_up = spin + 1u >= limit;
            if (spin & 255u) == 255u {
                give_up = give_up || stop_waiting();
            }
            l_poll = vec2<u32>(atomicLoad(&l_missing[spin & 1u]), select(0u, 1u, give_up));
        }
        let poll = workgroupUniformLoad(&l_poll);
        if poll.x == 0u {
            break;
        }
        if poll.y != 0u {
            return false;
        }
    }
    if lid < groups {
        let fc = f & SLOT_COUNT_MASK;
        let kept = min(fc, LOCAL_LIST);
        atomicAdd(&l_sums[0], fc);
        atomicAdd(&l_sums[1], e & SLOT_COUNT_MASK);
        atomicAdd(&l_sums[2], fc - kept);
        if lid < g {
            atomicAdd(&l_sums[3], kept);
        }
    }
    workgroupBarrier();
    if lid == 0u {
        l_totals = vec4<u32>(
            atomicLoad(&l_sums[0]),
            atomicLoad(&l_sums[1]),
            atomicLoad(&l_sums[2]),
            atomicLoad(&l_sums[3]),
        );
    }
    // Acquire: the spilled vertices of every workgroup.
    if workgroupUniformLoad(&l_totals).z != 0u {
        storageBarrier();
    }
    return true;
}

// The levels of a local launch from the frontier of `count` vertices in
// queue_in: the same records, stops and final queue as levels() in
// fused.wgsl.
fn levels_local(lid: u32, g: u32, groups: u32, count: u32) {
    let max_levels = uniform_ctl(lid, C_MAX_LEVELS);
    if max_levels == 0u {
        return;
    }
    let band = uniform_ctl(lid, C_BAND_MAX);
    let band_vertices = uniform_ctl(lid, C_BAND_MAX_VERTICES);
    let limit = uniform_ctl(lid, C_SPIN_LIMIT);
    let first_depth = ctl(C_LEVEL);
    let per = ctl(C_OUT_PER_SEG);
    let record_base = ctl(C_RECORD_BASE);
    var kept = 0u;
    var pooled = count;
    var spilled_before = vec2<u32>(0u, 0u);
    if lid < 2u {
        atomicStore(&l_found[lid], 0u);
        atomicStore(&l_found_edges[lid], 0u);
    }
    if groups > 1u {
        // The slots hold whatever the work array held: each workgroup clears
        // its own before any polls.
        if lid < 4u {
            atomicStore(&work[local_slot(lid >> 1u, g, lid & 1u, groups)], 0u);
        }
        if !grid_barrier(lid, 1u, groups) {
            fail(lid);
            return;
        }
    } else {
        workgroupBarrier();
    }
    var r = 0u;
    var totals = vec4<u32>(0u);
    loop {
        let cur = r & 1u;
        let next = cur ^ 1u;
        p_record = record_base + 4u * r;
        // This workgroup's list first, then its share of the pooled vertices.
        let pool_from = share_start(pooled, groups, g);
        let mine = kept + share_start(pooled, groups, g + 1u) - pool_from;
        for (var i = lid; i < mine; i += WG) {
            var u = 0u;
            var row = vec2<u32>(0u);
            if i < kept {
                u = l_vertex[cur][i];
                row = vec2<u32>(l_start[cur][i], l_end[cur][i]);
            } else {
                u = frontier_at(r, pool_from + i - kept);
                row = vec2<u32>(out_offsets[u], out_offsets[u + 1u]);
            }
            p_examined += row.y - row.x;
            expand_local(u, row.x, row.y, first_depth + r + 1u, next, r, spilled_before[next], per);
        }
        if p_out_edges != 0u {
            atomicAdd(&l_found_edges[next], p_out_edges);
        }
        if p_examined != 0u {
            atomicAdd(&history[p_record + R_EXAMINED], p_examined);
        }
        p_out_edges = 0u;
        p_examined = 0u;
        // Every append and count of this workgroup's level is in.
        workgroupBarrier();
        if lid == 0u {
            l_mine = vec2<u32>(atomicLoad(&l_found[next]), atomicLoad(&l_found_edges[next]));
            // The list this workgroup fills next level starts empty; the
            // counters of the barrier below start at 0.
            atomicStore(&l_found[cur], 0u);
            atomicStore(&l_found_edges[cur], 0u);
            atomicStore(&l_missing[0], 0u);
            for (var k = 0u; k < 4u; k += 1u) {
                atomicStore(&l_sums[k], 0u);
            }
        }
        let mine_found = workgroupUniformLoad(&l_mine);
        if groups == 1u {
            totals = vec4<u32>(mine_found.x, mine_found.y, mine_found.x - min(mine_found.x, LOCAL_LIST), 0u);
        } else {
            if !local_barrier(lid, g, groups, r, mine_found.x, mine_found.y, limit) {
                fail(lid);
                return;
            }
            totals = workgroupUniformLoad(&l_totals);
        }
        if lid == 0u && g == 0u {
            atomicStore(&history[p_record + R_FOUND], totals.x);
            atomicStore(&history[p_record + R_EDGES], totals.y);
            atomicStore(&history[p_record + R_GRID], groups);
        }
        kept = min(mine_found.x, LOCAL_LIST);
        r += 1u;
        if totals.x == 0u || totals.y > band || totals.x > band_vertices || r >= max_levels {
            break;
        }
        pooled = totals.z;
        spilled_before[next] += totals.z;
    }
    // The frontier to the queue level r - 1 wrote: its spilled vertices
    // first, then each workgroup's list in workgroup order.
    let at = totals.z + totals.w;
    let last = r & 1u;
    for (var i = lid; i < kept; i += WG) {
        put_next(r - 1u, at + i, l_vertex[last][i]);
    }
}
