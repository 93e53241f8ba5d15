//! The small conformance corpus on every backend: every topology forced and
//! the policy's choice, depths against the reference, Graph500 checks.

mod support;

use vyre::BackendKind;
use vyre::conformance::{CorpusSize, Verdict, check_batch, check_case, corpus, modes};

fn conforms(kind: BackendKind) {
    let Some(mut device) = support::open_or_skip(kind) else {
        return;
    };
    let cases = corpus(CorpusSize::Small).expect("the corpus generates");
    let mut failures = Vec::new();
    let mut passed = 0;
    // What the device cannot run (forced FusedWave without a barrier, or
    // in a batch where the backend runs none), said once per mode.
    let mut skipped = std::collections::BTreeSet::new();
    for case in &cases {
        device
            .load_with(case.load_request())
            .unwrap_or_else(|e| panic!("{kind}: loading {} failed: {e}", case.name));
        for mode in modes() {
            let batch = check_batch(&mut device, case, mode);
            for outcome in check_case(&mut device, case, mode)
                .into_iter()
                .chain([batch])
            {
                match &outcome.verdict {
                    Verdict::Pass => passed += 1,
                    Verdict::Unsupported(why) => {
                        skipped.insert(format!("{} ({why})", outcome.mode));
                    }
                    _ => failures.push(format!(
                        "{} {} {} sources {:?}: {:?}",
                        outcome.case,
                        outcome.mode,
                        outcome.sources.len(),
                        &outcome.sources[..outcome.sources.len().min(4)],
                        outcome.verdict
                    )),
                }
            }
        }
    }
    for mode in &skipped {
        eprintln!("{kind}: skipped {mode}");
    }
    assert!(
        failures.is_empty(),
        "{kind} failures:\n{}",
        failures.join("\n")
    );
    // Every case has at least one source set and a batch, and six modes
    // run everywhere.
    assert!(
        passed >= cases.len() * 12,
        "{kind}: only {passed} searches passed"
    );
}

#[test]
fn cpu_conforms() {
    conforms(BackendKind::Cpu);
}

#[test]
fn wgpu_conforms() {
    conforms(BackendKind::Wgpu);
}

#[test]
fn vulkan_conforms() {
    conforms(BackendKind::Vulkan);
}

#[test]
fn cuda_conforms() {
    conforms(BackendKind::Cuda);
}
