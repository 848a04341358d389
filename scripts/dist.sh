#!/usr/bin/env bash
# make dist: everything a release publishes, built from this checkout into target/dist/
# (README "Install"):
#   natives/<platform>/        libgw.so and libgw.a per platform (scripts/dist/natives.sh)
#   notices/                   gw's licenses and the third-party notices every artifact below
#                              carries (scripts/dist/notices.py)
#   goproxy/                   the Go module as a GOPROXY folder; go-release/ its release tree
#   maven/                     dev.gw:gw-kotlin as a Maven repository folder
#   gw-<v>-linux-<arch>.tar.gz the C/C++ SDKs
# Platforms: linux-x86_64 and linux-aarch64 (what this machine can build; the rest is
# .github/workflows/release.yml). Needs scripts/ci/install-dist.sh's tools.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/dist/lib.sh

start=$SECONDS
for triple in $dist_platforms; do
    scripts/dist/natives.sh "${triple%%:*}"
done
units=()
for triple in $dist_platforms; do
    units+=("target/dist/natives/${triple%%:*}/cargo-units.jsonl")
done
scripts/dist/notices.py "$notices_dir" "${units[@]}"
scripts/dist/go-module.sh
scripts/dist/maven.sh
scripts/dist/sdk.sh
echo "dist: gw $(gw_version) in target/dist/ ($((SECONDS - start)) s)"
