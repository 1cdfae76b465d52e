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
#        BASE_REV=REV bench/neff.sh [RUNS]   (also new/old against npukit built at REV)
set -eu
cd "$(dirname "$0")/.."
runs=${1:-15}
corpus=${NPUKIT_SHARED:-../shared}/corpus/neff
[ -d "$corpus" ] || { echo "no corpus at $corpus" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/npukit" ./cmd/npukit
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

# Against an earlier npukit (BASE_REV=<git revision>, e.g. the last commit
# before the NEFF generations work): the same commands with both binaries,
# alternating run by run so load on a shared machine hits both alike. The
# figure is new/old (1.0 = unchanged, below 1 = faster); CPU time (user+sys
# of the child) is printed beside wall time because it is far less
# sensitive to other work on the machine.
base=${BASE_REV:-}
[ -n "$base" ] || exit 0
mkdir -p "$tmp/basesrc"
git archive "$base" | tar -x -C "$tmp/basesrc"
(cd "$tmp/basesrc" && CGO_ENABLED=0 go build -o "$tmp/npukit-base" ./cmd/npukit)
runs=${1:-15}
# pair NAME ARGS...: "@BIN@" is replaced by each binary, "@DIR@" by a fresh
# directory (NAME only labels the call); prints "wall_new cpu_new wall_old cpu_old" in us
# (wall: median; cpu: mean).
pair() {
  shift
  i=0
  while [ "$i" -lt "$runs" ]; do
    for which in new base; do
      bin="$tmp/npukit"; [ "$which" = base ] && bin="$tmp/npukit-base"
      d="$tmp/pair.$i.$which"
      args=""
      for a in "$@"; do
        [ "$a" = "@DIR@" ] && a=$d
        [ "$a" = "@BIN@" ] && a=$bin
        args="$args '$a'"
      done
      t0=$(now)
      eval "/usr/bin/time -o '$tmp/cpu' -f '%U %S' $args >/dev/null 2>/dev/null" || true
      t1=$(now)
      cpu=$(awk 'END {printf "%d", ($1 + $2) * 1000000}' "$tmp/cpu")
      echo "$which $(( (t1 - t0) / 1000 )) $cpu"
      rm -rf "$d"
    done
    i=$((i + 1))
  done >"$tmp/pair.out"
  for which in new base; do
    w=$(awk -v w="$which" '$1 == w {print $2}' "$tmp/pair.out" | median)
    # /usr/bin/time counts CPU in 10 ms steps: the mean over the runs
    # resolves finer than the median would.
    c=$(awk -v w="$which" '$1 == w {s += $3; n++} END {printf "%d", s / n}' "$tmp/pair.out")
    printf '%s %s ' "$w" "$c"
  done
}
report_pair() {
  name=$1
  set -- $2
  echo "$name: wall $(ratio "$1" "$3") x ($1 vs $3 us), cpu $(ratio "$2" "$4") x ($2 vs $4 us) against $base"
}
[ -x /usr/bin/time ] || { echo "BASE_REV needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
report_pair "neff unpack $(basename "$big")" "$(pair unpack @BIN@ neff unpack "$big" -o @DIR@ --quiet)"
report_pair "inspect --json $(basename "$big")" "$(pair inspect @BIN@ inspect --json "$big")"
report_pair "check $(basename "$big")" "$(pair check @BIN@ check "$big")"
runs=$(( runs < 5 ? runs : 5 ))
report_pair "inspect --json large NEFF" "$(pair inspect @BIN@ inspect --json "$tmp/large.neff")"
