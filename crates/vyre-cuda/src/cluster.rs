//! Whether the device runs the fused kernel as one thread-block cluster,
//! measured at start-up: [`vyre_driver::backend::FusedCluster`] for the
//! capabilities.

use std::sync::Arc;

use cudarc::driver::{CudaStream, sys};
use vyre_driver::backend::{BackendError, FusedCluster};

use crate::args::KernelArgs;
use crate::error::during;
use crate::kernels::{
    CLUSTER_BLOCKS, CLUSTER_WIDTH, Kernels, LIGHT_DEGREE, Launch, cluster_attribute,
    cluster_config, launch_cluster,
};
use crate::wait::Watchdog;

/// The cluster launch of `vyre_fused_cluster`, or [`FusedCluster::NONE`]
/// with the reason: clusters need compute capability 9.0, the driver must
/// allow the non-portable size and fit at least one such cluster
/// (`cuOccupancyMaxActiveClusters`), and accept a launch of it that runs no
/// level.
pub(crate) fn fused_cluster(
    stream: &Arc<CudaStream>,
    kernels: &Kernels,
    major: i32,
    watchdog: &mut Watchdog,
) -> Result<(FusedCluster, String), BackendError> {
    let none = |why: String| Ok((FusedCluster::NONE, why));
    if major < 9 {
        return none(format!(
            "no cluster launch: compute capability {major}.x has no thread-block clusters of {CLUSTER_BLOCKS}"
        ));
    }
    let kernel = &kernels.fused_cluster;
    if let Err(e) = kernel.set_attribute(
        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
        1,
    ) {
        return none(format!(
            "no cluster launch: the driver refused clusters of {CLUSTER_BLOCKS} ({e:?})"
        ));
    }
    let grid = Launch {
        blocks: CLUSTER_BLOCKS,
        width: CLUSTER_WIDTH,
        shared_bytes: 0,
    };
    let fits = max_active_clusters(stream, kernels, grid)?;
    if fits == 0 {
        return none(format!(
            "no cluster launch: no cluster of {CLUSTER_BLOCKS} blocks of {CLUSTER_WIDTH} threads fits the device"
        ));
    }
    if let Err(e) = launch_cluster(stream, kernel, grid, &KernelArgs::default()) {
        return none(format!(
            "no cluster launch: the driver refused a cluster of {CLUSTER_BLOCKS} blocks of {CLUSTER_WIDTH} threads ({e:?})"
        ));
    }
    watchdog.wait(stream, "the cluster kernel's warm-up launch")?;
    Ok((
        FusedCluster {
            workgroups: CLUSTER_BLOCKS,
            workgroup_size: CLUSTER_WIDTH,
            light_degree: LIGHT_DEGREE,
        },
        format!(
            "cluster launch: {CLUSTER_BLOCKS} blocks of {CLUSTER_WIDTH} threads ({fits} such clusters fit)"
        ),
    ))
}

/// How many clusters of the cluster launch's shape the device holds at once.
fn max_active_clusters(
    stream: &CudaStream,
    kernels: &Kernels,
    grid: Launch,
) -> Result<u32, BackendError> {
    let mut attr = cluster_attribute(grid.blocks);
    let config = cluster_config(stream, grid, &mut attr);
    let mut clusters: std::ffi::c_int = 0;
    // SAFETY: the function handle is alive (the kernels own their module);
    // `config` and `attr` live across the call, which only writes `clusters`.
    unsafe {
        sys::cuOccupancyMaxActiveClusters(
            &raw mut clusters,
            kernels.fused_cluster.cu_function(),
            &raw const config,
        )
    }
    .result()
    .map_err(during("cluster occupancy query"))?;
    Ok(u32::try_from(clusters).unwrap_or(0))
}
