//! Shared test helpers: the backend test kit (vyre-testkit), and opening
//! lavapipe (or skipping).
#![allow(dead_code, unused_imports)]

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
