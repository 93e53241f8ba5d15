// Shared by every vyre wgpu kernel: Rust prepends this file to each kernel
// file before compiling it. Bindings, control-block words and helpers.

// Workgroup width, set per pipeline (the engine picks it for every wave).
override WG: u32 = 64u;

// Set by Rust for every pipeline (crates/vyre-wgpu/src/kernels.rs), from one
// source of truth there:
// - SCAN_CAP: most entries one workgroup scans in workgroup memory. A Sparse
//   frontier of at most SCAN_CAP vertices is scanned by every workgroup of
//   its one dispatch; a larger one is scanned in chunks first.
// - PIECE_EDGES: most edges of one heavy-vertex piece of a Hybrid level
//   (vyre_driver::backend::WORK_PIECE_EDGES).
// - EDGES_PER_LANE: edges each invocation of a Sparse expansion takes, at
//   least. A workgroup's share of the frontier's edges is WG *
//   EDGES_PER_LANE, or the number of chunk totals every workgroup scans if
//   that is more: few rounds per invocation keep small levels short, and the
//   grid grows with the edges instead.
// - LIGHT_DEGREE: a Hybrid frontier vertex of at most this many out-edges
//   is expanded by its own invocation.
override SCAN_CAP: u32 = 2048u;
override PIECE_EDGES: u32 = 1024u;
override EDGES_PER_LANE: u32 = 2u;
override LIGHT_DEGREE: u32 = 32u;
// - REPEATED_SCAN_LOADS: a Sparse frontier whose workgroups would load more
//   degrees than this in all (each loads every frontier degree when it scans
//   the whole frontier itself) is scanned in chunks by a dispatch of its own
//   instead, even when one workgroup could scan it: 2^18 loads, about a
//   microsecond of L2 traffic on a large GPU, against the extra dispatch.
// - MID_ROUNDS: rounds of WG edges a Hybrid chunk walks its mid-degree
//   vertices for, at most (plus the rest of the vertex that crosses the
//   limit); later mid vertices of the chunk become pieces.
override REPEATED_SCAN_LOADS: u32 = 262144u;
override MID_ROUNDS: u32 = 8u;
// Frontier edges per workgroup of a Hybrid level's piece dispatch: about
// two pieces each when the frontier is made of hubs.
const PIECE_DISPATCH_EDGES: u32 = 2048u;

const UNREACHED: u32 = 0xffffffffu;

// Control block words (keep in sync with crates/vyre-wgpu/src/control.rs).
const C_CUR_COUNT: u32 = 0u;      // vertices in the current frontier
const C_NEXT_COUNT: u32 = 1u;     // vertices discovered this level (queue append cursor)
const C_NEXT_EDGES: u32 = 2u;     // out-edges of the vertices discovered this level
const C_EXAMINED: u32 = 3u;       // edges looked at this level
const C_LEVEL: u32 = 4u;          // depth of the current frontier
const C_STOPPED: u32 = 5u;        // 1 once a chain stopped (empty frontier or out of band)
const C_PIECES: u32 = 6u;         // heavy-vertex pieces appended this level (Hybrid)
const C_CONV_COUNT: u32 = 7u;     // bitmap-to-queue append cursor
const C_CHAIN_INDEX: u32 = 8u;    // index of the level within the running command
const C_SLOT_KIND: u32 = 9u;      // how a level's slots are counted (see level_begin)
const C_MAX_WORKGROUPS: u32 = 10u;// cap of a device-sized dispatch
const C_BAND_MAX: u32 = 11u;      // a chain stops before a frontier with more out-edges
const C_WIDTH: u32 = 12u;         // workgroup width of the level kernel
const C_SPARSE_CHUNK: u32 = 13u;  // Sparse level: vertices per scanned chunk, 0 = one scan
const C_PIECE_GROUPS: u32 = 14u;  // Hybrid level: workgroups of its piece dispatch (0 = none)
const C_LEVELS: u32 = 15u;        // levels recorded in the running command
const C_VERTEX_COUNT: u32 = 16u;  // vertices of the graph
const C_OUT_PER_SEG: u32 = 17u;   // edges per out-edge segment
const C_IN_PER_SEG: u32 = 18u;    // edges per in-edge segment
const C_RECORD_BASE: u32 = 19u;   // first word of the level records in the history buffer
// Out-edges of the current frontier: kept across commands (seed_sources sets
// it, every level's close updates it), so that even a command's first level
// can be sized by its edges on the device.
const C_CUR_EDGES: u32 = 20u;
// Workgroups of the running level-ending dispatch that have finished: the
// last one closes the level and resets it to 0 (zeroed at search start).
const C_ARRIVED: u32 = 21u;

