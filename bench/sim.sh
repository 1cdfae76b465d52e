#!/bin/sh
# Discrete-event engine and trace writer on synthetic graphs (10k..1M tasks),
# against a sort of as many keys in the same run. See bench/sim/main.go.
set -eu
cd "$(dirname "$0")/.."
exec go run ./bench/sim "$@"
