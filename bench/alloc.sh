#!/bin/sh
# The exact allocation solver on MiniMalloc's "challenging" benchmark (A..K at
# capacity 1,048,576): one solve per problem, wall seconds per problem and in
# total, each placement validated, next to MiniMalloc's own times measured on
# this machine type (C++ release build, default settings; see
# ../shared/notes/alloc.md). Usage: bench/alloc.sh [-timeout 10m] [-workers N]
set -eu
cd "$(dirname "$0")/.."
dir=${NPUKIT_SHARED:-../shared}/benchmarks/minimalloc
go build -o /tmp/npukit-allocbench.$$ ./bench/alloc
trap 'rm -f /tmp/npukit-allocbench.$$' EXIT
/tmp/npukit-allocbench.$$ -baseline "A=6.75,B=5.57,C=0.96,D=4.23,E=6.31,F=9.04,G=1.90,H=2.68,I=5.36,J=1.47,K=0.75" "$@" "$dir"/*.csv
