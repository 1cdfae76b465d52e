#!/bin/bash
# Static allocation: npukit against MiniMalloc (Moffitt, ASPLOS 2023) in one run.
#  1. MiniMalloc's "challenging" benchmark (A..K at capacity 1,048,576), each problem run
#     by MiniMalloc and by `npukit alloc`, back to back (interleaved: both see the same
#     load), in three settings: unpinned, pinned to one core (taskset -c 0) and with
#     GOMAXPROCS=1 (MiniMalloc is single-threaded: it runs unpinned there). Wall seconds
#     and peak RSS of each process (reading the file included), the ratio npukit/MiniMalloc,
#     the placement's height and whether it was proven (a placement within the capacity is
#     the proof of a feasibility problem).
#  2. the real compiler traces of ../shared/corpus2/alloc: `npukit alloc --minimize`
#     (seconds, peak RSS, the answer, its gap to the proven lower bound, proven or not), and
#     MiniMalloc asked to place the trace at npukit's answer (--timeout 60s, killed at 90 s;
#     its --minimize_capacity bisects from 0, so its first probe is the live-bytes peak
#     itself, and it found no capacity in 60 s on BERT base or IREE MobileBERT).
# The machine is shared: absolute times are noisy, the ratios within one interleaved run
# are what to compare. npukit's answers do not depend on the load (work budgets), so the
# placement fingerprint printed in step 1 is the same in every setting.
#
# MiniMalloc is built from source when asked: --minimalloc PATH takes a built binary, a
# checkout (a directory with src/solver.cc) or a git directory of google/minimalloc
# (its HEAD is read with git show). The build needs g++, pkg-config and Debian's abseil
# (apt-get install g++ pkg-config libabsl-dev); abseil 20220623 has no absl/log, so the
# build supplies three small headers for it, and reads absl::string_view where one line
# of converter.cc binds std::string_view. Nothing of MiniMalloc is kept in this repository.
# Without --minimalloc only npukit runs.
#
# Usage: bench/alloc.sh [--minimalloc PATH] [--only A,B,...] [--no-traces]
set -eu
cd "$(dirname "$0")/.."
shared=${NPUKIT_SHARED:-../shared}
mm_src=${MINIMALLOC:-}
only=""
traces=1
while [ $# -gt 0 ]; do
  case $1 in
    --minimalloc) mm_src=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --no-traces) traces=0; shift ;;
    *) echo "usage: bench/alloc.sh [--minimalloc PATH] [--only A,B,...] [--no-traces]" >&2; exit 2 ;;
  esac
