//! Compiles every kernel for sm_90 through the crate's NVRTC path and, when
//! `ptxas` is found, assembles the PTX and prints registers and spills per
//! kernel. Needs NVRTC but no driver; skips visibly without it. Set
//! `VYRE_PTX_OUT=<file>` to keep the PTX.

use std::path::PathBuf;
use std::process::Command;

use vyre_cuda::{KERNEL_NAMES, compile_ptx, nvrtc_present};

fn ptxas() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("VYRE_PTXAS").map(PathBuf::from),
        std::env::var_os("CUDA_HOME").map(|h| PathBuf::from(h).join("bin/ptxas")),
        Some(PathBuf::from("/usr/local/cuda/bin/ptxas")),
        Some(PathBuf::from("ptxas")),
    ];
    candidates.into_iter().flatten().find(|p| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

#[test]
fn every_kernel_compiles_for_sm_90() {
    if !nvrtc_present() {
        visible("skipped: NVRTC not found (put libnvrtc.so on LD_LIBRARY_PATH)");
        return;
    }
    let ptx = compile_ptx("sm_90").expect("NVRTC compiles the kernels");
    assert!(
        ptx.lines().any(|l| l.trim() == ".target sm_90"),
        "PTX targets sm_90"
    );
    for name in KERNEL_NAMES {
        assert!(
            ptx.contains(&format!(".entry {name}(")),
            "PTX defines {name}"
        );
    }
    visible(&format!(
        "PTX: {} bytes, {} kernels",
        ptx.len(),
        KERNEL_NAMES.len()
    ));
    // For reading the code the kernels compile to (ptxas, nvdisasm).
    if let Some(path) = std::env::var_os("VYRE_PTX_OUT") {
        std::fs::write(&path, &ptx).expect("write VYRE_PTX_OUT");
    }

    let Some(ptxas) = ptxas() else {
        visible("ptxas check skipped: ptxas not found (set VYRE_PTXAS)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("vyre-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let input = dir.join("vyre.ptx");
    std::fs::write(&input, &ptx).expect("write PTX");
    let out = Command::new(&ptxas)
        .args(["-arch=sm_90", "-v", "-o"])
        .arg(dir.join("vyre.cubin"))
        .arg(&input)
        .output()
        .expect("run ptxas");
    let log = String::from_utf8_lossy(&out.stderr);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "ptxas refused the PTX:\n{log}");
    let mut kernel = "";
    for line in log.lines() {
        if let Some(rest) = line.split("entry function '").nth(1) {
            kernel = rest.split('\'').next().unwrap_or("");
        } else if line.contains("spill") || line.contains("registers") {
            visible(&format!(
                "{kernel:>22}: {}",
                line.trim().trim_start_matches("ptxas info    : ")
            ));
        }
    }
}

#[test]
fn a_malformed_architecture_is_refused_before_nvrtc() {
    let err = compile_ptx("compute_90").expect_err("not an sm_ architecture");
    assert!(err.message().contains("Fix:"), "{err}");
}

/// Print a line the test harness does not capture.
fn visible(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}
