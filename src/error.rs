//! [`VyreError`]: what the facade reports.

use std::fmt;

use vyre_driver::backend::{BackendError, BackendKind};
use vyre_runtime::EngineError;

/// Why opening a device or running a search failed. Every message ends with
/// `Fix: ...`.
#[derive(Debug)]
pub enum VyreError {
    /// No backend could open a device; each one tried says why.
    NoBackend(Vec<(BackendKind, BackendError)>),
    /// The named backend is not compiled into this build.
    NotCompiled(BackendKind),
    /// The named backend could not open a device.
    Backend(BackendError),
    /// Loading or searching failed.
    Engine(EngineError),
}

impl fmt::Display for VyreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NoBackend(tried) => {
                f.write_str("no backend could open a device")?;
                for (kind, why) in tried {
                    write!(f, "; {kind}: {why}")?;
                }
                if tried.is_empty() {
                    f.write_str(
                        ". Fix: build vyre with at least one backend feature (cpu, wgpu, cuda).",
                    )?;
                }
                Ok(())
            }
            Self::NotCompiled(kind) => write!(
                f,
                "the {kind} backend is not compiled into this build. Fix: enable the `{kind}` cargo feature of vyre."
            ),
            Self::Backend(e) => write!(f, "{e}"),
            Self::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for VyreError {}

impl From<EngineError> for VyreError {
    fn from(e: EngineError) -> Self {
        Self::Engine(e)
    }
}
