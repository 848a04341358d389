# Sourced by scripts/dist/*.sh and scripts/test-dist.sh.

# A failure of a test-dist part: each test-*.sh names its part (dist_part=go) before sourcing.
fail() { echo "test-dist[${dist_part:-dist}]: $*" >&2; exit 1; }

# The crate's version (Cargo.toml), which every artifact of a release carries.
gw_version() { sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1; }

# The features of the shipped libraries (natives.sh builds them; test-dist.sh lists their crates).
# no-dependency-logs (Cargo.toml) instead of the default feature: no one can install a `log`
# logger in the C library, so the log records of ureq and rustls are compiled out.
dist_features=(--no-default-features --features no-dependency-logs)

# The license files every artifact carries (scripts/dist/notices.py, run by scripts/dist.sh).
# Absolute: every script sources this file from the checkout's root.
notices_dir="$PWD/target/dist/notices"
notice_files="LICENSE-APACHE LICENSE-MIT THIRD-PARTY-NOTICES.txt"
require_notices() {
    local f
    for f in $notice_files; do
        [ -f "$notices_dir/$f" ] || { echo "$1: $notices_dir/$f is missing (scripts/dist/notices.py)" >&2; exit 1; }
    done
}
# same_notices WHO DIR [THIRD_PARTY_DIR]: an installed artifact holds gw's licenses in DIR and
# THIRD-PARTY-NOTICES.txt in THIRD_PARTY_DIR (default DIR), each as make dist wrote it.
same_notices() {
    local f dir
    for f in $notice_files; do
        dir="$2"
        [ "$f" != THIRD-PARTY-NOTICES.txt ] || dir="${3:-$2}"
        [ -f "$dir/$f" ] || { echo "$1: $dir/$f is missing" >&2; exit 1; }
        cmp -s "$dir/$f" "$notices_dir/$f" || { echo "$1: $dir/$f differs from $notices_dir/$f" >&2; exit 1; }
    done
}

# The dist platforms: <our name>:<Go's GOOS_GOARCH>:<JNA's resource prefix>.
dist_platforms="linux-x86_64:linux_amd64:linux-x86-64 linux-aarch64:linux_arm64:linux-aarch64"

# run_aarch64 PROGRAM [ARG...]: runs an aarch64 program under qemu-aarch64 (qemu-user) with
# the cross sysroot's loader and libc. Its libc must be found first (guest LD_LIBRARY_PATH, after
# the caller's): on a machine with the arm64 foreign architecture (install-dist.sh added it
# until make dist built std from source), libc6:arm64 is in the host's /etc/ld.so.cache, and
# that libc (another Debian revision than the sysroot's ld-linux-aarch64.so.1) then spins
# forever in pthread_create's stack cache: a cgo Go program hung before main that way. timeout -s KILL: a hung qemu-aarch64 ignores SIGTERM.
run_aarch64() {
    local sysroot=/usr/aarch64-linux-gnu
    timeout -s KILL "${GW_QEMU_TIMEOUT:-300}" qemu-aarch64 -L "$sysroot" \
        -E "LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$sysroot/lib" "$@"
}

# consumer_bin DIR: makes DIR a folder of links to every command on PATH except Rust's (cargo,
# cargo-*, rustc, rustdoc, rustup, ...) and prints it: test-dist builds every consumer with
# PATH=DIR, as on a user's machine without a Rust toolchain. (Dropping folders from PATH would
# not do: /usr/bin may hold a distribution's rustc beside everything else.)
consumer_bin() {
    python3 - "$1" <<'PY'
import os, re, sys
bin_dir = sys.argv[1]
os.makedirs(bin_dir, exist_ok=True)
rust = re.compile(r"^(cargo|cargo-.*|rustc|rustc-.*|rustdoc|rustup|rust-.*|rustfmt|clippy-driver)$")
for d in os.environ["PATH"].split(":"):
    if not os.path.isdir(d):
        continue
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        link = os.path.join(bin_dir, name)
        if rust.match(name) or os.path.lexists(link) or not os.access(path, os.X_OK) or os.path.isdir(path):
            continue
        os.symlink(path, link)
print(bin_dir)
PY
}
