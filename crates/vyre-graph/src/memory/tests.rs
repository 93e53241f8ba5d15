use super::host::{HostMemory, parse_limit, parse_meminfo, stat_field};
use super::*;

const MEMINFO: &str = "MemTotal:       24683656 kB\nMemFree:        19708488 kB\nMemAvailable:   23980340 kB\nBuffers:           11156 kB\n";

#[test]
fn meminfo_gives_mem_available_in_bytes() {
    assert_eq!(parse_meminfo(MEMINFO), Some(23_980_340 * 1024));
    assert_eq!(parse_meminfo("MemTotal: 5 kB\n"), None);
    assert_eq!(parse_meminfo("MemAvailable: lots kB\n"), None);
}

#[test]
fn cgroup_limits_and_stats_parse() {
    assert_eq!(parse_limit("max\n"), None);
    assert_eq!(parse_limit("8589934592\n"), Some(8 << 30));
    // cgroup v1 writes "unlimited" as a page-rounded 2^63 - 1.
    assert_eq!(parse_limit("9223372036854771712\n"), None);
    let stat = "anon 100\nfile 2000\ninactive_file 1500\nactive_file 500\n";
    assert_eq!(stat_field(stat, "inactive_file"), Some(1500));
    assert_eq!(stat_field(stat, "file"), Some(2000));
    assert_eq!(stat_field(stat, "shmem"), None);
}

#[test]
fn the_smaller_of_machine_and_cgroup_room_is_the_limit() {
    let host = |available, cgroup_limit, cgroup_used| HostMemory {
        available,
        cgroup_limit,
        cgroup_used,
    };
    let limit = |bytes, source| Some(MemoryLimit { bytes, source });
    assert_eq!(
        host(Some(100), Some(80), 30).limit(),
        limit(50, LimitSource::Cgroup)
    );
    assert_eq!(
        host(Some(40), Some(80), 30).limit(),
        limit(40, LimitSource::MemAvailable)
    );
    assert_eq!(
        host(None, Some(80), 90).limit(),
        limit(0, LimitSource::Cgroup)
    );
    assert_eq!(
        host(Some(7), None, 0).limit(),
        limit(7, LimitSource::MemAvailable)
    );
    assert_eq!(host(None, None, 0).limit(), None);
}

#[test]
fn a_configured_limit_wins_over_detection() {
    assert_eq!(
        MemoryLimit::resolve(Some(123)),
        Some(MemoryLimit {
            bytes: 123,
            source: LimitSource::Configured
        })
    );
}

#[test]
fn checks_refuse_only_past_the_limit_and_name_the_fix() {
    let limit = MemoryLimit {
        bytes: 1 << 30,
        source: LimitSource::MemAvailable,
    };
    assert_eq!(limit.check(1 << 30, || unreachable!()), Ok(()));
    let err = limit
        .check((1 << 30) + 1, || "a test graph".into())
        .unwrap_err();
    assert_eq!(
        err,
        GraphError::OutOfMemory {
            what: "a test graph".into(),
            needed: (1 << 30) + 1,
            limit: Some(limit),
        }
    );
    let text = err.to_string();
    assert!(
        text.starts_with("a test graph needs about 1.0 GiB"),
        "{text}"
    );
    assert!(text.contains("MemAvailable"), "{text}");
    assert!(text.contains("Fix: "), "{text}");
    assert_eq!(check(None, u64::MAX, || unreachable!()), Ok(()));
}

#[test]
fn an_allocation_the_system_refuses_is_an_error_not_an_abort() {
    // Half the address space: no allocator can provide it.
    let huge = isize::MAX as usize / 2;
    let err = try_with_capacity::<u8>(huge, || "a huge array".into()).unwrap_err();
    assert_eq!(
        err,
        GraphError::OutOfMemory {
            what: "a huge array".into(),
            needed: huge as u64,
            limit: None,
        }
    );
    assert!(err.to_string().contains("Fix: "), "{err}");
    let mut grown = vec![1u32; 4];
    let err = try_reserve(&mut grown, huge, || "growth".into()).unwrap_err();
    assert!(
        matches!(err, GraphError::OutOfMemory { limit: None, .. }),
        "{err}"
    );
    assert_eq!(grown, vec![1; 4]);
}

#[test]
fn zeroed_arrays_are_zero_and_exactly_sized() {
    let v = try_zeroed::<u64>(100_003, String::new).unwrap();
    assert_eq!(v.len(), 100_003);
    assert_eq!(v.capacity(), 100_003);
    assert!(v.iter().all(|&x| x == 0));
}

#[test]
fn byte_counts_read_as_units() {
    assert_eq!(human_bytes(512), "512 bytes");
    assert_eq!(human_bytes(1536), "1.5 KiB (1536 bytes)");
    assert_eq!(human_bytes(3 << 30), "3.0 GiB (3221225472 bytes)");
}
