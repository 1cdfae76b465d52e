#!/bin/sh
# Gemini timing simulation: the largest shared schedule (bar 0.2 s) and
# synthetic 64-core schedules of 10k..100k workloads (bar 5 s, linear),
# against a sort of as many keys in the same run. See bench/gemsim/main.go.
set -eu
cd "$(dirname "$0")/.."
exec go run ./bench/gemsim "$@"
