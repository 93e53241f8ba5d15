// FusedWave: a persistent kernel that runs consecutive top-down levels of a
// command in one dispatch, with a device-wide barrier between them; and,
// with C_MODE = MODE_PROBE, the probe that measures whether a device can
// run it, with this kernel's own width, workgroup memory and registers.
// Prepended: base.wgsl only (this file binds the queues and the work array
// as atomics, see below).
//
// A backend launches it only where the probe saw every launched workgroup
// resident at once, with at most that many workgroups: WGSL promises no
// forward progress between workgroups, so a barrier over workgroups that
// are not co-resident would never complete. Every wait is bounded anyway
// (C_SPIN_LIMIT polls) and polls the launch's failure flag and the host's
// abort word, so a launch that cannot proceed ends with C_FAILED set and
// never hangs.
//
// Memory: whatever one workgroup writes and another reads within the
// launch (queues, piece lists, counters, depths) is accessed with atomics,
// which naga writes with device scope. The barrier is storageBarrier() (a
// device-scope acquire-release fence of storage memory), a relaxed arrival
// and relaxed polls by one invocation, storageBarrier(): release, arrive,
// observe, acquire. Parents are only written (the host reads them after the
// launch). vyre-spirv's tests hold the SPIR-V to these scopes.
//
// Levels: the launch's first frontier is in queue_in (the frontier set the
// position names). Level r reads queue_in when r is even and queue_out when
// it is odd, and writes the other. In each level
// - light vertices (at most LIGHT_DEGREE out-edges) are dealt out in runs
//   of 32 consecutive queue positions round-robin over the workgroups, so a
//   small frontier spreads over many workgroups; each workgroup spreads its
//   vertices' edges over all its invocations through a scan of their
//   degrees;
// - heavier vertices are cut into pieces of at most PIECE_EDGES edges when
//   they are discovered (in the level before; the launch's first frontier
//   before its first level), and every workgroup takes pieces in turn.
// A level counts into its own record (history, as chain.wgsl's levels do),
// which the host zeroed; after the barrier every workgroup reads the final
// counts and makes the same decision: another level while the frontier is
// not empty, its out-edges and vertices are within the band (C_BAND_MAX,
// C_BAND_MAX_VERTICES), and fewer than C_MAX_LEVELS levels ran.
//
// Piece lists: two, by level parity; list 0 grows up from the start of the
// work array, list 1 down from its end. A list holds the pieces of one
// frontier, two consecutive frontiers are disjoint, and a vertex of degree
// d > LIGHT_DEGREE gives at most d / PIECE_EDGES + 1 pieces of two words,
// so both lists fit the work array's 2n + m / 512 words. Level r's pieces
// are counted in C_PIECES + r % 3: level r adds to slot (r + 1) % 3, and
// its workgroup 0 zeroes slot (r + 2) % 3, whose count (level r - 1's)
// every workgroup read before the last barrier.
//
// Row lists: a light graph (C_HEAVY = 0) has no pieces, and the same places
// hold the rows of the frontiers a launch discovers, entry i's first and
// end edge where piece i's two words would be; they fit for the same
// reason. A level then loads each vertex's row with the vertex, not after
// it: a light level's time is its chain of dependent round trips.

// Control words of a fused command (vyre-wgsl-abi's control.rs).
const C_MAX_LEVELS: u32 = 10u;     // most levels the launch runs
const C_MODE: u32 = 11u;           // MODE_LEVELS or MODE_PROBE
const C_HEAVY: u32 = 12u;          // 1 when the graph has a vertex above LIGHT_DEGREE out-edges
const C_SPIN_LIMIT: u32 = 13u;     // polls one wait at a barrier makes at most
// Zeroed by the host before every command.
const C_ARRIVALS: u32 = 20u;       // arrivals at the launch's barriers (k-th passed at k * groups)
const C_PIECES: u32 = 21u;         // three slots of piece counts
const C_FAILED: u32 = 24u;         // a workgroup stopped waiting: the launch's results are void
const C_PROBE_COMPLETE: u32 = 25u; // probe: workgroups that saw every workgroup arrive
const C_PROBE_FEWEST: u32 = 26u;   // probe: fewest arrivals one saw (the host starts it at u32::MAX)
const C_PROBE_SAW_WRITE: u32 = 27u;// probe: workgroups that read their neighbour's marker
const C_ABORTED: u32 = 28u;        // a waiting workgroup saw the host's abort word

