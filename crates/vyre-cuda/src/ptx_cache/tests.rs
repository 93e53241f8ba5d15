use std::cell::Cell;

use super::*;

const TOOLS: Toolchain = Toolchain {
    nvrtc: (13, 0),
    driver: 13000,
};

/// Tools of a version no other test uses, so that each test has keys of
/// its own in the process-wide memory cache.
fn tools_of_test(minor: i32) -> Toolchain {
    Toolchain {
        nvrtc: (90, minor),
        ..TOOLS
    }
}

fn arch() -> GpuArch {
    GpuArch::parse("sm_75").unwrap()
}

/// PTX that passes `check_ptx` for sm_75, with `tag` in a comment.
fn fake_ptx(tag: &str) -> String {
    let mut ptx = format!("// {tag}\n.version 9.0\n.target sm_75\n");
    for name in crate::source::KERNEL_NAMES {
        ptx.push_str(&format!(".visible .entry {name}(\n"));
    }
    ptx
}

/// A fresh directory for one test (removed first if an earlier run left it).
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vyre-ptx-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// `load_or_compile` with a compiler that returns `ptx` and counts its calls.
fn load(tools: Toolchain, dir: &Path, ptx: &str, compiles: &Cell<u32>) -> CachedPtx {
    let policy = PtxCachePolicy::Directory(dir.to_path_buf());
    load_or_compile(&arch(), tools, &policy, || {
        compiles.set(compiles.get() + 1);
        Ok(ptx.to_owned())
    })
    .unwrap()
}

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
fn keys_name_nvrtc_driver_and_architecture_and_are_stable() {
    let key = cache_key(&arch(), TOOLS);
    assert!(key.starts_with("sm_75-nvrtc13.0-driver13000-"), "{key}");
    assert_eq!(key, cache_key(&arch(), TOOLS));
    let newer_nvrtc = Toolchain {
        nvrtc: (13, 1),
        ..TOOLS
    };
    let newer_driver = Toolchain {
        driver: 13010,
        ..TOOLS
    };
    let other_arch = cache_key(&GpuArch::parse("sm_80").unwrap(), TOOLS);
    let keys = [
        key.clone(),
        cache_key(&arch(), newer_nvrtc),
        cache_key(&arch(), newer_driver),
        other_arch.clone(),
    ];
    for (i, a) in keys.iter().enumerate() {
        for b in &keys[i + 1..] {
            assert_ne!(a, b);
        }
    }
    // The options (which name the architecture) are part of the hash too.
    assert_ne!(key.rsplit('-').next(), other_arch.rsplit('-').next());
}

#[test]
fn fnv1a_matches_the_published_test_vectors() {
    assert_eq!(fnv1a(b"", FNV_BASIS), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a", FNV_BASIS), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a(b"foobar", FNV_BASIS), 0x8594_4171_f739_67e8);
}

#[test]
fn a_verified_entry_is_used_and_a_damaged_one_is_compiled_afresh() {
    let tools = tools_of_test(1);
    let dir = scratch("damaged");
    let key = cache_key(&arch(), tools);
    let (first, second) = (fake_ptx("first"), fake_ptx("second"));
    let compiles = Cell::new(0);
    assert_eq!(
        load(tools, &dir, &first, &compiles).origin,
        PtxOrigin::Compiled
    );
    assert_eq!(
        load(tools, &dir, &first, &compiles).origin,
        PtxOrigin::Memory
    );
    let path = entry_path(&dir, &key);
    let entry = std::fs::read_to_string(&path).unwrap();
    assert_eq!(entry, header(&first) + &first);
    // Read back from disk once the process forgot it.
    lock_memory().remove(&key);
    let got = load(tools, &dir, &second, &compiles);
    assert_eq!((got.origin, &*got.ptx), (PtxOrigin::Disk, first.as_str()));
    assert_eq!(compiles.get(), 1);
    // One changed byte of PTX under an intact header, a truncated entry, or
    // an entry without a header: each is compiled afresh and replaced.
    let flipped = entry.replacen(".target sm_75\n.visible", ".target sm_75\n.vIsible", 1);
    assert_ne!(flipped, entry);
    let damaged = [flipped, entry[..entry.len() - 3].to_owned(), first.clone()];
    for (i, bad) in damaged.iter().enumerate() {
        lock_memory().remove(&key);
        std::fs::write(&path, bad).unwrap();
        let got = load(tools, &dir, &second, &compiles);
        assert_eq!(got.origin, PtxOrigin::Compiled, "damage {i}");
        assert_eq!(&*got.ptx, second.as_str());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            header(&second) + &second
        );
    }
    assert_eq!(compiles.get(), 1 + damaged.len() as u32);
    forget(&key, &PtxCachePolicy::Directory(dir.clone()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn the_directory_is_created_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let tools = tools_of_test(2);
    let root = scratch("private");
    let dir = root.join("vyre").join("ptx");
    load(tools, &dir, &fake_ptx("x"), &Cell::new(0));
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&root.join("vyre")), 0o700);
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&entry_path(&dir, &cache_key(&arch(), tools))), 0o600);
    let _ = std::fs::remove_dir_all(&root);
}

#[cfg(unix)]
#[test]
fn a_directory_others_may_write_is_neither_read_nor_written() {
    use std::os::unix::fs::PermissionsExt;
    let tools = tools_of_test(3);
    let dir = scratch("shared");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    let key = cache_key(&arch(), tools);
    let planted = fake_ptx("planted");
    std::fs::write(entry_path(&dir, &key), header(&planted) + &planted).unwrap();
    let compiles = Cell::new(0);
    let got = load(tools, &dir, &fake_ptx("own"), &compiles);
    assert_eq!((got.origin, compiles.get()), (PtxOrigin::Compiled, 1));
    assert_eq!(&*got.ptx, fake_ptx("own").as_str());
    // The planted entry is left as it was.
    let entry = std::fs::read_to_string(entry_path(&dir, &key)).unwrap();
    assert!(entry.contains("planted"));
    lock_memory().remove(&key);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn writers_use_temporary_files_of_their_own() {
    let a = temporary_name("k");
    let b = temporary_name("k");
    assert_ne!(a, b);
    let pid = std::process::id().to_string();
    assert!(
        a.starts_with(&format!("k.ptx.{pid}.")) && a.ends_with(".tmp"),
        "{a}"
    );
    // Eight threads store the same entry at once: each through its own
    // temporary file, so the entry is one writer's whole, and nothing is
    // left behind.
    let dir = scratch("writers");
    create_private_dir(&dir).unwrap();
    let texts: Vec<String> = (0..8).map(|i| fake_ptx(&format!("writer {i}"))).collect();
    let names: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = texts
            .iter()
            .map(|ptx| {
                let dir = &dir;
                s.spawn(move || {
                    store(dir, "same", ptx);
                    temporary_name("same")
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut distinct = names.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), names.len(), "{names:?}");
    let entry = std::fs::read_to_string(entry_path(&dir, "same")).unwrap();
    let ptx = verified(&entry).expect("a whole entry");
    assert!(texts.iter().any(|t| t == ptx));
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(files.len(), 1, "temporary files left: {files:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