@group(0) @binding(0) var<storage, read_write> control: array<atomic<u32>, 64>;
@group(0) @binding(1) var<storage, read> out_offsets: array<u32>;
@group(0) @binding(2) var<storage, read> in_offsets: array<u32>;
@group(0) @binding(3) var<storage, read_write> depth: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> parent: array<u32>;
@group(0) @binding(5) var<storage, read_write> queue_in: array<u32>;
@group(0) @binding(6) var<storage, read_write> queue_out: array<u32>;
@group(0) @binding(7) var<storage, read_write> bitmap_in: array<atomic<u32>>;
@group(0) @binding(8) var<storage, read_write> bitmap_out: array<atomic<u32>>;
// Scratch of the top-down kernels: Sparse's chunk scans (per-vertex offsets
// within a chunk, then the chunk totals) or Hybrid's heavy-vertex pieces
// (vertex, first edge). Sized by DeviceLayout::work_bytes.
@group(0) @binding(9) var<storage, read_write> work: array<u32>;

// Edge arrays larger than one binding are split into segments of equal size
// (the last holds the rest). Unused segment bindings repeat segment 0.
@group(0) @binding(10) var<storage, read> out_seg0: array<u32>;
@group(0) @binding(11) var<storage, read> out_seg1: array<u32>;
@group(0) @binding(12) var<storage, read> out_seg2: array<u32>;
@group(0) @binding(13) var<storage, read> out_seg3: array<u32>;
@group(0) @binding(14) var<storage, read> out_seg4: array<u32>;
@group(0) @binding(15) var<storage, read> out_seg5: array<u32>;
@group(0) @binding(16) var<storage, read> out_seg6: array<u32>;
@group(0) @binding(17) var<storage, read> out_seg7: array<u32>;
@group(0) @binding(18) var<storage, read> in_seg0: array<u32>;
@group(0) @binding(19) var<storage, read> in_seg1: array<u32>;
@group(0) @binding(20) var<storage, read> in_seg2: array<u32>;
@group(0) @binding(21) var<storage, read> in_seg3: array<u32>;
@group(0) @binding(22) var<storage, read> in_seg4: array<u32>;
@group(0) @binding(23) var<storage, read> in_seg5: array<u32>;
@group(0) @binding(24) var<storage, read> in_seg6: array<u32>;
@group(0) @binding(25) var<storage, read> in_seg7: array<u32>;

// Level history: two u64 timestamps of the command, then one record of four
// words per level from C_RECORD_BASE (see chain.wgsl).
@group(0) @binding(26) var<storage, read_write> history: array<u32>;
// Dispatch arguments of the next level (x, y, z, pad at each of ARGS_LEVEL,
// ARGS_SCAN, ARGS_PIECES). The bind group of frontier set d binds the
// arguments buffer 1 - d here, and set d's levels are dispatched from
// buffer d, so no dispatch both reads and writes its own arguments.
@group(0) @binding(27) var<storage, read_write> next_args: array<u32>;

fn ctl(word: u32) -> u32 {
    return atomicLoad(&control[word]);
}

// A control word as a uniform value (what loop bounds around barriers must
// be): read by invocation 0 and shared through workgroup memory. Call from
// every invocation, in uniform control flow.
var<workgroup> w_ctl: u32;

