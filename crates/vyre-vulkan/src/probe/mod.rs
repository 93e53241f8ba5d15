//! Running the device-wide barrier probe (vyre-wgsl-abi's `probe`: the
//! trials' words, the search and the verdict) on a Vulkan device.

mod run;

pub(crate) use run::probe_device;
