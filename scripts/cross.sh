#!/usr/bin/env bash
# cross.sh - builds fz7's codec layers (cpu, check, crypto, lz, lzma,
# filter and the xz writer: no libarchive) for other CPUs with Debian's
# cross compilers, runs their cmocka unit tests under qemu-user, and
# checks that the encoders write the same bytes as on this machine
# (tests/cross/enc_hashes.c: raw LZMA, LZMA2 and .xz at every level,
# match finders, lc/lp/pb, BCJ/Delta, multi-threaded LZMA2).
#
# Usage: scripts/cross.sh [-i] [-o OUT_DIR] [ARCH...]
#   ARCH: aarch64 (little endian) s390x (big endian); default both.
#   -i installs the cross compilers, qemu-user and the targets' cmocka
#      first (root; dpkg --add-architecture + apt-get). Without them the
#      script exits 77 (skip).
# Exit: 0 all tests passed and every hash matched, 1 otherwise.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${TMPDIR:-/tmp}/fz7-cross
INSTALL=0
while getopts io: opt; do
    case $opt in
    i) INSTALL=1 ;;
    o) OUT=$OPTARG ;;
    *) echo "usage: $0 [-i] [-o OUT_DIR] [ARCH...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
ARCHES=${*:-aarch64 s390x}
debarch() { case $1 in aarch64) echo arm64 ;; *) echo "$1" ;; esac; }

if [ "$INSTALL" = 1 ]; then
    pkgs=(qemu-user)
    for a in $ARCHES; do
        d=$(debarch "$a")
        dpkg --print-foreign-architectures | grep -qx "$d" || dpkg --add-architecture "$d"
        pkgs+=("gcc-$a-linux-gnu" "libc6-dev-$d-cross" "libcmocka-dev:$d")
    done
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null || exit 1
fi

# The codec layers and the unit tests that need nothing above them.
SRCS=$(cd "$ROOT" && ls src/fz7_common.c src/cpu/*.c src/check/*.c src/crypto/*.c src/lz/*.c src/lzma/*.c \
    src/filter/*.c src/format/xz/xz_write.c src/format/fd_ostream.c)
TESTS="test_check test_aes test_filter test_bcj2_enc test_lzma_dec test_lzma_enc test_lzma_enc_rc
       test_hc_matches test_mf_thread test_kernels test_enc_identity test_radix"
CFLAGS="-O2 -g -D_GNU_SOURCE -DFZ7_VERSION=\"cross\" -Wall -Wextra -Werror -pthread -I$ROOT/src"

# build CC DIR: the codec library, the unit tests and enc_hashes into DIR
build() {
    local cc=$1 dir=$2 lib=$2/libfz7codec.a objs=() s o
    mkdir -p "$dir/obj"
    # objects are rebuilt when their .c or any header under src/ is newer
    local newest_h
    newest_h=$(ls -t "$ROOT"/src/*.h "$ROOT"/src/*/*.h | head -1)
    for s in $SRCS; do
        o=$dir/obj/$(echo "$s" | tr / _).o
        [ "$o" -nt "$ROOT/$s" ] && [ "$o" -nt "$newest_h" ] || $cc $CFLAGS -c "$ROOT/$s" -o "$o" || return 1
        objs+=("$o")
    done
    rm -f "$lib" && ar rcs "$lib" "${objs[@]}" || return 1
    # test_lzma_dec also links the decoders built with their portable bit
    # decoders and portable_ names (as tests/CMakeLists.txt builds them)
    for s in lzma_dec lzma2_dec; do
        o=$dir/obj/portable_$s.o
        [ "$o" -nt "$ROOT/src/lzma/$s.c" ] && [ "$o" -nt "$newest_h" ] || $cc $CFLAGS -DFZ7_LZMA_NO_ASM -include "$ROOT/tests/unit/lzma_dec_portable.h" \
            -c "$ROOT/src/lzma/$s.c" -o "$o" || return 1
    done
    rm -f "$dir/libportable.a" && ar rcs "$dir/libportable.a" "$dir/obj/portable_lzma_dec.o" "$dir/obj/portable_lzma2_dec.o" || return 1
    $cc $CFLAGS -static "$ROOT/tests/cross/enc_hashes.c" "$lib" -o "$dir/enc_hashes" || return 1
    printf '#include <pthread.h>\nstatic void *f(void *a) { return a; }\nint main(void) { pthread_t t; return pthread_create(&t, 0, f, 0) || pthread_join(t, 0); }\n' \
        >"$dir/thread_probe.c" && $cc -pthread "$dir/thread_probe.c" -o "$dir/thread_probe" || return 1
    for t in $TESTS; do
        # cmocka.h is the same header for every target; the library is the target's
        $cc $CFLAGS -idirafter /usr/include -I"$ROOT/tests/unit" "$ROOT/tests/unit/$t.c" "$dir/libportable.a" "$lib" \
            -L"/usr/lib/$3" -lcmocka -o "$dir/$t" || return 1
    done
}

