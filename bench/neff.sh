#!/bin/sh
# NEFF performance (issue 5), each figure a ratio against a baseline run in
# the same invocation, median of RUNS runs each:
#  1. `npukit neff unpack` of the largest corpus NEFF vs `tar -xzf` of its
#     payload (the bytes after the 1024-byte header), each into a fresh
#     directory (goal <= 1.0, limit <= 1.5);
#  2. `npukit inspect --json` of the same file vs `sha256sum` of it
#     (limit <= 2.0). inspect must inflate the whole gzip payload (the
#     corpus NEFFs expand ~9x) while sha256sum reads the compressed bytes
#     once, so the ratio against `tar -xzf` is printed too, for context,
#     with two floors (gzip -dc of the payload; npukit's start-up alone),
#     and the same ratio on a large NEFF (LARGE_MB of incompressible weights).
# Usage: bench/neff.sh [RUNS]   (default 15)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-15}
corpus=${NPUKIT_SHARED:-../shared}/corpus/neff
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/npukit" ./cmd/npukit
big=$(ls -S "$corpus"/*.neff | head -n 1)
size=$(stat -c %s "$big")
tail -c +1025 "$big" >"$tmp/payload.tgz"

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# time_cmd NAME CMD...: runs CMD RUNS times; "@DIR@" in an argument is
# replaced by a fresh empty directory path for each run.
time_cmd() {
  name=$1
  shift
  i=0
  while [ "$i" -lt "$runs" ]; do
    d="$tmp/$name.$i"
    args=""
    for a in "$@"; do
      [ "$a" = "@DIR@" ] && a=$d
      args="$args '$a'"
    done
    case "$name" in tar) mkdir -p "$d" ;; esac
    # gzip -dc warns (exit 2) about the zero padding after the member.
    case "$name" in gunzip) ok="|| true" ;; *) ok="" ;; esac
    t0=$(now); eval "$args >/dev/null 2>/dev/null $ok"; t1=$(now)
    echo $((t1 - t0))
    rm -rf "$d"
    i=$((i + 1))
  done | median
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }

# Warm the page cache.
cat "$big" "$tmp/payload.tgz" >/dev/null
t_unpack=$(time_cmd unpack "$tmp/npukit" neff unpack "$big" -o @DIR@ --quiet)
t_tar=$(time_cmd tar tar -xzf "$tmp/payload.tgz" -C @DIR@)
echo "neff unpack $(basename "$big") ($size B): median $((t_unpack / 1000)) us; tar -xzf of the payload: median $((t_tar / 1000)) us; ratio $(ratio "$t_unpack" "$t_tar") (limit 1.5, goal 1.0)"

t_inspect=$(time_cmd inspect "$tmp/npukit" inspect --json "$big")
t_sha=$(time_cmd sha sha256sum "$big")
echo "inspect --json $(basename "$big"): median $((t_inspect / 1000)) us; sha256sum: median $((t_sha / 1000)) us; ratio $(ratio "$t_inspect" "$t_sha") (limit 2.0)"
echo "inspect --json vs tar -xzf of the payload (context): ratio $(ratio "$t_inspect" "$t_tar")"
t_gunzip=$(time_cmd gunzip gzip -dc "$tmp/payload.tgz")
echo "floor: gzip -dc of the payload alone: median $((t_gunzip / 1000)) us, $(ratio "$t_gunzip" "$t_sha") x sha256sum"
t_start=$(time_cmd version "$tmp/npukit" version)
echo "floor: npukit start-up alone (npukit version): median $((t_start / 1000)) us, $(ratio "$t_start" "$t_sha") x sha256sum"

# Context: the same ratio on a large NEFF, where weights dominate and do not
# compress (the corpus NEFFs are small and inflate 9x, so process start and
# inflate dominate there). Built from the largest corpus NEFF plus a
# LARGE_MB member of random bytes, with npukit's own unpack and pack.
large_mb=${LARGE_MB:-200}
"$tmp/npukit" neff unpack "$big" -o "$tmp/large.d" --quiet >/dev/null
sg=$(find "$tmp/large.d" -mindepth 1 -maxdepth 1 -type d | sort | head -n 1)
head -c $((large_mb * 1000000)) /dev/urandom >"$sg/bench_weights.bin"
"$tmp/npukit" neff pack "$tmp/large.d" -o "$tmp/large.neff" --quiet >/dev/null
rm -rf "$tmp/large.d"
lsize=$(stat -c %s "$tmp/large.neff")
cat "$tmp/large.neff" >/dev/null
runs=$(( runs < 5 ? runs : 5 ))
t_li=$(time_cmd inspect "$tmp/npukit" inspect --json "$tmp/large.neff")
t_ls=$(time_cmd sha sha256sum "$tmp/large.neff")
echo "large NEFF ($lsize B): inspect --json median $((t_li / 1000)) us; sha256sum median $((t_ls / 1000)) us; ratio $(ratio "$t_li" "$t_ls") (limit 2.0)"
