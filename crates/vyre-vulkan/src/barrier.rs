//! Pipeline barriers between the commands of one command buffer.

use ash::vk;

/// One side of a global memory barrier: a stage and what it accesses.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Access(pub vk::PipelineStageFlags, pub vk::AccessFlags);

/// Transfers (copies and fills) writing.
pub(crate) const TRANSFER_WRITE: Access = Access(
    vk::PipelineStageFlags::TRANSFER,
    vk::AccessFlags::TRANSFER_WRITE,
);
/// Transfers reading or writing.
pub(crate) const TRANSFER: Access = Access(
    vk::PipelineStageFlags::TRANSFER,
    vk::AccessFlags::from_raw(
        vk::AccessFlags::TRANSFER_READ.as_raw() | vk::AccessFlags::TRANSFER_WRITE.as_raw(),
    ),
);
/// Compute shaders reading and writing storage buffers.
pub(crate) const COMPUTE: Access = Access(
    vk::PipelineStageFlags::COMPUTE_SHADER,
    vk::AccessFlags::from_raw(
        vk::AccessFlags::SHADER_READ.as_raw() | vk::AccessFlags::SHADER_WRITE.as_raw(),
    ),
);
/// Indirect dispatches reading their arguments.
pub(crate) const INDIRECT: Access = Access(
    vk::PipelineStageFlags::DRAW_INDIRECT,
    vk::AccessFlags::INDIRECT_COMMAND_READ,
);
/// Whatever compute shaders and transfers wrote, in this command buffer or
/// in earlier submissions (a command's first barrier: submissions on one
/// queue are ordered but their writes need a dependency to be seen).
pub(crate) const EARLIER_WRITES: Access = Access(
    vk::PipelineStageFlags::from_raw(
        vk::PipelineStageFlags::COMPUTE_SHADER.as_raw() | vk::PipelineStageFlags::TRANSFER.as_raw(),
    ),
    vk::AccessFlags::from_raw(
        vk::AccessFlags::SHADER_WRITE.as_raw() | vk::AccessFlags::TRANSFER_WRITE.as_raw(),
    ),
);
/// The host reading mapped memory after the fence.
pub(crate) const HOST_READ: Access =
    Access(vk::PipelineStageFlags::HOST, vk::AccessFlags::HOST_READ);

/// Make everything `before` wrote available and visible to `after`.
pub(crate) fn barrier(
    device: &ash::Device,
    command: vk::CommandBuffer,
    before: Access,
    after: &[Access],
) {
    let (stages, access) = after.iter().fold(
        (vk::PipelineStageFlags::empty(), vk::AccessFlags::empty()),
        |(s, a), Access(stage, access)| (s | *stage, a | *access),
    );
    let memory = [vk::MemoryBarrier::default()
        .src_access_mask(before.1)
        .dst_access_mask(access)];
    // SAFETY: `command` is recording on `device`; a global memory barrier
    // has no other requirements.
    unsafe {
        device.cmd_pipeline_barrier(
            command,
            before.0,
            stages,
            vk::DependencyFlags::empty(),
            &memory,
            &[],
            &[],
        );
    }
}
