#!/usr/bin/env bash
# The whole test suite: a release build and an ASan+UBSan build, each
# through CTest, then the multi-threaded paths (label tsan) in a
# ThreadSanitizer build. This is what .ci/run runs.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/deps.sh"
jobs=$(nproc)
cmake -S "$top" -B "$top/build-test" -DCMAKE_BUILD_TYPE=Release -DFZ7_WERROR=ON >/dev/null
cmake --build "$top/build-test" -j"$jobs"
(cd "$top/build-test" && ctest --output-on-failure -j"$jobs")
cmake -S "$top" -B "$top/build-asan" -DCMAKE_BUILD_TYPE=Debug -DFZ7_SANITIZE=ON -DFZ7_WERROR=ON >/dev/null
cmake --build "$top/build-asan" -j"$jobs"
(cd "$top/build-asan" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j"$jobs" -LE slow)
cmake -S "$top" -B "$top/build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFZ7_TSAN=ON -DFZ7_WERROR=ON >/dev/null
cmake --build "$top/build-tsan" -j"$jobs"
(cd "$top/build-tsan" && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j"$jobs" -L tsan)
