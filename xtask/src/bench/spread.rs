//! How much single searches of one row differ: between sources, and between
//! repetitions of one source. A median alone hid a Kronecker search that took
//! 4.7 ms in one run and 11.2 ms in another; these two ratios say whether a
//! row's searches are repeatable and, if not, whether the source or the
//! repetition is what moves.

use std::time::Duration;

/// One source's repetitions, as the report shows them.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceTimes {
    pub source: u32,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
}

/// The spread of one row's searches.
#[derive(Clone, Debug, PartialEq)]
pub struct Spread {
    /// Every source, in the order searched.
    pub sources: Vec<SourceTimes>,
    /// Slowest source median ÷ fastest source median (1 for one source).
    pub between_sources: f64,
    /// The source whose repetitions differ most: longest ÷ shortest of its
    /// repetitions, and the source.
    pub widest_repeat: (f64, u32),
}

impl Spread {
    /// The spread of `runs`: each source with its repetitions' times (any
    /// order). `None` when there is no source or a source has no time.
    pub fn of<'a>(runs: impl IntoIterator<Item = (u32, &'a [Duration])>) -> Option<Self> {
        let mut sources = Vec::new();
        let mut widest_repeat = (0.0_f64, 0);
        for (source, times) in runs {
            let mut ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1e3).collect();
            ms.sort_by(f64::total_cmp);
            let (&min_ms, &max_ms) = (ms.first()?, ms.last()?);
            let ratio = ratio(max_ms, min_ms);
            if ratio > widest_repeat.0 {
                widest_repeat = (ratio, source);
            }
            sources.push(SourceTimes {
                source,
                median_ms: ms[ms.len() / 2],
                min_ms,
                max_ms,
            });
        }
        let medians = sources.iter().map(|s| s.median_ms);
        let fastest = medians.clone().reduce(f64::min)?;
        let slowest = medians.reduce(f64::max)?;
        Some(Self {
            between_sources: ratio(slowest, fastest),
            sources,
            widest_repeat,
        })
    }

    /// The report's cells: sources, source medians' range, the two ratios.
    pub fn cells(&self) -> String {
        let medians = self.sources.iter().map(|s| s.median_ms);
        let fastest = medians.clone().fold(f64::INFINITY, f64::min);
        let slowest = medians.fold(0.0, f64::max);
        format!(
            "{} | {fastest:.3}–{slowest:.3} | {:.2} | {:.2} (source {}) |",
            self.sources.len(),
            self.between_sources,
            self.widest_repeat.0,
            self.widest_repeat.1
        )
    }

    /// The spread as JSON for `bench.json`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "between_sources": self.between_sources,
            "widest_repeat": self.widest_repeat.0,
            "widest_repeat_source": self.widest_repeat.1,
            "sources": self.sources.iter().map(|s| serde_json::json!({
                "source": s.source,
                "median_ms": s.median_ms,
                "min_ms": s.min_ms,
                "max_ms": s.max_ms,
            })).collect::<Vec<_>>(),
        })
    }
}

/// The report's table of spreads: one line per graph, backend and variant.
pub fn table<'a>(rows: impl IntoIterator<Item = ([&'a str; 3], &'a Spread)>) -> String {
    let mut out = String::from(
        "| graph | backend | variant | sources | source medians, ms | slowest ÷ fastest source | widest repeats (longest ÷ shortest) |\n|---|---|---|---|---|---|---|\n",
    );
    for ([graph, backend, variant], spread) in rows {
        out.push_str(&format!(
            "| {graph} | {backend} | {variant} | {}\n",
            spread.cells()
        ));
    }
    out
}

/// `slow / fast`, 1 where both are zero (a search too short to time).
fn ratio(slow: f64, fast: f64) -> f64 {
    if fast > 0.0 { slow / fast } else { 1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(values: &[u64]) -> Vec<Duration> {
        values.iter().map(|&v| Duration::from_millis(v)).collect()
    }

    #[test]
    fn sources_and_repetitions_are_told_apart() {
        let a = ms(&[4, 2, 3]);
        let b = ms(&[10, 11, 9, 12, 30]);
        let s = Spread::of([(7, a.as_slice()), (9, b.as_slice())]).unwrap();
        assert_eq!(
            s.sources,
            vec![
                SourceTimes {
                    source: 7,
                    median_ms: 3.0,
                    min_ms: 2.0,
                    max_ms: 4.0
                },
                SourceTimes {
                    source: 9,
                    median_ms: 11.0,
                    min_ms: 9.0,
                    max_ms: 30.0
                },
            ]
        );
        assert!((s.between_sources - 11.0 / 3.0).abs() < 1e-12);
        assert!((s.widest_repeat.0 - 30.0 / 9.0).abs() < 1e-12);
        assert_eq!(s.widest_repeat.1, 9);
        assert_eq!(s.cells(), "2 | 3.000–11.000 | 3.67 | 3.33 (source 9) |");
    }

    #[test]
    fn the_table_has_a_line_per_row() {
        let a = ms(&[2, 4]);
        let s = Spread::of([(1, a.as_slice())]).unwrap();
        let t = table([(["kron:22", "cuda", "auto"], &s)]);
        assert_eq!(t.lines().count(), 3);
        assert_eq!(
            t.lines().last(),
            Some("| kron:22 | cuda | auto | 1 | 4.000–4.000 | 1.00 | 2.00 (source 1) |")
        );
    }

    #[test]
    fn one_steady_source_has_no_spread() {
        let a = ms(&[5, 5]);
        let s = Spread::of([(0, a.as_slice())]).unwrap();
        assert_eq!(s.between_sources, 1.0);
        assert_eq!(s.widest_repeat, (1.0, 0));
    }

    #[test]
    fn no_source_or_an_untimed_one_gives_none() {
        assert_eq!(Spread::of(std::iter::empty()), None);
        let a = ms(&[1]);
        assert_eq!(Spread::of([(0, a.as_slice()), (1, &[][..])]), None);
    }

    #[test]
    fn searches_too_short_to_time_count_as_even() {
        let z = ms(&[0, 0]);
        let s = Spread::of([(3, z.as_slice())]).unwrap();
        assert_eq!(s.between_sources, 1.0);
        assert_eq!(s.widest_repeat, (1.0, 3));
    }
}
