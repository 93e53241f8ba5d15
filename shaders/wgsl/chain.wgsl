// The levels of a command. Several levels are recorded into one submission;
// a level after the first is dispatched from arguments the level before it
// wrote (indirect dispatch). Prepended, after common.wgsl and
// level_sizing.wgsl, to every kernel file (crates/vyre-wgpu/src/kernels.rs).
//
// Nothing a level counts is read by the dispatch that counts it: every
// counter a level adds to lives in its own record (history, R_*), zeroed by
// the host before the command and never again while in use, and is read by
// the next level's kernels or by the host, after the dispatch boundary that
// orders every add before them. Only the next level's grid is built while
// the level runs, and without reading anything another workgroup wrote:
// each add to the level's found or out-edge counter returns the total before
// it, and atomicMax-es the grid that total (plus its own part) asks for into
// the next level's arguments. Adds to one word are totally ordered, so the
// largest total any add saw is the final one: the arguments end as the
// engine's rule (level_sizing.wgsl) of the level's final counts. A stale view
// (STALE_SIZING injects one) would only shrink the grid; the kernels stride
// over whatever grid they get. The stop flag C_STOPPED is the one word a
// dispatch may read while it is written, and only as a hint: every
// workgroup of the level works the stop out itself from final values.
//
// Each frontier set has two words (L_*): which level of the command runs on
// it next, and that level's Hybrid piece count. Level k reads its index from
// this_level and gives level k + 1 its index in next_level.
//
// Dispatch arguments: two entries per buffer; level k is dispatched from
// entry args_entry(k) of its set's buffer (the host records the same offset,
// control.rs). Level k grows level k + 1's entry in the other buffer and
// resets to (1, 1, 1) the entry level k + 3 will be dispatched from, which
// level k - 1 was dispatched from and level k + 2 grows. An entry is never 0,
// so every recorded level after a stop runs at least one workgroup, finds
// C_STOPPED (or finds the stop itself) and returns at once.
//
// A level runs when its frontier is not empty and, after the first, its
// frontier's out-edges are within the band (C_BAND_MAX); otherwise the chain
// stops and the host knows it from the records by the same rule.

// Set by begin_level for every invocation: the running level's index, the
// history word of its record, the depth it discovers, and the command words
// its counters size the next grid by (C_SLOT_KIND, C_VERTEX_COUNT,
// C_EDGES_PER_LANE, C_MAX_WORKGROUPS), so that adding a count waits for one
// atomic and not for control words read after it.
var<private> p_level: u32;
var<private> p_record: u32;
var<private> p_depth: u32;
var<private> p_sizing: vec4<u32>;

var<workgroup> l_index: u32;
var<workgroup> l_count: u32;
var<workgroup> l_edges: u32;
var<workgroup> l_runs: u32;
var<workgroup> l_record_base: u32;
var<workgroup> l_depth: u32;
var<workgroup> l_sizing: vec4<u32>;

// First word of level k's entry in its arguments buffer.
fn args_entry(k: u32) -> u32 {
    return 4u * ((k / 2u) % 2u);
}

// Level k's bookkeeping for the levels after it, by one invocation of each
// of its dispatches (the values are the same each time).
fn open_next(k: u32, record_base: u32, nwg: vec3<u32>) {
    atomicStore(&next_level[L_INDEX], k + 1u);
    atomicStore(&next_level[L_PIECES], 0u);
    let reset = args_entry(k + 3u);
    atomicStore(&next_args[reset], 1u);
    atomicStore(&next_args[reset + 1u], 1u);
    atomicStore(&next_args[reset + 2u], 1u);
    atomicStore(&history[record_base + 4u * k + R_GRID], group_total(nwg));
}

// Start of every level kernel, from every invocation: whether the level
// runs (return at once when not). Its frontier is the command's first one,
// or what the level before it found.
fn begin_level(lid: u32, wid: vec3<u32>, nwg: vec3<u32>) -> bool {
    if lid == 0u {
        // Every control word first, then the record that waits for k.
        let k = atomicLoad(&this_level[L_INDEX]);
        let record_base = ctl(C_RECORD_BASE);
        let level = ctl(C_LEVEL);
        let stopped = ctl(C_STOPPED);
        let band_max = ctl(C_BAND_MAX);
        var count = ctl(C_CUR_COUNT);
        var edges = ctl(C_CUR_EDGES);
        l_sizing = vec4(
            ctl(C_SLOT_KIND),
            ctl(C_VERTEX_COUNT),
            ctl(C_EDGES_PER_LANE),
            ctl(C_MAX_WORKGROUPS),
        );
        if k > 0u {
            let before = record_base + 4u * (k - 1u);
            count = atomicLoad(&history[before + R_FOUND]);
            edges = atomicLoad(&history[before + R_EDGES]);
        }
        let stop = stopped != 0u || count == 0u || (k > 0u && edges > band_max);
        if stop {
            atomicStore(&control[C_STOPPED], 1u);
        } else if group_index(wid, nwg) == 0u {
            open_next(k, record_base, nwg);
        }
        l_index = k;
        l_count = count;
        l_edges = edges;
        l_record_base = record_base;
        l_depth = level + k + 1u;
        l_runs = select(1u, 0u, stop);
    }
    let runs = workgroupUniformLoad(&l_runs) != 0u;
    p_level = l_index;
    p_record = l_record_base + 4u * p_level;
    p_depth = l_depth;
    p_sizing = l_sizing;
    return runs;
}

// Index, frontier vertices and frontier out-edges of the running level
// (uniform values). Call after begin_level, from every invocation.
fn level_index() -> u32 {
    return workgroupUniformLoad(&l_index);
}

fn level_count() -> u32 {
    return workgroupUniformLoad(&l_count);
}

fn level_edges() -> u32 {
    return workgroupUniformLoad(&l_edges);
}

// Depth of the vertices the running level discovers.
fn discovery_depth() -> u32 {
    return p_depth;
}

fn grow_next_grid(lanes: u32) {
    let groups = groups_for_lanes(lanes, WG, p_sizing.w);
    atomicMax(&next_args[args_entry(p_level + 1u)], groups);
}

// The total a grid is sized from after adding `part` to a counter that held
// `before`.
fn sized_total(before: u32, part: u32) -> u32 {
    if STALE_SIZING {
        return before;
    }
    return before + part;
}

// Count `n` discoveries of the running level; returns the count before them
// (top-down: the next queue's slot of the first).
fn add_found(n: u32) -> u32 {
    let before = atomicAdd(&history[p_record + R_FOUND], n);
    let count = sized_total(before, n);
    grow_next_grid(lanes_by_vertices(p_sizing.x, count, p_sizing.y));
    return before;
}

fn add_out_edges(n: u32) {
    let before = atomicAdd(&history[p_record + R_EDGES], n);
    grow_next_grid(lanes_by_edges(sized_total(before, n), p_sizing.z));
}
