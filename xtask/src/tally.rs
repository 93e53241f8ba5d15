//! Counting what `cargo xtask test` ran, for its one summary line.

use std::fmt;

/// Passed, failed and skipped checks.
#[derive(Clone, Copy, Debug, Default, Eq, PartialEq)]
pub struct Tally {
    pub passed: u64,
    pub failed: u64,
    pub skipped: u64,
}

impl Tally {
    /// The sum of two tallies.
    pub fn add(self, other: Self) -> Self {
        Self {
            passed: self.passed + other.passed,
            failed: self.failed + other.failed,
            skipped: self.skipped + other.skipped,
        }
    }

    /// What libtest printed: its `test result:` lines summed, and every test
    /// that printed a `skipped:` line (its backend or tool was absent)
    /// counted as skipped rather than passed.
    pub fn of_test_output(output: &str) -> Self {
        let mut tally = Self::default();
        for line in output.lines() {
            if let Some(result) = line.trim().strip_prefix("test result: ") {
                tally.passed += count_before(result, " passed");
                tally.failed += count_before(result, " failed");
            } else if line.contains("skipped:") {
                tally.skipped += 1;
            }
        }
        tally.passed = tally.passed.saturating_sub(tally.skipped);
        tally
    }
}

/// The number right before `label` in `text` (`"ok. 12 passed; 0 failed"`).
fn count_before(text: &str, label: &str) -> u64 {
    text.find(label)
        .and_then(|end| text[..end].rsplit([' ', '.']).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} passed, {} failed", self.passed, self.failed)?;
        if self.skipped > 0 {
            write!(f, ", {} skipped", self.skipped)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_results_are_summed_and_skips_taken_out_of_the_passes() {
        let output = "\
running 3 tests
test a ... ok
skipped: no wgpu adapter (none found)
test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s
fused_levels: skipped: no CUDA driver
test result: FAILED. 10 passed; 2 failed; 1 ignored; 0 measured; 0 filtered out; finished in 1.5s
";
        assert_eq!(
            Tally::of_test_output(output),
            Tally {
                passed: 11,
                failed: 2,
                skipped: 2
            }
        );
    }

    #[test]
    fn the_summary_line_names_skips_only_when_there_are_some() {
        let none = Tally {
            passed: 7,
            failed: 0,
            skipped: 0,
        };
        assert_eq!(none.to_string(), "7 passed, 0 failed");
        let some = none.add(Tally {
            passed: 1,
            failed: 1,
            skipped: 3,
        });
        assert_eq!(some.to_string(), "8 passed, 1 failed, 3 skipped");
    }
}
