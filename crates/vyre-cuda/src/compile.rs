//! Compiling the kernels to PTX with NVRTC (no driver or GPU needed).

use cudarc::nvrtc::{CompileError, CompileOptions, compile_ptx_with_opts};
use vyre_driver::backend::{BackendError, BackendErrorKind};

use crate::source::{KERNEL_NAMES, kernel_source};

/// Whether the NVRTC library can be loaded on this machine.
#[must_use]
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to dlopen the NVRTC library by its usual names; no
    // NVRTC function is called.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// A GPU architecture NVRTC compiles for, such as `sm_90`.
#[derive(Clone, Debug, Eq, PartialEq, Hash)]
pub struct GpuArch(String);

impl GpuArch {
    /// The architecture of a device of compute capability `major.minor`.
    #[must_use]
    pub fn from_compute_capability(major: i32, minor: i32) -> Self {
        Self(format!("sm_{major}{minor}"))
    }

    /// Parse `sm_XY` (optionally with an `a` or `f` suffix, as in `sm_90a`).
    ///
    /// # Errors
    ///
    /// [`BackendError`] when `arch` is not of that form.
    pub fn parse(arch: &str) -> Result<Self, BackendError> {
        let digits = arch
            .strip_prefix("sm_")
            .map(|rest| rest.trim_end_matches(['a', 'f']))
            .unwrap_or("");
        let suffix_len = arch.len() - "sm_".len().min(arch.len()) - digits.len();
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) || suffix_len > 1 {
            return Err(BackendError::new(format!(
                "'{arch}' is not a GPU architecture. Fix: pass one like sm_90 (compute capability 9.0)."
            )));
        }
        Ok(Self(arch.to_owned()))
    }

    /// The architecture's name, e.g. `sm_90`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Set to `1` to compile the test-only variant of the fused kernel whose
/// grid barrier never opens (it ends only through the deadline's abort);
/// for the deadline tests, never for real work.
pub const STUCK_BARRIER_ENV: &str = "VYRE_CUDA_TEST_STUCK_BARRIER";

/// Extra NVRTC options for the kernels, separated by whitespace: for
/// measuring a kernel's build-time settings without rebuilding the crate
/// (`-DVYRE_LOCAL_ROUND=2u`, `-maxrregcount=64`). Unset for real work.
pub const NVRTC_OPTIONS_ENV: &str = "VYRE_CUDA_NVRTC_OPTIONS";

/// The NVRTC options the kernels are compiled with for `arch` (with
/// `-DVYRE_TEST_STUCK_BARRIER` when [`STUCK_BARRIER_ENV`] is `1`, then
/// whatever [`NVRTC_OPTIONS_ENV`] holds).
#[must_use]
pub fn compile_options(arch: &GpuArch) -> Vec<String> {
    let mut options = vec![
        format!("--gpu-architecture={}", arch.as_str()),
        "--std=c++17".to_owned(),
        "-lineinfo".to_owned(),
    ];
    if std::env::var(STUCK_BARRIER_ENV).is_ok_and(|v| v == "1") {
        options.push("-DVYRE_TEST_STUCK_BARRIER".to_owned());
    }
    if let Ok(extra) = std::env::var(NVRTC_OPTIONS_ENV) {
        options.extend(extra.split_whitespace().map(str::to_owned));
    }
    options
}

/// The version of the NVRTC library this process loads, as (major, minor).
///
/// # Errors
///
/// [`BackendError`] ([`BackendErrorKind::Unavailable`]) when NVRTC is not
/// installed.
pub(crate) fn nvrtc_version() -> Result<(i32, i32), BackendError> {
    if !nvrtc_present() {
        return Err(nvrtc_missing());
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC is loadable (checked above); nvrtcVersion only writes
    // the two integers.
    let status = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&raw mut major, &raw mut minor) };
    if status != cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(BackendError::unavailable(format!(
            "NVRTC did not report its version ({status:?}). Fix: reinstall the CUDA toolkit's NVRTC."
        )));
    }
    Ok((major, minor))
}

fn nvrtc_missing() -> BackendError {
    BackendError::unavailable(
        "NVRTC (libnvrtc.so) was not found, so the CUDA kernels cannot be compiled. Fix: install the CUDA toolkit's NVRTC (or `pip install nvidia-cuda-nvrtc`) and put the directory holding libnvrtc.so on LD_LIBRARY_PATH (e.g. /usr/local/cuda/lib64).",
    )
}

/// Compile every kernel for `arch` (e.g. `sm_90`) and return the PTX text.
///
/// Needs NVRTC but no driver or GPU. This does not use the PTX cache; the
/// backend does ([`crate::CudaBackend::open`]).
///
/// # Errors
///
/// [`BackendError`] ([`BackendErrorKind::Unavailable`]) when NVRTC is not
/// installed, or a device error carrying NVRTC's log when compilation fails.
pub fn compile_ptx(arch: &str) -> Result<String, BackendError> {
    let arch = GpuArch::parse(arch)?;
    compile_for(&arch)
}

