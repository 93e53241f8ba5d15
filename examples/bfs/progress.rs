//! Progress of the run's phases on stderr: bars on a terminal, otherwise
//! one plain line per finished phase (never a `\r`), nothing with --quiet.

use std::io::IsTerminal as _;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// How phases are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Bars,
    Lines,
    Quiet,
}

/// Starts phases and reports them as they finish.
pub struct Phases {
    mode: Mode,
}

/// What a phase counts while it runs.
#[derive(Clone, Copy, Debug)]
pub enum Count {
    /// Nothing: a spinner.
    Nothing,
    /// Bytes of a file of this size, when known.
    Bytes(Option<u64>),
    /// Items (searches, checks) out of this many.
    Items(u64),
}

/// A running phase.
pub struct Phase<'a> {
    phases: &'a Phases,
    name: &'static str,
    bar: Option<ProgressBar>,
    started: Instant,
}

impl Phases {
    pub fn new(quiet: bool) -> Self {
        let mode = if quiet {
            Mode::Quiet
        } else if std::io::stderr().is_terminal() {
            Mode::Bars
        } else {
            Mode::Lines
        };
        Self { mode }
    }

    /// Start the phase `name`.
    pub fn start(&self, name: &'static str, count: Count) -> Phase<'_> {
        let bar = (self.mode == Mode::Bars).then(|| {
            let (bar, template) = match count {
                Count::Nothing => (ProgressBar::new_spinner(), "{spinner} {prefix} {elapsed}"),
                Count::Bytes(Some(total)) => (
                    ProgressBar::new(total),
                    "{spinner} {prefix} [{bar:30}] {bytes}/{total_bytes} {elapsed}",
                ),
                Count::Bytes(None) => (
                    ProgressBar::new_spinner(),
                    "{spinner} {prefix} {bytes} {elapsed}",
                ),
                Count::Items(total) => (
                    ProgressBar::new(total),
                    "{spinner} {prefix} [{bar:30}] {pos}/{len} {elapsed}",
                ),
            };
            if let Ok(style) = ProgressStyle::with_template(template) {
                bar.set_style(style.progress_chars("=> "));
            }
            bar.set_prefix(name);
            bar.enable_steady_tick(Duration::from_millis(100));
            bar
        });
        Phase {
            phases: self,
            name,
            bar,
            started: Instant::now(),
        }
    }
}

impl Phase<'_> {
    /// How far the phase has got (bytes or items).
    pub fn set(&self, position: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(position);
        }
    }

    /// Finish the phase: one line with its time and `detail`. Returns the
    /// phase's time.
    pub fn finish(self, detail: &str) -> Duration {
        let took = self.started.elapsed();
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if self.phases.mode != Mode::Quiet {
            eprintln!("{:<9} {:>10}  {detail}", self.name, seconds(took));
        }
        took
    }
}

/// A duration with its unit, at a readable precision.
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else if s >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}
