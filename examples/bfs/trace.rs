//! The per-wave trace: as a table with units and the policy's reason in
//! words, and as JSON objects with the raw explanation.

use vyre::measure::SourceRun;
use vyre::{LevelTrace, topology_name};

use crate::progress::seconds;

/// The policy's `stable_explanation()` (`key=value|...`) in words.
pub fn reason_in_words(explanation: &str) -> String {
    if explanation.is_empty() {
        return "-".into();
    }
    if explanation.starts_with("forced|") {
        return "forced with --topology".into();
    }
    let field = |key: &str| {
        explanation
            .split('|')
            .filter_map(|part| part.split_once('='))
            .find(|&(k, _)| k == key)
            .map(|(_, v)| v)
    };
    let reason = match field("reason") {
        Some("ultra_sparse_warp_specialized") => {
            "very few frontier vertices: one warp per vertex".to_string()
        }
        Some("low_density_sparse_queue") => "sparse frontier: an edge-balanced queue".into(),
        Some("memory_pressure_sparse_safety") => {
            "device memory nearly full: the sparse queue needs the least".into()
        }
        Some("transition_band_hybrid") => "frontier between sparse and dense: hybrid queue".into(),
        Some("dense_coalesced_frontier") => "dense frontier: bottom-up over a bitmap".into(),
        Some("high_density_block_specialized") => {
            "very dense frontier: bottom-up by bitmap tiles".into()
        }
        Some("launch_and_readback_pressure_fused") => {
            "launch and readback cost dominate: many levels in one persistent launch".into()
        }
        Some(other) => other.replace('_', " "),
        None => return explanation.to_string(),
    };
    let bps = |key: &str| field(key).and_then(|v| v.parse::<f64>().ok());
    let mut numbers = Vec::new();
    if let Some(m) = bps("memory_pressure_bps") {
        numbers.push(format!("memory {:.0}% of the budget", m / 100.0));
    }
    if let Some(l) = bps("launch_pressure_bps") {
        numbers.push(format!(
            "launch overhead {:.0}% of the wave's cost",
            l / 100.0
        ));
    }
    if let Some(d) = bps("average_degree_bps") {
        numbers.push(format!("average degree {:.1}", d / 10_000.0));
    }
    if numbers.is_empty() {
        reason
    } else {
        format!("{reason} ({})", numbers.join(", "))
    }
}

/// `1 vertex`, `12 vertices`.
fn count(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The device time of a level, as a string with its unit.
fn device_time(level: &LevelTrace) -> String {
    level.device_ns.map_or_else(
        || "-".into(),
        |ns| seconds(std::time::Duration::from_nanos(ns)),
    )
}

/// The trace table of one search.
pub fn print(run: &SourceRun) {
    println!("\ntrace of source {} (vertex ids are 0-based):", run.source);
    println!(
        "{:>6} {:>4}  {:<19} {:>16} {:>16} {:>18} {:>10} {:>13}  why",
        "level", "cmd", "topology", "frontier", "found", "edges examined", "device", "command wall"
    );
    let mut last_command = u32::MAX;
    for level in &run.result.levels {
        // The command's wall time and reason print once, on its first level.
        let first = level.command != last_command;
        last_command = level.command;
        let (wall, why) = if first {
            (
                seconds(std::time::Duration::from_nanos(level.command_wall_ns)),
                reason_in_words(&level.explanation),
            )
        } else {
            (String::new(), String::new())
        };
        println!(
            "{:>6} {:>4}  {:<19} {:>16} {:>16} {:>18} {:>10} {:>13}  {why}",
            level.level,
            level.command,
            topology_column(level),
            count(u64::from(level.frontier_in), "vertex", "vertices"),
            count(u64::from(level.frontier_out), "vertex", "vertices"),
            count(level.edges_examined, "edge", "edges"),
            device_time(level),
            wall,
        );
    }
}

/// The level's topology, and on a partitioned device how its ranks
/// exchanged the frontier (`sparse/lists`, `dense/bitmap`).
fn topology_column(level: &LevelTrace) -> String {
    match level.exchange {
        Some(exchange) => format!("{}/{}", topology_name(level.topology), exchange.name()),
        None => topology_name(level.topology).to_string(),
    }
}

/// One JSON object per wave.
pub fn json(run: &SourceRun) -> Vec<serde_json::Value> {
    run.result
        .levels
        .iter()
        .map(|level| {
            serde_json::json!({
                "level": level.level,
                "command": level.command,
                "command_levels": level.command_levels,
                "topology": topology_name(level.topology),
                "exchange": level.exchange.map(|e| e.name()),
                "frontier_vertices": level.frontier_in,
                "found_vertices": level.frontier_out,
                "edges_examined": level.edges_examined,
                "device_seconds": level.device_ns.map(|ns| ns as f64 / 1e9),
                "command_device_seconds": level.command_device_ns.map(|ns| ns as f64 / 1e9),
                "command_wall_seconds": level.command_wall_ns as f64 / 1e9,
                "explanation": &*level.explanation,
                "reason": reason_in_words(&level.explanation),
            })
        })
        .collect()
}
