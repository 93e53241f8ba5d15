//! The SPIR-V kernels (`shaders/spirv/`, generated from `shaders/wgsl/`) and
//! compute pipelines built from them.

use std::ffi::CString;

use ash::vk;
use vyre_driver::backend::BackendError;

use crate::error::vk_error;

/// Edge-segment bindings each per-wave kernel declares per direction
/// (`shaders/wgsl/common.wgsl`, bindings 10 to 25).
pub(crate) const EDGE_SEGMENT_BINDINGS: u32 = 8;

/// Storage buffers every per-wave kernel binds (`common.wgsl`: bindings 0
/// to 27).
pub(crate) const STORAGE_BINDINGS: u32 = 28;

/// Widest workgroup the per-wave kernels are generated for
/// (`vyre_spirv::KERNEL_WIDTHS`).
pub(crate) const LARGEST_WIDTH: u32 = 256;

/// One SPIR-V module: an entry point at one width.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash)]
pub(crate) struct Kernel {
    pub entry: &'static str,
    pub width: u32,
    spirv: &'static [u8],
    /// Storage buffers it binds (set 0, bindings 0..n).
    pub storage_bindings: u32,
}

/// The empty kernel, timed to calibrate launch overhead.
pub(crate) const NOOP: Kernel = Kernel {
    entry: "noop",
    width: 1,
    spirv: include_bytes!("../../../shaders/spirv/noop.w1.spv"),
    storage_bindings: 0,
};

/// The device-wide barrier probe (`shaders/wgsl/probe.wgsl`).
pub(crate) const PROBE: Kernel = Kernel {
    entry: "probe_barrier",
    width: 256,
    spirv: include_bytes!("../../../shaders/spirv/probe_barrier.w256.spv"),
    storage_bindings: 1,
};

/// SPIR-V words of little-endian bytes (the files hold nothing else).
pub(crate) fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// A compute pipeline with its own descriptor-set and pipeline layouts;
/// destroyed on drop.
pub(crate) struct Pipeline {
    device: ash::Device,
    pub set_layout: vk::DescriptorSetLayout,
    pub layout: vk::PipelineLayout,
    pub pipeline: vk::Pipeline,
    module: vk::ShaderModule,
}

impl Pipeline {
    /// Build `kernel`'s pipeline on `device`.
    pub(crate) fn new(device: &ash::Device, kernel: Kernel) -> Result<Self, BackendError> {
        let doing = format!("building the {} pipeline", kernel.entry);
        // Every handle starts null so that Drop can run at any failure point.
        let mut made = Self {
            device: device.clone(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            module: vk::ShaderModule::null(),
        };
        let code = words(kernel.spirv);
        // SAFETY: `code` is a whole SPIR-V module (checked by spirv-val in
        // vyre-spirv's tests).
        made.module = unsafe {
            device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&code), None)
        }
        .map_err(|e| vk_error(e, &doing))?;
        let bindings: Vec<_> = (0..kernel.storage_bindings)
            .map(|binding| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        // SAFETY: valid create infos on a live device, pointing at locals.
        made.set_layout = unsafe {
            device.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings),
                None,
            )
        }
        .map_err(|e| vk_error(e, &doing))?;
        let set_layouts = [made.set_layout];
        let used = if kernel.storage_bindings > 0 {
            &set_layouts[..]
        } else {
            &[]
        };
        // SAFETY: as above.
        made.layout = unsafe {
            device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().set_layouts(used),
                None,
            )
        }
        .map_err(|e| vk_error(e, &doing))?;
        let name = CString::new(kernel.entry).unwrap_or_default();
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(made.module)
            .name(&name);
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(made.layout);
        // SAFETY: as above; the module and layout were made on this device.
        made.pipeline =
            unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
                .map_err(|(_, e)| vk_error(e, &doing))?[0];
        Ok(made)
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // SAFETY: no submission using the pipeline is in flight when its
        // owner drops it; null handles are ignored by the destroy calls.
        unsafe {
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device
                .destroy_descriptor_set_layout(self.set_layout, None);
            self.device.destroy_shader_module(self.module, None);
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
    /// A pool for `sets` sets of `buffers_per_set` storage buffers.
    pub(crate) fn new(
        device: &ash::Device,
        sets: u32,
        buffers_per_set: u32,
    ) -> Result<Self, BackendError> {
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(sets * buffers_per_set.max(1))];
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

    /// A set of `layout` whose binding `i` is the whole of `buffers[i]`.
    pub(crate) fn set(
        &self,
        layout: vk::DescriptorSetLayout,
        buffers: &[vk::Buffer],
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
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = buffers
            .iter()
            .map(|&buffer| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(buffer)
                    .offset(0)
                    .range(vk::WHOLE_SIZE)]
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
        // live buffer.
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
