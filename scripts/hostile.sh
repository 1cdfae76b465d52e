#!/usr/bin/env bash
# Bounded-resource harness (issue 23): every reader and command on crafted
# and mutated inputs, each run under an address-space limit (prlimit) and
# a time limit, its peak resident memory (/usr/bin/time) checked against
# the reader's stated bound (README, "Hostile input"). Fails on exit 3, a
# signal, a hang, an out-of-memory crash or a bound exceeded.
#   bash scripts/hostile.sh            # small scale (about a minute)
#   bash scripts/hostile.sh -scale full -v
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./internal/hostile/harness "$@"
