#!/usr/bin/env bash
# Browser test of the HTML reports: renders a report of every corpus file
# (corpus, corpus2, corpus3 and hw of $NPUKIT_SHARED or ../shared, when
# present; profiler summaries and measured-time tables are ground truth,
# not inputs) and every demo example, opens each in headless
# Chromium, fails on console errors, exceptions or network requests, checks
# the announced sections and charts, and saves screenshots.
# Usage: scripts/browser-test.sh [OUTDIR]   (default bench/out/browser)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-bench/out/browser}
rm -rf "$out"; mkdir -p "$out/reports" "$out/reports-nki" "$out/shots" "$out/demo"
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
  done < <(find "$shared/corpus" "$shared/corpus2" "$shared/corpus3" "$shared/hw" -type f -not -path '*/golden/*' -not -path '*/goldens/*' \
      -not -path '*/logs/*' -not -path '*/tracer/*' -not -path '*/nki/*' -not -path '*/kernels/*' -not -name 'truth.json' \
      -not -name 'truth.csv' -not -name 'measurements.csv' -not -name '*_profile_full.json' -not -name '*.txt' \
      -not -name '*.md' -not -name 'README*' -not -name 'LICENSE*' 2>/dev/null | sort)
  # Multi-file reports: every set of pipeline segments (NAME_segment_K_of_N)
  # reported together, as a user reports a pipeline.
  while IFS= read -r f; do
    # shellcheck disable=SC2046 # the glob names the set's files
    if ! msg=$("$out/npukit" report $(echo "$f" | sed 's/_segment_0_of_/_segment_*_of_/') -o "$out/reports/multi-$(basename "$f").html" 2>&1); then
      echo "report failed: set of $f: $msg" >&2; exit 1
    fi
  done < <(find "$shared/corpus" "$shared/corpus2" "$shared/corpus3" "$shared/hw" -type f -name '*_segment_0_of_*.tflite' -not -path '*/golden/*' -not -path '*/goldens/*' 2>/dev/null | sort)
  # Every NEFF with its capture (report --measured: the predicted and
  # measured timelines one above the other), as truth.csv pairs them.
  t="$shared/corpus3/ntff/truth.csv"
  if [ -f "$t" ]; then
    while IFS=, read -r neff ntff _; do
      d=$(dirname "$t")
      if ! msg=$("$out/npukit" report "$d/$neff" --measured "$d/$ntff" -o "$out/reports/measured-$neff.html" 2>&1); then
        echo "report --measured failed: $neff: $msg" >&2; exit 1
      fi
    done < <(tail -n +2 "$t")
  fi
  # Every NKI kernel of the corpora's manifests (a kernel the tracer
  # refuses, exit 2, is skipped and counted), with nki inspect beside it.
  for m in "$shared"/corpus2/nki/manifest.json "$shared"/corpus3/nki/manifest.json; do
    [ -f "$m" ] || continue
    refused=0
    for id in $(grep -o '"id": *"[^"]*"' "$m" | sed 's/.*"\([^"]*\)"$/\1/'); do
      r="$out/reports-nki/nki-$id.html"
      if "$out/npukit" nki report --manifest "$m" --entry "$id" -o "$r" >/dev/null 2>&1; then
        "$out/npukit" --json nki inspect --manifest "$m" --entry "$id" >"$r.inspect.json" 2>/dev/null || true
      else
        code=$?
        [ "$code" -eq 2 ] || { echo "nki report failed (exit $code): $m $id" >&2; exit 1; }
        refused=$((refused + 1))
      fi
    done
    echo "kernels of $m: $refused refused by the tracer (not reported)"
  done
  for f in "$shared"/benchmarks/minimalloc/*.csv; do
    if ! msg=$("$out/npukit" report "$f" -o "$out/reports/bench-$(basename "$f").html" 2>&1); then
      echo "report failed: $f: $msg" >&2; exit 1
    fi
  done
fi

# browser_go ARGS...: one go test run of the browser tests, its verdict
# kept so that every part runs and the script fails at the end.
failed=0
browser_go() {
  local rc=0
  go test -count=1 -tags browser "$@" -v >"$out/go-test.log" 2>&1 || rc=$?
  grep -E '^(--- |    |ok|FAIL|PASS)' "$out/go-test.log" || true
  if [ "$rc" -ne 0 ]; then failed=1; fi
}

n=$(find "$out/reports" -maxdepth 1 -name '*.html' | wc -l)
echo "browser test: $n reports"
if [ "$n" -eq 0 ]; then
  echo "no reports were produced yet (no format has a reporter): nothing to open"
  exit 0
fi
browser_go ./report/browsertest -reports "$out/reports" -shots "$out/shots"
# The corpora's NKI kernels, graphs matched against nki inspect. A long
# kernel's page (every executed step of its timeline and lifetimes) can pass
# the 5 MB of the other reports: these are opened with a 10 MB limit.
if ls "$out"/reports-nki/*.html >/dev/null 2>&1; then
  for r in "$out"/reports-nki/*.html; do
    sz=$(stat -c %s "$r")
    if [ "$sz" -gt 5000000 ]; then echo "note: $(basename "$r") is $sz bytes (over the 5 MB of other reports)"; fi
  done
  browser_go ./report/browsertest -reports "$out/reports-nki" -max-bytes 10000000
fi
echo "screenshots in $out/shots"

# The web viewer (npukit compiled to WebAssembly): one file of every kind
# fed through the page's file input, served over HTTP and from file://.
bash scripts/build-web.sh "$out/site"
browser_go ./internal/viewer -site "$out/site"
if [ "$failed" -ne 0 ]; then
  echo "browser test: FAILED (see the --- FAIL lines above)" >&2
  exit 1
fi
echo "browser test: every page passed"
