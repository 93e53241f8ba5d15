//! `cargo xtask tidy`: the architecture's invariants (docs/ARCHITECTURE.md,
//! "Invariants"), checked over the source tree so that a change breaking one
//! fails the tests instead of waiting for a review.

use std::path::{Path, PathBuf};

use crate::tally::Tally;

/// Crates that drive a device, and the kernels' host ABI two of them share:
/// none depends on the engine, sizes a grid or carries kernel source.
const BACKENDS: [&str; 5] = [
    "vyre-cpu",
    "vyre-wgpu",
    "vyre-cuda",
    "vyre-vulkan",
    "vyre-wgsl-abi",
];

/// Words that name a backend, a GPU API or a device: the policy and the
/// engine must not use them. Matched against whole lower-case words, and
/// the longer ones also inside identifiers (`CudaBackend`).
const BACKEND_WORDS: [&str; 7] = [
    "cuda", "wgpu", "vulkan", "lavapipe", "nvidia", "cudarc", "nvrtc",
];
const BACKEND_SHORT_WORDS: [&str; 8] = [
    "ptx", "wgsl", "spirv", "naga", "ash", "metal", "dx12", "h200",
];

/// Crates a backend-neutral crate must not depend on.
const GPU_CRATES: [&str; 9] = [
    "wgpu",
    "cudarc",
    "ash",
    "naga",
    "gpu-allocator",
    "vyre-cpu",
    "vyre-wgpu",
    "vyre-cuda",
    "vyre-vulkan",
];

/// One broken invariant.
#[derive(Debug, Eq, PartialEq)]
pub struct Violation {
    pub place: String,
    pub rule: &'static str,
}

/// Run every check over the tree at the workspace root.
pub fn run() -> Result<Tally, String> {
    let root = crate::shell::root()?;
    let checks = checks(&root)?;
    let mut tally = Tally::default();
    for (name, violations) in checks {
        if violations.is_empty() {
            tally.passed += 1;
            println!("tidy: {name}: ok");
        } else {
            tally.failed += 1;
            println!("tidy: {name}: FAILED");
            for v in violations {
                println!("    {}: {}", v.place, v.rule);
            }
        }
    }
    Ok(tally)
}

type Check = (&'static str, Vec<Violation>);

fn checks(root: &Path) -> Result<Vec<Check>, String> {
    let neutral = ["vyre-driver", "vyre-runtime"];
    let mut names_no_backend = Vec::new();
    let mut neutral_deps = Vec::new();
    for krate in neutral {
        let dir = root.join("crates").join(krate);
        for file in files(&dir, &["rs"])? {
            names_no_backend.extend(backend_names(&display(root, &file), &read(&file)?));
        }
        let manifest = dir.join("Cargo.toml");
        neutral_deps.extend(forbidden_dependencies(
            &display(root, &manifest),
            &read(&manifest)?,
            &GPU_CRATES,
        ));
    }
    let mut backend_deps = Vec::new();
    let mut grids = Vec::new();
    let mut kernels = Vec::new();
    for krate in BACKENDS {
        let dir = root.join("crates").join(krate);
        if !dir.exists() {
            continue;
        }
        let manifest = dir.join("Cargo.toml");
        backend_deps.extend(forbidden_dependencies(
            &display(root, &manifest),
            &read(&manifest)?,
            &["vyre-runtime"],
        ));
        for file in files(&dir.join("src"), &["rs"])? {
            let text = read(&file)?;
            grids.extend(grid_sizing(&display(root, &file), &text));
            kernels.extend(inline_kernels(&display(root, &file), &text));
        }
    }
    for file in files(&root.join("shaders"), &["wgsl", "cu", "cuh"])? {
        grids.extend(grid_sizing(&display(root, &file), &read(&file)?));
    }
    let mut safe = Vec::new();
    for lib in [
        "crates/vyre-graph/src/lib.rs",
        "crates/vyre-driver/src/lib.rs",
        "crates/vyre-runtime/src/lib.rs",
        "crates/vyre-wgsl-abi/src/lib.rs",
        "crates/vyre-testkit/src/lib.rs",
        "src/lib.rs",
    ] {
        if !read(&root.join(lib))?.contains("#![forbid(unsafe_code)]") {
            safe.push(Violation {
                place: lib.to_string(),
                rule: "a crate that is not a backend forbids unsafe code",
            });
        }
    }
    Ok(vec![
        ("driver and runtime name no backend", names_no_backend),
        ("driver and runtime depend on no GPU crate", neutral_deps),
        ("no backend depends on vyre-runtime", backend_deps),
        ("no backend sizes a grid", grids),
        ("kernels live in shaders/", kernels),
        ("unsafe only in backends", safe),
    ])
}

/// Lines of `text` that name a backend.
fn backend_names(place: &str, text: &str) -> Vec<Violation> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        let named = lower
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .any(|word| {
                BACKEND_SHORT_WORDS.contains(&word)
                    || BACKEND_WORDS.iter().any(|name| word.contains(name))
            });
        if named {
            found.push(Violation {
                place: format!("{place}:{}", i + 1),
                rule: "vyre-driver and vyre-runtime never name a backend, GPU API or device",
            });
        }
    }
    found
}