pub(crate) fn compile_for(arch: &GpuArch) -> Result<String, BackendError> {
    compile_source(&kernel_source(), arch)
}

/// Compile `source` (the kernels, in tests altered) for `arch`.
fn compile_source(source: &str, arch: &GpuArch) -> Result<String, BackendError> {
    if !nvrtc_present() {
        return Err(nvrtc_missing());
    }
    let options = CompileOptions {
        options: compile_options(arch),
        name: Some("vyre.cu".to_owned()),
        ..CompileOptions::default()
    };
    let ptx = compile_ptx_with_opts(source, options).map_err(|e| compile_error(arch, &e))?;
    let text = ptx.to_src();
    check_ptx(&text, arch)?;
    Ok(text)
}

/// Check that `ptx` targets `arch` and defines every kernel.
pub(crate) fn check_ptx(ptx: &str, arch: &GpuArch) -> Result<(), BackendError> {
    let target = format!(".target {}", arch.as_str());
    if !ptx.lines().any(|l| l.trim_start().starts_with(&target)) {
        return Err(BackendError::device(format!(
            "the PTX does not target {}. Fix: delete the PTX cache (~/.cache/vyre/ptx) and restart.",
            arch.as_str()
        )));
    }
    if let Some(missing) = KERNEL_NAMES
        .iter()
        .find(|name| !ptx.contains(&format!(".entry {name}(")))
    {
        return Err(BackendError::device(format!(
            "the PTX lacks the kernel {missing}. Fix: delete the PTX cache (~/.cache/vyre/ptx) and restart."
        )));
    }
    Ok(())
}

fn compile_error(arch: &GpuArch, error: &CompileError) -> BackendError {
    let detail = match error {
        CompileError::CompileError { nvrtc, log, .. } => {
            format!("{nvrtc:?}:\n{}", log.to_string_lossy())
        }
        other => format!("{other:?}"),
    };
    BackendError::with_kind(
        BackendErrorKind::Device,
        format!(
            "NVRTC could not compile the vyre kernels for {}: {detail}\nFix: use an NVRTC that supports {} (CUDA 12 or newer), or report the log above as a bug in shaders/cuda.",
            arch.as_str(),
            arch.as_str()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn architectures_parse_and_bad_ones_are_refused() {
        assert_eq!(GpuArch::parse("sm_90").unwrap().as_str(), "sm_90");
        assert_eq!(GpuArch::parse("sm_90a").unwrap().as_str(), "sm_90a");
        assert_eq!(GpuArch::parse("sm_120").unwrap().as_str(), "sm_120");
        for bad in [
            "",
            "sm_",
            "sm_9",
            "90",
            "compute_90",
            "sm_9x",
            "sm_90aa",
            "sm_-1",
        ] {
            let err = GpuArch::parse(bad).unwrap_err();
            assert!(err.message().contains("Fix:"), "{bad}: {err}");
        }
        assert_eq!(GpuArch::from_compute_capability(9, 0).as_str(), "sm_90");
    }

    #[test]
    fn options_name_the_architecture() {
        let options = compile_options(&GpuArch::parse("sm_86").unwrap());
        assert!(options.contains(&"--gpu-architecture=sm_86".to_owned()));
    }

    #[test]
    fn ptx_check_wants_the_target_and_every_entry() {
        let arch = GpuArch::parse("sm_90").unwrap();
        let mut ptx = String::from(".version 9.0\n.target sm_90\n");
        for name in KERNEL_NAMES {
            ptx.push_str(&format!(".visible .entry {name}(\n"));
        }
        assert!(check_ptx(&ptx, &arch).is_ok());
        assert!(check_ptx(&ptx, &GpuArch::parse("sm_80").unwrap()).is_err());
        let without_fused = ptx.replace(".entry vyre_fused(", ".entry other(");
        assert!(check_ptx(&without_fused, &arch).is_err());
    }

    #[test]
    fn a_field_offset_that_differs_from_rust_fails_the_compile() {
        if !nvrtc_present() {
            eprintln!("skipped: NVRTC not found");
            return;
        }
        let arch = GpuArch::parse("sm_90").unwrap();
        let offset = std::mem::offset_of!(crate::args::KernelArgs, abort_flag);
        let line = format!("VYRE_OFFSETOF(VyreArgs, abort_flag) == {offset},");
        let moved_line = format!("VYRE_OFFSETOF(VyreArgs, abort_flag) == {},", offset + 8);
        // Both forms of the offset: the builtin, and the __INTADDR__ form
        // NVRTC before 13.4 needs.
        for forced in [false, true] {
            let mut source = kernel_source();
            if forced {
                source.insert_str(0, "#define VYRE_OFFSETOF_INTADDR 1\n");
            }
            assert!(compile_source(&source, &arch).is_ok(), "forced {forced}");
            assert!(source.contains(&line), "{line}");
            let moved = source.replace(&line, &moved_line);
            let err = compile_source(&moved, &arch).unwrap_err();
            assert!(
                err.message().contains("VyreArgs.abort_flag is at byte"),
                "forced {forced}: {err}"
            );
        }
    }
}
