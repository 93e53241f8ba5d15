//! Shared test helpers: the backend test kit (vyre-testkit), and opening a
//! device under the validation layer (or skipping).
#![allow(dead_code, unused_imports)]

use vyre_driver::backend::Backend;
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

/// Run `suite` on [`fused_device`], or skip.
pub fn run_fused(test: &str, suite: fn(&mut VulkanBackend)) {
    run_on(fused_device(test), suite);
}

/// lavapipe forced to report 64 resident workgroups, which it never runs
/// at once (it has at most 32 worker threads), waiting at most `limit`;
/// `None` (skipped) on another device.
pub fn stuck_device(test: &str, limit: Option<std::time::Duration>) -> Option<TestDevice> {
    let probe = open(test)?;
    if !probe.capabilities().device_name.contains("llvmpipe") {
        vyre_vulkan::testing::visible(&format!("{test}: skipped: the device is not lavapipe"));
        return None;
    }
    drop(probe);
    let request = VulkanOpenRequest {
        force_resident_workgroups_for_tests: Some(64),
        device_wait_limit: limit,
        ..VulkanOpenRequest::default()
    };
    open_with(test, &request)
}

/// Run `suite` on [`stuck_device`] with the default wait limit, or skip.
pub fn run_stuck(test: &str, suite: fn(&mut VulkanBackend)) {
    run_on(stuck_device(test, None), suite);
}
