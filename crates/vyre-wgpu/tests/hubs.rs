//! Levels whose frontier mixes hubs with light, mid-degree and degree-0
//! vertices: the shapes SparseFrontier's device-wide edge balancing and
//! HybridFrontier's heavy-vertex pieces are for. Frontiers both within and
//! beyond what one workgroup scans (2048 vertices), degrees on both sides of
//! every threshold (32 light, 1024 per piece), one level at a time and in
//! chains sized on the device. Depths are compared with the reference BFS,
//! parents checked, and every level's counts (vertices found, their
//! out-edges, edges examined) and grid compared with the reference's and the
//! engine's rule. `VYRE_STRESS_REPEATS=N` repeats every search N times.

mod common;

vyre_testkit::hubs_tests!(common::run);
