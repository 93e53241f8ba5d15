//! Compiled PTX kept in memory and on disk, so that only the first start on
//! a machine pays the NVRTC compile.
//!
//! An entry is keyed by everything that shapes the PTX or decides whether
//! the driver accepts it: the NVRTC version, the driver version, the
//! architecture, and a hash of the kernel source and the compile options.
//! Each file starts with a header holding the PTX's length and content hash,
//! checked on every load, so a damaged entry is compiled afresh, never used.
//! The directory is made owner-only, and one that others may write is not
//! used at all. Writers go through a temporary file of their own (process,
//! thread, counter) and a rename, so a reader never sees half an entry.
//! Failing to write the disk cache is not an error.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use vyre_driver::backend::BackendError;

use crate::compile::{GpuArch, check_ptx, compile_options};
use crate::source::kernel_source;

/// Where compiled PTX is kept between runs.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub enum PtxCachePolicy {
    /// `$VYRE_PTX_CACHE` if set, else `$XDG_CACHE_HOME/vyre/ptx`, else
    /// `$HOME/.cache/vyre/ptx`.
    #[default]
    Default,
    /// This directory.
    Directory(PathBuf),
    /// No disk cache (the in-process cache still applies).
    Disabled,
}

impl PtxCachePolicy {
    /// The directory this policy reads and writes, if any.
    #[must_use]
    pub fn directory(&self) -> Option<PathBuf> {
        match self {
            Self::Directory(dir) => Some(dir.clone()),
            Self::Disabled => None,
            Self::Default => default_directory(
                std::env::var_os("VYRE_PTX_CACHE"),
                std::env::var_os("XDG_CACHE_HOME"),
                std::env::var_os("HOME"),
            ),
        }
    }
}

fn default_directory(
    explicit: Option<std::ffi::OsString>,
    xdg: Option<std::ffi::OsString>,
    home: Option<std::ffi::OsString>,
) -> Option<PathBuf> {
    let non_empty = |v: Option<std::ffi::OsString>| v.filter(|s| !s.is_empty()).map(PathBuf::from);
    non_empty(explicit)
        .or_else(|| non_empty(xdg).map(|d| d.join("vyre").join("ptx")))
        .or_else(|| non_empty(home).map(|d| d.join(".cache").join("vyre").join("ptx")))
}

/// Where a backend's PTX came from when it opened.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum PtxOrigin {
    /// Compiled earlier in this process.
    Memory,
    /// Read from the disk cache.
    Disk,
    /// Compiled by NVRTC now.
    Compiled,
}

/// PTX for one architecture and where it came from.
#[derive(Clone, Debug)]
pub(crate) struct CachedPtx {
    pub ptx: Arc<str>,
    pub origin: PtxOrigin,
    pub key: String,
}

/// The versions of the tools that turn the kernels into running code.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) struct Toolchain {
    /// NVRTC's (major, minor).
    pub nvrtc: (i32, i32),
    /// The driver's, as `cuDriverGetVersion` reports it (e.g. 13000).
    pub driver: i32,
}

