//! Output files named by flags: checked writable before any work starts,
//! removed again when the run fails before writing them.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use vyre::graph::UNREACHED;

/// A file the run will write.
pub struct Output {
    path: PathBuf,
    flag: &'static str,
    /// The file did not exist before the claim (so a failed run removes it).
    created: bool,
    written: bool,
}

impl Output {
    /// Check that `path` can be written, without truncating what is there.
    pub fn claim(path: &Path, flag: &'static str) -> Result<Self, String> {
        let created = !path.exists();
        OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| {
                format!(
                    "cannot write {}: {e}. Fix: pass a writable file path to {flag}.",
                    path.display()
                )
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            flag,
            created,
            written: false,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Write `bytes` as the whole file.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        std::fs::write(&self.path, bytes).map_err(|e| self.failed(&e))?;
        self.written = true;
        Ok(())
    }

    /// Mark the file written by someone else (the binary CSR saver).
    pub fn written(&mut self) {
        self.written = true;
    }

    fn failed(&self, e: &std::io::Error) -> String {
        format!(
            "writing {} for {} failed: {e}. Fix: check free disk space and permissions.",
            self.path.display(),
            self.flag
        )
    }

    /// One line per vertex: its depth, or -1 when unreached.
    pub fn write_depths(&mut self, depths: &[u32]) -> Result<(), String> {
        let file = std::fs::File::create(&self.path).map_err(|e| self.failed(&e))?;
        let mut out = std::io::BufWriter::new(file);
        for &d in depths {
            let line = if d == UNREACHED {
                writeln!(out, "-1")
            } else {
                writeln!(out, "{d}")
            };
            line.map_err(|e| self.failed(&e))?;
        }
        out.flush().map_err(|e| self.failed(&e))?;
        self.written = true;
        Ok(())
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.created && !self.written {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
