# Sourced by scripts/dist/*.sh and scripts/test-dist.sh.

# The crate's version (Cargo.toml), which every artifact of a release carries.
gw_version() { sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1; }

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
