#!/usr/bin/env bash
# Builds the npukit web viewer: a static site (index.html, viewer.js,
# viewer.css, and npukit compiled to WebAssembly with Go's wasm_exec.js) that
# works from file:// or any static host and makes no network request.
# The WebAssembly module is embedded in npukit.wasm.js as base64 of its
# gzip (browsers refuse to fetch files from file:// pages; a script tag
# works everywhere).
# Usage: scripts/build-web.sh [OUTDIR]   (default site/)
# OUTDIR is replaced only if it is empty or a site this script built.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-site}
out=${out%/}
if [ -e "$out" ] && [ ! -f "$out/.npukit-site" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "build-web: $out exists and is not a site built by this script; choose another OUTDIR or remove it" >&2
  exit 2
fi
parent=$(dirname "$out")
mkdir -p "$parent"
tmp=$(mktemp -d "$parent/.npukit-site.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
GOOS=js GOARCH=wasm go build -trimpath -ldflags "-s -w -buildid= -X main.version=${version}" \
  -o "$tmp/npukit.wasm" ./cmd/npukit-wasm
{
  printf 'globalThis.npukitWasmGzip = "'
  gzip -9n <"$tmp/npukit.wasm" | base64 | tr -d '\n'
  printf '";\n'
  # Go's wasm_exec.js again, as base64, for the Web Worker the page runs
  # npukit in (a worker cannot load a script from file://)
  printf 'globalThis.npukitWasmExec = "'
  base64 <"$(go env GOROOT)/lib/wasm/wasm_exec.js" | tr -d '\n'
  printf '";\n'
} >"$tmp/npukit.wasm.js"
wasm_bytes=$(wc -c <"$tmp/npukit.wasm" | tr -d ' ')
rm "$tmp/npukit.wasm"
cp web/index.html web/viewer.js web/viewer.css "$tmp/"
echo "npukit web viewer ${version}" >"$tmp/.npukit-site"
chmod 755 "$tmp"
rm -rf "$out"
mv "$tmp" "$out"
trap - EXIT
echo "site written to $out (wasm ${wasm_bytes} bytes, npukit.wasm.js $(wc -c <"$out/npukit.wasm.js" | tr -d ' ') bytes); open $out/index.html"
