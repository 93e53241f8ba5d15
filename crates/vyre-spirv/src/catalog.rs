//! Which SPIR-V modules exist: every kernel entry point of `shaders/wgsl/`,
//! built from the files vyre-wgsl-abi lists for it (the files vyre-wgpu
//! builds it from), at each width a backend may launch it with.

use vyre_wgsl_abi::{FUSED_WIDTH, Kernel, Module};

/// Workgroup widths every per-wave kernel is written at: the powers of two
/// up to 256 the engine's grid sizing picks from (it prefers 256 and halves
/// only when a device's limits or a huge slot count require it).
pub const KERNEL_WIDTHS: [u32; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// Widths `kernel` is generated at: the empty kernel only as written (one
/// invocation), the fused kernel at the one width it is probed and
/// launched with, every other kernel at [`KERNEL_WIDTHS`].
#[must_use]
pub fn widths(kernel: Kernel) -> &'static [u32] {
    match kernel {
        Kernel::Noop => &[1],
        Kernel::Fused => &[FUSED_WIDTH],
        _ => &KERNEL_WIDTHS,
    }
}

/// Every module written to `shaders/spirv/`, as (module, entry point)
/// pairs in a fixed order.
#[must_use]
pub fn catalog() -> Vec<(Module, Kernel)> {
    Module::ALL
        .iter()
        .flat_map(|&module| module.kernels().iter().map(move |&kernel| (module, kernel)))
        .collect()
}
