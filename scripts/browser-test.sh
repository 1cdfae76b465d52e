#!/usr/bin/env bash
# Browser test of the HTML reports: renders a report of every corpus file
# (../shared, when present) and every demo example, opens each in headless
# Chromium, fails on console errors, exceptions or network requests, checks
# the announced sections and charts, and saves screenshots.
# Usage: scripts/browser-test.sh [OUTDIR]   (default bench/out/browser)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/out/browser}
rm -rf "$out"; mkdir -p "$out/reports" "$out/shots" "$out/demo"
# go test runs in the package directory: hand it absolute paths.
out=$(cd "$out" && pwd)

if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium (needed for the browser test)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq chromium >/dev/null
fi

go build -o "$out/npukit" ./cmd/npukit
"$out/npukit" demo --quiet --dir "$out/demo" >"$out/demo.log"
cp "$out"/demo/*.html "$out/reports/" 2>/dev/null || true

# The corpus: $NPUKIT_SHARED, as the Go tests read it, else ../shared.
shared=${NPUKIT_SHARED:-../shared}
if [ -d "$shared/corpus" ]; then
  # Every file of both corpora (all formats, ZeBu traces, plain TFLite
  # models and the compiler-ground-truth pairs included; golden dumps, logs
  # and notes are not inputs) and every benchmark problem must render: a
  # failure fails the test. A kind without a reporter would be a listed skip.
  while IFS= read -r f; do
    name=$(basename "$f")
    if ! msg=$("$out/npukit" report "$f" -o "$out/reports/corpus-$name.html" 2>&1); then
      case "$msg" in
        *"not supported yet"*) echo "skip (no reporter for its kind): $name" ;;
        *) echo "report failed: $f: $msg" >&2; exit 1 ;;
      esac
    else
      # What inspect (and, for a model, plan) say, beside the report: the
      # browser test matches the graph's nodes and colours against them.
      "$out/npukit" --json inspect "$f" >"$out/reports/corpus-$name.html.inspect.json" 2>/dev/null || true
      case "$name" in
        *.tflite) "$out/npukit" --json edgetpu plan "$f" >"$out/reports/corpus-$name.html.plan.json" 2>/dev/null || rm -f "$out/reports/corpus-$name.html.plan.json" ;;
      esac
    fi
  done < <(find "$shared/corpus" "$shared/corpus2" -type f -not -path '*/golden/*' -not -path '*/goldens/*' \
      -not -path '*/logs/*' -not -path '*/tracer/*' -not -path '*/nki/*' -not -name 'truth.json' \
      -not -name '*.md' -not -name 'README*' -not -name 'LICENSE*' 2>/dev/null | sort)
  # Multi-file reports: every set of pipeline segments (NAME_segment_K_of_N)
  # reported together, as a user reports a pipeline.
  while IFS= read -r f; do
    # shellcheck disable=SC2046 # the glob names the set's files
    if ! msg=$("$out/npukit" report $(echo "$f" | sed 's/_segment_0_of_/_segment_*_of_/') -o "$out/reports/multi-$(basename "$f").html" 2>&1); then
      echo "report failed: set of $f: $msg" >&2; exit 1
    fi
  done < <(find "$shared/corpus" "$shared/corpus2" -type f -name '*_segment_0_of_*.tflite' -not -path '*/golden/*' -not -path '*/goldens/*' 2>/dev/null | sort)
  for f in "$shared"/benchmarks/minimalloc/*.csv; do
    if ! msg=$("$out/npukit" report "$f" -o "$out/reports/bench-$(basename "$f").html" 2>&1); then
      echo "report failed: $f: $msg" >&2; exit 1
    fi
  done
fi

n=$(find "$out/reports" -maxdepth 1 -name '*.html' | wc -l)
echo "browser test: $n reports"
if [ "$n" -eq 0 ]; then
  echo "no reports were produced yet (no format has a reporter): nothing to open"
  exit 0
fi
go test -count=1 -tags browser ./report/browsertest -reports "$out/reports" -shots "$out/shots" -v 2>&1 | grep -E '^(=== RUN|--- |    |ok|FAIL|PASS)' | grep -v '^=== RUN'
echo "screenshots in $out/shots"

# The web viewer (npukit compiled to WebAssembly): one file of every kind
# fed through the page's file input, served over HTTP and from file://.
bash scripts/build-web.sh "$out/site"
go test -count=1 -tags browser ./internal/viewer -site "$out/site" -v 2>&1 | grep -E '^(=== RUN|--- |    |ok|FAIL|PASS)' | grep -v '^=== RUN'
