// The levels of a command. Several levels are recorded into one submission;
// a level after the first is dispatched on the command's later grid (the
// most workgroups a level of it may use, LevelSizing::max_workgroups), and
// its workgroups apply the engine's rule (level_sizing.wgsl) to the final
// counts of the level before: the ones past the grid the rule gives return
// at once, and the others stride over that grid. Prepended, after
// common.wgsl and level_sizing.wgsl, to every kernel file
// (crates/vyre-wgpu/src/kernels.rs).
//
// No level writes the next one's dispatch arguments: on NVIDIA's drivers a
// barrier before an indirect dispatch from arguments a shader wrote costs
// about as much as the dispatch itself, and every workgroup's atomic on the
// arguments word serializes (docs/BENCHMARKS.md has the measurements),
// while a workgroup that returns at once costs a few nanoseconds.
//
// Nothing a level counts is read by the dispatch that counts it: every
// counter a level adds to lives in its own record (history, R_*), zeroed by
// the host before the command and never again while in use, and is read by
// the next level's kernels or by the host, after the dispatch boundary that
// orders every add before them. The stop flag C_STOPPED is the one word a
// dispatch may read while it is written, and only as a hint: every
// workgroup of the level works the stop out itself from final values.
//
// Each frontier set has two words (L_*): which level of the command runs on
// it next, and that level's Hybrid piece count. Level k reads its index from
// this_level and gives level k + 1 its index in next_level.
//
// A level runs when its frontier is not empty and, after the first, its
// frontier's out-edges and vertices are within the band (C_BAND_MAX,
// C_BAND_MAX_VERTICES); otherwise the chain stops and the host knows it from
// the records by the same rule (vyre_driver's FrontierBand::ends_after).

// Set by begin_level for every invocation: the running level's index, the
// history word of its record, the depth it discovers and the workgroups it
// runs on.
var<private> p_level: u32;
var<private> p_record: u32;
var<private> p_depth: u32;
var<private> p_groups: u32;

var<workgroup> l_index: u32;
var<workgroup> l_count: u32;
var<workgroup> l_edges: u32;
var<workgroup> l_runs: u32;
var<workgroup> l_record_base: u32;
var<workgroup> l_depth: u32;
var<workgroup> l_groups: u32;

// Level k's bookkeeping for the levels after it, by one invocation of each
// of its dispatches (the values are the same each time).
fn open_next(k: u32, record_base: u32, groups: u32) {
    atomicStore(&next_level[L_INDEX], k + 1u);
    atomicStore(&next_level[L_PIECES], 0u);
    atomicStore(&history[record_base + 4u * k + R_GRID], groups);
}

// Workgroups of a later level whose frontier has `count` vertices and
// `edges` out-edges: the engine's rule for the command's parameters.
fn later_groups(sizing: vec4<u32>, count: u32, edges: u32) -> u32 {
    let by_vertices = groups_for_lanes(lanes_by_vertices(sizing.x, count, sizing.y), WG, sizing.w);
    let by_edges = groups_for_lanes(lanes_by_edges(edges, sizing.z), WG, sizing.w);
    return max(by_vertices, by_edges);
}

// Start of every level kernel, from every invocation, with the grid it was
// dispatched on: whether this workgroup runs the level (return at once when
// not). Its frontier is the command's first one, or what the level before
// it found; its grid is the dispatch's on the first level and the rule's on
// later ones (level_grid).
fn begin_level(lid: u32, wid: vec3<u32>, dispatched: vec3<u32>) -> bool {
    if lid == 0u {
        // Every control word first, then the record that waits for k.
        let k = atomicLoad(&this_level[L_INDEX]);
        let record_base = ctl(C_RECORD_BASE);
        let level = ctl(C_LEVEL);
        let stopped = ctl(C_STOPPED);
        let band_max = ctl(C_BAND_MAX);
        let band_vertices = ctl(C_BAND_MAX_VERTICES);
        var count = ctl(C_CUR_COUNT);
        var edges = ctl(C_CUR_EDGES);
        let sizing = vec4(
            ctl(C_SLOT_KIND),
            ctl(C_VERTEX_COUNT),
            ctl(C_EDGES_PER_LANE),
            ctl(C_MAX_WORKGROUPS),
        );
        var groups = group_total(dispatched);
        if k > 0u {
            let before = record_base + 4u * (k - 1u);
            count = atomicLoad(&history[before + R_FOUND]);
            edges = atomicLoad(&history[before + R_EDGES]);
            groups = min(later_groups(sizing, count, edges), groups);
        }
        let g = group_index(wid, dispatched);
        let stop = stopped != 0u || count == 0u
            || (k > 0u && (edges > band_max || count > band_vertices));
        if stop {
            atomicStore(&control[C_STOPPED], 1u);
        } else if g == 0u {
            open_next(k, record_base, groups);
        }
        l_index = k;
        l_count = count;
        l_edges = edges;
        l_record_base = record_base;
        l_depth = level + k + 1u;
        l_groups = groups;
        l_runs = select(0u, 1u, !stop && g < groups);
    }
    let runs = workgroupUniformLoad(&l_runs) != 0u;
    p_level = l_index;
    p_record = l_record_base + 4u * p_level;
    p_depth = l_depth;
    p_groups = l_groups;
    return runs;
}

// The grid the running level strides over, as a dispatch shape for
// group_index, group_total and lane_total: the dispatch's own on the first
// level; on later ones, which are dispatched in one dimension, the rule's
// workgroups (begin_level returned false for the others). Call after
// begin_level, from every invocation.
fn level_grid(dispatched: vec3<u32>) -> vec3<u32> {
    if p_level == 0u {
        return dispatched;
    }
    return vec3(p_groups, 1u, 1u);
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

// Count `n` discoveries of the running level; returns the count before them
// (top-down: the next queue's slot of the first).
fn add_found(n: u32) -> u32 {
    return atomicAdd(&history[p_record + R_FOUND], n);
}

fn add_out_edges(n: u32) {
    atomicAdd(&history[p_record + R_EDGES], n);
}