/// Dependencies in `manifest` (any table) that are in `forbidden`.
fn forbidden_dependencies(place: &str, manifest: &str, forbidden: &[&str]) -> Vec<Violation> {
    let mut found = Vec::new();
    let mut in_dependencies = false;
    for (i, line) in manifest.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line.contains("dependencies");
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or("");
        if in_dependencies && forbidden.contains(&name) {
            found.push(Violation {
                place: format!("{place}:{}", i + 1),
                rule: "this crate must not depend on that one (docs/ARCHITECTURE.md)",
            });
        }
    }
    found
}

/// Lines that define an edges-per-lane constant of their own, or size a
/// grid with the engine's slot helpers. The index of the control-block word
/// that carries the engine's value to the kernels (`C_EDGES_PER_LANE`) is
/// not such a constant.
fn grid_sizing(place: &str, text: &str) -> Vec<Violation> {
    let mut found = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let code = line.trim_start();
        let defined = [
            "const ",
            "pub const ",
            "pub(crate) const ",
            "override ",
            "#define ",
        ]
        .iter()
        .find_map(|p| code.strip_prefix(p))
        .and_then(|rest| {
            rest.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .next()
        });
        let defines = defined.is_some_and(|name| {
            (name.contains("EDGES_PER_LANE") || name.contains("EDGE_ROUNDS"))
                && !name.starts_with("C_")
        });
        let sizes = code.contains("slots_for(")
            || code.contains("edge_balanced_slots(")
            || code.contains("ResidentGridPlan");
        if defines || sizes {
            found.push(Violation {
                place: format!("{place}:{}", i + 1),
                rule: "backends apply the engine's grids (LaunchShape, LevelSizing) and size none of their own",
            });
        }
    }
    found
}

/// Lines of Rust that carry kernel source instead of loading it.
fn inline_kernels(place: &str, text: &str) -> Vec<Violation> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            ["@compute", "__global__ void", "OpEntryPoint"]
                .iter()
                .any(|marker| line.contains(marker))
        })
        .map(|(i, _)| Violation {
            place: format!("{place}:{}", i + 1),
            rule: "kernels live in shaders/ and are loaded with include_str!/include_bytes!",
        })
        .collect()
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("tidy: cannot read {}: {e}", path.display()))
}

fn display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Files under `dir` (recursively) with one of `extensions`, sorted.
fn files(dir: &Path, extensions: &[&str]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| format!("tidy: cannot list {}: {e}", dir.display()))?;
        for entry in entries {
            let path = entry.map_err(|e| format!("tidy: {e}"))?.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    pending.push(path);
                }
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
            {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_names_are_found_in_words_and_identifiers() {
        let text =
            "fn plan() {}\n// runs on CUDA too\nlet b = WgpuBackend::open();\nlet hash = 1;\n";
        let found = backend_names("x.rs", text);
        let places: Vec<_> = found.iter().map(|v| v.place.as_str()).collect();
        assert_eq!(places, ["x.rs:2", "x.rs:3"]);
        assert!(backend_names("y.rs", "// the H200 measured this\n").len() == 1);
        assert!(backend_names("z.rs", "let washed = crash();\n").is_empty());
    }

    #[test]
    fn forbidden_dependencies_are_found_in_every_table() {
        let manifest = "[package]\nname = \"vyre-wgpu\"\n\n[dependencies]\nwgpu.workspace = true\n\n[dev-dependencies]\nvyre-runtime = { path = \"x\" }\n";
        let found = forbidden_dependencies("Cargo.toml", manifest, &["vyre-runtime"]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].place, "Cargo.toml:8");
        // The package's own name is not a dependency.
        assert!(forbidden_dependencies("Cargo.toml", manifest, &["vyre-wgpu"]).is_empty());
    }

    #[test]
    fn own_grid_constants_and_slot_helpers_are_found() {
        let text = "const EDGE_ROUNDS: u64 = 4;\nlet e = EDGES_PER_LANE * w;\noverride EDGES_PER_LANE: u32 = 2u;\nlet s = slots_for(t, n, n);\n#define VYRE_EDGE_ROUNDS 4\nconst C_EDGES_PER_LANE: u32 = 6u;\npub const C_EDGES_PER_LANE: usize = 6;\n";
        let lines: Vec<_> = grid_sizing("k", text)
            .into_iter()
            .map(|v| v.place)
            .collect();
        assert_eq!(lines, ["k:1", "k:3", "k:4", "k:5"]);
    }

    #[test]
    fn inline_kernels_are_found() {
        let text = concat!(
            "let src = \"@compute @workgroup_size(64) fn main() {}\";\n",
            "let ok = include_str!(\"x.wgsl\");\n",
            "let cu = \"extern \\\"C\\\" __global__ void k() {}\";\n",
            "// entry points start with `extern \"C\" __global__`\n",
        );
        let found: Vec<_> = inline_kernels("k.rs", text)
            .into_iter()
            .map(|v| v.place)
            .collect();
        assert_eq!(found, ["k.rs:1", "k.rs:3"]);
    }

    #[test]
    fn this_tree_keeps_every_invariant() {
        let root = crate::shell::root().unwrap();
        for (name, violations) in checks(&root).unwrap() {
            assert!(violations.is_empty(), "{name}: {violations:?}");
        }
    }
}
