//! Compute pipelines of the SPIR-V kernels, built once per (kernel, width)
//! and kept for the device's life (the per-wave ones together when a graph
//! is prepared, `Backend::prepare`; others on first use), and descriptor
//! sets.
//!
//! Every kernel but `noop` shares one descriptor-set layout: the bindings
//! of vyre-wgsl-abi (the per-wave ones and the fused kernel's host words),
//! so one set per frontier set serves every kernel of a chain.

use std::collections::HashMap;
use std::ffi::CString;

use ash::vk;
use vyre_driver::backend::BackendError;
use vyre_wgsl_abi::Kernel;
use vyre_wgsl_abi::bindings::FUSED_STORAGE_BINDINGS;

use crate::error::vk_error;
use crate::spirv::{module, words};

/// The set layout every kernel but `noop` binds, and the pipeline layouts;
/// destroyed on drop (after the pipelines: [`Kernels`] holds them first).
struct Layouts {
    device: ash::Device,
    set: vk::DescriptorSetLayout,
    state: vk::PipelineLayout,
    empty: vk::PipelineLayout,
}

impl Layouts {
    fn new(device: &ash::Device) -> Result<Self, BackendError> {
        let doing = "creating the kernels' layouts";
        let mut made = Self {
            device: device.clone(),
            set: vk::DescriptorSetLayout::null(),
            state: vk::PipelineLayout::null(),
            empty: vk::PipelineLayout::null(),
        };
        let bindings: Vec<_> = (0..FUSED_STORAGE_BINDINGS)
            .map(|binding| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        // SAFETY: valid create infos on a live device, pointing at locals;
        // Drop destroys whatever was made if a later call fails.
        unsafe {
            made.set = device
                .create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                    None,
                )
                .map_err(|e| vk_error(e, doing))?;
            let sets = [made.set];
            made.state = device
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default().set_layouts(&sets),
                    None,
                )
                .map_err(|e| vk_error(e, doing))?;
            made.empty = device
                .create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None)
                .map_err(|e| vk_error(e, doing))?;
        }
        Ok(made)
    }
}

impl Drop for Layouts {
    fn drop(&mut self) {
        // SAFETY: no pipeline made with them is in use (Kernels drops its
        // pipelines first); null handles are ignored.
        unsafe {
            self.device.destroy_pipeline_layout(self.empty, None);
            self.device.destroy_pipeline_layout(self.state, None);
            self.device.destroy_descriptor_set_layout(self.set, None);
        }
    }
}

/// One pipeline and its shader module.
struct Built {
    device: ash::Device,
    module: vk::ShaderModule,
    pipeline: vk::Pipeline,
}

impl Drop for Built {
    fn drop(&mut self) {
        // SAFETY: no submission using the pipeline is in flight when the
        // backend drops its kernels; null handles are ignored.
        unsafe {
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_shader_module(self.module, None);
        }
    }
}

/// A pipeline to bind: its handle and the layout its sets go with.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub(crate) struct Bound {
    pub pipeline: vk::Pipeline,
    pub layout: vk::PipelineLayout,
}

/// Every pipeline built so far on one device.
pub(crate) struct Kernels {
    // Field order is drop order: pipelines before their layouts.
    built: HashMap<(Kernel, u32), Built>,
    layouts: Layouts,
}

fn missing(kernel: Kernel, width: u32) -> BackendError {
    BackendError::device(format!(
        "no SPIR-V module of {} at width {width}. Fix: this is a bug in vyre-vulkan (the engine's widths are powers of two up to the generated ones); report it.",
        kernel.entry_point()
    ))
}

impl Kernels {
    pub(crate) fn new(device: &ash::Device) -> Result<Self, BackendError> {
        Ok(Self {
            built: HashMap::new(),
            layouts: Layouts::new(device)?,
        })
    }

    /// The set layout of every kernel's bindings (set 0).
    pub(crate) fn set_layout(&self) -> vk::DescriptorSetLayout {
        self.layouts.set
    }

    /// Pipelines built so far.
    pub(crate) fn built(&self) -> usize {
        self.built.len()
    }

    /// The pipeline of `kernel` at `width`, built on first use.
    pub(crate) fn pipeline(&mut self, kernel: Kernel, width: u32) -> Result<Bound, BackendError> {
        let layout = self.layouts.of(kernel);
        if let Some(built) = self.built.get(&(kernel, width)) {
            return Ok(Bound {
                pipeline: built.pipeline,
                layout,
            });
        }
        let built = self.layouts.build(kernel, width)?;
        let pipeline = built.pipeline;
        self.built.insert((kernel, width), built);
        Ok(Bound { pipeline, layout })
    }

