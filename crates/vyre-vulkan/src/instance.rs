//! Loading libvulkan at run time and creating the instance (with the
//! validation layer when asked and present).

use std::ffi::CStr;

use ash::vk;
use vyre_driver::backend::BackendError;

use crate::error::vk_error;
use crate::validation::{LAYER, ValidationLog, messenger_info};

/// Vulkan version vyre needs: 1.1 (properties2, subgroup properties,
/// SPIR-V 1.3).
pub(crate) const REQUIRED_API: u32 = vk::API_VERSION_1_1;

/// A loaded Vulkan and one instance; destroys it (and the messenger) on drop.
pub(crate) struct Loaded {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    /// Owned here so that the messenger's user-data pointer stays valid.
    log: Box<ValidationLog>,
}

fn unavailable(detail: String) -> BackendError {
    BackendError::unavailable(format!(
        "{detail}. Fix: install a Vulkan loader and driver (on Debian/Ubuntu `apt-get install libvulkan1 mesa-vulkan-drivers` gives the lavapipe CPU device; on an NVIDIA machine the NVIDIA ICD loads only beside libvulkan1 and the GLVND libraries: libglvnd0, libglx0, libegl1 and the rest of that set), or use another backend."
    ))
}

fn has_layer(entry: &ash::Entry, name: &CStr) -> bool {
    // SAFETY: a plain query on a loaded entry.
    unsafe { entry.enumerate_instance_layer_properties() }
        .unwrap_or_default()
        .iter()
        .any(|layer| layer.layer_name_as_c_str() == Ok(name))
}

impl Loaded {
    /// Load libvulkan and create an instance; with `validation`, enable the
    /// Khronos validation layer when it is installed.
    pub(crate) fn new(validation: bool) -> Result<Self, BackendError> {
        // SAFETY: loading the system's libvulkan runs its initialisers; vyre
        // keeps the Entry alive as long as anything made from it.
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| unavailable(format!("no Vulkan loader could be loaded ({e})")))?;
        // SAFETY: a plain query on a loaded entry.
        let version = unsafe { entry.try_enumerate_instance_version() }
            .map_err(|e| vk_error(e, "asking the loader for its version"))?
            .unwrap_or(vk::API_VERSION_1_0);
        if version < REQUIRED_API {
            return Err(unavailable(format!(
                "the Vulkan loader supports version {}.{}, vyre needs 1.1",
                vk::api_version_major(version),
                vk::api_version_minor(version)
            )));
        }
        let with_layer = validation && has_layer(&entry, LAYER);
        let log = Box::new(ValidationLog::new(with_layer));
        let layers = if with_layer {
            vec![LAYER.as_ptr()]
        } else {
            vec![]
        };
        let extensions = if with_layer {
            vec![ash::ext::debug_utils::NAME.as_ptr()]
        } else {
            vec![]
        };
        let app = vk::ApplicationInfo::default()
            .application_name(c"vyre")
            .api_version(REQUIRED_API);
        let mut messenger = messenger_info(&log);
        let mut info = vk::InstanceCreateInfo::default()
            .application_info(&app)
            .enabled_layer_names(&layers)
            .enabled_extension_names(&extensions);
        if with_layer {
            // Also reports what happens inside vkCreateInstance itself.
            info = info.push_next(&mut messenger);
        }
        // SAFETY: every pointer in `info` refers to locals alive here.
        let instance = unsafe { entry.create_instance(&info, None) }
            .map_err(|e| unavailable(format!("vkCreateInstance failed ({e})")))?;
        let mut loaded = Self {
            entry,
            instance,
            messenger: None,
            log,
        };
        if with_layer {
            let utils = ash::ext::debug_utils::Instance::new(&loaded.entry, &loaded.instance);
            // SAFETY: the instance was created with VK_EXT_debug_utils; the
            // user data (the boxed log) lives as long as `loaded`.
            let handle =
                unsafe { utils.create_debug_utils_messenger(&messenger_info(&loaded.log), None) }
                    .map_err(|e| vk_error(e, "creating the validation messenger"))?;
            loaded.messenger = Some((utils, handle));
        }
        Ok(loaded)
    }

    /// The validation log (inactive when the layer was not loaded).
    pub(crate) fn log(&self) -> ValidationLog {
        (*self.log).clone()
    }
}

impl Drop for Loaded {
    fn drop(&mut self) {
        // SAFETY: everything made from the instance (the device) was
        // destroyed before `Loaded` is dropped (field order in the backend);
        // the messenger goes first, then the instance.
        unsafe {
            if let Some((utils, handle)) = self.messenger.take() {
                utils.destroy_debug_utils_messenger(handle, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}
