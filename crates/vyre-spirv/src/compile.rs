//! WGSL → SPIR-V with naga, one module per entry point and width.

use std::fmt;
use std::path::Path;

use naga::back::spv;

use crate::catalog::{catalog, widths};

/// A module that failed to compile (or a source that could not be read).
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct SpirvError {
    /// What was being built: a file name or `entry at width`.
    pub what: String,
    /// naga's (or the file system's) message.
    pub message: String,
}

impl fmt::Display for SpirvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}. Fix: correct the WGSL source in shaders/wgsl/ (wgpu compiles the same files), then run `cargo xtask spirv`.",
            self.what, self.message
        )
    }
}

impl std::error::Error for SpirvError {}

/// One generated module.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct GeneratedModule {
    /// File name under `shaders/spirv/` ([`file_name`]).
    pub file_name: String,
    /// The SPIR-V words as little-endian bytes (what the file holds).
    pub bytes: Vec<u8>,
}

/// The file a module of `entry` at `width` is written to.
#[must_use]
pub fn file_name(entry: &str, width: u32) -> String {
    format!("{entry}.w{width}.spv")
}

/// SPIR-V 1.3 (Vulkan 1.1), with the bounds checks wgpu gives the same
/// kernels on Vulkan, workgroup memory zeroed by the driver (as wgpu asks
/// where the device can: a polyfill, zeroing it in every workgroup with a
/// barrier, made the kernels ten times slower on lavapipe), and names for
/// `spirv-dis`. The Vulkan backend enables `shaderZeroInitializeWorkgroupMemory`.
/// Every option is set here, none left to naga's build profile (its default
/// flags differ between debug and release builds).
fn options() -> spv::Options<'static> {
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    spv::Options {
        lang_version: (1, 3),
        flags: spv::WriterFlags::DEBUG,
        // The WGSL @group/@binding numbers are the descriptor set and binding.
        fake_missing_bindings: true,
        capabilities: None,
        bounds_check_policies: BoundsCheckPolicies {
            index: BoundsCheckPolicy::Restrict,
            buffer: BoundsCheckPolicy::Restrict,
            image_load: BoundsCheckPolicy::Restrict,
            binding_array: BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::Native,
        force_loop_bounding: true,
        emit_int_div_checks: true,
        ..spv::Options::default()
    }
}

/// Compile `source` (the concatenated WGSL of one module) for `entry` at
/// workgroup width `width`, every other override it declares at the value
/// both backends set (`vyre_wgsl_abi::pipeline_constants`).
///
/// # Errors
///
/// [`SpirvError`] when naga cannot parse, validate, specialize or write it.
pub fn compile(source: &str, entry: &str, width: u32) -> Result<Vec<u32>, SpirvError> {
    let fail = |message: String| SpirvError {
        what: format!("{entry} at width {width}"),
        message,
    };
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| fail(e.emit_to_string(source).trim().to_string()))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .map_err(|e| fail(e.emit_to_string(source).trim().to_string()))?;
    let mut constants = naga::back::PipelineConstants::default();
    // Only the overrides the module declares (naga refuses others).
    let declared = |name: &str| {
        module
            .overrides
            .iter()
            .any(|(_, o)| o.name.as_deref() == Some(name))
    };
    let all = vyre_wgsl_abi::pipeline_constants();
    for (name, value) in std::iter::once(("WG", f64::from(width))).chain(all) {
        if declared(name) {
            constants.insert(name.to_string(), value);
        }
    }
    let (module, info) = naga::back::pipeline_constants::process_overrides(
        &module,
        &info,
        Some((naga::ShaderStage::Compute, entry)),
        &constants,
    )
    .map_err(|e| fail(e.to_string()))?;
    let pipeline = spv::PipelineOptions {
        shader_stage: naga::ShaderStage::Compute,
        entry_point: entry.to_string(),
    };
    spv::write_vec(&module, &info, &options(), Some(&pipeline)).map_err(|e| fail(e.to_string()))
}

/// Every module of [`catalog`], compiled from the WGSL files under
/// `root/shaders/wgsl`, in catalog order.
///
/// # Errors
///
/// [`SpirvError`] for the first file that cannot be read or module that
/// does not compile.
pub fn generate(root: &Path) -> Result<Vec<GeneratedModule>, SpirvError> {
    let wgsl = root.join("shaders/wgsl");
    let mut out = Vec::new();
    for (module, kernel) in catalog() {
        let parts = module
            .files()
            .iter()
            .map(|file| {
                std::fs::read_to_string(wgsl.join(file)).map_err(|e| SpirvError {
                    what: format!("shaders/wgsl/{file}"),
                    message: e.to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let source = parts.join("\n");
        for &width in widths(kernel) {
            let words = compile(&source, kernel.entry_point(), width)?;
            out.push(GeneratedModule {
                file_name: file_name(kernel.name(), width),
                bytes: words.iter().flat_map(|w| w.to_le_bytes()).collect(),
            });
        }
    }
    Ok(out)
}
