#!/bin/sh
# NEFF DMA executor and timed DMA simulation: copy descriptors moving 256 MiB
# (bare, and as a built NEFF's DMA program) against a plain 256 MiB copy in
# the same run, and simulating one million descriptors. See bench/neffdma/main.go.
set -eu
cd "$(dirname "$0")/.."
exec go run ./bench/neffdma "$@"
