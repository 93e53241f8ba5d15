//! Choosing the physical device: one with a compute queue and Vulkan 1.1,
//! hardware first; software devices (lavapipe) only when asked for by name
//! of the backend, never by automatic selection.

use ash::vk;
use vyre_driver::backend::BackendError;

use crate::instance::REQUIRED_API;

/// What selection needs to know about one physical device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Candidate {
    pub name: String,
    pub device_type: vk::PhysicalDeviceType,
    pub api_version: u32,
    /// A queue family with compute, preferring one without graphics.
    pub compute_family: Option<u32>,
}

/// How to choose (the parts of [`crate::VulkanOpenRequest`] that matter).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Choice<'a> {
    pub name_contains: Option<&'a str>,
    pub skip_software: bool,
}

fn rank(device_type: vk::PhysicalDeviceType) -> u8 {
    match device_type {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 4,
        _ => 3,
    }
}

/// Whether a device runs on the host's CPU (lavapipe, SwiftShader).
pub(crate) fn is_software(device_type: vk::PhysicalDeviceType) -> bool {
    device_type == vk::PhysicalDeviceType::CPU
}

/// The best candidate under `choice`: the index into `candidates`.
pub(crate) fn pick(candidates: &[Candidate], choice: &Choice<'_>) -> Result<usize, BackendError> {
    let filter = choice.name_contains.map(str::to_lowercase);
    let best = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.compute_family.is_some() && c.api_version >= REQUIRED_API)
        .filter(|(_, c)| !(choice.skip_software && is_software(c.device_type)))
        .filter(|(_, c)| {
            filter
                .as_ref()
                .is_none_or(|f| c.name.to_lowercase().contains(f))
        })
        .min_by_key(|(i, c)| (rank(c.device_type), *i));
    if let Some((index, _)) = best {
        return Ok(index);
    }
    let seen: Vec<String> = candidates
        .iter()
        .map(|c| {
            format!(
                "{} ({:?}, Vulkan {}.{}{})",
                c.name,
                c.device_type,
                vk::api_version_major(c.api_version),
                vk::api_version_minor(c.api_version),
                if c.compute_family.is_some() {
                    ""
                } else {
                    ", no compute queue"
                }
            )
        })
        .collect();
    let wanted = match (&filter, choice.skip_software) {
        (Some(f), _) => format!("whose name contains {f:?}"),
        (None, true) => "on hardware (software devices are skipped by automatic selection)".into(),
        (None, false) => "at all".into(),
    };
    Err(BackendError::unavailable(format!(
        "no Vulkan 1.1 device with a compute queue {wanted}; found [{}]. Fix: install the GPU's Vulkan driver, name the vulkan backend explicitly to accept a software device such as lavapipe, or use another backend.",
        seen.join(", ")
    )))
}

/// The queue family to use: compute without graphics (a dedicated compute
/// family) first, else any with compute.
pub(crate) fn compute_family(families: &[vk::QueueFamilyProperties]) -> Option<u32> {
    let has =
        |f: &vk::QueueFamilyProperties, flag| f.queue_flags.contains(flag) && f.queue_count > 0;
    let dedicated = families
        .iter()
        .position(|f| has(f, vk::QueueFlags::COMPUTE) && !has(f, vk::QueueFlags::GRAPHICS));
    let any = families
        .iter()
        .position(|f| has(f, vk::QueueFlags::COMPUTE));
    dedicated
        .or(any)
        .and_then(|index| u32::try_from(index).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(name: &str, device_type: vk::PhysicalDeviceType) -> Candidate {
        Candidate {
            name: name.into(),
            device_type,
            api_version: vk::API_VERSION_1_3,
            compute_family: Some(0),
        }
    }

    #[test]
    fn hardware_wins_and_auto_never_takes_a_software_device() {
        let lavapipe = device(
            "llvmpipe (LLVM 15.0.6, 256 bits)",
            vk::PhysicalDeviceType::CPU,
        );
        let integrated = device("Intel UHD", vk::PhysicalDeviceType::INTEGRATED_GPU);
        let discrete = device("NVIDIA H200", vk::PhysicalDeviceType::DISCRETE_GPU);
        let all = [lavapipe.clone(), integrated.clone(), discrete];
        let auto = Choice {
            skip_software: true,
            ..Choice::default()
        };
        assert_eq!(pick(&all, &auto).unwrap(), 2);
        assert_eq!(pick(&all[..2], &auto).unwrap(), 1);
        let err = pick(std::slice::from_ref(&lavapipe), &auto).unwrap_err();
        assert_eq!(
            err.kind(),
            vyre_driver::backend::BackendErrorKind::Unavailable
        );
        assert!(
            err.message().contains("on hardware") && err.message().contains("Fix:"),
            "{err}"
        );
        // Naming the backend accepts lavapipe.
        assert_eq!(pick(&[lavapipe], &Choice::default()).unwrap(), 0);
    }

    #[test]
    fn devices_without_compute_or_vulkan_1_1_and_filtered_names_are_passed_over() {
        let mut old = device("old", vk::PhysicalDeviceType::DISCRETE_GPU);
        old.api_version = vk::API_VERSION_1_0;
        let mut no_compute = device("display only", vk::PhysicalDeviceType::DISCRETE_GPU);
        no_compute.compute_family = None;
        let good = device("Radeon", vk::PhysicalDeviceType::INTEGRATED_GPU);
        let all = [old, no_compute, good];
        assert_eq!(pick(&all, &Choice::default()).unwrap(), 2);
        let named = Choice {
            name_contains: Some("radeon"),
            ..Choice::default()
        };
        assert_eq!(pick(&all, &named).unwrap(), 2);
        let missing = Choice {
            name_contains: Some("h200"),
            ..Choice::default()
        };
        let err = pick(&all, &missing).unwrap_err();
        assert!(err.message().contains("no compute queue"), "{err}");
    }

    #[test]
    fn a_dedicated_compute_family_is_preferred() {
        let family = |flags| vk::QueueFamilyProperties {
            queue_flags: flags,
            queue_count: 1,
            ..Default::default()
        };
        let families = [
            family(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE),
            family(vk::QueueFlags::TRANSFER),
            family(vk::QueueFlags::COMPUTE | vk::QueueFlags::TRANSFER),
        ];
        assert_eq!(compute_family(&families), Some(2));
        assert_eq!(compute_family(&families[..2]), Some(0));
        assert_eq!(compute_family(&families[1..2]), None);
    }
}