const MODE_LEVELS: u32 = 0u;
const MODE_PROBE: u32 = 1u;

// Vertices of one deal: consecutive queue positions a warp's worth of
// invocations takes together.
const RUN: u32 = 32u;

@group(0) @binding(4) var<storage, read_write> parent: array<u32>;
@group(0) @binding(5) var<storage, read_write> queue_in: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> queue_out: array<atomic<u32>>;
// The piece lists (levels), or one marker per workgroup (probe).
@group(0) @binding(9) var<storage, read_write> work: array<atomic<u32>>;
// Host-visible words; the last is the abort word the host sets when its
// wait for the launch passes its deadline.
@group(0) @binding(29) var<storage, read_write> host_words: array<atomic<u32>>;

// The running level and the history word of its record; whether the graph
// has heavy vertices (C_HEAVY).
var<private> p_level: u32;
var<private> p_record: u32;
var<private> p_heavy: bool;

fn add_found(n: u32) -> u32 {
    return atomicAdd(&history[p_record + R_FOUND], n);
}

fn add_out_edges(n: u32) {
    atomicAdd(&history[p_record + R_EDGES], n);
}

// Whether a waiting workgroup should give up: the host aborted the launch
// (noted in C_ABORTED), or another workgroup gave up.
fn stop_waiting() -> bool {
    if atomicLoad(&host_words[arrayLength(&host_words) - 1u]) != 0u {
        atomicStore(&control[C_ABORTED], 1u);
        return true;
    }
    return atomicLoad(&control[C_FAILED]) != 0u;
}

// Invocation 0 only: arrive, then poll until `goal` arrivals (at most
// C_SPIN_LIMIT polls, giving up early when stop_waiting says so). Returns
// the arrivals it saw last.
fn arrive_and_wait(goal: u32) -> u32 {
    var seen = atomicAdd(&control[C_ARRIVALS], 1u) + 1u;
    let limit = ctl(C_SPIN_LIMIT);
    for (var spin = 0u; seen < goal && spin < limit; spin += 1u) {
        if (spin & 255u) == 255u && stop_waiting() {
            break;
        }
        seen = atomicLoad(&control[C_ARRIVALS]);
    }
    return seen;
}

var<workgroup> f_seen: u32;

// The k-th grid barrier of a launch of `groups` workgroups: whether every
// workgroup arrived. Call from every invocation, in uniform control flow.
fn grid_barrier(lid: u32, k: u32, groups: u32) -> bool {
    // Release: every write of this workgroup before the arrival.
    storageBarrier();
    if lid == 0u {
        f_seen = arrive_and_wait(k * groups);
    }
    // Acquire: every write released before the others arrived.
    storageBarrier();
    return workgroupUniformLoad(&f_seen) >= k * groups;
}

fn fail(lid: u32) {
    if lid == 0u {
        atomicStore(&control[C_FAILED], 1u);
    }
}

// Entry `i` of the frontier of level `level`.
fn frontier_at(level: u32, i: u32) -> u32 {
    if (level & 1u) == 0u {
        return atomicLoad(&queue_in[i]);
    }
    return atomicLoad(&queue_out[i]);
}

// Entry `i` of the frontier level `level` discovers.
fn put_next(level: u32, i: u32, v: u32) {
    if (level & 1u) == 0u {
        atomicStore(&queue_out[i], v);
    } else {
        atomicStore(&queue_in[i], v);
    }
}

// Work word `half` (0: vertex, 1: first edge) of piece `j` of list `list`.
fn piece_word(list: u32, j: u32, half: u32) -> u32 {
    if list == 0u {
        return 2u * j + half;
    }
    return (arrayLength(&work) & ~1u) - 2u - 2u * j + half;
}

// The pieces of vertex `v` (its edges from `start`, `degree` of them) for
// the frontier of level `level`.
fn append_pieces(v: u32, start: u32, degree: u32, level: u32) {
    let count = div_ceil(degree, PIECE_EDGES);
    let list = level & 1u;
    let first = atomicAdd(&control[C_PIECES + level % 3u], count);
    for (var j = 0u; j < count; j += 1u) {
        atomicStore(&work[piece_word(list, first + j, 0u)], v);
        atomicStore(&work[piece_word(list, first + j, 1u)], start + j * PIECE_EDGES);
    }
}

