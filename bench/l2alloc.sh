#!/bin/sh
# Gemini L2 re-allocation (issue 7, point 3): per compiler-IR corpus file,
# the minimal L2 per core against the file's own extent, the minimisation's
# solve time (exact probes included) and the whole command's wall time as a
# ratio against `npukit check` of the same file (read + every invariant) run
# in the same invocation, median of RUNS runs each.
# Usage: bench/l2alloc.sh [RUNS] [TIMEOUT]   (defaults 5, 10s per probe)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-5}
timeout=${2:-10s}
corpus=${NPUKIT_SHARED:-../shared}/corpus/gemini
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/npukit" ./cmd/npukit

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_cmd() {
  i=0
  while [ "$i" -lt "$runs" ]; do
    t0=$(now); "$@" >/dev/null || true; t1=$(now)
    echo $((t1 - t0))
    i=$((i + 1))
  done | median
}
# One JSON number field of the first core.
field() { grep -o "\"$1\": *[0-9]*" "$2" | head -n 1 | sed 's/.*: *//'; }
status() { grep -o '"status": *"[^"]*"' "$1" | head -n 1 | sed 's/.*: *"//; s/"$//'; }

printf '%-58s %10s %10s %10s %7s %-11s %10s %10s %10s %6s\n' file file_ext live_peak min_L2 saved status solve_ms realloc_ms check_ms ratio
total_solve=0
for f in "$corpus"/*.json; do
  "$tmp/npukit" gemini realloc --json --timeout "$timeout" --budget 0 "$f" > "$tmp/out.json" 2>/dev/null || true
  ext=$(field file_extent_bytes "$tmp/out.json")
  [ -n "$ext" ] || { printf '%-58s %s\n' "$(basename "$f")" "no addresses (raw IR): skipped"; continue; }
  live=$(field live_peak_bytes "$tmp/out.json")
  min=$(field min_capacity_bytes "$tmp/out.json")
  st=$(status "$tmp/out.json")
  us=$(grep -o '"solve_us": *[0-9]*' "$tmp/out.json" | sed 's/.*: *//' | awk '{s+=$1} END {print s}')
  total_solve=$((total_solve + us))
  t_re=$(time_cmd "$tmp/npukit" gemini realloc --json --timeout "$timeout" --budget 0 "$f")
  t_ck=$(time_cmd "$tmp/npukit" check "$f")
  awk -v n="$(basename "$f")" -v e="$ext" -v l="$live" -v m="$min" -v s="$st" -v us="$us" -v a="$t_re" -v b="$t_ck" 'BEGIN {
    printf "%-58s %10d %10d %10d %6.1f%% %-11s %10.3f %10.1f %10.1f %6.2f\n", n, e, l, m, 100 * (e - m) / e, s, us / 1000, a / 1e6, b / 1e6, a / b }'
done
awk -v t="$total_solve" 'BEGIN { printf "total solve time: %.3f ms (one run each; sizes in bytes; ratio = realloc wall / check wall)\n", t / 1000 }'

# What the tighter L2 costs in time: `npukit sim --prefetch hazard` (DRAM
# loads held only by address write-after-read hazards) of the file, of its
# minimal-L2 rewrite and of its --prefetch file and --prefetch all rewrites.
printf '\n%-58s %12s %12s %8s %12s %8s %10s %12s %8s %10s\n' file file_cycles min_cycles ratio pfile_cycles ratio pfile_L2 pall_cycles ratio pall_L2
for f in "$corpus"/*.json; do
  "$tmp/npukit" gemini realloc -q --timeout "$timeout" --budget 0 --rewrite "$tmp/min.json" "$f" >/dev/null 2>&1 || continue
  "$tmp/npukit" gemini realloc -q --json --prefetch file --timeout "$timeout" --budget 0 --rewrite "$tmp/pfile.json" "$f" > "$tmp/pfile.out" 2>/dev/null || continue
  "$tmp/npukit" gemini realloc -q --json --prefetch all --timeout "$timeout" --budget 0 --rewrite "$tmp/pre.json" "$f" > "$tmp/pre.out" 2>/dev/null || continue
  c0=$(field total_cycles "$("$tmp/npukit" sim --prefetch hazard --json "$f" > "$tmp/s0"; echo "$tmp/s0")")
  c1=$(field total_cycles "$("$tmp/npukit" sim --prefetch hazard --json "$tmp/min.json" > "$tmp/s1"; echo "$tmp/s1")")
  c2=$(field total_cycles "$("$tmp/npukit" sim --prefetch hazard --json "$tmp/pre.json" > "$tmp/s2"; echo "$tmp/s2")")
  c3=$(field total_cycles "$("$tmp/npukit" sim --prefetch hazard --json "$tmp/pfile.json" > "$tmp/s3"; echo "$tmp/s3")")
  awk -v n="$(basename "$f")" -v a="$c0" -v b="$c1" -v c="$c2" -v l="$(field min_capacity_bytes "$tmp/pre.out")" \
      -v d="$c3" -v m="$(field min_capacity_bytes "$tmp/pfile.out")" 'BEGIN {
    printf "%-58s %12d %12d %8.4f %12d %8.4f %10d %12d %8.4f %10d\n", n, a, b, b / a, d, d / a, m, c, c / a, l }'
done
