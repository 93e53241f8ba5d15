//! Compiled PTX kept in memory and on disk, so that only the first start on
//! a machine pays the NVRTC compile.
//!
//! Entries are keyed by architecture and a hash of the kernel source and the
//! compile options. Failing to write the disk cache is not an error; an
//! unreadable or damaged entry is recompiled.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use vyre_driver::backend::BackendError;

use crate::compile::{GpuArch, check_ptx, compile_for, compile_options};
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

/// The cache key of the kernels compiled for `arch`: the architecture and a
/// hash of the source and the options.
pub(crate) fn cache_key(arch: &GpuArch) -> String {
    let mut hash = fnv1a(kernel_source().as_bytes(), 0xcbf2_9ce4_8422_2325);
    for option in compile_options(arch) {
        hash = fnv1a(&[0], hash);
        hash = fnv1a(option.as_bytes(), hash);
    }
    format!("{}-{hash:016x}", arch.as_str())
}

fn entry_path(dir: &Path, key: &str) -> PathBuf {
    dir.join(format!("{key}.ptx"))
}

/// PTX for `arch`: from memory, else from disk, else compiled (and stored).
pub(crate) fn load_or_compile(
    arch: &GpuArch,
    policy: &PtxCachePolicy,
) -> Result<CachedPtx, BackendError> {
    let key = cache_key(arch);
    let cached = |ptx: Arc<str>, origin| CachedPtx {
        ptx,
        origin,
        key: key.clone(),
    };
    if let Some(ptx) = lock_memory().get(&key) {
        return Ok(cached(Arc::clone(ptx), PtxOrigin::Memory));
    }
    let dir = policy.directory();
    if let Some(dir) = &dir
        && let Ok(text) = std::fs::read_to_string(entry_path(dir, &key))
        && check_ptx(&text, arch).is_ok()
    {
        let ptx: Arc<str> = text.into();
        lock_memory().insert(key.clone(), Arc::clone(&ptx));
        return Ok(cached(ptx, PtxOrigin::Disk));
    }
    let ptx: Arc<str> = compile_for(arch)?.into();
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

/// Write an entry through a temporary file and a rename, so a reader never
/// sees half an entry. Failures only cost the next start a compile.
fn store(dir: &Path, key: &str, ptx: &str) {
    let result = std::fs::create_dir_all(dir).and_then(|()| {
        let tmp = dir.join(format!("{key}.ptx.{}.tmp", std::process::id()));
        std::fs::write(&tmp, ptx)?;
        std::fs::rename(&tmp, entry_path(dir, key)).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    });
    if let Err(e) = result {
        tracing::debug!("could not write the PTX cache in {}: {e}", dir.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_directory_prefers_explicit_then_xdg_then_home() {
        let s = |v: &str| Some(std::ffi::OsString::from(v));
        assert_eq!(
            default_directory(s("/x"), s("/xdg"), s("/home/u")),
            Some(PathBuf::from("/x"))
        );
        assert_eq!(
            default_directory(None, s("/xdg"), s("/home/u")),
            Some(PathBuf::from("/xdg/vyre/ptx"))
        );
        assert_eq!(
            default_directory(s(""), s(""), s("/home/u")),
            Some(PathBuf::from("/home/u/.cache/vyre/ptx"))
        );
        assert_eq!(default_directory(None, None, None), None);
        assert_eq!(PtxCachePolicy::Disabled.directory(), None);
    }

    #[test]
    fn keys_differ_by_architecture_and_are_stable() {
        let a = cache_key(&GpuArch::parse("sm_90").unwrap());
        let b = cache_key(&GpuArch::parse("sm_80").unwrap());
        assert!(a.starts_with("sm_90-") && b.starts_with("sm_80-"));
        assert_ne!(a[6..], b[6..], "options (the arch) are part of the hash");
        assert_eq!(a, cache_key(&GpuArch::parse("sm_90").unwrap()));
    }

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        let basis = 0xcbf2_9ce4_8422_2325;
        assert_eq!(fnv1a(b"", basis), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a", basis), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar", basis), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_disk_entry_is_used_and_a_damaged_one_is_not() {
        let arch = GpuArch::parse("sm_75").unwrap();
        let dir = std::env::temp_dir().join(format!("vyre-ptx-test-{}", std::process::id()));
        let policy = PtxCachePolicy::Directory(dir.clone());
        let key = cache_key(&arch);
        // A well-formed entry (as far as check_ptx can tell) is read back.
        let mut fake = String::from(".version 9.0\n.target sm_75\n");
        for name in crate::source::KERNEL_NAMES {
            fake.push_str(&format!(".visible .entry {name}(\n"));
        }
        store(&dir, &key, &fake);
        lock_memory().remove(&key);
        let got = load_or_compile(&arch, &policy).unwrap();
        assert_eq!(got.origin, PtxOrigin::Disk);
        assert_eq!(&*got.ptx, fake.as_str());
        // Now in memory.
        assert_eq!(
            load_or_compile(&arch, &policy).unwrap().origin,
            PtxOrigin::Memory
        );
        // Forgotten, and the disk entry is damaged: it must not be used.
        forget(&key, &policy);
        std::fs::write(entry_path(&dir, &key), "garbage").unwrap();
        match load_or_compile(&arch, &policy) {
            Ok(got) => assert_eq!(got.origin, PtxOrigin::Compiled),
            Err(e) => assert!(e.message().contains("NVRTC"), "{e}"),
        }
        forget(&key, &policy);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
