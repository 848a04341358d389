# Sourced by the install scripts. apt_install PACKAGE... installs Debian packages without
# questions (no stdin, as under CI), as root or through sudo. apt_refresh fetches the package
# lists at most once an hour: a fresh machine has none (apt-cache finds nothing before it),
# and each installer would otherwise fetch them again.

apt_sudo() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

apt_refresh() {
    local stamp=/var/lib/apt/lists/partial/.gw-updated
    [ -n "$(find "$stamp" -mmin -60 2>/dev/null)" ] && return 0
    apt_sudo apt-get update </dev/null
    apt_sudo touch "$stamp" 2>/dev/null || true
}

apt_install() {
    apt_refresh
    DEBIAN_FRONTEND=noninteractive apt_sudo apt-get install -y --no-install-recommends "$@" </dev/null
}
