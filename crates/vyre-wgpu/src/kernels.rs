//! The WGSL kernels, their bind-group layouts and the pipeline cache.
//!
//! Each module is the WGSL files vyre-wgsl-abi lists for it, concatenated
//! (its prelude before every per-wave kernel). Every kernel but `noop`
//! shares one bind-group layout (the state of one frontier set,
//! vyre-wgsl-abi's bindings), so a chain of levels in one pass only
//! switches between the two frontier sets' bind groups; a batch pass's
//! kernels and the fused kernel have a wider layout, one binding longer
//! (the batch's tallies, or the fused kernel's host words). Pipelines are
//! created once per (kernel, workgroup width), the per-wave ones together
//! when a graph is prepared (`Backend::prepare`); the width is the WGSL `override` constant `WG`, which also sizes
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
    pub(crate) fn new(device: &wgpu::Device) -> Self {
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
        if let Some(pipeline) = self.pipelines.get(&(kernel, width)) {
            return pipeline.clone();
        }
        self.build_all(device, &[kernel], width);
        self.pipelines[&(kernel, width)].clone()
    }

    /// Create every pipeline of `kernels` at `width` not created yet, each
    /// on its own host thread (a driver compiles at pipeline creation, and
    /// the pipelines are independent of each other).
    pub(crate) fn build_all(&mut self, device: &wgpu::Device, kernels: &[Kernel], width: u32) {
        let mut wanted = Vec::new();
        for &kernel in kernels {
            let width = if kernel.binds_nothing() { 1 } else { width };
            if !self.pipelines.contains_key(&(kernel, width)) && !wanted.contains(&(kernel, width))
            {
                wanted.push((kernel, width));
            }
        }
        if wanted.iter().any(|&(k, _)| binds_wide(k)) {
            self.wide_layout(device);
        }
        for &(kernel, _) in &wanted {
            let module_id = kernel.module();
            self.modules.entry(module_id).or_insert_with(|| {
                device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(kernel.name()),
                    source: wgpu::ShaderSource::Wgsl(module_id.source().into()),
                })
            });
        }
        let this = &*self;
        let created: Vec<_> = match wanted.as_slice() {
            // One pipeline (the common case on first use): no thread.
            [(kernel, width)] => vec![this.create(device, *kernel, *width)],
            _ => std::thread::scope(|scope| {
                let handles: Vec<_> = wanted
                    .iter()
                    .map(|&(kernel, width)| scope.spawn(move || this.create(device, kernel, width)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            }),
        };
        self.pipelines.extend(wanted.into_iter().zip(created));
    }

    /// A new pipeline of `kernel` at `width`; its module, and the wide
    /// layout if it binds that, exist.
    fn create(&self, device: &wgpu::Device, kernel: Kernel, width: u32) -> wgpu::ComputePipeline {
        let layout = match (kernel.binds_nothing(), &self.wide) {
            (true, _) => &self.empty_pipeline_layout,
            (false, Some((_, wide))) if binds_wide(kernel) => wide,
            _ => &self.state_pipeline_layout,
        };
        // The empty kernel declares no overrides (wgpu refuses others).
        let mut constants = Vec::new();
        if !kernel.binds_nothing() {
            constants.push(("WG", f64::from(width)));
            constants.extend(vyre_wgsl_abi::pipeline_constants());
        }
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(kernel.name()),
            layout: Some(layout),
            module: &self.modules[&kernel.module()],
            entry_point: Some(kernel.entry_point()),
            compilation_options: wgpu::PipelineCompilationOptions {
                constants: &constants,
                zero_initialize_workgroup_memory: true,
            },
            cache: None,
        })
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
