#!/bin/sh
# `npukit nki check` (read the kernel and its helper modules, trace, lower
# to the plan model, run every check) on every entry of the NKI corpus
# manifest, best of 5 runs each (process start included), listed by kernel
# file size: wall time and CPU time (user + system; the machine is shared, so
# CPU time is the figure that does not depend on the load); the issue's target: the largest corpus kernel reads
# and checks in under 100 ms. An entry the tracer refuses (exit 2) is timed
# to its refusal and marked so. `nki inspect` (trace only) is the baseline
# of the same run. With NPUKIT_BASE=REV (a git revision) the same run also
# times `nki check` of that revision's build, for before/after figures
# measured under the same load.
# Usage: [NPUKIT_BASE=REV] bench/nki.sh [MANIFEST]
set -eu
cd "$(dirname "$0")/.."
shared=${NPUKIT_SHARED:-../shared}
manifest=${1:-$shared/corpus2/nki/manifest.json}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Built as releases are (scripts/release.sh): static, CGO_ENABLED=0. With a C
# compiler present, a plain build links libc dynamically (for package net's
# resolver and os/user), and the dynamic loader adds several ms to each run.
CGO_ENABLED=0 go build -o "$tmp/npukit" ./cmd/npukit
base=${NPUKIT_BASE:-}
if [ -n "$base" ]; then
	mkdir "$tmp/base"
	git archive "$base" | tar -x -C "$tmp/base"
	(cd "$tmp/base" && CGO_ENABLED=0 go build -o "$tmp/npukit-base" ./cmd/npukit)
fi

best() { # best wall ms and best CPU ms (user+sys) of 5 runs of "$@"
	bw=""; bc=""
	for _ in 1 2 3 4 5; do
		s=$(date +%s%N)
		/usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > /dev/null 2>&1 || true
		e=$(date +%s%N)
		w=$(( (e - s) / 1000000 ))
		c=$(awk '{printf "%d", ($1 + $2) * 1000}' "$tmp/time")
		if [ -z "$bw" ] || [ "$w" -lt "$bw" ]; then bw=$w; fi
		if [ -z "$bc" ] || [ "$c" -lt "$bc" ]; then bc=$c; fi
	done
	echo "$bw/$bc"
}

dir=$(dirname "$manifest")
python3 - "$manifest" > "$tmp/entries" <<'PY'
import json, os, sys
m = json.load(open(sys.argv[1]))
d = os.path.dirname(sys.argv[1])
rows = [(os.path.getsize(os.path.join(d, e["file"])), e["id"]) for e in m["entries"]]
for size, ident in sorted(rows, reverse=True):
    print(size, ident)
PY
echo "times are wall/CPU ms, best of 5"
if [ -n "$base" ]; then
	printf '%-48s %9s %12s %12s %12s %s\n' entry "file B" "inspect ms" "check ms" "base check" status
else
	printf '%-48s %9s %12s %12s %s\n' entry "file B" "inspect ms" "check ms" status
fi
worst=0
worstid=""
largest=""
while read -r size id; do
	"$tmp/npukit" nki check --manifest "$manifest" --entry "$id" > /dev/null 2>&1 && rc=0 || rc=$?
	case $rc in 0) st=clean ;; 1) st=findings ;; 2) st=refused ;; *) st="exit $rc" ;; esac
	ti=$(best "$tmp/npukit" nki inspect --manifest "$manifest" --entry "$id")
	tc=$(best "$tmp/npukit" nki check --manifest "$manifest" --entry "$id")
	ms=${tc#*/}
	if [ -n "$base" ]; then
		tb=$(best "$tmp/npukit-base" nki check --manifest "$manifest" --entry "$id")
		printf '%-48s %9d %12s %12s %12s %s\n' "$id" "$size" "$ti" "$tc" "$tb" "$st"
	else
		tb=""
		printf '%-48s %9d %12s %12s %s\n' "$id" "$size" "$ti" "$tc" "$st"
	fi
	if [ -z "$largest" ]; then
		largest="largest kernel: $id ($size B): check ${ms} ms CPU${tb:+, base ${tb#*/} ms} (target < 100 ms)"
	fi
	if [ "$ms" -gt "$worst" ]; then worst=$ms; worstid=$id; fi
done < "$tmp/entries"
echo "$largest"
echo "slowest check: $worstid ${worst} ms CPU"
