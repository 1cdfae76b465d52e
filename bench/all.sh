#!/usr/bin/env bash
# Runs every benchmark script of the project once, in turn, and keeps each
# one's output under bench/out/<name>.log. These are the measurements the
# issues name (ratios against a baseline run in the same invocation); they
# take minutes and are not part of CI.
# Usage: bench/all.sh            (every bench/*.sh)
#        bench/all.sh neff alloc (only those)
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/out
if [ $# -gt 0 ]; then names=("$@"); else
  names=(); for f in bench/*.sh; do n=$(basename "$f" .sh); [ "$n" = all ] || names+=("$n"); done
fi
failed=()
for n in "${names[@]}"; do
  echo "=== bench/$n.sh"
  if ! bash "bench/$n.sh" 2>&1 | tee "bench/out/$n.log"; then failed+=("$n"); fi
done
if [ ${#failed[@]} -gt 0 ]; then echo "failed: ${failed[*]}" >&2; exit 1; fi
echo "all benchmarks ran; logs in bench/out/"
