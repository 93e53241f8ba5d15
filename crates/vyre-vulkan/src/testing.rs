//! Opening a device for tests (this crate's and its integration tests'):
//! lavapipe or a GPU, with the Khronos validation layer when installed,
//! where any validation message fails the test; or a visible `skipped:`
//! line when Vulkan is absent (a failure when `VYRE_REQUIRE_BACKENDS`
//! names vulkan).

use std::io::Write as _;
use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::{ValidationLog, VulkanBackend, VulkanOpenRequest};

/// One device test at a time: the machines running them have few cores.
static DEVICE: Mutex<()> = Mutex::new(());

/// Whether `VYRE_REQUIRE_BACKENDS` names vulkan (CI): then a missing device
/// or validation layer fails.
#[must_use]
pub fn required() -> bool {
    std::env::var("VYRE_REQUIRE_BACKENDS")
        .unwrap_or_default()
        .split(',')
        .any(|name| name.trim() == "vulkan")
}

/// A line past the test harness's capture.
pub fn visible(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// An open backend; dropping it checks the validation log (messages sent
/// while the device was destroyed included).
pub struct TestDevice {
    backend: Option<VulkanBackend>,
    log: ValidationLog,
    _lock: MutexGuard<'static, ()>,
}

impl Deref for TestDevice {
    type Target = VulkanBackend;
    fn deref(&self) -> &VulkanBackend {
        self.backend.as_ref().expect("open until dropped")
    }
}

impl DerefMut for TestDevice {
    fn deref_mut(&mut self) -> &mut VulkanBackend {
        self.backend.as_mut().expect("open until dropped")
    }
}

impl TestDevice {
    /// Fail now if the validation layer reported anything.
    ///
    /// # Panics
    ///
    /// When it did.
    pub fn assert_valid(&self) {
        let messages = self.log.take();
        assert!(messages.is_empty(), "validation messages: {messages:#?}");
    }
}

impl Drop for TestDevice {
    fn drop(&mut self) {
        drop(self.backend.take());
        if !std::thread::panicking() {
            self.assert_valid();
        }
    }
}

/// Open with `request` (validation on), or skip visibly.
///
/// # Panics
///
/// When no device opens, or the validation layer is missing, and
/// `VYRE_REQUIRE_BACKENDS` names vulkan.
#[must_use]
pub fn open_with(test: &str, request: &VulkanOpenRequest) -> Option<TestDevice> {
    let lock = DEVICE.lock().unwrap_or_else(PoisonError::into_inner);
    let request = VulkanOpenRequest {
        validation: true,
        ..request.clone()
    };
    match VulkanBackend::open(&request) {
        Ok(backend) => {
            let log = backend.validation_log();
            assert!(
                log.is_active() || !required(),
                "{test}: VYRE_REQUIRE_BACKENDS names vulkan but the Khronos validation layer is not installed. Fix: apt-get install vulkan-validationlayers."
            );
            Some(TestDevice {
                backend: Some(backend),
                log,
                _lock: lock,
            })
        }
        Err(error) => {
            assert!(
                !required(),
                "{test}: VYRE_REQUIRE_BACKENDS names vulkan but it did not open: {error}"
            );
            visible(&format!("{test}: skipped: no Vulkan device ({error})"));
            None
        }
    }
}

/// Open the default device (software allowed), or skip visibly.
///
/// # Panics
///
/// As [`open_with`].
#[must_use]
pub fn open(test: &str) -> Option<TestDevice> {
    open_with(test, &VulkanOpenRequest::default())
}
