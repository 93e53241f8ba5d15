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

/// Replaces the cluster launch's shape, `BLOCKSxWIDTH` (`16x256`): for
/// timing other shapes than the default without rebuilding the crate. The
/// probe checks it as it checks the default. Unset for real work.
pub const CLUSTER_SHAPE_ENV: &str = "VYRE_CUDA_CLUSTER_SHAPE";

/// The cluster launch's blocks and block width: the default, or what
/// [`CLUSTER_SHAPE_ENV`] says.
fn shape() -> Result<Launch, BackendError> {
    let (blocks, width) = match std::env::var(CLUSTER_SHAPE_ENV) {
        Ok(text) => parse_shape(&text).map_err(|why| {
            BackendError::device(format!(
                "{CLUSTER_SHAPE_ENV}={text}: {why}. Fix: write BLOCKSxWIDTH, 1 to {CLUSTER_BLOCKS} blocks of a multiple of 32 up to {CLUSTER_WIDTH} threads (16x256), or unset it."
            ))
        })?,
        Err(_) => (CLUSTER_BLOCKS, CLUSTER_WIDTH),
    };
    Ok(Launch {
        blocks,
        width,
        shared_bytes: 0,
    })
}

/// `BLOCKSxWIDTH`: at most 16 blocks (the largest cluster), a width the
/// kernel's launch bounds allow, in whole warps.
fn parse_shape(text: &str) -> Result<(u32, u32), String> {
    let (blocks, width) = text
        .split_once('x')
        .ok_or_else(|| "no `x` between blocks and width".to_string())?;
    let number = |s: &str| {
        s.trim()
            .parse::<u32>()
            .map_err(|e| format!("`{s}` is not a count ({e})"))
    };
    let (blocks, width) = (number(blocks)?, number(width)?);
    if !(1..=CLUSTER_BLOCKS).contains(&blocks) {
        return Err(format!("{blocks} blocks is not 1 to {CLUSTER_BLOCKS}"));
    }
    if width == 0 || width > CLUSTER_WIDTH || width % 32 != 0 {
        return Err(format!(
            "{width} threads is not a multiple of 32 up to {CLUSTER_WIDTH}"
        ));
    }
    Ok((blocks, width))
}

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
    let grid = shape()?;
    let (blocks, width) = (grid.blocks, grid.width);
    if major < 9 {
        return none(format!(
            "no cluster launch: compute capability {major}.x has no thread-block clusters of {blocks}"
        ));
    }
    let kernel = &kernels.fused_cluster;
    if let Err(e) = kernel.set_attribute(
        sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
        1,
    ) {
        return none(format!(
            "no cluster launch: the driver refused clusters of {blocks} ({e:?})"
        ));
    }
    let fits = max_active_clusters(stream, kernels, grid)?;
    if fits == 0 {
        return none(format!(
            "no cluster launch: no cluster of {blocks} blocks of {width} threads fits the device"
        ));
    }
    if let Err(e) = launch_cluster(stream, kernel, grid, &KernelArgs::default()) {
        return none(format!(
            "no cluster launch: the driver refused a cluster of {blocks} blocks of {width} threads ({e:?})"
        ));
    }
    watchdog.wait(stream, "the cluster kernel's warm-up launch")?;
    Ok((
        FusedCluster {
            workgroups: blocks,
            workgroup_size: width,
            light_degree: LIGHT_DEGREE,
        },
        format!("cluster launch: {blocks} blocks of {width} threads ({fits} such clusters fit)"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_read_and_bounded() {
        assert_eq!(parse_shape("16x256"), Ok((16, 256)));
        assert_eq!(parse_shape("1x32"), Ok((1, 32)));
        assert_eq!(
            parse_shape(&format!("{CLUSTER_BLOCKS}x{CLUSTER_WIDTH}")),
            Ok((CLUSTER_BLOCKS, CLUSTER_WIDTH))
        );
        for bad in [
            "16", "0x256", "17x256", "16x0", "16x48", "16x2048", "ax256", "16x",
        ] {
            assert!(parse_shape(bad).is_err(), "{bad}");
        }
    }
}
