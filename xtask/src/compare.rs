//! `xtask compare`: on the GPU machine, time every build of a bundle
//! (`xtask bundle`) in one call, alternating them try by try (a, b, a, b)
//! so that a drift of the machine reaches every variant alike, and set
//! their `xtask bench` rows side by side in `compare.md`. A build may also
//! run as a variant of its own with extra environment and flags (`--with`).
//!
//! Each variant's binary is unpacked into the temporary directory (not into
//! `--out`, which the device tool sends back); its try K writes its own
//! bench report into `OUT/NAME/K/`, its output into `OUT/NAME/K/log.txt`.

mod table;
mod with;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::bundle::{VARIANTS_FILE, check_name};
use crate::shell;
use table::{Run, compare_md};
use with::{With, parse_with};

/// Flags of `xtask compare`.
#[derive(clap::Args)]
pub struct Args {
    /// Folder `xtask bundle` wrote: NAME.xz and NAME.commit per variant.
    #[arg(long, default_value = ".gpu")]
    bundle: PathBuf,
    /// Only these variants, in this order (default: the bundle's, in the
    /// order `xtask bundle` was given them).
    #[arg(long = "variant", value_delimiter = ',')]
    variants: Vec<String>,
    /// LABEL=BUILD [KEY=VALUE ...] [FLAG ...]: also run the bundle's BUILD
    /// as variant LABEL with these environment variables and extra flags
    /// (its bench runs and its conformance run), e.g.
    /// `--with "cluster=after --cuda-cluster"` or
    /// `--with "round2=after VYRE_CUDA_NVRTC_OPTIONS=-DVYRE_LOCAL_ROUND=2u"`.
    #[arg(long = "with")]
    with: Vec<String>,
    /// Runs of each variant, alternating: a, b, a, b, ...
    #[arg(long, default_value_t = 2)]
    tries: u32,
    /// Kill a bench or conformance run still going after this many seconds
    /// (a variant that hangs then costs one run, not the call); its log
    /// says so, and the next run starts.
    #[arg(long)]
    run_timeout: Option<u64>,
    /// Also run each variant's `xtask conformance` once, after the tries,
    /// with these flags (e.g. `--conformance="--backends cuda,vulkan"`).
    #[arg(long, allow_hyphen_values = true)]
    conformance: Option<String>,
    /// Where reports go (on the device tool: `$OUT`).
    #[arg(long)]
    out: PathBuf,
    /// `xtask bench` flags, after `--` (without `--out` and `--commit`).
    #[arg(last = true)]
    bench: Vec<String>,
}

/// One variant to run: an unpacked build, with what `--with` adds.
struct Build {
    name: String,
    commit: String,
    binary: PathBuf,
    env: Vec<(String, String)>,
    flags: Vec<String>,
}

impl Build {
    /// What the report says of it: its commit, and what `--with` added.
    fn describe(&self) -> String {
        let added: Vec<String> = self
            .env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .chain(self.flags.iter().cloned())
            .collect();
        if added.is_empty() {
            self.commit.clone()
        } else {
            format!("{}, run with `{}`", self.commit, added.join(" "))
        }
    }
}

/// The order variants run in: every variant once per try, in the given
/// order, try after try.
pub fn schedule(variants: usize, tries: u32) -> Vec<(usize, u32)> {
    (1..=tries)
        .flat_map(|t| (0..variants).map(move |v| (v, t)))
        .collect()
}

/// Whether bench flag `flag` is one compare sets for each run itself.
fn sets_itself(flag: &str) -> bool {
    ["--out", "--commit"]
        .iter()
        .any(|f| flag == *f || flag.starts_with(&format!("{f}=")))
}

