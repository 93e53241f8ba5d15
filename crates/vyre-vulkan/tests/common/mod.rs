//! Shared test helpers: the backend test kit (vyre-testkit), and opening a
//! device under the validation layer (or skipping).
#![allow(dead_code, unused_imports)]

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
