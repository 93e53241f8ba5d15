//! Shared test helpers: the backend test kit (vyre-testkit), and opening a
//! device under the validation layer (or skipping).
#![allow(dead_code, unused_imports)]

use vyre_driver::backend::{Backend, DeviceCapabilities, LaunchShape, SearchPosition};
use vyre_driver::megakernel_execution::MegakernelExecutionTopology as T;
pub use vyre_testkit::*;
use vyre_vulkan::testing::{TestDevice, open, open_with};
use vyre_vulkan::{VulkanBackend, VulkanOpenRequest};

fn run_on(device: Option<TestDevice>, suite: impl FnOnce(&mut VulkanBackend)) {
    if let Some(mut gpu) = device {
        suite(&mut gpu);
        gpu.assert_valid();
    }
}

/// Run `suite` on the default device (lavapipe allowed) under the
/// validation layer, or skip.
pub fn run(test: &str, suite: fn(&mut VulkanBackend)) {
    run_on(open(test), suite);
}

/// Run `suite` on a device whose bindings are lowered to
/// [`suites::segments::SPLIT_BINDING_BYTES`], or skip.
pub fn run_split(test: &str, suite: impl FnOnce(&mut VulkanBackend)) {
    let request = VulkanOpenRequest {
        max_binding_bytes_override: Some(suites::segments::SPLIT_BINDING_BYTES),
        ..VulkanOpenRequest::default()
    };
    run_on(open_with(test, &request), suite);
}

/// A device that runs the fused kernel: one whose probe verified a barrier,
/// else (lavapipe) one forced to a single resident workgroup.
pub fn fused_device(test: &str) -> Option<TestDevice> {
    let measured = open(test)?;
    if measured.capabilities().can_fuse() {
        return Some(measured);
    }
    drop(measured);
    let forced = VulkanOpenRequest {
        force_resident_workgroups_for_tests: Some(1),
        ..VulkanOpenRequest::default()
    };
    open_with(test, &forced)
}

/// The launch of a fused command as the engine makes it: every resident
/// workgroup of the fused width, on a graph of `n` vertices.
pub fn fused_launch(
    caps: &DeviceCapabilities,
    topology: T,
    at: &SearchPosition,
    n: u32,
) -> LaunchShape {
    let groups = caps.resident_workgroups;
    let later = later_sizing(topology, groups);
    shape(
        caps.resident_workgroup_size,
        [groups, 1, 1],
        later,
        topology,
        at,
        n,
    )
}