done
tmp=$(mktemp -d /tmp/npukit-allocbench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/npukit" ./cmd/npukit

# build_minimalloc SRC OUT: compile MiniMalloc's command-line solver from SRC into OUT.
build_minimalloc() {
  local src=$1 out=$2 f
  mkdir -p "$out/src" "$out/shim/absl/log"
  for f in converter.cc converter.h minimalloc.cc minimalloc.h solver.cc solver.h \
           sweeper.cc sweeper.h validator.cc validator.h main.cc; do
    if [ -f "$src/src/$f" ]; then
      cp "$src/src/$f" "$out/src/$f"
    else
      git -C "$src" show "HEAD:src/$f" >"$out/src/$f"
    fi
  done
  if [ ! -f /usr/include/absl/log/log.h ]; then
    cat >"$out/shim/absl/log/log.h" <<'EOF'
#pragma once
#include <iostream>
// absl/log for an abseil without it: LOG prints a line to stderr, DLOG nothing.
struct BenchLogLine {
  ~BenchLogLine() { std::cerr << std::endl; }
  template <class T> BenchLogLine &operator<<(const T &v) { std::cerr << v; return *this; }
  BenchLogLine &operator<<(std::ios_base &(*f)(std::ios_base &)) { std::cerr << f; return *this; }
};
#define LOG(sev) BenchLogLine()
#define DLOG(sev) if (true) {} else BenchLogLine()
EOF
    cat >"$out/shim/absl/log/globals.h" <<'EOF'
#pragma once
#include "absl/base/log_severity.h"
namespace absl {
inline void SetStderrThreshold(absl::LogSeverityAtLeast) {}
inline void EnableLogPrefix(bool) {}
}
EOF
    cat >"$out/shim/absl/log/initialize.h" <<'EOF'
#pragma once
namespace absl { inline void InitializeLog() {} }
EOF
  fi
  sed -i 's/const std::string_view& record/absl::string_view record/' "$out/src/converter.cc"
  for f in "$out"/src/*.cc; do
    g++ -O3 -DNDEBUG -std=c++20 -I"$out/shim" -I"$out/src" -c "$f" -o "${f%.cc}.o"
  done
  # shellcheck disable=SC2046
  g++ -o "$out/minimalloc" "$out"/src/*.o $(pkg-config --libs absl_flags_parse absl_flags \
    absl_statusor absl_status absl_strings absl_time absl_flat_hash_set absl_flat_hash_map absl_btree)
}

mm=""
if [ -n "$mm_src" ]; then
  if [ -f "$mm_src" ] && [ -x "$mm_src" ]; then
    mm=$mm_src
  else
    echo "building MiniMalloc from $mm_src"
    build_minimalloc "$mm_src" "$tmp/mm" >"$tmp/mm.log" 2>&1 || { cat "$tmp/mm.log"; exit 1; }
    mm=$tmp/mm/minimalloc
  fi
fi

# timed OUT ERR CMD...: runs CMD, leaving "seconds peak_KiB" in $tmp/t.
timed() {
  local out=$1 err=$2
  shift 2
  /usr/bin/time -f '%e %M %U %S' -o "$tmp/t" "$@" >"$out" 2>"$err" || true
}
json() { # json FILE KEY: a number or word of npukit's --json output
  tr -d ' \n' <"$1" | sed -n "s/.*\"$2\":\"\{0,1\}\([^,\"}]*\).*/\1/p"
}

ratios="$tmp/ratios"
: >"$ratios"
echo "== 1. MiniMalloc's benchmark at capacity 1,048,576 (interleaved, wall seconds incl. reading)"
printf "%-4s %-11s %9s %8s %9s %8s %7s %7s %7s %10s %-7s %s\n" prob setting mm_s mm_MiB npukit_s npk_MiB ratio mm_cpu npk_cpu height proof placement
for f in "$shared"/benchmarks/minimalloc/*.csv; do
  name=$(basename "$f" | cut -d. -f1)
  if [ -n "$only" ] && ! echo ",$only," | grep -q ",$name,"; then continue; fi
  for setting in unpinned taskset0 gomaxprocs1; do
    case $setting in
      unpinned) pre=(); mmpre=() ;;
      taskset0) pre=(taskset -c 0); mmpre=(taskset -c 0) ;;
      gomaxprocs1) pre=(env GOMAXPROCS=1); mmpre=() ;;
    esac
    mm_s=- mm_m=- mm_c=-
    if [ -n "$mm" ]; then
      timed "$tmp/mm.out" "$tmp/mm.err" "${mmpre[@]}" "$mm" --capacity=1048576 --input="$f" --output=/dev/null --validate
      read -r mm_s mm_k mm_u mm_sy < <(tail -n 1 "$tmp/t")
      mm_c=$(awk -v u="$mm_u" -v s="$mm_sy" 'BEGIN{printf "%.2f", u+s}')
      mm_m=$(awk -v k="$mm_k" 'BEGIN{printf "%.1f", k/1024}')
      grep -q "Validation PASS" "$tmp/mm.err" || mm_s="FAIL"
    fi
    timed "$tmp/np.json" "$tmp/np.err" "${pre[@]}" "$tmp/npukit" --json alloc -o "$tmp/sol.csv" "$f"
    read -r np_s np_k np_u np_sy < <(tail -n 1 "$tmp/t")
    np_c=$(awk -v u="$np_u" -v s="$np_sy" 'BEGIN{printf "%.2f", u+s}')
    np_m=$(awk -v k="$np_k" 'BEGIN{printf "%.1f", k/1024}')
    status=$(json "$tmp/np.json" status)
    height=$(json "$tmp/np.json" height)
    proof=$([ "$status" = solved ] && echo "placed" || echo "$status")
    fp=$( [ -f "$tmp/sol.csv" ] && md5sum <"$tmp/sol.csv" | cut -c1-12 || echo -)
    rm -f "$tmp/sol.csv"
    ratio=-
    if [ "$mm_s" != - ] && [ "$mm_s" != FAIL ]; then
      ratio=$(awk -v a="$np_s" -v b="$mm_s" 'BEGIN{printf "%.3f", a/b}')
      echo "$setting $name $ratio" >>"$ratios"
      # time(1) counts CPU in 10 ms steps: npukit's 0.00 s counts as 5 ms
      # (a ratio of 0 made the geometric mean 0).
      echo "cpu $name $(awk -v a="$np_c" -v b="$mm_c" 'BEGIN{if (a < 0.005) a = 0.005; printf "%.4f", a/b}')" >>"$ratios"
    fi
    printf "%-4s %-11s %9s %8s %9s %8s %7s %7s %7s %10s %-7s %s\n" "$name" "$setting" "$mm_s" "$mm_m" "$np_s" "$np_m" "$ratio" "$mm_c" "$np_c" "$height" "$proof" "$fp"
  done
done
if [ -s "$ratios" ]; then
  echo "ratio = npukit seconds / MiniMalloc seconds in the same setting (0.1 = ten times faster);"
  echo "cpu = npukit's CPU seconds (user+sys, all its threads) / MiniMalloc's: the one-core ratio, less sensitive to load"
  awk '{n[$1]++; l[$1]+=log($3); if ($3>m[$1]) {m[$1]=$3; w[$1]=$2}}
       END{for (s in n) printf "%-12s geomean %.3f  worst %.3f (%s)  over %d problems\n", s, exp(l[s]/n[s]), m[s], w[s], n[s]}' "$ratios"
fi

[ "$traces" = 1 ] || exit 0
echo
echo "== 2. real compiler traces: alloc --minimize (npukit); MiniMalloc placing them at npukit's answer (60 s)"
printf "%-44s %7s %8s %7s %14s %9s %7s %14s %12s %7s %-6s\n" trace buffers mm_s mm_MiB mm_at_answer npukit_s npk_MiB npukit_answer gap gap% proven
for f in "$shared"/corpus2/alloc/*.csv; do
  # Capacity benchmarks (NAME.N.csv, NAME.capN.csv) are not traces.
  if basename "$f" | grep -Eq '\.(cap)?[0-9]+(__[^.]*)?\.csv$'; then continue; fi
  timed "$tmp/np.json" "$tmp/np.err" "$tmp/npukit" --json alloc --minimize "$f"
  read -r np_s np_k _ _ < <(tail -n 1 "$tmp/t")
  buffers=$(json "$tmp/np.json" buffers)
  peak=$(json "$tmp/np.json" peak)
  cap=$(json "$tmp/np.json" capacity)
  lower=$(json "$tmp/np.json" lower_bound)
  [ -n "$lower" ] || lower=$peak
  proven=$(grep -q '"proven": *true' "$tmp/np.json" && echo yes || echo no)
  mm_s=- mm_m=- mm_h=-
  if [ -n "$mm" ]; then
    # Its --timeout does not bound its preprocessing (minutes on 28k buffers): 90 s at most.
    timed "$tmp/mm.out" "$tmp/mm.err" timeout -k 5 90 "$mm" --capacity="$cap" --timeout=60s \
      --input="$f" --output=/dev/null --validate
    read -r mm_s mm_k _ _ < <(tail -n 1 "$tmp/t")
    mm_m=$(awk -v k="$mm_k" 'BEGIN{printf "%.1f", k/1024}')
    mm_h=$(grep -q "Validation PASS" "$tmp/mm.err" && echo placed || echo "no answer")
  fi
  awk -v n="$(basename "$f" .csv)" -v b="$buffers" -v ms="$mm_s" -v mm="$mm_m" -v mh="$mm_h" \
      -v s="$np_s" -v r="$np_k" -v c="$cap" -v l="$lower" -v pr="$proven" \
      'BEGIN{g=c-l; printf "%-44s %7s %8s %7s %14s %9s %7.1f %14s %12.0f %6.3f%% %-6s\n", substr(n,1,44), b, ms, mm, mh, s, r/1024, c, g, 100*g/l, pr}'
done
