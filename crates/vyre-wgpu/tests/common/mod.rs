//! Shared test helpers: the backend test kit (vyre-testkit), and opening
//! lavapipe (or skipping).
#![allow(dead_code, unused_imports)]

use vyre_driver::backend::Backend;
pub use vyre_testkit::*;
use vyre_wgpu::{WgpuBackend, WgpuOpenRequest};

/// Open a backend with `request`, or print a visible skip line and return
/// `None` when no adapter exists (a failure when CI requires wgpu).
pub fn open_with(request: &WgpuOpenRequest) -> Option<WgpuBackend> {
    match WgpuBackend::open(request) {
        Ok(backend) => Some(backend),
        Err(error) => {
            assert!(
                !required("wgpu"),
                "VYRE_REQUIRE_BACKENDS has wgpu but: {error}"
            );
            println!("skipped: no wgpu adapter ({error})");
            None
        }
    }
}

/// Open the default adapter, or skip.
pub fn open() -> Option<WgpuBackend> {
    open_with(&WgpuOpenRequest::default())
}

/// Run `suite` on the default adapter, or skip.
pub fn run(_test: &str, suite: fn(&mut WgpuBackend)) {
    if let Some(mut backend) = open() {
        suite(&mut backend);
    }
}

/// Run `suite` on an adapter whose bindings are lowered to
/// [`suites::segments::SPLIT_BINDING_BYTES`], or skip.
pub fn run_split(_test: &str, suite: impl FnOnce(&mut WgpuBackend)) {
    let request = WgpuOpenRequest {
        max_binding_bytes_override: Some(suites::segments::SPLIT_BINDING_BYTES),
        ..WgpuOpenRequest::default()
    };
    if let Some(mut backend) = open_with(&request) {
        suite(&mut backend);
    }
}

/// An adapter that runs the fused kernel: one whose probe verified a
/// barrier, else (lavapipe) one forced to a single resident workgroup.
pub fn fused_device() -> Option<WgpuBackend> {
    let measured = open()?;
    if measured.capabilities().can_fuse() {
        return Some(measured);
    }
    drop(measured);
    open_with(&WgpuOpenRequest {
        force_resident_workgroups_for_tests: Some(1),
        ..WgpuOpenRequest::default()
    })
}

/// Run `suite` on [`fused_device`], or skip.
pub fn run_fused(_test: &str, suite: fn(&mut WgpuBackend)) {
    if let Some(mut backend) = fused_device() {
        suite(&mut backend);
    }
}

/// Run `suite` on lavapipe forced to report 64 resident workgroups, which
/// it never runs at once (it has at most 32 worker threads); skip on
/// another adapter.
pub fn run_stuck(_test: &str, suite: fn(&mut WgpuBackend)) {
    let Some(probe) = open() else { return };
    if !probe.capabilities().device_name.contains("llvmpipe") {
        println!("skipped: the adapter is not lavapipe");
        return;
    }
    drop(probe);
    let request = WgpuOpenRequest {
        force_resident_workgroups_for_tests: Some(64),
        ..WgpuOpenRequest::default()
    };
    if let Some(mut backend) = open_with(&request) {
        suite(&mut backend);
    }
}
