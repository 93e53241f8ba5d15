//! Running cargo and other host tools from xtask.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The workspace root.
pub fn root() -> Result<PathBuf, String> {
    Ok(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("xtask is not inside the workspace")?
        .to_path_buf())
}

fn command(args: &[&str]) -> Result<(Command, String), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(&cargo);
    command.args(args).current_dir(root()?);
    Ok((command, cargo))
}

/// Run `cargo <args>` in the workspace root; an error names the command.
pub fn cargo(args: &[&str]) -> Result<(), String> {
    let (mut command, _) = command(args)?;
    run(&mut command, &cargo_line(args), "put cargo on PATH")
}

/// Run `cargo <args>` in `dir` with its outputs under `target`.
pub fn cargo_at(dir: &Path, target: &Path, args: &[&str]) -> Result<(), String> {
    let (mut command, _) = command(args)?;
    command.current_dir(dir).env("CARGO_TARGET_DIR", target);
    run(&mut command, &cargo_line(args), "put cargo on PATH")
}

fn cargo_line(args: &[&str]) -> String {
    format!("`cargo {}`", args.join(" "))
}

/// Run `command`, which errors name `what`; one that cannot start says
/// `Fix: {fix}`.
pub fn run(command: &mut Command, what: &str, fix: &str) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("could not run {what}: {e}. Fix: {fix}."))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// Run `cargo <args>`, passing its output through as it comes, and return
/// everything it printed (stdout and stderr) with whether it succeeded.
pub fn cargo_output(args: &[&str]) -> Result<(bool, String), String> {
    let (mut command, cargo) = command(args)?;
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run {cargo}: {e}. Fix: put cargo on PATH."))?;
    let stderr = child.stderr.take().ok_or("cargo's stderr was not piped")?;
    let echo_stderr = std::thread::spawn(move || pass_through(stderr, std::io::stderr()));
    let stdout = child.stdout.take().ok_or("cargo's stdout was not piped")?;
    let mut output = pass_through(stdout, std::io::stdout());
    output.push_str(&echo_stderr.join().unwrap_or_default());
    let status = child
        .wait()
        .map_err(|e| format!("waiting for {cargo} failed: {e}"))?;
    Ok((status.success(), output))
}

/// Copy `from` to `to` line by line as it arrives, and return it all.
fn pass_through(from: impl Read, mut to: impl Write) -> String {
    let mut all = String::new();
    for line in BufReader::new(from).lines().map_while(Result::ok) {
        let _ = writeln!(to, "{line}");
        all.push_str(&line);
        all.push('\n');
    }
    all
}