// Entry `slot` of the frontier the running level discovers (base.wgsl's
// appends), with its row on a light graph (row lists, above); this
// workgroup loaded that row as it claimed v, so it is near.
fn store_found(slot: u32, v: u32) {
    put_next(p_level, slot, v);
    if !p_heavy {
        let list = (p_level + 1u) & 1u;
        atomicStore(&work[piece_word(list, slot, 0u)], out_offsets[v]);
        atomicStore(&work[piece_word(list, slot, 1u)], out_offsets[v + 1u]);
    }
}

// The invocation that claims v owns it: parent, next frontier, and its
// pieces when it is heavy. On a light graph v's row is loaded beside the
// claim, not after it: a light level's time is its chain of round trips.
// Heavy graphs examine many edges whose targets are reached already, so
// they load rows only for what they claim.
fn discover(u: u32, v: u32, next_depth: u32) {
    var start = 0u;
    var end = 0u;
    if !p_heavy {
        start = out_offsets[v];
        end = out_offsets[v + 1u];
    }
    if claim(v, next_depth) {
        parent[v] = u;
        append_next(v);
        if p_heavy {
            start = out_offsets[v];
            end = out_offsets[v + 1u];
        }
        let degree = end - start;
        p_out_edges += degree;
        if degree > LIGHT_DEGREE {
            append_pieces(v, start, degree, p_level + 1u);
        }
    }
}

var<workgroup> f_vertex: array<u32, WG>;
var<workgroup> f_start: array<u32, WG>;

// The light vertices of the running level's frontier of `count` vertices,
// as this workgroup's deals give them.
fn expand_light(lid: u32, g: u32, groups: u32, count: u32, next_depth: u32, per: u32) {
    let run = min(RUN, WG);
    let runs = WG / run;
    let frontier_runs = div_ceil(count, run);
    let passes = div_ceil(frontier_runs, runs * groups);
    for (var p = 0u; p < passes; p += 1u) {
        // Runs are dealt warp by warp over the workgroups; once this
        // workgroup's first run of a pass is past the frontier, so is the
        // rest of it. Its warps holding runs are its first `held` lanes.
        let first = (p * runs) * groups + g;
        if first >= frontier_runs {
            break;
        }
        let held = min(runs, div_ceil(frontier_runs - first, groups)) * run;
        let i = ((p * runs + lid / run) * groups + g) * run + lid % run;
        var u = 0u;
        var start = 0u;
        var degree = 0u;
        if i < count {
            u = frontier_at(p_level, i);
            var end = 0u;
            if p_heavy || p_level == 0u {
                start = out_offsets[u];
                end = out_offsets[u + 1u];
            } else {
                // Stored with the vertex by the level that found it.
                let list = p_level & 1u;
                start = atomicLoad(&work[piece_word(list, i, 0u)]);
                end = atomicLoad(&work[piece_word(list, i, 1u)]);
            }
            let d = end - start;
            if d <= LIGHT_DEGREE {
                degree = d;
            }
        }
        f_vertex[lid] = u;
        f_start[lid] = start;
        let total = workgroup_scan(lid, degree, held);
        var j = 0u;
        for (var base = 0u; base < total; base += WG) {
            let k = base + lid;
            if k < total {
                j = scan_owner(j, held - 1u, k);
                discover(f_vertex[j], out_edge(f_start[j] + k - scan_before(j), per), next_depth);
                p_examined += 1u;
            }
            flush_appends(lid);
        }
    }
}

var<workgroup> f_piece: vec3<u32>;   // vertex, first edge, end edge

// The running level's `pieces` pieces, one workgroup each in turn.
fn expand_pieces(lid: u32, g: u32, groups: u32, pieces: u32, next_depth: u32, per: u32) {
    let list = p_level & 1u;
    for (var q = g; q < pieces; q += groups) {
        if lid == 0u {
            let u = atomicLoad(&work[piece_word(list, q, 0u)]);
            let first = atomicLoad(&work[piece_word(list, q, 1u)]);
            f_piece = vec3<u32>(u, first, min(first + PIECE_EDGES, out_offsets[u + 1u]));
        }
        let piece = workgroupUniformLoad(&f_piece);
        for (var base = piece.y; base < piece.z; base += WG) {
            let e = base + lid;
            if e < piece.z {
                discover(piece.x, out_edge(e, per), next_depth);
                p_examined += 1u;
            }
            flush_appends(lid);
        }
    }
}

