//! Compiles every kernel for sm_90 with NVRTC (no driver needed).
#[test]
fn compile() {
    if !vyre_cuda::nvrtc_present() { println!("skipped: NVRTC not found"); return; }
    let ptx = vyre_cuda::compile_ptx("sm_90").unwrap();
    std::fs::write("/tmp/vyre_sm90.ptx", &ptx).unwrap();
}
