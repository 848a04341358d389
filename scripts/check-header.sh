#!/usr/bin/env bash
# Fails when the build changed include/gw.h: the checked-in header must match the code.
# Outside a git checkout (a tarball) there is nothing to compare with, so it only says so.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "check-header: not a git checkout, skipped"
    exit 0
fi
if ! git diff --exit-code -- include/gw.h; then
    echo "check-header: include/gw.h is stale: commit the regenerated header" >&2
    exit 1
fi
echo "check-header: include/gw.h is current"
