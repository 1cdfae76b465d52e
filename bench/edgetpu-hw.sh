#!/bin/sh
# Edge TPU latency model against the published measurements of
# ../shared/hw/edgetpu (issue 36): one line per row with the host class,
# model, measured and predicted milliseconds and their ratio, then the
# count within ±25%; and sim vs plan on the uncompiled/compiled twins.
# Usage: bench/edgetpu-hw.sh
set -eu
cd "$(dirname "$0")/.."
export NPUKIT_SHARED=${NPUKIT_SHARED:-$(cd .. && pwd)/shared}
go test ./edgetpu/ -run 'TestLatencyCalibration|TestLatencySimPlanAgree' -count=1 -v |
  sed -n 's/^ *latency_calib_test.go:[0-9]*: //p'
