// Shared by every vyre kernel that touches the graph or the search state
// (every per-wave kernel and the fused one; Rust prepends it first, see
// vyre-wgsl-abi's kernels.rs): the overrides, the control-block words, the
// level records, the bindings of the graph, depth and history, edge
// lookup, the workgroup scan, the per-level counters and the appends to the
// next frontier. The modules after it supply what the counters are added
// through: `p_record` (the running level's record), `add_found` and
// `add_out_edges` (chain.wgsl, fused.wgsl), and `store_found` (common.wgsl,
// fused.wgsl).

// Workgroup width, set per pipeline (the engine picks it for every wave).
override WG: u32 = 64u;

// Set by both backends for every pipeline, from one source of truth
// (vyre-wgsl-abi's overrides.rs: wgpu as pipeline constants, vyre-spirv when
// it writes the SPIR-V):
// - SCAN_CAP: most entries one workgroup scans in workgroup memory. A Sparse
//   frontier of at most SCAN_CAP vertices may be scanned by every workgroup
//   of its level itself; a larger one is scanned in chunks first.
// - PIECE_EDGES: most edges of one heavy-vertex piece of a Hybrid level or
//   a fused launch (vyre_driver::backend::WORK_PIECE_EDGES).
// - LIGHT_DEGREE: a Hybrid frontier vertex of at most this many out-edges
//   is expanded by its own invocation; in a fused launch, by its
//   workgroup's shared pass (heavier ones become pieces).
// - REPEATED_SCAN_LOADS: a Sparse frontier whose workgroups would load more
//   degrees than this in all (each loads every frontier degree when it scans
//   the whole frontier itself), and more than the edges they expand, is
//   scanned in chunks by a dispatch of its own instead (where the host
//   recorded one): 2^18 loads, about a microsecond of L2 traffic on a large
//   GPU, against the extra dispatch.
// - MID_ROUNDS: rounds of WG edges a Hybrid chunk walks its mid-degree
//   vertices for, at most (plus the rest of the vertex that crosses the
//   limit); later mid vertices of the chunk become pieces.
override SCAN_CAP: u32 = 2048u;
override PIECE_EDGES: u32 = 1024u;
override LIGHT_DEGREE: u32 = 32u;
override REPEATED_SCAN_LOADS: u32 = 262144u;
override MID_ROUNDS: u32 = 8u;

const UNREACHED: u32 = 0xffffffffu;

// Control block words (keep in sync with vyre-wgsl-abi's control.rs).
// Words 0..16 are written by the host before every command.
const C_CUR_COUNT: u32 = 0u;      // vertices in the frontier the command starts from
const C_CUR_EDGES: u32 = 1u;      // their out-edges
const C_LEVEL: u32 = 2u;          // depth of that frontier
const C_STOPPED: u32 = 3u;        // 1 once a level of the command found the chain stopped
const C_CONV_COUNT: u32 = 4u;     // bitmap-to-queue append cursor
const C_SLOT_KIND: u32 = 5u;      // how a level's vertex slots are counted (lanes_by_vertices)
const C_EDGES_PER_LANE: u32 = 6u; // the command's LevelSizing::edges_per_lane
const C_MAX_WORKGROUPS: u32 = 7u; // the command's LevelSizing::max_workgroups
const C_BAND_MAX: u32 = 8u;       // a later level runs only while its frontier has at most this many out-edges
const C_SCAN_RECORDED: u32 = 9u;  // Sparse chunk scan recorded: bit 0 on the first level, bit 1 on later ones
const C_IN_EDGE_END: u32 = 14u;   // per-wave: one past the last vertex with an in-edge (bottom-up stops there)
const C_BAND_MAX_VERTICES: u32 = 15u; // a later level runs only while its frontier has at most this many vertices
// Words 10..14, and 20..32 (zeroed before every command), are the fused
// kernel's (fused.wgsl).
// Words 16..20 are written at upload.
const C_VERTEX_COUNT: u32 = 16u;  // vertices of the graph
const C_OUT_PER_SEG: u32 = 17u;   // edges per out-edge segment
const C_IN_PER_SEG: u32 = 18u;    // edges per in-edge segment
const C_RECORD_BASE: u32 = 19u;   // first word of the level records in the history buffer

