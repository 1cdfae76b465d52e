#!/usr/bin/env bash
# QA sweep over the shared corpus, as a new user would run npukit: every
# top-level command (inspect, check, sim, report, each with and without
# --json where it has one) on every file under corpus, corpus2, corpus3, hw
# and benchmarks, then the kind-specific tools (neff dma, edgetpu plan,
# memory and dma, gemini realloc, alloc --from, alloc and alloc --minimize
# with a small --timeout, nki inspect/check/sim/report on every manifest
# entry) and diff of neighbouring files of one extension.
#
# It fails (exit 1) on what is a bug whatever the file: exit 3, a panic or
# "internal error", output that is not JSON under --json, a plural after a
# count of one ("1 errors") or thousands separators mixed within one text
# output ("1,530,664" beside "1128059"; humanize.Lint). It lists, without
# failing, what needs a look: runs over 20 s of CPU time, bandwidths not
# in GB/s and counts of four digits or more without thousands separators
# (humanize.BareCounts). Exit 2 on a file that is not an artifact is
# expected (READMEs, goldens, logs) and only counted.
#   bash scripts/sweep.sh [OUTDIR]        # default bench/out/sweep; about 10 min on 2 cores
# Environment: NPUKIT_SHARED (default ../shared), NPUKIT (a built binary; default: build one).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-bench/out/sweep}
mkdir -p "$out"
out=$(cd "$out" && pwd)
shared=${NPUKIT_SHARED:-../shared}
[ -d "$shared/corpus" ] || { echo "sweep: no corpus at $shared (set NPUKIT_SHARED)" >&2; exit 2; }
shared=$(cd "$shared" && pwd)
bin=${NPUKIT:-}
if [ -z "$bin" ]; then
	bin=$out/npukit
	CGO_ENABLED=0 go build -o "$bin" ./cmd/npukit || exit 2
fi
runs=$out/runs.tsv
: >"$runs"
n=0

# run LABEL ARGS...: one command, its exit code and CPU seconds in runs.tsv.
run() {
	local label=$1
	shift
	n=$((n + 1))
	local o=$out/$n
	/usr/bin/time -f '%U %S' -o "$o.time" timeout 300 "$bin" "$@" >"$o.out" 2>"$o.err" </dev/null
	local rc=$?
	local cpu
	cpu=$(awk '{print $1 + $2}' "$o.time" 2>/dev/null | tail -1)
	printf '%s\t%s\t%s\t%s\n' "$n" "$rc" "${cpu:-0}" "$label" >>"$runs"
}

cd "$shared"
files=$(find corpus corpus2 corpus3 hw benchmarks -type f 2>/dev/null | sort)
for f in $files; do
	for c in inspect check sim; do
		run "$c $f" "$c" "$f"
		run "$c --json $f" "$c" --json "$f"
	done
	run "report $f" report "$f" -o "$out/report.html"
done
for f in $(find corpus corpus2 corpus3 hw 2>/dev/null -name '*.neff' | sort); do
	run "neff dma $f" neff dma "$f"
	run "neff dma --json $f" --json neff dma "$f"
done
for f in $(find corpus corpus2 corpus3 hw 2>/dev/null -name '*.tflite' | sort); do
	for c in plan memory dma; do
		run "edgetpu $c $f" edgetpu "$c" "$f"
		run "edgetpu $c --json $f" --json edgetpu "$c" "$f"
	done
done
for f in $(find corpus/gemini corpus2/gemini 2>/dev/null -maxdepth 1 -name '*.json' | sort); do
	run "gemini realloc $f" gemini realloc "$f" --timeout 10
	run "alloc --from $f" alloc --from "$f" --budget 5s
done
for f in $(find benchmarks corpus2/alloc 2>/dev/null -name '*.csv' | sort); do
	run "alloc $f" alloc "$f" --timeout 10s
	run "alloc --minimize $f" alloc --minimize "$f" --timeout 10s
done
for m in corpus2/nki/manifest.json corpus3/nki/manifest.json; do
	[ -f "$m" ] || continue
	for e in $(python3 -c "import json,sys; [print(x['id']) for x in json.load(open(sys.argv[1]))['entries']]" "$m"); do
		for c in inspect check sim; do
			run "nki $c $e" nki "$c" --manifest "$m" --entry "$e"
			run "nki $c --json $e" --json nki "$c" --manifest "$m" --entry "$e"
		done
		run "nki report $e" nki report --manifest "$m" --entry "$e" -o "$out/nki.html"
	done
done
for d in $(find corpus corpus2 corpus3 hw -type d 2>/dev/null | sort); do
	for ext in neff ntff tflite json; do
		prev=
		for f in $(find "$d" -maxdepth 1 -name "*.$ext" | sort); do
			[ -n "$prev" ] && run "diff $prev $f" diff "$prev" "$f"
			prev=$f
		done
	done
done
cd "$root"

# Summary.
bad=0
echo "sweep: $n runs in $out ($(cut -f2 "$runs" | sort | uniq -c | awk '{printf "%s exit %s; ", $1, $2}'))"
while IFS=$'\t' read -r i rc cpu label; do
	why=
	[ "$rc" = 3 ] && why="exit 3"
	[ "$rc" = 124 ] && why="timeout (300 s)"
	grep -qiE 'panic|internal error|goroutine [0-9]' "$out/$i.err" && why="${why:+$why, }panic or internal error"
	case "$label" in *--json*)
		if [ -s "$out/$i.out" ] && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$out/$i.out" 2>/dev/null; then
			why="${why:+$why, }--json output is not JSON"
		fi ;;
	esac
	if [ -n "$why" ]; then
		echo "BUG   $why: npukit $label (output $out/$i.*)"
		bad=1
	fi
	awk -v c="$cpu" 'BEGIN {exit !(c > 20)}' && echo "SLOW  ${cpu}s CPU: npukit $label"
	m=$(grep -ohE '[0-9] ?(MB/s|MiB/s|GiB/s|Gb/s|Mb/s)' "$out/$i.out" | head -1)
	[ -n "$m" ] && echo "LOOK  bandwidth unit '$m': npukit $label"
done <"$runs"
# Plurals after a count of one and thousands separators mixed within one
# output, in every text output (humanize.Lint, the rules Count and Plural
# keep): each is a bug.
if ! (cd "$root" && NPUKIT_SWEEP=$out go test -count=1 -run '^TestSweepOutputs$' ./internal/humanize >"$out/lint.log" 2>&1); then
	grep -E '^\s+sweep_test.go:[0-9]+: ' "$out/lint.log" | grep -v ' outputs linted$' | sed -E 's/^\s+sweep_test.go:[0-9]+: /BUG   /'
	grep -qE '^\s+sweep_test.go:[0-9]+: ' "$out/lint.log" || cat "$out/lint.log"
	bad=1
fi
# Counts of four digits or more written without separators
# (humanize.BareCounts): not failing, what is left to convert to Count.
(cd "$root" && NPUKIT_SWEEP=$out go test -count=1 -v -run '^TestSweepBareCounts$' ./internal/humanize >"$out/bare.log" 2>&1)
grep -E '^\s+sweep_test.go:[0-9]+: bare counts ' "$out/bare.log" | sed -E 's/^\s+sweep_test.go:[0-9]+: /LOOK  /'
exit $bad
