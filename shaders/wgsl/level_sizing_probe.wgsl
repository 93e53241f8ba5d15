// Tests only (crates/vyre-wgpu/src/level_sizing_probe.rs): the grid
// level_sizing.wgsl gives a level, for a list of inputs, the way chain.wgsl
// builds it (the larger of its two parts). Compiled after the files every
// kernel starts with.

struct SizingCase {
    kind: u32,
    width: u32,
    count: u32,
    edges: u32,
    n: u32,
    per_lane: u32,
    cap: u32,
    pad: u32,
}

@group(1) @binding(0) var<storage, read> cases: array<SizingCase>;
@group(1) @binding(1) var<storage, read_write> grids: array<u32>;

@compute @workgroup_size(64)
fn level_sizing_probe(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if i >= arrayLength(&cases) {
        return;
    }
    let c = cases[i];
    let by_vertices = groups_for_lanes(lanes_by_vertices(c.kind, c.count, c.n), c.width, c.cap);
    let by_edges = groups_for_lanes(lanes_by_edges(c.edges, c.per_lane), c.width, c.cap);
    grids[i] = max(by_vertices, by_edges);
}