fn uniform_ctl(lid: u32, word: u32) -> u32 {
    if lid == 0u {
        w_ctl = ctl(word);
    }
    return workgroupUniformLoad(&w_ctl);
}

// Target of out-edge `e`; `per` is the edges per segment (C_OUT_PER_SEG).
fn out_edge(e: u32, per: u32) -> u32 {
    if e < per {
        return out_seg0[e];
    }
    let s = e / per;
    let i = e - s * per;
    switch s {
        case 0u: { return out_seg0[i]; }
        case 1u: { return out_seg1[i]; }
        case 2u: { return out_seg2[i]; }
        case 3u: { return out_seg3[i]; }
        case 4u: { return out_seg4[i]; }
        case 5u: { return out_seg5[i]; }
        case 6u: { return out_seg6[i]; }
        default: { return out_seg7[i]; }
    }
}

// Source of in-edge `e`; `per` is the edges per segment (C_IN_PER_SEG).
fn in_edge(e: u32, per: u32) -> u32 {
    if e < per {
        return in_seg0[e];
    }
    let s = e / per;
    let i = e - s * per;
    switch s {
        case 0u: { return in_seg0[i]; }
        case 1u: { return in_seg1[i]; }
        case 2u: { return in_seg2[i]; }
        case 3u: { return in_seg3[i]; }
        case 4u: { return in_seg4[i]; }
        case 5u: { return in_seg5[i]; }
        case 6u: { return in_seg6[i]; }
        default: { return in_seg7[i]; }
    }
}

fn out_degree(v: u32) -> u32 {
    return out_offsets[v + 1u] - out_offsets[v];
}

fn div_ceil(a: u32, b: u32) -> u32 {
    return a / b + select(0u, 1u, a % b != 0u);
}

// Frontier vertices per chunk of a Sparse frontier of `count` vertices and
// `edges` out-edges expanded by at most `cap` workgroups of `width`, or 0
// when every workgroup scans the whole frontier itself. A chunk is a
// multiple of SCAN_CAP small enough that there are at most SCAN_CAP chunks.
fn sparse_chunk(count: u32, edges: u32, width: u32, cap: u32) -> u32 {
    if count <= SCAN_CAP {
        let groups = min(div_ceil(edges, width * EDGES_PER_LANE), cap);
        // groups * count <= 65535 * 2048 fits u32.
        if count <= width * EDGES_PER_LANE || groups * count <= REPEATED_SCAN_LOADS {
            return 0u;
        }
    }
    return SCAN_CAP * div_ceil(count, SCAN_CAP * SCAN_CAP);
}

// Workgroups and lanes of a dispatch of any shape, as one linear range.
fn group_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.x + nwg.x * (wid.y + nwg.y * wid.z);
}

fn group_total(nwg: vec3<u32>) -> u32 {
    return nwg.x * nwg.y * nwg.z;
}

fn lane_total(nwg: vec3<u32>) -> u32 {
    return min(group_total(nwg), 0xffffffffu / WG) * WG;
}

// Inclusive prefix sums of one value per invocation, left in w_scan; returns
// the workgroup total. Only the first `used` invocations may hold a
// non-zero value (fewer steps for small scans). Call from every invocation,
// in uniform control flow.
var<workgroup> w_scan: array<u32, WG>;
var<workgroup> w_total: u32;

fn workgroup_scan(lid: u32, value: u32, used: u32) -> u32 {
    workgroupBarrier();
    w_scan[lid] = value;
    workgroupBarrier();
    for (var offset = 1u; offset < used; offset <<= 1u) {
        var add = 0u;
        if lid >= offset {
            add = w_scan[lid - offset];
        }
        workgroupBarrier();
        w_scan[lid] += add;
        workgroupBarrier();
    }
    if lid == 0u {
        w_total = w_scan[max(min(used, WG), 1u) - 1u];
    }
    return workgroupUniformLoad(&w_total);
}

// Per-invocation counters, reduced per workgroup by flush_counters.
var<private> p_found: u32;
var<private> p_out_edges: u32;
var<private> p_examined: u32;
var<workgroup> w_sums: array<atomic<u32>, 3>;