fn memory() -> &'static Mutex<HashMap<String, Arc<str>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<str>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// 64-bit FNV-1a: stable across runs, machines and Rust versions.
fn fnv1a(bytes: &[u8], mut hash: u64) -> u64 {
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

const FNV_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// The cache key of the kernels compiled for `arch` by `tools`.
pub(crate) fn cache_key(arch: &GpuArch, tools: Toolchain) -> String {
    let mut hash = fnv1a(kernel_source().as_bytes(), FNV_BASIS);
    for option in compile_options(arch) {
        hash = fnv1a(&[0], hash);
        hash = fnv1a(option.as_bytes(), hash);
    }
    let (major, minor) = tools.nvrtc;
    format!(
        "{}-nvrtc{major}.{minor}-driver{}-{hash:016x}",
        arch.as_str(),
        tools.driver
    )
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.ptx"))
}

/// First line of an entry: what it must hold.
fn header(ptx: &str) -> String {
    format!(
        "vyre-ptx bytes={} fnv1a64={:016x}\n",
        ptx.len(),
        fnv1a(ptx.as_bytes(), FNV_BASIS)
    )
}

/// The PTX of an entry whose header matches its content.
fn verified(entry: &str) -> Option<&str> {
    let (_, ptx) = entry.split_once('\n')?;
    (entry.len() == header(ptx).len() + ptx.len() && entry.starts_with(&header(ptx))).then_some(ptx)
}

/// PTX for `arch`: from memory, else from a verified disk entry, else from
/// `compile` (and stored).
pub(crate) fn load_or_compile(
    arch: &GpuArch,
    tools: Toolchain,
    policy: &PtxCachePolicy,
    compile: impl FnOnce() -> Result<String, BackendError>,
) -> Result<CachedPtx, BackendError> {
    let key = cache_key(arch, tools);
    let cached = |ptx: Arc<str>, origin| CachedPtx {
        ptx,
        origin,
        key: key.clone(),
    };
    if let Some(ptx) = lock_memory().get(&key) {
        return Ok(cached(Arc::clone(ptx), PtxOrigin::Memory));
    }
    let dir = policy.directory().filter(|dir| usable(dir));
    if let Some(dir) = &dir
        && let Ok(entry) = std::fs::read_to_string(entry_path(dir, &key))
    {
        match verified(&entry) {
            Some(ptx) if check_ptx(ptx, arch).is_ok() => {
                let ptx: Arc<str> = ptx.into();
                lock_memory().insert(key.clone(), Arc::clone(&ptx));
                return Ok(cached(ptx, PtxOrigin::Disk));
            }
            _ => tracing::debug!("PTX cache entry {key} is damaged; compiling afresh"),
        }
    }
    let ptx: Arc<str> = compile()?.into();
    lock_memory().insert(key.clone(), Arc::clone(&ptx));
    if let Some(dir) = &dir {
        store(dir, &key, &ptx);
    }
    Ok(cached(ptx, PtxOrigin::Compiled))
}

/// Drop `key` from both caches (its PTX did not load).
pub(crate) fn forget(key: &str, policy: &PtxCachePolicy) {
    lock_memory().remove(key);
    if let Some(dir) = policy.directory() {
        let _ = std::fs::remove_file(entry_path(&dir, key));
    }
}

fn lock_memory() -> std::sync::MutexGuard<'static, HashMap<String, Arc<str>>> {
    memory()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Whether `dir` may hold the cache: it is created owner-only if missing,
/// and one that others may write is refused (they could plant kernels).
fn usable(dir: &Path) -> bool {
    let created = create_private_dir(dir);
    let writable_by_others = std::fs::metadata(dir).map(|m| group_or_other_writable(&m));
    match (created, writable_by_others) {
        (Ok(()), Ok(false)) => true,
        (Ok(()), Ok(true)) => {
            tracing::info!(
                "not using the PTX cache {}: others may write it (chmod go-w to use it)",
                dir.display()
            );
            false
        }
        (Err(e), _) | (_, Err(e)) => {
            tracing::debug!("no PTX cache in {}: {e}", dir.display());
            false
        }
    }
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

#[cfg(unix)]
fn group_or_other_writable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o022 != 0
}

#[cfg(not(unix))]
fn group_or_other_writable(_: &std::fs::Metadata) -> bool {
    false
}

/// A temporary file name no other writer uses: this process, this thread,
/// and a per-process counter.
fn temporary_name(key: &str) -> String {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let thread: String = format!("{:?}", std::thread::current().id())
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    format!("{key}.ptx.{}.{thread}.{n}.tmp", std::process::id())
}

/// Write an entry through a temporary file of this writer's own and a
/// rename. Failures only cost the next start a compile.
fn store(dir: &Path, key: &str, ptx: &str) {
    let tmp = dir.join(temporary_name(key));
    let result = create_new_private(&tmp)
        .and_then(|mut file| {
            file.write_all(header(ptx).as_bytes())?;
            file.write_all(ptx.as_bytes())
        })
        .and_then(|()| std::fs::rename(&tmp, entry_path(dir, key)));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        tracing::debug!("could not write the PTX cache in {}: {e}", dir.display());
    }
}

#[cfg(unix)]
fn create_new_private(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

#[cfg(not(unix))]
fn create_new_private(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
}

#[cfg(test)]
mod tests;
