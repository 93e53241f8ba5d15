//! `--plot`: one search drawn level by level as SVG, frontier size above and
//! device time below, every bar coloured by the topology that ran it.

use plotters::prelude::*;
use vyre::{LevelTrace, Topology, topology_name};

/// At most this many bars per panel; longer searches draw a bar per group
/// of consecutive levels.
const MAX_BARS: usize = 2048;

fn colour(topology: Topology) -> RGBColor {
    match topology {
        Topology::WarpSparseFrontier => RGBColor(31, 119, 180),
        Topology::SparseFrontier => RGBColor(44, 160, 44),
        Topology::HybridFrontier => RGBColor(255, 127, 14),
        Topology::DenseFrontier => RGBColor(214, 39, 40),
        Topology::BlockDenseFrontier => RGBColor(148, 103, 189),
        Topology::FusedWave => RGBColor(140, 86, 75),
    }
}

/// One bar: levels `[first, first + width)`.
struct Bar {
    first: f64,
    width: f64,
    topology: Topology,
    frontier: f64,
    micros: f64,
}

/// Device time of a level in µs; the command's wall time shared by its
/// levels when the device did not time the level alone.
fn level_micros(level: &LevelTrace) -> f64 {
    level.device_ns.map_or_else(
        || level.command_wall_ns as f64 / f64::from(level.command_levels.max(1)) / 1e3,
        |ns| ns as f64 / 1e3,
    )
}

/// Bars of `group` consecutive levels each: the largest frontier, the mean
/// time, the first level's topology.
fn bars(levels: &[LevelTrace], group: usize) -> Vec<Bar> {
    levels
        .chunks(group)
        .enumerate()
        .map(|(i, chunk)| Bar {
            first: (i * group) as f64,
            width: chunk.len() as f64,
            topology: chunk[0].topology,
            frontier: chunk
                .iter()
                .map(|l| f64::from(l.frontier_in))
                .fold(1.0, f64::max),
            micros: chunk.iter().map(level_micros).sum::<f64>() / chunk.len() as f64,
        })
        .collect()
}

type Panel<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// Draw one panel: a bar per entry of `bars`, heights from `value`, on a
/// logarithmic axis.
fn panel(
    area: &Panel<'_>,
    caption: &str,
    y_label: &str,
    bars: &[Bar],
    value: fn(&Bar) -> f64,
) -> Result<(), String> {
    let levels = bars.last().map_or(1.0, |b| b.first + b.width);
    let low = bars
        .iter()
        .map(value)
        .fold(f64::INFINITY, f64::min)
        .max(1e-3);
    let high = bars.iter().map(value).fold(low, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..levels, (low / 2.0..high * 2.0).log_scale())
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("level")
        .y_desc(y_label)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y}"))
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(bars.iter().map(|b| {
            let top = value(b);
            Rectangle::new(
                [(b.first, low / 2.0), (b.first + b.width * 0.9, top)],
                colour(b.topology).filled(),
            )
        }))
        .map_err(|e| e.to_string())?;
    let mut shown: Vec<Topology> = bars.iter().map(|b| b.topology).collect();
    shown.sort_by_key(|&t| Topology::ALL.iter().position(|&a| a == t));
    shown.dedup();
    for topology in shown {
        let fill = colour(topology).filled();
        chart
            .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
            .map_err(|e| e.to_string())?
            .label(topology_name(topology))
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], fill));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| e.to_string())
}

/// The SVG text of the search from `source` over `levels`.
pub fn svg(graph_name: &str, source: u32, levels: &[LevelTrace]) -> Result<String, String> {
    let group = levels.len().div_ceil(MAX_BARS).max(1);
    let bars = bars(levels, group);
    let per = if group > 1 {
        format!(" (a bar per {group} levels)")
    } else {
        String::new()
    };
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (1000, 700)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(350);
        panel(
            &top,
            &format!("BFS of {graph_name} from vertex {source}: frontier per level{per}"),
            "frontier (vertices)",
            &bars,
            |b| b.frontier,
        )?;
        panel(
            &bottom,
            "device time per level",
            "device time (µs)",
            &bars,
            |b| b.micros,
        )?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(text)
}
