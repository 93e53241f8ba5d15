//! Reading how much memory the machine and the process's cgroup leave.

use super::{LimitSource, MemoryLimit};

/// What Linux reports about host memory, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HostMemory {
    /// `MemAvailable` from `/proc/meminfo`.
    pub available: Option<u64>,
    /// The cgroup's limit; `None` when it has none.
    pub cgroup_limit: Option<u64>,
    /// The cgroup's usage less its inactive file cache, which the kernel
    /// reclaims before it kills anything (the "working set").
    pub cgroup_used: u64,
}

impl HostMemory {
    /// The smaller of `MemAvailable` and the room under the cgroup limit.
    pub fn limit(&self) -> Option<MemoryLimit> {
        let machine = self.available.map(|bytes| MemoryLimit {
            bytes,
            source: LimitSource::MemAvailable,
        });
        let cgroup = self.cgroup_limit.map(|limit| MemoryLimit {
            bytes: limit.saturating_sub(self.cgroup_used),
            source: LimitSource::Cgroup,
        });
        match (machine, cgroup) {
            (Some(m), Some(c)) => Some(if c.bytes < m.bytes { c } else { m }),
            (m, c) => m.or(c),
        }
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
pub(crate) fn parse_meminfo(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line.split_whitespace().skip(1);
    let value: u64 = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        None => Some(value),
        Some(_) => None,
    }
}

/// A cgroup limit file (`memory.max` or v1's `memory.limit_in_bytes`):
/// `None` for "max" or v1's "unlimited" (a value near 2^63).
pub(crate) fn parse_limit(text: &str) -> Option<u64> {
    let value: u64 = text.trim().parse().ok()?;
    (value < 1 << 62).then_some(value)
}

/// A `key value` line of a cgroup `memory.stat` text.
pub(crate) fn stat_field(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

/// The files of one cgroup version.
struct CgroupFiles {
    limit: &'static str,
    usage: &'static str,
    stat: &'static str,
    inactive_file: &'static str,
}

const CGROUP_V2: CgroupFiles = CgroupFiles {
    limit: "/sys/fs/cgroup/memory.max",
    usage: "/sys/fs/cgroup/memory.current",
    stat: "/sys/fs/cgroup/memory.stat",
    inactive_file: "inactive_file",
};

const CGROUP_V1: CgroupFiles = CgroupFiles {
    limit: "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    usage: "/sys/fs/cgroup/memory/memory.usage_in_bytes",
    stat: "/sys/fs/cgroup/memory/memory.stat",
    inactive_file: "total_inactive_file",
};

fn read(path: &str) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// Read `/proc/meminfo` and the cgroup (v2, else v1) files that exist.
pub(crate) fn read_host_memory() -> HostMemory {
    let available = read("/proc/meminfo").as_deref().and_then(parse_meminfo);
    let files = [CGROUP_V2, CGROUP_V1]
        .into_iter()
        .find(|f| std::path::Path::new(f.limit).exists());
    let Some(files) = files else {
        return HostMemory {
            available,
            ..HostMemory::default()
        };
    };
    let cgroup_limit = read(files.limit).as_deref().and_then(parse_limit);
    let usage = read(files.usage)
        .and_then(|t| t.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let inactive = read(files.stat)
        .as_deref()
        .and_then(|t| stat_field(t, files.inactive_file))
        .unwrap_or(0);
    HostMemory {
        available,
        cgroup_limit,
        cgroup_used: usage.saturating_sub(inactive),
    }
}
