//! The GPUs' SM clock while each benchmark row runs (`xtask bench`,
//! `xtask bench-batch`), sampled by `nvidia-smi` in the background. The NVIDIA driver lowers the clock when work comes in
//! short bursts: on the H200 it stayed at 345 MHz during Vulkan and wgpu
//! searches, and at 1,980 MHz while a CUDA context was open. A figure
//! without its clock can mislead, so every row records the one it ran at.

use std::fmt;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// Milliseconds between samples.
const PERIOD_MS: u32 = 50;

/// One reading: when it arrived, the GPU's index, its SM clock in MHz.
type Sample = (Instant, u32, u32);

/// A running `nvidia-smi` and the readings it has sent so far.
pub struct ClockLog {
    samples: Arc<Mutex<Vec<Sample>>>,
    child: Option<Child>,
    /// Why no clock is recorded, when `nvidia-smi` could not start.
    pub unavailable: Option<String>,
}

/// The SM clock of one GPU over a span of time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockRange {
    pub gpu: u32,
    pub min_mhz: u32,
    pub median_mhz: u32,
    pub max_mhz: u32,
    pub samples: usize,
}

impl ClockLog {
    /// Start sampling every GPU `nvidia-smi` lists.
    pub fn start() -> Self {
        let samples = Arc::new(Mutex::new(Vec::new()));
        let spawned = Command::new("nvidia-smi")
            .args([
                "--query-gpu=index,clocks.sm",
                "--format=csv,noheader,nounits",
                "-lms",
                &PERIOD_MS.to_string(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                return Self {
                    samples,
                    child: None,
                    unavailable: Some(format!("nvidia-smi did not start: {e}")),
                };
            }
        };
        if let Some(out) = child.stdout.take() {
            let sink = Arc::clone(&samples);
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines().map_while(Result::ok) {
                    if let Some((gpu, mhz)) = parse_line(&line) {
                        let mut s = sink.lock().unwrap_or_else(PoisonError::into_inner);
                        s.push((Instant::now(), gpu, mhz));
                    }
                }
            });
        }
        Self {
            samples,
            child: Some(child),
            unavailable: None,
        }
    }

    /// Run `work`, and give its result with each GPU's clock while it ran
    /// (none without samples).
    pub fn around<T>(&self, work: impl FnOnce() -> T) -> (T, Vec<ClockRange>) {
        let from = Instant::now();
        let result = work();
        let to = Instant::now();
        let samples = self.samples.lock().unwrap_or_else(PoisonError::into_inner);
        (result, summarize(&samples, from, to))
    }
}

impl Drop for ClockLog {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `index, MHz` as `nvidia-smi --format=csv,noheader,nounits` prints it;
/// `None` for anything else (a GPU that reports `[N/A]`, a warning).
fn parse_line(line: &str) -> Option<(u32, u32)> {
    let (gpu, mhz) = line.split_once(',')?;
    Some((gpu.trim().parse().ok()?, mhz.trim().parse().ok()?))
}

/// Per GPU, in index order: the least, median and greatest clock of the
/// samples that arrived between `from` and `to`.
fn summarize(samples: &[Sample], from: Instant, to: Instant) -> Vec<ClockRange> {
    let mut gpus: Vec<u32> = samples.iter().map(|s| s.1).collect();
    gpus.sort_unstable();
    gpus.dedup();
    gpus.into_iter()
        .filter_map(|gpu| {
            let mut mhz: Vec<u32> = samples
                .iter()
                .filter(|s| s.1 == gpu && s.0 >= from && s.0 <= to)
                .map(|s| s.2)
                .collect();
            mhz.sort_unstable();
            Some(ClockRange {
                gpu,
                min_mhz: *mhz.first()?,
                median_mhz: mhz[mhz.len() / 2],
                max_mhz: *mhz.last()?,
                samples: mhz.len(),
            })
        })
        .collect()
}

impl fmt::Display for ClockRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "gpu{} {}/{}/{}",
            self.gpu, self.min_mhz, self.median_mhz, self.max_mhz
        )
    }
}

/// `ranges` for a report cell: `-` when none was sampled.
pub fn cell(ranges: &[ClockRange]) -> String {
    if ranges.is_empty() {
        return "-".into();
    }
    ranges
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn lines_parse_as_nvidia_smi_prints_them_and_nothing_else_does() {
        assert_eq!(parse_line("0, 1980"), Some((0, 1980)));
        assert_eq!(parse_line("3, 345"), Some((3, 345)));
        assert_eq!(parse_line("0, [N/A]"), None);
        assert_eq!(parse_line("Failed to initialize NVML"), None);
        assert_eq!(parse_line(""), None);
    }

    #[test]
    fn a_window_takes_only_its_own_samples_per_gpu() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let samples = vec![
            (at(0), 0, 1980),
            (at(10), 0, 345),
            (at(20), 1, 600),
            (at(30), 0, 1410),
            (at(40), 0, 345),
            (at(50), 1, 1980),
            (at(60), 0, 1980),
        ];
        let window = summarize(&samples, at(10), at(50));
        assert_eq!(
            window,
            vec![
                ClockRange {
                    gpu: 0,
                    min_mhz: 345,
                    median_mhz: 345,
                    max_mhz: 1410,
                    samples: 3,
                },
                ClockRange {
                    gpu: 1,
                    min_mhz: 600,
                    median_mhz: 1980,
                    max_mhz: 1980,
                    samples: 2,
                },
            ]
        );
        assert_eq!(cell(&window), "gpu0 345/345/1410, gpu1 600/1980/1980");
        // A window with no samples of a GPU leaves it out.
        assert_eq!(summarize(&samples, at(61), at(99)), vec![]);
        assert_eq!(cell(&[]), "-");
    }
}
