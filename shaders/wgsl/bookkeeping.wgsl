// Opening the first level of a command whose first level has a dispatch
// sized on the device (Sparse, and Hybrid's piece dispatch): one invocation.
// Later levels are opened by the level before them (chain.wgsl). Also the
// empty kernel used to calibrate launch overhead.
//
// Dispatched with the bind group of the other frontier set, so that it
// writes the arguments buffer the first level is dispatched from.

@compute @workgroup_size(1)
fn level_begin() {
    open_level(0u, ctl(C_CUR_COUNT), ctl(C_CUR_EDGES));
}

@compute @workgroup_size(1)
fn noop() {
}
