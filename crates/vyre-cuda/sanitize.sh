#!/usr/bin/env bash
# Run the CUDA integration tests under compute-sanitizer (memcheck, racecheck,
# synccheck) on small graphs of every shape of the corpus, with every
# topology forced (topologies), rotated every wave, chained and fused with
# bands and at every grid size (switching), on hub frontiers (balance) and
# with the layout checks (memory). Needs no cargo: it runs test binaries
# built elsewhere.
#
# Build them where cargo is (NVRTC is loaded at run time; nothing CUDA is
# needed to build), then copy the four executables cargo names into one
# directory:
#   cargo test -p vyre-cuda --release --no-run 2>&1 | grep Executable
#   # Executable tests/topologies.rs (target/release/deps/topologies-0123abcd)
#
# Usage: crates/vyre-cuda/sanitize.sh BIN_DIR [TOOL...]
#   TOOL: memcheck, racecheck, synccheck (default: all three), or initcheck.
#   Logs go to $OUT (default ./sanitize-logs): TOOL-TEST.log is the
#   sanitizer's report, TOOL-TEST.out the test's own output.
# Environment: SANITIZE_TIMEOUT (seconds per test binary and tool, default
# 540), SANITIZE_TESTS (default: topologies switching balance memory),
# COMPUTE_SANITIZER (default: compute-sanitizer on PATH, else under
# /usr/local/cuda/bin).
# Exit status 0 when every run passed its tests with no sanitizer error.
set -uo pipefail

if [ $# -lt 1 ] || [ ! -d "$1" ]; then
    sed -n '2,26p' "$0" >&2
    exit 2
fi
bin_dir="$(cd "$1" && pwd)"
shift
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(memcheck racecheck synccheck)
out="${OUT:-$PWD/sanitize-logs}"
mkdir -p "$out"
timeout_s="${SANITIZE_TIMEOUT:-540}"
sanitizer="${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}"
if [ ! -x "$sanitizer" ]; then
    echo "compute-sanitizer not found (set COMPUTE_SANITIZER)" >&2
    exit 2
fi

# Small graphs and launches, no timing bounds; a missing device or barrier
# is a failure; the kernels run many times slower under the sanitizers.
export VYRE_CUDA_SMALL=1 VYRE_REQUIRE_BACKENDS=cuda VYRE_CUDA_WAIT_LIMIT_S=900
export VYRE_PTX_CACHE="$out/ptx"

tool_args() {
    case "$1" in
        memcheck) echo "--tool memcheck --leak-check full" ;;
        racecheck) echo "--tool racecheck --racecheck-report all" ;;
        synccheck) echo "--tool synccheck" ;;
        initcheck) echo "--tool initcheck" ;;
        *) echo "unknown tool $1" >&2; return 1 ;;
    esac
}

# The newest executable of test NAME in the binary directory.
binary() {
    find "$bin_dir" -maxdepth 1 -type f -name "$1-*" ! -name '*.d' -perm -u+x -printf '%T@ %p\n' \
        | sort -nr | head -n 1 | cut -d' ' -f2-
}

passed=0
failed=0
for tool in "${tools[@]}"; do
    args="$(tool_args "$tool")" || exit 2
    for test in ${SANITIZE_TESTS:-topologies switching balance memory}; do
        exe="$(binary "$test")"
        if [ -z "$exe" ]; then
            echo "FAIL $tool $test: no $test-* executable in $bin_dir"
            failed=$((failed + 1))
            continue
        fi
        log="$out/$tool-$test.log"
        # shellcheck disable=SC2086
        timeout "$timeout_s" "$sanitizer" $args --error-exitcode 99 --log-file "$log" \
            "$exe" --test-threads=1 > "$out/$tool-$test.out" 2>&1
        status=$?
        summary="$(grep -h 'ERROR SUMMARY' "$log" 2>/dev/null | tail -n 1)"
        tests="$(grep -h '^test result:' "$out/$tool-$test.out" | tail -n 1)"
        case $status in
            0) verdict=PASS; passed=$((passed + 1)) ;;
            99) verdict="FAIL (sanitizer errors)"; failed=$((failed + 1)) ;;
            124) verdict="FAIL (over ${timeout_s} s)"; failed=$((failed + 1)) ;;
            *) verdict="FAIL (exit $status)"; failed=$((failed + 1)) ;;
        esac
        echo "$verdict $tool $test: ${summary:-no summary}; ${tests:-no test result}"
    done
done
echo "sanitize: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
