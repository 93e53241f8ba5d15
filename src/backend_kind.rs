//! [`BackendKind`]: the backends vyre has, and the order `auto` tries them
//! in. Only the facade names backends; the engine and the policy below it
//! know devices by their capabilities alone.

use std::fmt;

/// Which backend implementation drives a device.
#[derive(Clone, Copy, Debug, Eq, PartialEq, Hash, PartialOrd, Ord)]
pub enum BackendKind {
    /// Multi-threaded CPU.
    Cpu,
    /// wgpu (WGSL kernels) over Vulkan, Metal, DX12 or lavapipe.
    Wgpu,
    /// CUDA (NVRTC-compiled kernels, cooperative launch).
    Cuda,
    /// Vulkan through ash (SPIR-V generated from the WGSL kernels).
    Vulkan,
}

impl BackendKind {
    /// Every backend, best first: the order `auto` tries them in. Vulkan
    /// comes before wgpu: the same kernels (a fused wave on both where the
    /// device verified co-residency), with chains recorded once and
    /// submitted again and no per-call validation. `auto` takes neither on
    /// a software device (lavapipe is far slower than the CPU backend).
    pub const PREFERENCE: [Self; 4] = [Self::Cuda, Self::Vulkan, Self::Wgpu, Self::Cpu];

    /// The lower-case name used on command lines and in reports.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Wgpu => "wgpu",
            Self::Cuda => "cuda",
            Self::Vulkan => "vulkan",
        }
    }

    /// The backend called `name` (as [`BackendKind::name`] spells it).
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::PREFERENCE.into_iter().find(|k| k.name() == name)
    }

    /// Whether this build includes the backend (its cargo feature is on).
    #[must_use]
    pub fn compiled(self) -> bool {
        match self {
            Self::Cpu => cfg!(feature = "cpu"),
            Self::Wgpu => cfg!(feature = "wgpu"),
            Self::Cuda => cfg!(feature = "cuda"),
            Self::Vulkan => cfg!(feature = "vulkan"),
        }
    }
}

impl fmt::Display for BackendKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_distinct() {
        for kind in BackendKind::PREFERENCE {
            assert_eq!(BackendKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(BackendKind::from_name("opencl"), None);
        let mut names: Vec<_> = BackendKind::PREFERENCE.map(BackendKind::name).to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), BackendKind::PREFERENCE.len());
    }
}
