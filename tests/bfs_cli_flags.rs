//! The `bfs` example checks everything that does not need the graph before
//! it reads the graph, and reports its phases on stderr.

mod cli;

use cli::{Scratch, assert_one_clear_error, phases, run, run_cpu, stderr, stderr_lines, stdout};
use vyre::{BackendChoice, BackendKind, OpenRequest};

/// A flag that does not parse is the only line on stderr, and the graph
/// (a path that does not exist) is never looked at.
#[test]
fn bad_flags_fail_before_the_graph_is_read() {
    let scratch = Scratch::new("flags");
    let unwritable = scratch.path("no/such/dir/depths.txt");
    let cases: [(&[&str], String); 5] = [
        (
            &["--topology", "diagonal"],
            "error: --topology: unknown topology 'diagonal'. Fix: use auto or one of warp-sparse, sparse, block-dense, dense, hybrid, fused.".into(),
        ),
        (
            &["--chain", "often"],
            "error: --chain: unknown chain mode 'often'. Fix: use auto, off or a level count.".into(),
        ),
        (
            &["--backend", "gpu"],
            "error: --backend: unknown backend 'gpu'. Fix: use auto or one of cpu, cuda, vulkan, wgpu.".into(),
        ),
        (
            &["--source", "two"],
            "error: --source 'two': invalid digit found in string. Fix: see --help for the values --source takes.".into(),
        ),
        (
            &["--write-depths", &unwritable],
            format!("error: cannot write {unwritable}: No such file or directory (os error 2). Fix: pass a writable file path to --write-depths."),
        ),
    ];
    for (flags, expected) in cases {
        let mut args = vec!["--graph", "/nonexistent/huge.mtx"];
        args.extend_from_slice(flags);
        let out = run(&args);
        assert_one_clear_error(&out, &expected);
        assert_eq!(stderr_lines(&out), vec![expected.clone()], "{flags:?}");
    }
}

#[test]
fn unwritable_plot_and_save_paths_fail_before_the_graph_is_read() {
    for flag in ["--plot", "--save-graph"] {
        let out = run_cpu("/nonexistent/huge.mtx", &[flag, "/nonexistent/dir/out"]);
        let line =
            assert_one_clear_error(&out, &format!("Fix: pass a writable file path to {flag}."));
        assert!(
            line.starts_with("error: cannot write /nonexistent/dir/out: "),
            "{line}"
        );
        assert_eq!(stderr_lines(&out).len(), 1, "{}", stderr(&out));
    }
}

/// `--backend cuda` without a driver fails when the backend is opened,
/// which happens before the graph is read.
#[test]
fn cuda_without_a_driver_fails_before_the_graph_is_read() {
    let opened = vyre::open(&OpenRequest::new(BackendChoice::Only(BackendKind::Cuda)));
    let Err(why) = opened else {
        println!("skipped: a CUDA device is present, so --backend cuda opens");
        return;
    };
    let out = run(&["--graph", "/nonexistent/huge.mtx", "--backend", "cuda"]);
    assert_one_clear_error(&out, &why.to_string());
    assert_eq!(stderr_lines(&out), vec![format!("error: {why}")]);
}

/// A source past the file's vertices is refused once the file is parsed,
/// before the graph is built, in the file's own terms.
#[test]
fn a_source_past_the_file_is_refused_before_the_build() {
    let scratch = Scratch::new("past");
    let path = scratch.file(
        "five.mtx",
        b"%%MatrixMarket matrix coordinate pattern symmetric\n5 5 4\n2 1\n3 2\n4 3\n5 4\n",
    );
    let out = run_cpu(&path, &["--source", "5"]);
    assert_one_clear_error(
        &out,
        &format!(
            "error: source 5 is not a vertex: {path} has vertices 0..4; Matrix Market id k is vertex k-1. Fix: pass --source between 0 and 4."
        ),
    );
    assert_eq!(phases(&out), ["open", "load"], "{}", stderr(&out));
}

/// Without a terminal, each finished phase is one plain line with its time,
/// and nothing is rewritten in place.
#[test]
fn phases_print_one_plain_line_each_without_carriage_returns() {
    let scratch = Scratch::new("phases");
    let path = scratch.file("two.txt", b"0 1\n1 2\n");
    let out = run_cpu(&path, &["--source", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains('\r'), "{err:?}");
    assert_eq!(
        phases(&out),
        ["open", "load", "build", "upload", "search", "validate"],
        "{err}"
    );
    for line in stderr_lines(&out) {
        let mut words = line.split_whitespace().skip(1);
        let number: f64 = words.next().unwrap().parse().expect(&line);
        assert!(number >= 0.0, "{line}");
        assert!(matches!(words.next(), Some("s" | "ms" | "µs")), "{line}");
    }
    // A generator has no load phase; --no-validate no validation.
    let out = run_cpu("grid:3x3", &["--source", "0", "--no-validate"]);
    assert_eq!(phases(&out), ["open", "build", "upload", "search"]);
}

#[test]
fn quiet_silences_progress_but_not_results_or_errors() {
    let out = run_cpu("grid:3x3", &["--quiet"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert!(stdout(&out).contains("harmonic mean"), "{}", stdout(&out));
    let out = run_cpu("grid:3x3", &["-q", "--source", "9"]);
    assert_one_clear_error(&out, "source 9 is not a vertex");
    assert_eq!(stderr_lines(&out).len(), 1, "{}", stderr(&out));
}

/// Output files are claimed before the work starts; a run that fails before
/// writing them leaves no empty file behind, and an existing file intact.
#[test]
fn a_failed_run_leaves_no_output_file_behind() {
    let scratch = Scratch::new("leftover");
    let fresh = scratch.path("fresh.txt");
    let kept = scratch.file("kept.txt", b"earlier\n");
    let out = run_cpu(
        "grid:3x3",
        &["--source", "9", "--write-depths", &fresh, "--plot", &kept],
    );
    assert_one_clear_error(&out, "source 9 is not a vertex");
    assert!(!std::path::Path::new(&fresh).exists());
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "earlier\n");
}