// Add this workgroup's counters to the control block: one atomic per counter
// per workgroup. Call once, at the end of a kernel, from every invocation.
fn flush_counters(lid: u32, count_found: bool) {
    if lid == 0u {
        atomicStore(&w_sums[0], 0u);
        atomicStore(&w_sums[1], 0u);
        atomicStore(&w_sums[2], 0u);
    }
    workgroupBarrier();
    if p_found != 0u {
        atomicAdd(&w_sums[0], p_found);
    }
    if p_out_edges != 0u {
        atomicAdd(&w_sums[1], p_out_edges);
    }
    if p_examined != 0u {
        atomicAdd(&w_sums[2], p_examined);
    }
    workgroupBarrier();
    if lid == 0u {
        let found = atomicLoad(&w_sums[0]);
        let out_edges = atomicLoad(&w_sums[1]);
        let examined = atomicLoad(&w_sums[2]);
        if count_found && found != 0u {
            atomicAdd(&control[C_NEXT_COUNT], found);
        }
        if out_edges != 0u {
            atomicAdd(&control[C_NEXT_EDGES], out_edges);
        }
        if examined != 0u {
            atomicAdd(&control[C_EXAMINED], examined);
        }
    }
}

// Discoveries of top-down kernels are gathered per workgroup and appended to
// the next queue with one global atomic per flush; when the workgroup list is
// full they are appended one by one.
override APPEND_CAP: u32 = 2u * WG;
var<workgroup> a_list: array<u32, APPEND_CAP>;
var<workgroup> a_len: atomic<u32>;
var<workgroup> a_count: u32;
var<workgroup> a_base: u32;

fn append_next(v: u32) {
    let slot = atomicAdd(&a_len, 1u);
    if slot < APPEND_CAP {
        a_list[slot] = v;
    } else {
        queue_out[atomicAdd(&control[C_NEXT_COUNT], 1u)] = v;
    }
}

// Write the gathered discoveries to the next queue. Call from every
// invocation, in uniform control flow.
fn flush_appends(lid: u32) {
    workgroupBarrier();
    if lid == 0u {
        let count = min(atomicLoad(&a_len), APPEND_CAP);
        a_count = count;
        a_base = 0u;
        if count != 0u {
            a_base = atomicAdd(&control[C_NEXT_COUNT], count);
        }
        atomicStore(&a_len, 0u);
    }
    let count = workgroupUniformLoad(&a_count);
    let base = a_base;
    for (var i = lid; i < count; i += WG) {
        queue_out[base + i] = a_list[i];
    }
    workgroupBarrier();
}

// Top-down discovery of `v` from frontier vertex `u`: the invocation whose
// compare-exchange moves depth[v] from UNREACHED to `next_depth` owns v,
// writes its parent and appends it to the next queue.
fn push_visit(u: u32, v: u32, next_depth: u32) {
    if atomicLoad(&depth[v]) != UNREACHED {
        return;
    }
    loop {
        let r = atomicCompareExchangeWeak(&depth[v], UNREACHED, next_depth);
        if r.exchanged {
            parent[v] = u;
            append_next(v);
            p_out_edges += out_degree(v);
            return;
        }
        if r.old_value != UNREACHED {
            return;
        }
    }
}

fn bit_set(word: u32, bit: u32) -> bool {
    return ((word >> bit) & 1u) != 0u;
}

fn in_frontier_bitmap(u: u32) -> bool {
    return bit_set(atomicLoad(&bitmap_in[u >> 5u]), u & 31u);
}

// Bottom-up discovery of `v` (owned by exactly one invocation) with frontier
// parent `u`: depth, parent and counters; the caller records the next-frontier bit.
fn pull_visit(v: u32, u: u32, next_depth: u32) {
    atomicStore(&depth[v], next_depth);
    parent[v] = u;
    p_found += 1u;
    p_out_edges += out_degree(v);
}
