#!/bin/sh
# `npukit sbuf place` on synthetic plans with every tensor automatic
# (bench/sbuf/genplan: 32 tensors in one loop as examples/sbuf/place-32.yaml,
# 32 tensors in one loop per group of four (lifetimes end, memory is reused,
# more buffers pay: the tile-count search runs to its budget), and 128
# tensors both ways), against `npukit sbuf check` of the same plan in the same
# run (the baseline: parse + unroll + lifetime checks). The issue's target:
# place on 32 tensors in under 1 s, its output passing sbuf check. Every
# tile-count candidate is placed by alloc's exact solver; "rejected" counts
# the candidates that did not fit.
# Each command runs 5 times; the best wall time is reported.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/npukit" ./cmd/npukit
go run ./bench/sbuf/genplan -groups 8 > "$tmp/p32.yaml"
go run ./bench/sbuf/genplan -groups 8 -separate > "$tmp/p32-loops.yaml"
go run ./bench/sbuf/genplan -groups 32 -trips 16 > "$tmp/p128.yaml"
go run ./bench/sbuf/genplan -groups 32 -trips 16 -separate > "$tmp/p128-loops.yaml"

best() { # best wall time in ms of 5 runs of "$@"
	b=""
	for _ in 1 2 3 4 5; do
		s=$(date +%s%N)
		"$@" > /dev/null
		e=$(date +%s%N)
		t=$(( (e - s) / 1000 ))
		if [ -z "$b" ] || [ "$t" -lt "$b" ]; then b=$t; fi
	done
	echo "$b"
}

printf '%-12s %12s %12s %8s  %s\n' tensors "check (us)" "place (us)" ratio "placed plan"
for n in 32 32-loops 128 128-loops; do
	f="$tmp/p$n.yaml"
	c=$(best "$tmp/npukit" sbuf check "$f")
	p=$(best "$tmp/npukit" sbuf place "$f" -o "$tmp/placed$n.yaml")
	if "$tmp/npukit" sbuf check "$tmp/placed$n.yaml" > "$tmp/check$n.txt"; then ok="passes sbuf check"; else ok="FAILS sbuf check"; fi
	"$tmp/npukit" --json sbuf place "$f" > "$tmp/place$n.json"
	sims=$(sed -n 's/.*"simulations": \([0-9]*\).*/\1/p' "$tmp/place$n.json")
	rej=$(grep -c '"reason":' "$tmp/place$n.json" || true)
	times=$("$tmp/npukit" sbuf place "$f" | sed -n 's/^simulated time \(.*\) (.*/\1/p')
	printf '%-12s %12d %12d %8.1f  %s (%s simulations, %s rejected; %s)\n' "$n" "$c" "$p" "$(echo "$p $c" | awk '{print $1/$2}')" "$ok" "$sims" "$rej" "$times"
done
