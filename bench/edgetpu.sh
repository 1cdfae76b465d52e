#!/bin/sh
# Edge TPU performance, each figure a ratio against a baseline run in the
# same invocation (issue 4 and issue 8):
#  1. `npukit inspect --json` on the largest corpus model vs `sha256sum` of the
#     same file, median of RUNS runs each (goal <= 1.0, limit <= 2.0), and the
#     peak RSS of inspect against 2x the file size + 30 MiB;
#  2. relayout / link / parse timings of bench/edgetpu/main.go.
# Usage: bench/edgetpu.sh [RUNS]   (default 15)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-15}
corpus=${NPUKIT_SHARED:-../shared}/corpus/edgetpu
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/npukit" ./cmd/npukit
big=$(ls -S "$corpus"/*.tflite | head -n 1)
size=$(stat -c %s "$big")

# Wall time of one command in nanoseconds.
now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_cmd() {
  i=0
  while [ "$i" -lt "$runs" ]; do
    t0=$(now); "$@" >/dev/null; t1=$(now)
    echo $((t1 - t0))
    i=$((i + 1))
  done | median
}
# Warm the page cache.
cat "$big" >/dev/null
t_inspect=$(time_cmd "$tmp/npukit" inspect --json "$big")
t_sha=$(time_cmd sha256sum "$big")
ratio=$(awk -v a="$t_inspect" -v b="$t_sha" 'BEGIN {printf "%.3f", a / b}')
echo "inspect --json $(basename "$big") ($size B): median $((t_inspect / 1000)) us; sha256sum: median $((t_sha / 1000)) us; ratio $ratio (limit 2.0, goal 1.0)"

if [ -x /usr/bin/time ]; then
  rss_kb=$(/usr/bin/time -f %M "$tmp/npukit" inspect --json "$big" 2>&1 >/dev/null | tail -n 1)
  limit_kb=$(( (2 * size) / 1024 + 30 * 1024 ))
  echo "peak RSS of inspect --json: ${rss_kb} KiB (limit 2 x file + 30 MiB = ${limit_kb} KiB)"
else
  echo "peak RSS: /usr/bin/time not installed"
fi

go run ./bench/edgetpu -corpus "$corpus"
