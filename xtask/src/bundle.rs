//! `cargo xtask bundle`: release `xtask` binaries of several revisions,
//! stripped and compressed into one git-ignored folder that the device tool
//! carries, so that one call on the GPU machine (which has no cargo) times
//! every revision side by side with `xtask compare`.
//!
//! Each revision is built in its own git worktree under
//! `target/bundle/src/NAME`, all of them into one target directory, so
//! dependencies are compiled once. The folder gets `NAME.xz` and
//! `NAME.commit` per variant, the list of this bundle's variants in order
//! ([`VARIANTS_FILE`]), and any `--file` (a graph the bench reads).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::shell::{self, cargo_at, root};

/// The bundle's variant names, one a line, in the order given.
pub const VARIANTS_FILE: &str = "variants";

/// What the device tool carries at most, all carried paths together.
const CARRY_LIMIT_BYTES: u64 = 64 << 20;

/// Flags of `xtask bundle`.
#[derive(clap::Args)]
pub struct Args {
    /// NAME=REV: a variant's name (letters, digits, `-`, `_`) and the git
    /// revision to build; REV `.` builds the working tree as it is.
    #[arg(required = true)]
    variants: Vec<String>,
    /// A file to carry beside the binaries (a graph the bench reads).
    #[arg(long = "file")]
    files: Vec<PathBuf>,
    /// Folder to write into, inside the repository; listed in
    /// `.git/info/exclude` so that it is never committed.
    #[arg(long, default_value = ".gpu")]
    dir: PathBuf,
}

/// One variant to build.
#[derive(Debug, PartialEq, Eq)]
pub struct Variant {
    pub name: String,
    /// `None`: the working tree as it is.
    pub rev: Option<String>,
}

/// Parse `NAME=REV`.
pub fn parse_variant(text: &str) -> Result<Variant, String> {
    let (name, rev) = text.split_once('=').ok_or_else(|| {
        format!("variant `{text}` has no `=`. Fix: write NAME=REV, e.g. before=HEAD~1 or after=.")
    })?;
    check_name(name)?;
    if rev.is_empty() {
        return Err(format!(
            "variant `{name}` names no revision. Fix: write {name}=REV (a commit, branch or `.` for the working tree)."
        ));
    }
    Ok(Variant {
        name: name.into(),
        rev: (rev != ".").then(|| rev.into()),
    })
}

/// A variant name becomes a file name on both machines: keep it plain.
pub fn check_name(name: &str) -> Result<(), String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || !name.chars().all(plain) {
        return Err(format!(
            "variant name `{name}` must be letters, digits, `-` or `_`. Fix: rename it."
        ));
    }
    Ok(())
}

pub fn run(args: &Args) -> Result<(), String> {
    let variants = args
        .variants
        .iter()
        .map(|v| parse_variant(v))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, v) in variants.iter().enumerate() {
        if variants[..i].iter().any(|w| w.name == v.name) {
            return Err(format!(
                "variant `{}` is named twice. Fix: give each a name of its own.",
                v.name
            ));
        }
    }
    let root = root()?;
    let dir = root.join(&args.dir);
    if !dir.starts_with(&root) || args.dir.is_absolute() {
        return Err(format!(
            "--dir {} is not inside the repository, which is what the device tool carries. Fix: name a folder relative to the repository root.",
            args.dir.display()
        ));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    exclude(&root, &args.dir)?;
    for v in &variants {
        let (binary, commit) = build(&root, v)?;
        pack(&binary, &dir.join(format!("{}.xz", v.name)))?;
        write(&dir.join(format!("{}.commit", v.name)), &commit)?;
        println!("bundle: {} = {commit}", v.name);
    }
    let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
    write(&dir.join(VARIANTS_FILE), &format!("{}\n", names.join("\n")))?;
    for file in &args.files {
        let name = file
            .file_name()
            .ok_or_else(|| format!("--file {} names no file", file.display()))?;
        std::fs::copy(file, dir.join(name))
            .map_err(|e| format!("cannot copy {}: {e}", file.display()))?;
    }
    let total = folder_bytes(&dir)?;
    println!(
        "bundle: {} holds {:.1} MiB; carry it with `carry: [\"{}\"]` and run `xtask compare --bundle {}` there",
        args.dir.display(),
        total as f64 / f64::from(1 << 20),
        args.dir.display(),
        args.dir.display()
    );
    if total > CARRY_LIMIT_BYTES {
        return Err(format!(
            "{} holds {total} bytes but the device tool carries at most {CARRY_LIMIT_BYTES}. Fix: bundle fewer variants, or drop large files.",
            args.dir.display()
        ));
    }
    Ok(())
}

