#!/usr/bin/env bash
# run.sh - builds fz7's libFuzzer harnesses (clang, ASan + UBSan) in their
# own build folder and runs each one in turn for a given number of seconds
# on seed corpora made by seeds.sh (one fuzzer process at a time: the
# machine is shared).
#
# Usage: tests/fuzz/run.sh [-b BUILD_DIR] [-s SECONDS] [-n RUNS] [HARNESS...]
#   HARNESS: 7z xz lzma lzma2 7zaes bcj2 ppmd ppmd8 deflate (decoders) and
#   enc_lzma enc_lzma2 enc_mt enc_xz enc_7z enc_ppmd enc_ppmd8 enc_deflate liblzma (write side; default: all)
#   -n RUNS stops a harness after RUNS executions (or SECONDS, whichever
#   comes first; default: time only). -s 0 only builds. Findings (crash-*, leak-*, timeout-*, oom-*) go to
#   BUILD_DIR/findings/HARNESS/; the last line per harness gives executions
#   and coverage. Not part of CTest: fuzzing is run by hand.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=$ROOT/build-fuzz
SECS=300
RUNS=-1
while getopts b:s:n: opt; do
    case $opt in
    b) BUILD=$OPTARG ;;
    s) SECS=$OPTARG ;;
    n) RUNS=$OPTARG ;;
    *) echo "usage: $0 [-b BUILD_DIR] [-s SECONDS] [-n RUNS] [HARNESS...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
BUILD=$(realpath -m "$BUILD")   # the fuzzer runs from inside it
HARNESSES=${*:-7z xz lzma lzma2 7zaes bcj2 ppmd ppmd8 deflate enc_lzma enc_lzma2 enc_mt enc_xz enc_7z enc_ppmd enc_ppmd8 enc_deflate liblzma}

# --- toolchain: clang with libFuzzer's runtime (installed if missing) ---
have_fuzzer() {
    command -v clang >/dev/null &&
        echo 'int LLVMFuzzerTestOneInput(const char *d, long n){(void)d;(void)n;return 0;}' |
            clang -x c -fsanitize=fuzzer -o /dev/null - 2>/dev/null
}
if ! have_fuzzer; then
    echo "run.sh: installing clang and libclang-rt-dev" >&2
    SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get install -y clang libclang-rt-14-dev >/dev/null || $SUDO apt-get install -y clang >/dev/null
    have_fuzzer || { echo "run.sh: clang cannot build libFuzzer targets" >&2; exit 1; }
fi

# --- the harnesses (FZ7_FUZZ: libraries instrumented, ASan + UBSan) ---
targets=
for h in $HARNESSES; do
    [ -f "$HERE/fuzz_$h.c" ] || { echo "run.sh: no harness fuzz_$h.c" >&2; exit 2; }
    targets="$targets fuzz_$h"
done
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_C_FLAGS="-g -O1 -fno-omit-frame-pointer" -DFZ7_FUZZ=ON -DFZ7_SANITIZE=ON \
    -DFZ7_TESTS=OFF >/dev/null || exit 1
# shellcheck disable=SC2086
cmake --build "$BUILD" -j2 --target $targets >/dev/null ||
    { cmake --build "$BUILD" --target $targets 2>&1 | grep -m5 error; exit 1; }
[ "$SECS" = 0 ] && { echo "run.sh: built in $BUILD"; exit 0; }

# --- seeds, then one fuzzer at a time ---
bash "$HERE/seeds.sh" "$BUILD/seeds" || exit 1
status=0
for h in $HARNESSES; do
    corpus=$BUILD/corpus/$h findings=$BUILD/findings/$h
    mkdir -p "$corpus" "$findings"
    case $h in 7z|xz) maxlen=65536 ;; *) maxlen=16384 ;; esac
    # the committed, minimised corpus (tests/fuzz/corpus/HARNESS) joins the seeds
    [ -d "$BUILD/seeds/$h" ] || mkdir -p "$BUILD/seeds/$h"
    [ -d "$HERE/corpus/$h" ] && cp -n "$HERE/corpus/$h"/* "$BUILD/seeds/$h/" 2>/dev/null
    # one process (no -jobs: that forks a worker logging into the cwd)
    # -timeout=60: a 1.4 KB Deflate64 stream that expands to 11 MB (0.07 s
    # natively) passed 10 s under ASan at nice 19 on a loaded machine.
    (cd "$BUILD" && exec /usr/bin/time -f "cpu: %U s user %S s sys" "$BUILD/fuzz_$h" -max_total_time="$SECS" -runs="$RUNS" -timeout=60 -rss_limit_mb=1024 \
        -max_len=$maxlen -artifact_prefix="$findings/" -print_final_stats=1 \
        "$corpus" "$BUILD/seeds/$h") >"$BUILD/fuzz_$h.log" 2>&1
    rc=$?
    last=$(grep -E '^#[0-9]+' "$BUILD/fuzz_$h.log" | tail -1)
    execs=$(grep -m1 '^stat::number_of_executed_units' "$BUILD/fuzz_$h.log" | awk '{print $2}')
    cpu=$(grep '^cpu: ' "$BUILD/fuzz_$h.log" | tail -1)
    echo "$h: exit $rc, executions ${execs:-?}, ${cpu:-cpu: ?}; $last"
    ls "$findings" | sed "s|^|  finding: $findings/|"
    [ "$rc" = 0 ] || status=1
done
exit $status
