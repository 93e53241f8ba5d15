//! `cargo xtask spirv`: regenerate `shaders/spirv/*.spv` from the WGSL
//! kernels (vyre-spirv), removing modules the catalog no longer lists. The
//! staleness test in vyre-spirv fails until this has been run and the result
//! committed.

use std::collections::BTreeSet;

pub fn run() -> Result<(), String> {
    let root = crate::shell::root()?;
    let dir = root.join("shaders/spirv");
    let modules = vyre_spirv::generate(&root).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut written = 0;
    for module in &modules {
        let path = dir.join(&module.file_name);
        if std::fs::read(&path).ok().as_ref() != Some(&module.bytes) {
            std::fs::write(&path, &module.bytes)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            written += 1;
        }
    }
    let expected: BTreeSet<_> = modules.iter().map(|m| m.file_name.as_str()).collect();
    let entries =
        std::fs::read_dir(&dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut removed = 0;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with(".spv") && !expected.contains(name) {
            std::fs::remove_file(&path)
                .map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
            removed += 1;
        }
    }
    println!(
        "shaders/spirv: {} modules, {written} written, {removed} removed",
        modules.len()
    );
    Ok(())
}
