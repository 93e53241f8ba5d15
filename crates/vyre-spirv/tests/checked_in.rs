//! The SPIR-V under `shaders/spirv/` is what `cargo xtask spirv` writes from
//! today's WGSL, and every module passes `spirv-val`.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::Command;

fn spirv_dir() -> PathBuf {
    vyre_spirv::repository_root().join("shaders/spirv")
}

fn checked_in_modules() -> BTreeSet<String> {
    std::fs::read_dir(spirv_dir())
        .expect("shaders/spirv exists")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".spv"))
        .collect()
}

#[test]
fn checked_in_spirv_matches_the_wgsl() {
    let generated =
        vyre_spirv::generate(&vyre_spirv::repository_root()).unwrap_or_else(|e| panic!("{e}"));
    let mut stale = Vec::new();
    for module in &generated {
        let path = spirv_dir().join(&module.file_name);
        if std::fs::read(&path).ok().as_ref() != Some(&module.bytes) {
            stale.push(module.file_name.clone());
        }
    }
    let expected: BTreeSet<_> = generated.iter().map(|m| m.file_name.clone()).collect();
    let extra: Vec<_> = checked_in_modules()
        .difference(&expected)
        .cloned()
        .collect();
    assert!(
        stale.is_empty() && extra.is_empty(),
        "shaders/spirv is out of date with shaders/wgsl: stale or missing {stale:?}, not generated any more {extra:?}. Fix: run `cargo xtask spirv` and commit shaders/spirv."
    );
}

fn spirv_val_required() -> bool {
    std::env::var("VYRE_REQUIRE_BACKENDS")
        .unwrap_or_default()
        .split(',')
        .any(|name| name.trim() == "vulkan")
}

#[test]
fn every_module_passes_spirv_val() {
    let probe = Command::new("spirv-val").arg("--version").output();
    if probe.is_err() {
        assert!(
            !spirv_val_required(),
            "VYRE_REQUIRE_BACKENDS names vulkan but spirv-val is not installed. Fix: apt-get install spirv-tools."
        );
        let _ = writeln!(
            std::io::stderr(),
            "every_module_passes_spirv_val: skipped: spirv-val not found (apt-get install spirv-tools)"
        );
        return;
    }
    let modules = checked_in_modules();
    assert!(!modules.is_empty(), "no SPIR-V under shaders/spirv");
    let mut failures = Vec::new();
    for name in &modules {
        let output = Command::new("spirv-val")
            .args(["--target-env", "vulkan1.1"])
            .arg(spirv_dir().join(name))
            .output()
            .expect("spirv-val runs");
        if !output.status.success() {
            failures.push(format!(
                "{name}: {}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "spirv-val rejected: {failures:#?}");
}

fn fused_ops() -> Vec<vyre_spirv::MemoryOp> {
    let source = vyre_wgsl_abi::Module::Fused.source();
    let words = vyre_spirv::compile(&source, "fused", vyre_wgsl_abi::FUSED_WIDTH).unwrap();
    vyre_spirv::memory_ops(&words).unwrap()
}

/// The fused kernel's grid barrier is written with WGSL's relaxed atomics
/// and `storageBarrier()`; what makes it a device-wide barrier is that naga
/// turns those into device-scope atomics and workgroup barriers with
/// device-scope acquire-release semantics on storage memory
/// (shaders/spirv/README.md). The probe mode runs the same code.
#[test]
fn the_fused_barrier_has_device_scope_fences_and_atomics() {
    use vyre_spirv::{scope, semantics, storage_class};
    let ops = fused_ops();
    let fences: Vec<_> = ops
        .iter()
        .filter(|op| op.execution_scope.is_some() && op.memory_scope == Some(scope::DEVICE))
        .collect();
    // The grid barrier's release and acquire, and the probe's.
    assert!(fences.len() >= 4, "{ops:#?}");
    for fence in fences {
        assert_eq!(fence.execution_scope, Some(scope::WORKGROUP), "{fence:?}");
        assert_eq!(
            fence.semantics,
            Some(semantics::ACQUIRE_RELEASE | semantics::UNIFORM_MEMORY),
            "{fence:?}"
        );
    }
    let storage_atomics: Vec<_> = ops
        .iter()
        .filter(|op| op.is_atomic() && op.storage_class == Some(storage_class::STORAGE_BUFFER))
        .collect();
    assert!(storage_atomics.len() >= 10, "{ops:#?}");
    assert!(
        storage_atomics
            .iter()
            .all(|op| op.memory_scope == Some(scope::DEVICE)),
        "{storage_atomics:#?}"
    );
}

/// What one workgroup of a fused launch writes and another reads in the
/// same launch goes through atomics: the only plain accesses of storage
/// buffers are reads of the graph (offsets, edge segments), which nothing
/// writes during a search, and writes of parents, which only the host reads
/// after the launch.
#[test]
fn the_fused_kernel_shares_data_between_workgroups_only_through_atomics() {
    use vyre_spirv::storage_class;
    use vyre_wgsl_abi::bindings::{FIRST_SEGMENT_BINDING, HISTORY_BINDING};
    let graph = |b: u32| b == 1 || (FIRST_SEGMENT_BINDING..HISTORY_BINDING).contains(&b);
    const PARENT: u32 = 4;
    let plain: Vec<_> = fused_ops()
        .into_iter()
        .filter(|op| !op.is_atomic() && op.storage_class == Some(storage_class::STORAGE_BUFFER))
        .collect();
    assert!(!plain.is_empty());
    for op in &plain {
        let binding = op.binding.expect("a storage access names its variable");
        match op.op {
            "OpLoad" => assert!(graph(binding), "plain load of binding {binding}"),
            "OpStore" => assert_eq!(binding, PARENT, "plain store to binding {binding}"),
            other => panic!("{other}"),
        }
    }
}
