#!/usr/bin/env bash
# Builds npukit release binaries for linux, macOS and Windows on amd64 and arm64,
# reproducibly: static (CGO_ENABLED=0), -trimpath, no build-time paths or dates,
# the version and the commit stamped (the commit by Go's own VCS stamping, which
# `npukit version` and `go version -m` print). The same commit and Go version
# give the same bytes.
#
#   bash scripts/release.sh [VERSION] [OUTDIR]     # default: git describe, dist/
#
# Writes OUTDIR/npukit_VERSION_OS_ARCH[.exe] and OUTDIR/SHA256SUMS, then checks
# every binary: the one for this machine runs `version`; the others are read
# with `go version -m` (their GOOS/GOARCH, -trimpath and commit must be there).
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:-$(git describe --tags --always --dirty 2>/dev/null || echo devel)}
out=${2:-dist}
platforms="linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64"

mkdir -p "$out"
tmp=$(mktemp -d "$out/.release.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

hostos=$(go env GOHOSTOS)
hostarch=$(go env GOHOSTARCH)
commit=$(git rev-parse HEAD 2>/dev/null || true)

for p in $platforms; do
	os=${p%/*}
	arch=${p#*/}
	ext=""
	[ "$os" = windows ] && ext=.exe
	name="npukit_${version}_${os}_${arch}${ext}"
	echo "building $name"
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch GOFLAGS= \
		go build -trimpath -buildvcs=true \
		-ldflags "-s -w -buildid= -X github.com/npukit/npukit/cmd/npukit/internal/cli.Version=${version} -X github.com/npukit/npukit/cmd/npukit/internal/cli.Commit=${commit}" \
		-o "$tmp/$name" ./cmd/npukit
done

(cd "$tmp" && sha256sum npukit_* >SHA256SUMS)

# Check what was built before it replaces anything in OUTDIR.
for p in $platforms; do
	os=${p%/*}
	arch=${p#*/}
	ext=""
	[ "$os" = windows ] && ext=.exe
	bin="$tmp/npukit_${version}_${os}_${arch}${ext}"
	meta=$(go version -m "$bin")
	for want in "GOOS=$os" "GOARCH=$arch" "-trimpath=true" "CGO_ENABLED=0"; do
		if ! grep -q -- "$want" <<<"$meta"; then
			echo "release: $bin: build info lacks $want" >&2
			exit 1
		fi
	done
	# Go stamps vcs.revision itself in a plain clone; in a git worktree it
	# cannot, and the commit given at link time (-X ...Commit) stands in
	# (-trimpath keeps -ldflags out of the build info, so look in the bytes).
	if [ -n "$commit" ] && ! grep -q "vcs.revision=$commit" <<<"$meta" && ! grep -aq "$commit" "$bin"; then
		echo "release: $bin: build info lacks the commit $commit" >&2
		exit 1
	fi
	if [ "$os" = "$hostos" ] && [ "$arch" = "$hostarch" ]; then
		got=$("$bin" version)
		echo "$got"
		case "$got" in
		"npukit $version "*) ;;
		*)
			echo "release: $bin version printed '$got', want version $version" >&2
			exit 1
			;;
		esac
		if [ -n "$commit" ] && [[ "$got" != *"commit ${commit:0:12}"* ]]; then
			echo "release: $bin version printed '$got', want commit ${commit:0:12}" >&2
			exit 1
		fi
	fi
done

for f in "$tmp"/npukit_* "$tmp/SHA256SUMS"; do
	mv -f "$f" "$out/"
done
echo "release $version: $(ls "$out" | grep -c '^npukit_') binaries and SHA256SUMS in $out/"
