#!/bin/sh
# Static allocation, three measurements in one run:
#  1. the exact solver on MiniMalloc's "challenging" benchmark (A..K at
#     capacity 1,048,576): wall seconds per problem and in total, each
#     placement validated, next to MiniMalloc's own times measured on this
#     machine type (C++ release build, default settings; ../shared/notes/alloc.md);
#  2. the same run pinned to one core (taskset -c 1, default GOMAXPROCS):
#     times must stay within 2x of the unpinned run (scheduler independence);
#  3. `npukit alloc --minimize` on the real compiler traces of ../shared/corpus2/alloc
#     (MiniMalloc-style CSVs from MindSpore SOMAS, IOPDDL, IREE): buffers, live-bytes
#     peak, answer, gap to the best lower bound, proven or not, seconds, peak RSS.
# Usage: bench/alloc.sh [-timeout 10m] [-workers N]   (flags go to step 1 and 2)
set -eu
cd "$(dirname "$0")/.."
shared=${NPUKIT_SHARED:-../shared}
dir=$shared/benchmarks/minimalloc
bin=/tmp/npukit-allocbench.$$
CGO_ENABLED=0 go build -o "$bin" ./bench/alloc
CGO_ENABLED=0 go build -o "$bin.cli" ./cmd/npukit
trap 'rm -f "$bin" "$bin.cli"' EXIT
base="A=6.75,B=5.57,C=0.96,D=4.23,E=6.31,F=9.04,G=1.90,H=2.68,I=5.36,J=1.47,K=0.75"

echo "== 1. MiniMalloc benchmark, all cores"
"$bin" -baseline "$base" "$@" "$dir"/*.csv | tee /tmp/allocbench-free.$$
if command -v taskset >/dev/null 2>&1; then
  echo "== 2. the same, pinned to one core (taskset -c 1)"
  taskset -c 1 "$bin" -baseline "$base" "$@" "$dir"/*.csv | tee /tmp/allocbench-pinned.$$
  free=$(awk '$1=="total"{print $2}' /tmp/allocbench-free.$$)
  pinned=$(awk '$1=="total"{print $2}' /tmp/allocbench-pinned.$$)
  awk -v f="$free" -v p="$pinned" 'BEGIN{printf "pinned / unpinned total: %.2f (limit 2)\n", p/f}'
fi
rm -f /tmp/allocbench-free.$$ /tmp/allocbench-pinned.$$

echo "== 3. real compiler traces: alloc --minimize (60 s limit each)"
printf "%-48s %8s %16s %16s %14s %7s %8s %8s %9s\n" trace buffers peak answer gap gap% proven seconds rss_MiB
for f in "$shared"/corpus2/alloc/*.csv; do
  # Capacity benchmarks (NAME.N.csv, NAME.capN.csv) are not traces.
  if basename "$f" | grep -Eq '\.(cap)?[0-9]+(__[^.]*)?\.csv$'; then continue; fi
  start=$(date +%s.%N)
  out=$( { /usr/bin/time -f 'rss=%M' "$bin.cli" --json alloc --minimize --timeout 60 "$f" >/tmp/allocbench-out.$$; } 2>&1 || true)
  end=$(date +%s.%N)
  j=$(tr -d ' \n' </tmp/allocbench-out.$$)
  num() { echo "$j" | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }
  buffers=$(num buffers); peak=$(num peak); cap=$(num capacity); lower=$(num lower_bound)
  proven=$(echo "$j" | grep -q '"proven":true' && echo yes || echo no)
  [ -n "$lower" ] || lower=$peak
  rss=$(echo "$out" | sed -n 's/.*rss=\([0-9]*\).*/\1/p')
  awk -v n="$(basename "$f")" -v b="$buffers" -v p="$peak" -v c="$cap" -v l="$lower" -v pr="$proven" \
      -v s="$start" -v e="$end" -v r="$rss" 'BEGIN{g=c-l; printf "%-48s %8s %16s %16s %14.0f %6.2f%% %8s %8.2f %9.1f\n", n, b, p, c, g, 100*g/l, pr, e-s, r/1024}'
done
rm -f /tmp/allocbench-out.$$
