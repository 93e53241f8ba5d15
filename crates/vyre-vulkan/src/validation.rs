//! The Khronos validation layer, when asked for and installed: every
//! message it sends through a debug-utils messenger lands in a
//! [`ValidationLog`], which tests check is empty.

use std::ffi::{CStr, c_void};
use std::sync::{Arc, Mutex, PoisonError};

use ash::vk;

/// The layer's name.
pub(crate) const LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Messages the validation layer (and the loader's errors) reported, shared
/// with the messenger; it outlives the backend so that messages sent while
/// the device is destroyed are kept too.
#[derive(Clone, Debug, Default)]
pub struct ValidationLog {
    messages: Arc<Mutex<Vec<String>>>,
    active: bool,
}

impl ValidationLog {
    pub(crate) fn new(active: bool) -> Self {
        Self {
            messages: Arc::default(),
            active,
        }
    }

    /// Whether the validation layer is loaded (it was asked for and found).
    #[must_use]
    pub fn is_active(&self) -> bool {
        self.active
    }

    /// Every message so far, oldest first, leaving the log empty.
    #[must_use]
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.messages.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn push(&self, message: String) {
        self.messages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(message);
    }

    /// The pointer the messenger gets back as its user data (the log must
    /// not move while the messenger lives: the instance keeps it boxed).
    pub(crate) fn user_data(log: &Self) -> *mut c_void {
        std::ptr::from_ref::<Self>(log).cast_mut().cast()
    }
}

/// What the messenger reports: validation messages from warnings up, and
/// errors of any kind.
pub(crate) fn messenger_info(log: &ValidationLog) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_message))
        .user_data(ValidationLog::user_data(log))
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    // General (loader) warnings are noise; general errors and every
    // validation or performance message count.
    if kind == vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
        && severity != vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
    {
        return vk::FALSE;
    }
    // SAFETY: the layer passes callback data valid for this call (or null);
    // p_message, when not null, is a NUL-terminated string.
    let text = unsafe {
        data.as_ref()
            .and_then(|d| (!d.p_message.is_null()).then(|| CStr::from_ptr(d.p_message)))
            .map_or_else(|| "(no message)".into(), |m| m.to_string_lossy())
    };
    // SAFETY: user_data is the boxed ValidationLog the instance owns, which
    // outlives the messenger (the messenger is destroyed first).
    if let Some(log) = unsafe { user_data.cast::<ValidationLog>().as_ref() } {
        log.push(format!("{severity:?} {kind:?}: {text}"));
    }
    vk::FALSE
}

#[cfg(test)]
mod tests {
    use ash::vk;

    use crate::testing::{open, visible};

    /// A misuse the layer reports must reach the log (so that tests whose
    /// log is checked really fail on validation messages).
    #[test]
    fn a_validation_error_reaches_the_log() {
        let Some(gpu) = open("a_validation_error_reaches_the_log") else {
            return;
        };
        let log = gpu.validation_log();
        if !log.is_active() {
            visible(
                "a_validation_error_reaches_the_log: skipped: no validation layer (apt-get install vulkan-validationlayers)",
            );
            return;
        }
        // A buffer without any usage flag breaks VUID-VkBufferCreateInfo-usage-requiredbitmask.
        let info = vk::BufferCreateInfo::default().size(64);
        // SAFETY: the layer reports the invalid usage; lavapipe and GPU
        // drivers create the buffer anyway, and it is destroyed at once.
        unsafe {
            if let Ok(buffer) = gpu.gpu.device.create_buffer(&info, None) {
                gpu.gpu.device.destroy_buffer(buffer, None);
            }
        }
        let messages = log.take();
        assert!(
            messages.iter().any(|m| m.contains("usage")),
            "{messages:#?}"
        );
    }
}