// The pieces of the launch's first frontier (whose vertices were discovered
// before the launch).
fn first_pieces(lid: u32, g: u32, groups: u32, count: u32) {
    let lanes = min(groups, 0xffffffffu / WG) * WG;
    for (var i = g * WG + lid; i < count; i += lanes) {
        let u = frontier_at(0u, i);
        let start = out_offsets[u];
        let degree = out_offsets[u + 1u] - start;
        if degree > LIGHT_DEGREE {
            append_pieces(u, start, degree, 0u);
        }
    }
}

var<workgroup> f_pieces: u32;
var<workgroup> f_next: vec2<u32>;   // found, their out-edges

fn levels(lid: u32, g: u32, groups: u32) {
    var count = uniform_ctl(lid, C_CUR_COUNT);
    let max_levels = uniform_ctl(lid, C_MAX_LEVELS);
    let band = uniform_ctl(lid, C_BAND_MAX);
    let band_vertices = uniform_ctl(lid, C_BAND_MAX_VERTICES);
    let heavy = uniform_ctl(lid, C_HEAVY) != 0u;
    p_heavy = heavy;
    let first_depth = ctl(C_LEVEL);
    let per = ctl(C_OUT_PER_SEG);
    let record_base = ctl(C_RECORD_BASE);
    let first_edges = uniform_ctl(lid, C_CUR_EDGES);
    if local_fits(groups, heavy, first_edges, band) {
        levels_local(lid, g, groups, count);
        return;
    }
    var barriers = 0u;
    if heavy {
        first_pieces(lid, g, groups, count);
        barriers += 1u;
        if !grid_barrier(lid, barriers, groups) {
            fail(lid);
            return;
        }
    }
    for (var r = 0u; r < max_levels; r += 1u) {
        p_level = r;
        p_record = record_base + 4u * r;
        if lid == 0u && g == 0u {
            atomicStore(&history[p_record + R_GRID], groups);
        }
        // A light graph has no pieces: its level does not wait for their
        // count.
        var pieces = 0u;
        if heavy {
            if lid == 0u {
                f_pieces = atomicLoad(&control[C_PIECES + r % 3u]);
                if g == 0u {
                    atomicStore(&control[C_PIECES + (r + 2u) % 3u], 0u);
                }
            }
            pieces = workgroupUniformLoad(&f_pieces);
        }
        let next_depth = first_depth + r + 1u;
        expand_light(lid, g, groups, count, next_depth, per);
        expand_pieces(lid, g, groups, pieces, next_depth, per);
        flush_counters(lid, false);
        barriers += 1u;
        if !grid_barrier(lid, barriers, groups) {
            fail(lid);
            return;
        }
        if lid == 0u {
            f_next = vec2<u32>(
                atomicLoad(&history[p_record + R_FOUND]),
                atomicLoad(&history[p_record + R_EDGES]),
            );
        }
        let next = workgroupUniformLoad(&f_next);
        if next.x == 0u || next.y > band || next.x > band_vertices {
            return;
        }
        count = next.x;
    }
}

// One probe trial: every workgroup writes its marker, arrives and waits
// (bounded) for all the others, then reads its neighbour's marker.
fn probe(lid: u32, g: u32, groups: u32) {
    if lid == 0u {
        atomicStore(&work[g], g + 1u);
    }
    storageBarrier();
    if lid == 0u {
        let seen = arrive_and_wait(groups);
        atomicMin(&control[C_PROBE_FEWEST], seen);
        if seen >= groups {
            atomicAdd(&control[C_PROBE_COMPLETE], 1u);
        }
    }
    storageBarrier();
    if lid == 0u {
        let next = (g + 1u) % groups;
        if atomicLoad(&work[next]) == next + 1u {
            atomicAdd(&control[C_PROBE_SAW_WRITE], 1u);
        }
    }
}

@compute @workgroup_size(WG)
fn fused(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let groups = group_total(nwg);
    let g = group_index(wid, nwg);
    if uniform_ctl(lid, C_MODE) == MODE_PROBE {
        probe(lid, g, groups);
        return;
    }
    levels(lid, g, groups);
}
