//! The specified policy written out as directly as possible, nested the way
//! the specification is, with its unstated helpers as the brief defines them.
//! It shares no code with the crate, so agreement between the two on
//! arbitrary inputs is evidence that the crate's refactored version answers
//! what the specification answers.

use vyre_driver::megakernel_execution::{
    MegakernelDeviceCapabilities, MegakernelExecutionPlan, MegakernelExecutionSample,
    MegakernelExecutionTopology as T, MegakernelGraphShape, MegakernelMemoryBudget,
    MegakernelMemoryError, MegakernelMemoryPlan,
};

/// (topology, memory bps, degree bps, launch bps)
pub type Decision = (T, u32, u64, u32);

fn finite_unit(value: f64) -> f64 {
    if value.is_finite() {
        value.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

fn wide_ratio(numerator: u64, denominator: u64) -> u64 {
    if denominator == 0 {
        if numerator > 0 { u64::MAX } else { 0 }
    } else {
        let q = (numerator as u128) * 10_000 / (denominator as u128);
        if q > u64::MAX as u128 {
            u64::MAX
        } else {
            q as u64
        }
    }
}

fn pressure(required: u64, budget: u64) -> u32 {
    let r = wide_ratio(required, budget);
    if r > 10_000 { 10_000 } else { r as u32 }
}

fn launch(overhead: f64, cost: f64) -> u32 {
    if cost <= 0.0 || !cost.is_finite() {
        return 0;
    }
    let overhead = overhead.max(0.0);
    if overhead.is_nan() || overhead <= 0.0 {
        return 0;
    }
    if overhead.is_infinite() {
        return u32::MAX;
    }
    let v = (overhead / cost * 10_000.0).round();
    if v >= 4_294_967_295.0 {
        u32::MAX
    } else {
        v as u32
    }
}

pub fn select(
    sample: MegakernelExecutionSample,
    graph: MegakernelGraphShape,
    memory: MegakernelMemoryBudget,
    overhead: f64,
    fusion_pressure: f64,
    caps: MegakernelDeviceCapabilities,
) -> Decision {
    let mem = pressure(memory.required_bytes, memory.budget_bytes);
    let deg = wide_ratio(graph.edge_count, graph.node_count);
    let lp = launch(overhead, sample.dispatch_cost_ns);
    let density = finite_unit(sample.frontier_density);
    let fusion = finite_unit(if caps.supports_device_wide_barrier {
        fusion_pressure
    } else {
        0.0
    });
    let topology = if mem >= 9_000 {
        T::SparseFrontier
    } else if fusion >= 0.70 && lp >= 1_500 && sample.readback_bytes >= 4_096 && mem <= 8_500 {
        T::FusedWave
    } else if density <= 0.03125 && deg <= 80_000 {
        T::WarpSparseFrontier
    } else if density <= 0.125 {
        T::SparseFrontier
    } else if density >= 0.85 && deg >= 20_000 {
        T::BlockDenseFrontier
    } else if density >= 0.70 && deg >= 20_000 {
        T::DenseFrontier
    } else {
        T::HybridFrontier
    };
    (topology, mem, deg, lp)
}

#[allow(clippy::too_many_arguments, reason = "mirrors the specification")]
pub fn select_stable(
    sample: MegakernelExecutionSample,
    graph: MegakernelGraphShape,
    memory: MegakernelMemoryBudget,
    overhead: f64,
    fusion_pressure: f64,
    previous: T,
    caps: MegakernelDeviceCapabilities,
) -> Decision {
    let d = select(sample, graph, memory, overhead, fusion_pressure, caps);
    let (topology, mem, deg, lp) = d;
    if mem >= 9_000 {
        return d;
    }
    let density = finite_unit(sample.frontier_density);
    let fusion = finite_unit(if caps.supports_device_wide_barrier {
        fusion_pressure
    } else {
        0.0
    });
    if matches!(previous, T::SparseFrontier | T::WarpSparseFrontier) && mem >= 9_000 - 250 {
        return (T::SparseFrontier, mem, deg, lp);
    }
    let held = match previous {
        T::WarpSparseFrontier if density <= 0.03125 + 0.025 && deg <= 80_000 => {
            T::WarpSparseFrontier
        }
        T::SparseFrontier if density <= 0.125 + 0.025 => T::SparseFrontier,
        T::HybridFrontier if topology == T::SparseFrontier && density >= 0.125 - 0.025 => {
            T::HybridFrontier
        }
        T::HybridFrontier
            if matches!(topology, T::DenseFrontier | T::BlockDenseFrontier)
                && density <= 0.70 + 0.025 =>
        {
            T::HybridFrontier
        }
        T::DenseFrontier if density >= 0.70 - 0.025 && deg >= 20_000 => T::DenseFrontier,
        T::BlockDenseFrontier if density >= 0.85 - 0.025 && deg >= 20_000 => T::BlockDenseFrontier,
        T::FusedWave
            if fusion >= 0.70 - 0.10
                && lp >= 1_500 - 250
                && sample.readback_bytes >= 4_096
                && mem <= 9_000 - 250 =>
        {
            T::FusedWave
        }
        _ => topology,
    };
    (held, mem, deg, lp)
}

fn overflow(field: &'static str) -> MegakernelMemoryError {
    MegakernelMemoryError::ByteCountOverflow { field }
}

#[allow(clippy::too_many_arguments, reason = "mirrors the specification")]
pub fn plan_memory(
    topology: T,
    graph: MegakernelGraphShape,
    bytes_per_node: u64,
    bytes_per_edge: u64,
    frontier: u64,
    scratch: u64,
    output: u64,
    budget: u64,
) -> Result<MegakernelMemoryPlan, MegakernelMemoryError> {
    let nodes = graph
        .node_count
        .checked_mul(bytes_per_node)
        .ok_or_else(|| overflow("node layout bytes"))?;
    let edges = graph
        .edge_count
        .checked_mul(bytes_per_edge)
        .ok_or_else(|| overflow("edge layout bytes"))?;
    let graph_bytes = nodes
        .checked_add(edges)
        .ok_or_else(|| overflow("graph layout bytes"))?;
    let topology_scratch = match topology {
        T::WarpSparseFrontier => scratch.max(32),
        T::SparseFrontier => scratch,
        T::BlockDenseFrontier => scratch
            .max(1024)
            .checked_mul(2)
            .ok_or_else(|| overflow("block dense topology scratch bytes"))?,
        T::DenseFrontier => scratch
            .checked_mul(2)
            .ok_or_else(|| overflow("dense topology scratch bytes"))?,
        T::HybridFrontier => scratch
            .checked_mul(3)
            .ok_or_else(|| overflow("hybrid topology scratch bytes"))?,
        T::FusedWave => scratch
            .checked_mul(4)
            .ok_or_else(|| overflow("fused topology scratch bytes"))?,
    };
    let a = graph_bytes
        .checked_add(frontier)
        .ok_or_else(|| overflow("graph plus frontier bytes"))?;
    let b = a
        .checked_add(topology_scratch)
        .ok_or_else(|| overflow("scratch bytes"))?;
    let required = b
        .checked_add(output)
        .ok_or_else(|| overflow("output bytes"))?;
    if required > budget {
        return Err(MegakernelMemoryError::OverBudget {
            topology,
            required_bytes: required,
            budget_bytes: budget,
            node_count: graph.node_count,
            edge_count: graph.edge_count,
        });
    }
    Ok(MegakernelMemoryPlan {
        graph_bytes,
        frontier_bytes: frontier,
        scratch_bytes: topology_scratch,
        output_bytes: output,
        required_bytes: required,
        budget_bytes: budget,
        memory_pressure_bps: pressure(required, budget),
    })
}

/// The whole-wave plan; `previous` switches to the stable selector the way
/// the runtime's stable planner does.
#[allow(clippy::too_many_arguments, reason = "mirrors the specification")]
pub fn plan_execution(
    sample: MegakernelExecutionSample,
    graph: MegakernelGraphShape,
    bytes_per_node: u64,
    bytes_per_edge: u64,
    frontier: u64,
    scratch: u64,
    output: u64,
    budget: u64,
    overhead: f64,
    fusion_pressure: f64,
    caps: MegakernelDeviceCapabilities,
    previous: Option<T>,
) -> Result<MegakernelExecutionPlan, MegakernelMemoryError> {
    let sparse = plan_memory(
        T::SparseFrontier,
        graph,
        bytes_per_node,
        bytes_per_edge,
        frontier,
        scratch,
        output,
        budget,
    )?;
    let memory = MegakernelMemoryBudget {
        required_bytes: sparse.required_bytes,
        budget_bytes: budget,
    };
    let (topology, ..) = match previous {
        None => select(sample, graph, memory, overhead, fusion_pressure, caps),
        Some(p) => select_stable(sample, graph, memory, overhead, fusion_pressure, p, caps),
    };
    match plan_memory(
        topology,
        graph,
        bytes_per_node,
        bytes_per_edge,
        frontier,
        scratch,
        output,
        budget,
    ) {
        Ok(memory) => Ok(MegakernelExecutionPlan {
            topology,
            memory,
            downgraded_to_sparse: false,
        }),
        Err(MegakernelMemoryError::OverBudget { .. }) if topology != T::SparseFrontier => {
            Ok(MegakernelExecutionPlan {
                topology: T::SparseFrontier,
                memory: sparse,
                downgraded_to_sparse: true,
            })
        }
        Err(e) => Err(e),
    }
}