command -v gcc >/dev/null || { echo "cross.sh: SKIP: no gcc" >&2; exit 77; }
for a in $ARCHES; do
    if ! command -v "$a-linux-gnu-gcc" >/dev/null || ! command -v "qemu-$a" >/dev/null ||
        [ ! -e "/usr/lib/$a-linux-gnu/libcmocka.so" ]; then
        echo "cross.sh: SKIP: $a-linux-gnu-gcc, qemu-$a or libcmocka-dev:$(debarch "$a") missing (run with -i)" >&2
        exit 77
    fi
done

status=0
echo "cross.sh: native reference ($(uname -m))"
build gcc "$OUT/native" x86_64-linux-gnu || exit 1
"$OUT/native/enc_hashes" >"$OUT/native/hashes.txt" || { echo "cross.sh: native enc_hashes failed" >&2; exit 1; }
for a in $ARCHES; do
    dir=$OUT/$a d=$(debarch "$a")
    echo "cross.sh: $a: building"
    build "$a-linux-gnu-gcc" "$dir" "$a-linux-gnu" || { echo "cross.sh: $a: build failed" >&2; status=1; continue; }
    export QEMU_LD_PREFIX=/usr/$a-linux-gnu
    # The loader comes from the cross libc (libc6-$d-cross), but the
    # target's libcmocka pulls in the multiarch libc6:$d, often a newer
    # point release; a libc.so.6 whose private layout differs from its
    # ld.so's hangs the first pthread_create (s390x: "stack smashing
    # detected" at start). The cross libc's folder first keeps the pair.
    libpath="/usr/$a-linux-gnu/lib:/usr/lib/$a-linux-gnu"
    if ! LD_LIBRARY_PATH=$libpath timeout 60 "qemu-$a" "$dir/thread_probe" >/dev/null 2>&1; then
        echo "cross.sh: $a: FAILED: qemu-$a cannot run a dynamically linked program that starts a thread"
        status=1; continue
    fi
    for t in $TESTS; do
        # FZ7_SHARED unset: the tests use generated data (the bench corpus
        # under qemu would take many minutes)
        if env -u FZ7_SHARED LD_LIBRARY_PATH=$libpath timeout 1800 "qemu-$a" "$dir/$t" >"$dir/$t.log" 2>&1; then
            echo "cross.sh: $a: $t: passed ($(grep -c '^\[       OK \]' "$dir/$t.log") tests)"
        else
            echo "cross.sh: $a: $t: FAILED (log: $dir/$t.log)"; status=1
        fi
    done
    if "qemu-$a" "$dir/enc_hashes" >"$dir/hashes.txt" 2>"$dir/enc_hashes.log" &&
        diff "$OUT/native/hashes.txt" "$dir/hashes.txt" >"$dir/hashes.diff"; then
        echo "cross.sh: $a: enc_hashes: $(wc -l <"$dir/hashes.txt") streams byte-identical to $(uname -m)'s"
    else
        echo "cross.sh: $a: enc_hashes: DIFFERENT or failed (see $dir/hashes.diff, $dir/enc_hashes.log)"; status=1
    fi
done
exit $status
