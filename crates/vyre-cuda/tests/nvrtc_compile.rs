//! Compiles every kernel for sm_90 through the crate's NVRTC path and, when
//! `ptxas` is found, assembles the PTX and prints registers and spills per
//! kernel, failing where a fused kernel spills. Needs NVRTC but no driver;
//! skips visibly without it. Set
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
    let mut spilling = Vec::new();
    for line in log.lines() {
        if let Some(rest) = line.split("entry function '").nth(1) {
            kernel = rest.split('\'').next().unwrap_or("");
        } else if line.contains("spill") || line.contains("registers") {
            visible(&format!(
                "{kernel:>22}: {}",
                line.trim().trim_start_matches("ptxas info    : ")
            ));
            if NO_SPILLS.contains(&kernel) && spill_bytes(line) != 0 {
                spilling.push(format!("{kernel}: {}", line.trim()));
            }
        }
    }
    assert!(
        spilling.is_empty(),
        "kernels that must keep every value in registers spill:\n{}",
        spilling.join("\n")
    );
}

/// The fused kernels: a level of theirs is a chain of dependent steps, and
/// a spill puts a local-memory round trip on it (one build that added the
/// cluster launch's code to `vyre_fused` made it spill 40 bytes).
const NO_SPILLS: [&str; 3] = ["vyre_fused", "vyre_fused_cluster", "vyre_batch_fused"];

/// The bytes of spill stores and loads a ptxas `-v` line reports (0 for a
/// line without them).
fn spill_bytes(line: &str) -> u64 {
    let words: Vec<&str> = line.split_whitespace().collect();
    words
        .windows(3)
        .filter(|w| w[1] == "bytes" && w[2] == "spill")
        .filter_map(|w| w[0].parse::<u64>().ok())
        .sum()
}

#[test]
fn spill_bytes_are_read_from_ptxas_lines() {
    assert_eq!(
        spill_bytes("    16 bytes stack frame, 40 bytes spill stores, 28 bytes spill loads"),
        68
    );
    assert_eq!(
        spill_bytes("    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"),
        0
    );
    assert_eq!(spill_bytes("ptxas info    : Used 64 registers"), 0);
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
