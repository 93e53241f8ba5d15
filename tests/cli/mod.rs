//! Shared by the tests of the `bfs` example: running it as a user does, and
//! reading what it prints.

#![allow(dead_code)] // each test file uses its own share of these

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `bfs` example binary cargo built next to this test.
pub fn bfs_binary() -> PathBuf {
    example_binary("bfs")
}

/// The example binary `name` cargo built next to this test. A plain `cargo
/// test` builds it; `cargo test --test NAME` does not, so build it first
/// then.
pub fn example_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps/<test>");
    let path = profile_dir.join("examples").join(name);
    assert!(
        path.exists(),
        "{} is missing: run `cargo test` without target filters (it builds the examples), or `cargo build --example {name}` (same profile) first",
        path.display()
    );
    path
}

/// Run the example with `args`, stdin closed and stderr not a terminal.
pub fn run(args: &[&str]) -> Output {
    Command::new(bfs_binary())
        .args(args)
        .env("XDG_RUNTIME_DIR", "/tmp")
        .env_remove("RUST_LOG")
        .output()
        .expect("the example runs")
}

/// Run the example on `graph` with the cpu backend and `extra` flags.
pub fn run_cpu(graph: &str, extra: &[&str]) -> Output {
    let mut args = vec!["--graph", graph, "--backend", "cpu"];
    args.extend_from_slice(extra);
    run(&args)
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The non-empty lines of stderr.
pub fn stderr_lines(out: &Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// The phases stderr reported as finished, by name, in order.
pub fn phases(out: &Output) -> Vec<String> {
    stderr_lines(out)
        .iter()
        .filter(|l| !l.starts_with("error: "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// Exit code 1, no panic, and exactly one error line, the last one, which
/// contains `needle` and a fix. Returns that line.
pub fn assert_one_clear_error(out: &Output, needle: &str) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    let lines = stderr_lines(out);
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert_eq!(lines.last(), Some(errors[0]), "{err}");
    assert!(errors[0].contains("Fix:"), "{err}");
    assert!(errors[0].contains(needle), "{err}");
    errors[0].clone()
}

/// A scratch directory, removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("vyre-cli-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    /// Write `text` to `name` in the directory; returns its path as text.
    pub fn file(&self, name: &str, text: &[u8]) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    }

    /// A path in the directory, not created.
    pub fn path(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The depths written by `--write-depths` at `path`.
pub fn depths(path: &str) -> Vec<i64> {
    std::fs::read_to_string(Path::new(path))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect()
}

/// The JSON object of a `--json` run that succeeded.
pub fn json(out: &Output) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(0), "{}", stderr(out));
    serde_json::from_str(&stdout(out)).unwrap_or_else(|e| panic!("{e}: {}", stdout(out)))
}
