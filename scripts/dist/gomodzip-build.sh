#!/usr/bin/env bash
# Builds scripts/dist/gomodzip into $1 (make dist's Go module step).
#
# golang.org/x/mod comes from the module proxy or the module cache, as go.sum pins it. Where no
# proxy answers, it comes from the copy the Go toolchain carries for the go command itself
# ($GOROOT/src/cmd/vendor/golang.org/x/mod): the very zip rules `go get` applies to what it
# downloads, so the module zip is as valid either way. Exit 3, with the reason on stderr, when
# neither can be had; any other failure is an error.
set -euo pipefail
out="$(realpath -m "$1")"
cd "$(dirname "$0")/gomodzip"
go="${GO:-go}"
if log="$(GOTOOLCHAIN=local "$go" build -o "$out" . 2>&1 </dev/null)"; then
    echo "gomodzip: golang.org/x/mod from the module proxy or cache"
    exit 0
fi
if ! grep -qE 'no such host|dial tcp|connection refused|i/o timeout|network is unreachable|GOPROXY|proxy' <<<"$log"; then
    echo "$log" >&2
    exit 1
fi
goroot="$("$go" env GOROOT)"
vendored="$goroot/src/cmd/vendor/golang.org/x/mod"
if [ ! -f "$vendored/zip/zip.go" ]; then
    echo "the Go module proxy is unreachable and this Go toolchain carries no golang.org/x/mod ($vendored)" >&2
    exit 3
fi
# The language version x/mod's copy declares (cmd/vendor/modules.txt: "## explicit; go 1.25.0").
lang="$(sed -n '/^# golang.org\/x\/mod /{n;s/.*; go \([0-9.]*\).*/\1/p;q}' "$goroot/src/cmd/vendor/modules.txt")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -R "$vendored" "$work/mod"
printf 'module golang.org/x/mod\n\ngo %s\n' "${lang:-1.23}" >"$work/mod/go.mod"
{
    grep -v 'golang.org/x/mod' go.mod
    echo "require golang.org/x/mod v0.0.0"
    echo "replace golang.org/x/mod => $work/mod"
} >"$work/go.mod"
GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off "$go" build -modfile="$work/go.mod" -o "$out" . </dev/null
echo "gomodzip: golang.org/x/mod from the Go toolchain's own copy ($vendored; no module proxy reachable)"
