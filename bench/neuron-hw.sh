#!/bin/sh
# NeuronCore cost model against hardware: every published measurement of
# $NPUKIT_SHARED/hw/neuron (nki sim) and every captured NEFF of
# $NPUKIT_SHARED/corpus3/ntff (sim --json, total_ns), with measured,
# predicted and ratio. See bench/neuronhw/main.go.
set -eu
cd "$(dirname "$0")/.."
if [ -z "${NPUKIT_SHARED:-}" ]; then
	for d in ../shared ../../shared; do
		[ -d "$d/hw" ] && NPUKIT_SHARED=$(cd "$d" && pwd) && break
	done
fi
export NPUKIT_SHARED
exec go run ./bench/neuronhw "$@"
