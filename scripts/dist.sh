#!/usr/bin/env bash
# make dist: everything a release publishes, built from this checkout into target/dist/
# (docs/install.md):
#   natives/<platform>/        libgw.so and libgw.a per platform (scripts/dist/natives.sh)
#   notices/                   gw's licenses and the third-party notices every artifact below
#                              carries (scripts/dist/notices.py)
#   goproxy/                   the Go module as a GOPROXY folder; go-release/ its release tree;
#                              (golang.org/x/mod from the proxy, else from the Go toolchain's own
#                              copy: scripts/dist/gomodzip-build.sh); where neither can be had
#                              SKIPPED with the reason, kept in go.skipped
#   maven/                     dev.gw:gw-kotlin as a Maven repository folder; where Maven
#                              cannot download the build's plugins (no repository reachable,
#                              ~/.m2 lacks them) SKIPPED with the reason, kept in maven.skipped
#   gw-<v>-linux-<arch>.tar.gz the C/C++ SDKs
#   CGwLinux.artifactbundle.zip, swift/
#                              the Swift package: its Linux binary target (an SE-0482 artifact
#                              bundle) and the tree of its repository (scripts/dist/swift.sh;
#                              GW_SWIFT_RELEASE_URL, GW_SWIFT_XCFRAMEWORK_ZIP)
# Platforms: linux-x86_64 and linux-aarch64 (what this machine can build; the rest is
# .github/workflows/release.yml). Needs scripts/ci/install-dist.sh's tools.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/dist/lib.sh
source scripts/lib/maven-reach.sh

start=$SECONDS
for triple in $dist_platforms; do
    scripts/dist/natives.sh "${triple%%:*}"
done
units=()
for triple in $dist_platforms; do
    units+=("target/dist/natives/${triple%%:*}/cargo-units.jsonl")
done
scripts/dist/notices.py "$notices_dir" "${units[@]}"
# A registry this machine cannot reach skips its artifact, with the reason (test-dist.sh skips
# the artifact's test and says so); any other failure stops make dist.
rm -f target/dist/go.skipped target/dist/maven.skipped
go_dir="$(scripts/ci/install-go.sh --which)"
why=""
if [ ! -x "$go_dir/go" ]; then
    why="no Go >= 1.23 (scripts/ci/install-go.sh)"
else
    mkdir -p target/dist
    status=0
    log="$(GO="$go_dir/go" scripts/dist/gomodzip-build.sh target/dist/gomodzip 2>&1)" || status=$?
    echo "$log"
    case "$status" in
        0) ;;
        3) why="$log" ;;
        *) exit 1 ;;
    esac
fi
if [ -n "$why" ]; then
    echo "dist: SKIPPED go (the Go module): $why"
    rm -rf target/dist/go-release target/dist/goproxy
    echo "$why" >target/dist/go.skipped
else
    scripts/dist/go-module.sh
fi
if ! command -v mvn >/dev/null; then
    why="mvn is not installed (scripts/ci/install-maven.sh)"
elif why="$(maven_unreachable)"; then
    :
else
    why=""
fi
if [ -n "$why" ]; then
    echo "dist: SKIPPED maven (dev.gw:gw-kotlin): $why"
    rm -rf target/dist/maven
    echo "$why" >target/dist/maven.skipped
else
    scripts/dist/maven.sh
fi
scripts/dist/sdk.sh
scripts/dist/swift.sh
echo "dist: gw $(gw_version) in target/dist/ ($((SECONDS - start)) s)"
