//! Test suites every backend running the WGSL kernels passes: each is a
//! function over an opened backend, and each backend's tests call them.

pub mod batch;
pub mod chains;
pub mod fused;
pub mod hubs;
pub mod launch_shapes;
pub mod prepare;
pub mod segments;
pub mod star_hub;
pub mod topologies;
