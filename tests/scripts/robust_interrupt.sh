#!/usr/bin/env bash
# robust_interrupt.sh - interrupted writes: `fz7 a` killed by SIGINT,
# SIGTERM or SIGHUP while it writes (input from a pipe held open, so the
# kill lands mid-archive), `fz7 a` and `fz7 x` stopped by a file size
# limit (EFBIG), `fz7 x` killed while it writes a large file: no archive or
# file is left under its final name, an existing archive is left as it
# was, no temporary file remains, and the errors exit 2 with a message.
set -u
. "$(dirname "$0")/lib.sh"
t_init xz

temps() { find . -name '*.fz7tmp*' -o -name '.fz7-*.tmp' | LC_ALL=C sort | tr '\n' ' '; }
# wait_for GLOB: up to 10 s for a file matching GLOB (in .) to appear.
wait_for() {
    local i
    for i in $(seq 1 200); do
        compgen -G "$1" >/dev/null && return 0
        sleep 0.05
    done
    return 1
}

mkdir src
for i in $(seq 1 40); do seq $i 3 30000 | sha256sum; done >src/small.txt
head -c 1048576 /dev/urandom >src/random.bin
"$FZ7" a old.7z src/small.txt >/dev/null || { echo "FAIL: fz7 a"; exit 1; }
cp old.7z old.7z.orig

# --- 1. a killed mid-write: new archive, and an update of an old one ---
for sig in INT TERM HUP; do
    for target in new.7z new.xz old.7z; do
        rm -f fifo && mkfifo fifo
        "$FZ7" a -si"piped.bin" "$target" <fifo >out.txt 2>err.txt &
        pid=$!
        exec 3>fifo
        head -c 300000 src/random.bin >&3          # some data, then the pipe stays open
        if wait_for "$target.fz7tmp*"; then
            kill -s "$sig" "$pid"
            exec 3>&-
            { wait "$pid"; } 2>/dev/null
            rc=$?
            [ "$rc" = 255 ] && ok || bad "a $target stopped by SIG$sig: exit $rc, want 255 as 7zz"
            grep -qx 'Break signaled' err.txt && ok || bad "a $target stopped by SIG$sig: no 'Break signaled' line"
            same=$( [ "$target" = old.7z ] && cmp -s old.7z old.7z.orig && echo kept ||
                    { [ -e "$target" ] && echo exists || echo absent; } )
            want=$( [ "$target" = old.7z ] && echo kept || echo absent )
            [ "$same" = "$want" ] && ok || bad "a $target killed by SIG$sig: archive $same, want $want"
            [ -z "$(temps)" ] && ok || bad "a $target killed by SIG$sig: left $(temps)"
        else
            exec 3>&-
            wait "$pid"
            bad "a $target: no temporary file $target.fz7tmp* appeared"
        fi
        rm -f new.7z new.xz
    done
done

# --- 2. a and x against a file size limit (SIGXFSZ ignored: EFBIG) ---
# (a zip's PPMd encoder is freed when its entry fails: ASan's leak check)
for target in big.7z big.xz big.zip; do
    src=src/random.bin; [ "$target" = big.7z ] && src=src
    m=; [ "$target" = big.zip ] && m=-mm=PPMd
    (ulimit -f 256 && exec "$FZ7" a -mx1 $m "$target" "$src") >out.txt 2>err.txt </dev/null
    rc=$?
    [ "$rc" = 2 ] && ok || bad "a $target over ulimit -f: exit $rc, want 2"
    grep -q . err.txt && ok || bad "a $target over ulimit -f: no message"
    [ ! -e "$target" ] && [ -z "$(temps)" ] && ok || bad "a $target over ulimit -f: left $(ls "$target" 2>/dev/null) $(temps)"
done
"$FZ7" a -mx1 both.7z src/random.bin src/small.txt >/dev/null || bad "fz7 a both.7z"
rm -rf x1
(ulimit -f 256 && exec "$FZ7" x both.7z -ox1) >out.txt 2>err.txt </dev/null
rc=$?
[ "$rc" = 2 ] && ok || bad "x over ulimit -f: exit $rc, want 2"
grep -q "random.bin" err.txt && ok || bad "x over ulimit -f: the message names random.bin"
[ ! -e x1/src/random.bin ] && ok || bad "x over ulimit -f: random.bin left under its final name"
# (a write error ends the extraction, as 7zz does; 7zz leaves the cut file)
[ -z "$(temps)" ] && ok || bad "x over ulimit -f: left $(temps)"

# --- 3. x killed while it writes a large file ---
head -c 300000000 /dev/zero | xz -0 -T1 >zeros.xz
set -m   # else bash starts background jobs with SIGINT ignored
for sig in INT TERM; do
    rm -rf x2 && mkdir x2
    "$FZ7" x zeros.xz -ox2 >out.txt 2>err.txt </dev/null &
    pid=$!
    if wait_for "x2/.fz7-*.tmp"; then
        kill -s "$sig" "$pid"
        { wait "$pid"; } 2>/dev/null
        rc=$?
        if [ "$rc" = 0 ]; then
            echo "note: x finished before SIG$sig arrived; nothing to check"
        else
            [ "$rc" = 255 ] && ok || bad "x stopped by SIG$sig: exit $rc, want 255 as 7zz"
            grep -qx 'Break signaled' err.txt && ok || bad "x stopped by SIG$sig: no 'Break signaled' line"
            [ -z "$(ls -A x2)" ] && ok || bad "x killed by SIG$sig: left $(ls -A x2)"
        fi
    else
        wait "$pid"
        echo "note: x finished before its temporary file was seen; nothing to check"
    fi
done
set +m

# --- 4. x and t stopped by a SIGINT that came in ignored (a script's
# background job: bash ignores SIGINT there), as 7zz stops: each waits
# on a pipe that gives a part of the stream, then nothing for 5 s ---
for cmd in "x -ox3" t; do
    rm -rf x3 && mkdir x3
    (head -c 100000 zeros.xz; sleep 5) |
        bash -c "trap '' INT; exec \"$FZ7\" $cmd -si -txz" >out.txt 2>err.txt &
    pid=$!
    sleep 1
    kill -s INT "$pid"
    { wait "$pid"; } 2>/dev/null
    rc=$?
    [ "$rc" = 255 ] && ok || bad "$cmd -si with SIGINT ignored, then sent: exit $rc, want 255 as 7zz"
    grep -qx 'Break signaled' err.txt && ok || bad "$cmd -si with SIGINT ignored, then sent: no 'Break signaled' line"
done

t_summary robust_interrupt.sh
