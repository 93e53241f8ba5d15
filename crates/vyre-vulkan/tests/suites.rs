//! The suites every backend running the WGSL kernels passes
//! (vyre-testkit): every per-wave topology on every graph shape, chains
//! sized on the device, band stops, frontier conversions, hubs beyond
//! lavapipe's loop budget, every width and grid shape, split edge
//! bindings, and batch passes lane by lane, each checked against the
//! reference BFS level by level, under the validation layer.

mod common;

vyre_testkit::topologies_tests!(common::run);
vyre_testkit::chains_tests!(common::run);
vyre_testkit::star_hub_tests!(common::run);
vyre_testkit::hubs_tests!(common::run);
vyre_testkit::launch_shapes_tests!(common::run);
vyre_testkit::segments_tests!(common::run_split);
vyre_testkit::batch_tests!(common::run);
