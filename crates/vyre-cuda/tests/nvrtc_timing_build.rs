//! The timing build of the light graphs' fused kernel
//! (`shaders/cuda/fused_local_timing.cuh`), asked for through
//! `VYRE_CUDA_NVRTC_OPTIONS`, compiles for sm_90 and carries its records and
//! report. Its own test binary, since it sets a process-wide variable. Needs
//! NVRTC but no driver; skips visibly without it.

use vyre_cuda::{NVRTC_OPTIONS_ENV, compile_ptx, nvrtc_present};

#[test]
fn the_timing_build_compiles_with_its_records_and_report() {
    if !nvrtc_present() {
        eprintln!("skipped: NVRTC not found (put libnvrtc.so on LD_LIBRARY_PATH)");
        return;
    }
    let plain = compile_ptx("sm_90").expect("NVRTC compiles the kernels");
    // SAFETY: this binary's only test, so no other thread reads the
    // environment while it is written.
    unsafe { std::env::set_var(NVRTC_OPTIONS_ENV, "-DVYRE_LOCAL_TIMING") };
    let timed = compile_ptx("sm_90").expect("NVRTC compiles the timing build");
    assert!(
        !plain.contains("local_timing_records"),
        "the plain build records nothing"
    );
    assert!(
        timed.contains("local_timing_records"),
        "the timing build keeps its records"
    );
    assert!(
        !plain.contains("local_timing_steps") && timed.contains("local_timing_steps"),
        "only the timing build marks the steps of a warp's round"
    );
    assert!(
        timed.contains("vprintf"),
        "the timing build prints its report"
    );
}
