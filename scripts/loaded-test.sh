#!/usr/bin/env bash
# The test suite on a busy machine (issue 32): runs `go test` beside two
# busy loops per core (load about 2 x cores above whatever else runs), so a
# test that leans on wall-clock time (a duration limit, a sleep, a solver
# that must finish before a deadline to give its answer) fails here rather
# than on a shared CI machine. The loops are this script's own children and
# are stopped when it exits, however it exits.
#   bash scripts/loaded-test.sh                 # go test ./...
#   bash scripts/loaded-test.sh ./alloc/ ./cmd/npukit/internal/cli/ -run Alloc
#   LOOPS_PER_CORE=1 bash scripts/loaded-test.sh ./...
# Arguments are passed to go test (default ./...). The corpus is read from
# $NPUKIT_SHARED or ../shared as the tests always do.
set -euo pipefail
cd "$(dirname "$0")/.."

per=${LOOPS_PER_CORE:-2}
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)
pids=()
stop() {
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
}
trap stop EXIT INT TERM

if [ $# -eq 0 ]; then
	set -- ./...
fi
# Build first, unloaded (the build is not what is being tested): the
# last -run wins, so this compiles the test binaries and runs nothing.
go test -count=1 "$@" -run '^$' >/dev/null

for ((i = 0; i < per * cores; i++)); do
	(while :; do :; done) &
	pids+=($!)
done
echo "loaded-test: $((per * cores)) busy loops on $cores cores; load average now $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')" >&2
status=0
go test -count=1 "$@" || status=$?
echo "loaded-test: load average at the end $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" >&2
exit "$status"
