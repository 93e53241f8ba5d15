//! [`BackendError`]: what a backend (or the grid planner) reports when it
//! cannot do what it was asked.

use std::fmt;

/// The broad class of a [`BackendError`], for callers that react differently
/// to "no such device" and "the device failed".
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub enum BackendErrorKind {
    /// The backend's API, driver or device is not present on this machine.
    Unavailable,
    /// The caller passed something the backend cannot use (bad limits, a
    /// source out of range, a topology the device cannot run).
    InvalidRequest,
    /// The graph or its search state does not fit the device.
    OutOfMemory,
    /// The device or its API reported a failure while working.
    Device,
}

/// A backend failure with a message that says what is wrong and ends with
/// `Fix: ...`.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct BackendError {
    kind: BackendErrorKind,
    message: String,
}

impl BackendError {
    /// An [`BackendErrorKind::InvalidRequest`] error; the message should end
    /// with `Fix: ...`.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        Self::with_kind(BackendErrorKind::InvalidRequest, message)
    }

    /// An error of the given kind; the message should end with `Fix: ...`.
    #[must_use]
    pub fn with_kind(kind: BackendErrorKind, message: impl Into<String>) -> Self {
        let message = message.into();
        debug_assert!(
            message.contains("Fix:"),
            "backend error without a Fix: {message}"
        );
        Self { kind, message }
    }

    /// The backend is not present on this machine.
    #[must_use]
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::with_kind(BackendErrorKind::Unavailable, message)
    }

    /// The device or its API failed.
    #[must_use]
    pub fn device(message: impl Into<String>) -> Self {
        Self::with_kind(BackendErrorKind::Device, message)
    }

    /// The class of failure.
    #[must_use]
    pub fn kind(&self) -> BackendErrorKind {
        self.kind
    }

    /// The full message, ending with `Fix: ...`.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BackendError {}