// A level's record (history words from C_RECORD_BASE, four per level of the
// command), zeroed by the host before the command: counters only ever added
// to while the level runs, and read only by later dispatches and the host.
const R_FOUND: u32 = 0u;          // vertices discovered (top-down: the next queue's append cursor)
const R_EDGES: u32 = 1u;          // their out-edges
const R_EXAMINED: u32 = 2u;       // edges looked at
const R_GRID: u32 = 3u;           // workgroups the level ran with

@group(0) @binding(0) var<storage, read_write> control: array<atomic<u32>, 64>;
@group(0) @binding(1) var<storage, read> out_offsets: array<u32>;
@group(0) @binding(2) var<storage, read> in_offsets: array<u32>;
@group(0) @binding(3) var<storage, read_write> depth: array<atomic<u32>>;
// Binding 4 is the parent array of a search (visit.wgsl, fused.wgsl) or a
// batch pass's seen words (batch.wgsl).

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
// words per level from C_RECORD_BASE.
@group(0) @binding(26) var<storage, read_write> history: array<atomic<u32>>;

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

// Discoveries of top-down kernels are gathered per workgroup and appended to
// the next frontier with one global atomic per flush; when the workgroup list
// is full they are appended one by one. The module after this one says where
// entry `slot` of the next frontier goes (`store_found`).
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
        store_found(add_found(1u), v);
    }
}

// Write the gathered discoveries to the next frontier. Call from every
// invocation, in uniform control flow.
fn flush_appends(lid: u32) {
    workgroupBarrier();
    if lid == 0u {
        let count = min(atomicLoad(&a_len), APPEND_CAP);
        a_count = count;
        a_base = 0u;
        if count != 0u {
            a_base = add_found(count);
        }
        atomicStore(&a_len, 0u);
    }
    let count = workgroupUniformLoad(&a_count);
    let base = a_base;
    for (var i = lid; i < count; i += WG) {
        store_found(base + i, a_list[i]);
    }
    workgroupBarrier();
}

// Whether this invocation's compare-exchange moved depth[v] from UNREACHED
// to `next_depth`: then it owns v (top-down discovery). Narrow levels and
// fused launches, whose time is their chain of round trips, claim at once: a
// depth read first would add one (2-4% of a grid level on an H200).
fn claim(v: u32, next_depth: u32) -> bool {
    loop {
        let r = atomicCompareExchangeWeak(&depth[v], UNREACHED, next_depth);
        if r.exchanged {
            return true;
        }
        if r.old_value != UNREACHED {
            return false;
        }
    }
    return false;
}

// claim, for wide levels where most targets are reached already: a plain
// read of the depth first spares them the atomic. The read is a hint; the
// compare-exchange decides.
fn claim_unreached(v: u32, next_depth: u32) -> bool {
    if atomicLoad(&depth[v]) != UNREACHED {
        return false;
    }
    return claim(v, next_depth);
}

// Inclusive prefix w_scan[j - 1] (0 for the first entry): where entry j's
// share of a workgroup scan starts.
fn scan_before(j: u32) -> u32 {
    if j == 0u {
        return 0u;
    }
    return w_scan[j - 1u];
}

// The first j in [lo, top] whose inclusive prefix w_scan[j] exceeds k (the
// prefix at `top` must): where an invocation's k-th edge of a workgroup scan
// lies. The caller passes its last answer as `lo` (owners never decrease).
fn scan_owner(lo_in: u32, top_in: u32, k: u32) -> u32 {
    var lo = lo_in;
    var top = top_in;
    while lo < top {
        let m = (lo + top) / 2u;
        if w_scan[m] > k {
            top = m;
        } else {
            lo = m + 1u;
        }
    }
    return lo;
}

// Per-invocation counters, reduced per workgroup by flush_counters.
var<private> p_found: u32;
var<private> p_out_edges: u32;
var<private> p_examined: u32;
var<workgroup> w_sums: array<atomic<u32>, 3>;

// Add this workgroup's counters to the running level's record: one atomic
// per counter per workgroup. Call at the end of a level (once per kernel
// for the per-wave ones), from every invocation; the counters start again
// at 0.
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
            add_found(found);
        }
        if out_edges != 0u {
            add_out_edges(out_edges);
        }
        if examined != 0u {
            atomicAdd(&history[p_record + R_EXAMINED], examined);
        }
    }
    p_found = 0u;
    p_out_edges = 0u;
    p_examined = 0u;
}
