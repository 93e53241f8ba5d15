//! [`VyreError`]: what the facade reports.

use std::fmt;

use vyre_driver::backend::{BackendError, BackendErrorKind};
use vyre_runtime::EngineError;

use crate::BackendKind;

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
    /// The graph does not fit the device of `backend`; other backends of
    /// this build might take it.
    DoesNotFit {
        /// The backend that refused.
        backend: BackendKind,
        /// Its reason.
        error: EngineError,
    },
}

impl VyreError {
    /// `error` from a device of `backend`: a graph that does not fit gets
    /// a hint naming the other backends compiled in.
    pub(crate) fn on_backend(backend: BackendKind, error: EngineError) -> Self {
        let does_not_fit = match &error {
            EngineError::Memory(_) | EngineError::BatchMemory { .. } => true,
            EngineError::Backend(e) => e.kind() == BackendErrorKind::OutOfMemory,
            _ => false,
        };
        if does_not_fit {
            Self::DoesNotFit { backend, error }
        } else {
            Self::Engine(error)
        }
    }
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
            Self::DoesNotFit { backend, error } => {
                write!(f, "{error}")?;
                let others: Vec<_> = crate::available_backends()
                    .into_iter()
                    .filter(|k| k != backend)
                    .map(BackendKind::name)
                    .collect();
                if !others.is_empty() {
                    write!(
                        f,
                        " Or open another backend of this build ({}): it plans against its own device.",
                        others.join(", ")
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for VyreError {}

impl From<EngineError> for VyreError {
    fn from(e: EngineError) -> Self {
        Self::Engine(e)
    }
}
