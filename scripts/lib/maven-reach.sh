# Sourced by the Kotlin scripts. maven_unreachable prints why Maven cannot build
# bindings/kotlin here and returns 0 when it cannot download what the build needs (no
# repository reachable and ~/.m2 lacks it); returns 1 when the build can go on. It asks Maven
# itself (`validate` resolves the build's plugins), so a mirror in ~/.m2/settings.xml counts.

maven_unreachable() {
    local log
    log="$(mvn -B -f bindings/kotlin/pom.xml validate </dev/null 2>&1)" && return 1
    if grep -qE 'Could not transfer artifact|Unknown host|Could not resolve|Network is unreachable|Connection refused|timed out' <<<"$log"; then
        echo "Maven cannot download the Kotlin build's plugins and dependencies: its repository is unreachable from this machine and ~/.m2 lacks them"
        return 0
    fi
    return 1
}