    /// Build every pipeline of `kernels` at `width` not built yet, each on
    /// its own host thread: the driver compiles at pipeline creation, and
    /// a pipeline is independent of the others (no pipeline cache is
    /// shared, so creating them at once is allowed).
    pub(crate) fn build_all(&mut self, kernels: &[Kernel], width: u32) -> Result<(), BackendError> {
        let mut wanted = Vec::new();
        for &kernel in kernels {
            if !self.built.contains_key(&(kernel, width)) && !wanted.contains(&kernel) {
                wanted.push(kernel);
            }
        }
        let layouts = &self.layouts;
        let results: Vec<_> = std::thread::scope(|scope| {
            let handles: Vec<_> = wanted
                .iter()
                .map(|&kernel| scope.spawn(move || layouts.build(kernel, width)))
                .collect();
            wanted
                .iter()
                .zip(handles)
                .map(|(&kernel, handle)| {
                    let built = handle.join().unwrap_or_else(|_| {
                        Err(BackendError::device(format!(
                            "building the {} pipeline at width {width} panicked. Fix: this is a bug in vyre-vulkan or the driver; report it.",
                            kernel.entry_point()
                        )))
                    });
                    (kernel, built)
                })
                .collect()
        });
        let mut first_error = None;
        for (kernel, built) in results {
            match built {
                Ok(built) => {
                    self.built.insert((kernel, width), built);
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Layouts {
    /// The pipeline layout `kernel` binds.
    fn of(&self, kernel: Kernel) -> vk::PipelineLayout {
        if kernel.binds_nothing() {
            self.empty
        } else {
            self.state
        }
    }

    /// A new pipeline of `kernel` at `width`, in the layout it binds.
    fn build(&self, kernel: Kernel, width: u32) -> Result<Built, BackendError> {
        let bytes = module(kernel, width).ok_or_else(|| missing(kernel, width))?;
        build(&self.device, kernel, width, bytes, self.of(kernel))
    }
}

fn build(
    device: &ash::Device,
    kernel: Kernel,
    width: u32,
    bytes: &[u8],
    layout: vk::PipelineLayout,
) -> Result<Built, BackendError> {
    let doing = format!(
        "building the {} pipeline at width {width}",
        kernel.entry_point()
    );
    let mut built = Built {
        device: device.clone(),
        module: vk::ShaderModule::null(),
        pipeline: vk::Pipeline::null(),
    };
    let code = words(bytes);
    // SAFETY: `code` is a whole SPIR-V module (checked by spirv-val in
    // vyre-spirv's tests).
    built.module = unsafe {
        device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None)
    }
    .map_err(|e| vk_error(e, &doing))?;
    let name = CString::new(kernel.entry_point()).unwrap_or_default();
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(built.module)
        .name(&name);
    let info = vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(layout);
    // SAFETY: the module and layout were made on this device.
    built.pipeline =
        unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
            .map_err(|(_, e)| vk_error(e, &doing))?[0];
    Ok(built)
}

/// One binding of a set: a buffer, or the range of it the kernels see.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Range {
    pub buffer: vk::Buffer,
    pub offset: u64,
    /// Bytes, or `vk::WHOLE_SIZE`.
    pub bytes: u64,
}

impl Range {
    /// The whole of `buffer`.
    pub(crate) fn whole(buffer: vk::Buffer) -> Self {
        Self {
            buffer,
            offset: 0,
            bytes: vk::WHOLE_SIZE,
        }
    }
}

/// A descriptor pool holding sets of storage buffers; destroyed (with its
/// sets) on drop.
pub(crate) struct Descriptors {
    device: ash::Device,
    pool: vk::DescriptorPool,
}

impl Descriptors {
    /// A pool for `sets` sets of the kernels' layout.
    pub(crate) fn new(device: &ash::Device, sets: u32) -> Result<Self, BackendError> {
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(sets * FUSED_STORAGE_BINDINGS)];
        // SAFETY: a valid create info on a live device.
        let pool = unsafe {
            device.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default()
                    .max_sets(sets.max(1))
                    .pool_sizes(&sizes),
                None,
            )
        }
        .map_err(|e| vk_error(e, "creating a descriptor pool"))?;
        Ok(Self {
            device: device.clone(),
            pool,
        })
    }

    /// A set of `layout` whose binding `i` is `ranges[i]`.
    pub(crate) fn set(
        &self,
        layout: vk::DescriptorSetLayout,
        ranges: &[Range],
    ) -> Result<vk::DescriptorSet, BackendError> {
        let layouts = [layout];
        // SAFETY: the pool and layout belong to this device.
        let set = unsafe {
            self.device.allocate_descriptor_sets(
                &vk::DescriptorSetAllocateInfo::default()
                    .descriptor_pool(self.pool)
                    .set_layouts(&layouts),
            )
        }
        .map_err(|e| vk_error(e, "allocating a descriptor set"))?[0];
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = ranges
            .iter()
            .map(|r| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(r.buffer)
                    .offset(r.offset)
                    .range(r.bytes)]
            })
            .collect();
        let writes: Vec<_> = infos
            .iter()
            .zip(0u32..)
            .map(|(info, binding)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        // SAFETY: every write names a binding of the set's layout and a
        // live buffer range.
        unsafe { self.device.update_descriptor_sets(&writes, &[]) };
        Ok(set)
    }
}

impl Drop for Descriptors {
    fn drop(&mut self) {
        // SAFETY: no submission using the sets is in flight.
        unsafe { self.device.destroy_descriptor_pool(self.pool, None) };
    }
}