/// Build `variant`'s `xtask`; returns the binary and the commit it is of.
fn build(root: &Path, variant: &Variant) -> Result<(PathBuf, String), String> {
    let Some(rev) = &variant.rev else {
        cargo_build(root, &root.join("target"))?;
        let head = git(root, &["rev-parse", "--short=12", "HEAD"])?;
        let changed = !git(root, &["status", "--porcelain", "--untracked-files=no"])?.is_empty();
        let commit = if changed {
            format!("{head} with uncommitted changes")
        } else {
            head
        };
        return Ok((root.join("target/release/xtask"), commit));
    };
    let commit = git(
        root,
        &[
            "rev-parse",
            "--short=12",
            "--verify",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|e| {
        format!(
            "variant `{}`: {e}. Fix: name a commit, branch or tag of this repository, or `.` for the working tree.",
            variant.name
        )
    })?;
    let bundle = root.join("target/bundle");
    let tree = bundle.join("src").join(&variant.name);
    if tree.join(".git").exists() {
        git(
            &tree,
            &["checkout", "--quiet", "--detach", "--force", &commit],
        )?;
    } else {
        let path = tree.to_string_lossy();
        git(
            root,
            &[
                "worktree", "add", "--quiet", "--detach", "--force", &path, &commit,
            ],
        )?;
    }
    let target = bundle.join("target");
    cargo_build(&tree, &target)?;
    Ok((target.join("release/xtask"), commit))
}

fn cargo_build(tree: &Path, target: &Path) -> Result<(), String> {
    cargo_at(tree, target, &["build", "--release", "-p", "xtask"])
        .map_err(|e| format!("building xtask in {}: {e}", tree.display()))
}

/// Strip `binary` (symbols are most of its size) and compress it to `to`.
fn pack(binary: &Path, to: &Path) -> Result<(), String> {
    let stripped = to.with_extension("stripped");
    shell::run(
        Command::new("strip").arg("-o").arg(&stripped).arg(binary),
        "strip",
        "install binutils",
    )?;
    let file =
        std::fs::File::create(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let packed = shell::run(
        Command::new("xz")
            .args(["-T0", "-3", "-c"])
            .arg(&stripped)
            .stdout(file),
        "xz",
        "install xz-utils",
    );
    let _ = std::fs::remove_file(&stripped);
    packed
}

/// `git <args>` in `dir`, its trimmed output.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("could not run git: {e}. Fix: install git."))?;
    if !out.status.success() {
        return Err(format!(
            "`git {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// List `/dir/` in the repository's `info/exclude` once.
fn exclude(root: &Path, dir: &Path) -> Result<(), String> {
    let path = root.join(git(root, &["rev-parse", "--git-path", "info/exclude"])?);
    let line = format!("/{}/", dir.to_string_lossy().trim_matches('/'));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    if text.lines().any(|l| l.trim() == line) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    let sep = if text.is_empty() || text.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    write(&path, &format!("{text}{sep}{line}\n"))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn folder_bytes(dir: &Path) -> Result<u64, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    let mut total = 0;
    for entry in entries.flatten() {
        let meta = entry.metadata().map_err(|e| format!("{e}"))?;
        total += if meta.is_dir() {
            folder_bytes(&entry.path())?
        } else {
            meta.len()
        };
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_is_a_plain_name_and_a_revision() {
        assert_eq!(
            parse_variant("before=HEAD~1").unwrap(),
            Variant {
                name: "before".into(),
                rev: Some("HEAD~1".into())
            }
        );
        assert_eq!(parse_variant("after=.").unwrap().rev, None);
        for bad in ["before", "=HEAD", "a b=HEAD", "x/y=HEAD", "after="] {
            let err = parse_variant(bad).unwrap_err();
            assert!(err.contains("Fix:"), "{bad}: {err}");
        }
    }
}
