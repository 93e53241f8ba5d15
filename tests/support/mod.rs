//! Shared by the integration tests: opening a backend, or saying visibly why
//! it was skipped.

use vyre::{BackendChoice, BackendKind, Device, OpenRequest};

/// Whether `VYRE_REQUIRE_BACKENDS` (set by CI) names `kind`.
pub fn required(kind: BackendKind) -> bool {
    std::env::var("VYRE_REQUIRE_BACKENDS")
        .unwrap_or_default()
        .split(',')
        .any(|name| name.trim() == kind.name())
}

/// Open `kind`, or print `skipped: ...` and return `None` — unless CI
/// requires the backend, in which case fail.
pub fn open_or_skip(kind: BackendKind) -> Option<Device> {
    match vyre::open(&OpenRequest::new(BackendChoice::Only(kind))) {
        Ok(device) => Some(device),
        Err(e) if required(kind) => {
            panic!("{kind} is required here (VYRE_REQUIRE_BACKENDS) but did not open: {e}")
        }
        Err(e) => {
            // Straight to stderr, past the test harness's capture, so the
            // skip is visible and `cargo xtask test` counts it.
            use std::io::Write as _;
            let _ = writeln!(
                std::io::stderr(),
                "skipped: {kind} backend unavailable: {e}"
            );
            None
        }
    }
}