pub fn run(args: &Args) -> Result<(), String> {
    if args.bench.iter().any(|a| sets_itself(a)) {
        return Err("compare sets each run's --out and --commit itself. Fix: drop them from the bench flags.".into());
    }
    let builds = unpack(args)?;
    let mut runs = Vec::new();
    for (v, attempt) in schedule(builds.len(), args.tries) {
        let build = &builds[v];
        let dir = args.out.join(&build.name).join(attempt.to_string());
        create(&dir)?;
        let started = Instant::now();
        let mut bench = vec!["bench".to_string()];
        bench.extend(args.bench.iter().cloned());
        bench.extend(build.flags.iter().cloned());
        bench.extend(["--out".into(), dir.to_string_lossy().into_owned()]);
        bench.extend(["--commit".into(), build.commit.clone()]);
        let ok = run_logged(build, &bench, &dir.join("log.txt"), args.run_timeout)?;
        println!(
            "compare: {} try {attempt}: {} in {:.0} s",
            build.name,
            if ok {
                "done"
            } else {
                "FAILED (see its log.txt)"
            },
            started.elapsed().as_secs_f64()
        );
        runs.push(Run::read(&build.name, attempt, &dir.join("bench.json")));
    }
    let mut conformance = Vec::new();
    if let Some(flags) = &args.conformance {
        for build in &builds {
            let dir = args.out.join(&build.name);
            let mut command = vec!["conformance".to_string()];
            command.extend(flags.split_whitespace().map(String::from));
            command.extend(build.flags.iter().cloned());
            let log = dir.join("conformance.txt");
            let ok = run_logged(build, &command, &log, args.run_timeout)?;
            let last = std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .rev()
                .find(|l| l.contains("passed"))
                .unwrap_or(if ok { "no tally printed" } else { "failed" })
                .to_string();
            println!("compare: {} conformance: {last}", build.name);
            conformance.push((build.name.clone(), last));
        }
    }
    let header = Header {
        device: device_names(),
        builds: builds
            .iter()
            .map(|b| (b.name.clone(), b.describe()))
            .collect(),
        bench: args.bench.join(" "),
        conformance,
    };
    let md = format!("{}\n{}", header.md(), compare_md(&runs));
    let path = args.out.join("compare.md");
    std::fs::write(&path, &md).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    println!("{md}");
    Ok(())
}

