//! Without a CUDA driver the backend reports itself unavailable; it never
//! panics.

use vyre_cuda::{CudaBackend, CudaOpenRequest, driver_present};
use vyre_driver::backend::BackendErrorKind;

#[test]
fn opening_without_a_driver_is_an_unavailable_error() {
    if driver_present() {
        visible("skipped: a CUDA driver is present (the device tests cover opening)");
        return;
    }
    let err = match CudaBackend::open(&CudaOpenRequest::default()) {
        Ok(_) => panic!("opened a CUDA backend without a driver"),
        Err(e) => e,
    };
    assert_eq!(err.kind(), BackendErrorKind::Unavailable);
    assert!(err.message().contains("no CUDA driver"), "{err}");
    assert!(err.message().contains("Fix:"), "{err}");
}

/// Print a line the test harness does not capture.
fn visible(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
