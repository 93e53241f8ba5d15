//! The WGSL kernels, their bind-group layouts and the pipeline cache.
//!
//! Each module is the WGSL files vyre-wgsl-abi lists for it, concatenated
//! (its prelude before every per-wave kernel). Every kernel but `noop`
//! shares one bind-group layout (the state of one frontier set,
//! vyre-wgsl-abi's bindings), so a chain of levels in one pass only
//! switches between the two frontier sets' bind groups; a batch pass's
//! kernels and the fused kernel have a wider layout, one binding longer
//! (the batch's tallies, or the fused kernel's host words). Pipelines are
//! created once per (kernel, workgroup width); the width is the WGSL `override` constant `WG`, which also sizes
//! the kernels' workgroup arrays, and every other override gets the value
//! vyre-wgsl-abi gives both backends.

use std::collections::HashMap;

pub(crate) use vyre_wgsl_abi::Kernel;
use vyre_wgsl_abi::Module;
use vyre_wgsl_abi::bindings::{
    BATCH_STORAGE_BINDINGS, FUSED_STORAGE_BINDINGS, STORAGE_BINDINGS, read_only,
};

// The batch kernels' and the fused kernel's layouts are one: the per-wave
// bindings and one more, read and written.
const WIDE_BINDINGS: u32 = BATCH_STORAGE_BINDINGS;
const _: () = assert!(FUSED_STORAGE_BINDINGS == WIDE_BINDINGS);

/// Bind-group layouts, pipeline layouts, shader modules and pipelines of one
/// device.
pub(crate) struct Kernels {
    pub(crate) state_layout: wgpu::BindGroupLayout,
    state_pipeline_layout: wgpu::PipelineLayout,
    /// The wide layout of batch kernels and the fused kernel, made on first
    /// use: it binds more storage buffers than a per-wave search needs
    /// (`begin_batch` and the barrier probe check the device allows them).
    wide: Option<(wgpu::BindGroupLayout, wgpu::PipelineLayout)>,
    empty_pipeline_layout: wgpu::PipelineLayout,
    modules: HashMap<Module, wgpu::ShaderModule>,
    pipelines: HashMap<(Kernel, u32), wgpu::ComputePipeline>,
    /// The `STALE_SIZING` fault injection (tests only).
    stale_sizing: bool,
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A bind-group layout of `bindings` storage buffers (vyre-wgsl-abi's
/// bindings) and the pipeline layout of it alone.
fn layouts(device: &wgpu::Device, bindings: u32) -> (wgpu::BindGroupLayout, wgpu::PipelineLayout) {
    let entries: Vec<_> = (0..bindings)
        .map(|b| storage_entry(b, read_only(b)))
        .collect();
    let group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("vyre state"),
        entries: &entries,
    });
    let pipeline = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("vyre kernels"),
        bind_group_layouts: &[Some(&group)],
        immediate_size: 0,
    });
    (group, pipeline)
}

/// Whether `kernel` binds the wide layout.
fn binds_wide(kernel: Kernel) -> bool {
    kernel.is_batch() || kernel == Kernel::Fused
}

impl Kernels {
    pub(crate) fn new(device: &wgpu::Device, stale_sizing: bool) -> Self {
        let (state_layout, state_pipeline_layout) = layouts(device, STORAGE_BINDINGS);
        let empty_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("vyre empty"),
                bind_group_layouts: &[],
                immediate_size: 0,
            });
        Self {
            state_layout,
            state_pipeline_layout,
            wide: None,
            empty_pipeline_layout,
            modules: HashMap::new(),
            pipelines: HashMap::new(),
            stale_sizing,
        }
    }

    /// The pipeline of `kernel` at workgroup width `width`, created on first
    /// use (a cheap handle clone afterwards).
    pub(crate) fn pipeline(
        &mut self,
        device: &wgpu::Device,
        kernel: Kernel,
        width: u32,
    ) -> wgpu::ComputePipeline {
        let width = if kernel.binds_nothing() { 1 } else { width };
        let wide_kernel = binds_wide(kernel);
        if wide_kernel {
            self.wide_layout(device);
        }
        let module_id = kernel.module();
        let module = self.modules.entry(module_id).or_insert_with(|| {
            device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(kernel.name()),
                source: wgpu::ShaderSource::Wgsl(module_id.source().into()),
            })
        });
        let stale_sizing = self.stale_sizing;
        let layout = match (kernel.binds_nothing(), &self.wide) {
            (true, _) => &self.empty_pipeline_layout,
            (false, Some((_, wide))) if wide_kernel => wide,
            _ => &self.state_pipeline_layout,
        };
        self.pipelines
            .entry((kernel, width))
            .or_insert_with(|| {
                // The empty kernel declares no overrides (wgpu refuses others).
                let mut constants = Vec::new();
                if !kernel.binds_nothing() {
                    constants.push(("WG", f64::from(width)));
                    constants.extend(vyre_wgsl_abi::pipeline_constants(stale_sizing));
                }
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(kernel.name()),
                    layout: Some(layout),
                    module,
                    entry_point: Some(kernel.entry_point()),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        zero_initialize_workgroup_memory: true,
                    },
                    cache: None,
                })
            })
            .clone()
    }

    /// The bind-group layout of a batch pass's kernels and of the fused
    /// kernel (made on first use).
    pub(crate) fn wide_layout(&mut self, device: &wgpu::Device) -> &wgpu::BindGroupLayout {
        &self
            .wide
            .get_or_insert_with(|| layouts(device, WIDE_BINDINGS))
            .0
    }

    /// Number of pipelines created so far (for tests of the cache).
    pub(crate) fn pipeline_count(&self) -> usize {
        self.pipelines.len()
    }
}