/// The builds to run, unpacked, then the `--with` variants of them.
fn unpack(args: &Args) -> Result<Vec<Build>, String> {
    let mut names = args.variants.clone();
    if names.is_empty() {
        let list = args.bundle.join(VARIANTS_FILE);
        let text = std::fs::read_to_string(&list).map_err(|e| {
            format!(
                "cannot read {}: {e}. Fix: run `cargo xtask bundle NAME=REV ...` and carry its folder.",
                list.display()
            )
        })?;
        names = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect();
    }
    if names.is_empty() {
        return Err(format!(
            "the bundle {} lists no variant. Fix: run `cargo xtask bundle NAME=REV ...`.",
            args.bundle.display()
        ));
    }
    let withs = args
        .with
        .iter()
        .map(|w| parse_with(w))
        .collect::<Result<Vec<With>, _>>()?;
    let mut labels: Vec<&str> = names.iter().map(String::as_str).collect();
    labels.extend(withs.iter().map(|w| w.label.as_str()));
    if let Some(twice) = labels
        .iter()
        .enumerate()
        .find_map(|(i, l)| labels[..i].contains(l).then_some(*l))
    {
        return Err(format!(
            "two variants are named `{twice}`. Fix: give each --with its own LABEL."
        ));
    }
    let unpacked = std::env::temp_dir().join("vyre-compare");
    create(&unpacked)?;
    let mut builds = names
        .into_iter()
        .map(|name| {
            check_name(&name)?;
            let packed = args.bundle.join(format!("{name}.xz"));
            let binary = unpacked.join(&name);
            let file = std::fs::File::create(&binary)
                .map_err(|e| format!("cannot create {}: {e}", binary.display()))?;
            shell::run(
                Command::new("xz").arg("-dc").arg(&packed).stdout(file),
                &format!("unpacking {} with xz", packed.display()),
                "install xz-utils",
            )?;
            make_executable(&binary)?;
            let commit = std::fs::read_to_string(args.bundle.join(format!("{name}.commit")))
                .map_or_else(|_| "unknown".into(), |c| c.trim().to_string());
            Ok(Build {
                name,
                commit,
                binary,
                env: Vec::new(),
                flags: Vec::new(),
            })
        })
        .collect::<Result<Vec<Build>, String>>()?;
    for with in withs {
        let Some(build) = builds.iter().find(|b| b.name == with.build) else {
            return Err(format!(
                "--with `{}` runs the build `{}`, which is not among this run's builds. Fix: name one of {}.",
                with.label,
                with.build,
                builds
                    .iter()
                    .map(|b| b.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        let (commit, binary) = (build.commit.clone(), build.binary.clone());
        builds.push(Build {
            name: with.label,
            commit,
            binary,
            env: with.env,
            flags: with.flags,
        });
    }
    Ok(builds)
}

#[cfg(unix)]
fn make_executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make {} executable: {e}", path.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), String> {
    Ok(())
}

/// Run `build`'s binary with `args` and its environment, stdout and stderr
/// into `log`, killed after `timeout` seconds if given; whether it
/// succeeded.
fn run_logged(
    build: &Build,
    args: &[String],
    log: &Path,
    timeout: Option<u64>,
) -> Result<bool, String> {
    let binary = &build.binary;
    let out =
        std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err = out.try_clone().map_err(|e| format!("{e}"))?;
    let mut child = Command::new(binary)
        .args(args)
        .envs(build.env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::from(out))
        .stderr(Stdio::from(err))
        .spawn()
        .map_err(|e| format!("could not run {}: {e}", binary.display()))?;
    let started = Instant::now();
    let waited = |e: std::io::Error| format!("waiting for {}: {e}", binary.display());
    loop {
        if let Some(status) = child.try_wait().map_err(waited)? {
            return Ok(status.success());
        }
        if let Some(limit) = timeout
            && started.elapsed().as_secs() >= limit
        {
            let _ = child.kill();
            child.wait().map_err(waited)?;
            let mut file = std::fs::OpenOptions::new()
                .append(true)
                .open(log)
                .map_err(|e| format!("cannot append to {}: {e}", log.display()))?;
            use std::io::Write;
            let _ = writeln!(file, "compare: killed after {limit} s (--run-timeout)");
            return Ok(false);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

fn create(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))
}

/// The GPUs present, by name and UUID (the device tool lends different
/// cards from call to call: a report names the one it ran on).
fn device_names() -> String {
    Command::new("nvidia-smi")
        .args(["--query-gpu=name,uuid", "--format=csv,noheader"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .replace('\n', "; ")
        })
        .unwrap_or_else(|| "no NVIDIA GPU listed (nvidia-smi did not run)".into())
}

/// What a comparison ran on and with.
struct Header {
    device: String,
    builds: Vec<(String, String)>,
    bench: String,
    conformance: Vec<(String, String)>,
}

impl Header {
    fn md(&self) -> String {
        let mut md = format!(
            "# xtask compare\n\n- device: {}\n- date: {}\n- bench flags: `{}`\n",
            self.device,
            crate::bench::date(),
            self.bench
        );
        for (name, commit) in &self.builds {
            md.push_str(&format!("- `{name}`: {commit}\n"));
        }
        for (name, tally) in &self.conformance {
            md.push_str(&format!("- `{name}` conformance: {tally}\n"));
        }
        md
    }
}

#[cfg(test)]
mod tests {
    use super::schedule;

    #[test]
    fn variants_alternate_try_by_try() {
        assert_eq!(
            schedule(2, 3),
            [(0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3)]
        );
        assert!(schedule(3, 0).is_empty());
    }
}
