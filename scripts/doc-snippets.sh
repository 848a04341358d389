#!/usr/bin/env bash
# The C in the documentation, as a reader meets it (run by scripts/test-c.sh; expects
# `make build`):
#  1. README.md's "## Quick start (C)": its C block compiled strictly, and saved as
#     quick_start.c in a scratch folder laid out like the repository (include/ and target/
#     linked); then every line of the sh block under it: `make build` (done by the suite: its
#     outputs must be there), the `cc` line as written, gw-mock started as written but on a
#     free port, the program run as written with that port. What it printed must be the
#     README's text block. Then the program again, given text that would inject a field were
#     it not quoted: one message.
#  2. docs/drivers.md's C block (the exchange's loop over a stand-in transport): compiled with
#     -Wall -Wextra -Werror -pedantic (it declares what it uses, so it compiles as it stands).
# Usage: scripts/doc-snippets.sh OUT_DIR. Prints what failed; exits non-zero if anything did.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:?usage: scripts/doc-snippets.sh OUT_DIR}"
repo="$PWD"
rm -rf "$out"
mkdir -p "$out/reader"

# The first block fenced as ```LANG in the text on stdin.
block() {
    awk -v want="$1" '
        /^```/ { if (open) { open = 0; if (take) exit; next }
                 open = 1; take = ($0 == "```" want); next }
        open && take { print }'
}
quick_start() { sed -n '/^## Quick start (C)/,/^## [^Q]/p' README.md; }

failed=()
mock_pid=""
trap '[ -z "$mock_pid" ] || kill "$mock_pid" 2>/dev/null || true' EXIT

# 1. The README's quick start.
quick_start | block c >"$out/reader/quick_start.c"
quick_start | block sh >"$out/commands.sh"
quick_start | block text >"$out/expected.txt"
for f in reader/quick_start.c commands.sh expected.txt; do
    [ -s "$out/$f" ] || { echo "doc-snippets: README.md's quick start has no ${f##*.} block" >&2; exit 1; }
done
# Strict first (C11, every warning an error), then as the README builds it.
cc -std=c11 -Wall -Wextra -Werror -pedantic -Iinclude -c "$out/reader/quick_start.c" -o "$out/strict.o" ||
    { echo "doc-snippets: README.md's quick start does not compile cleanly" >&2; failed+=(README.md); }
ln -s "$repo/include" "$out/reader/include"
ln -s "$repo/target" "$out/reader/target"
port=""
readme_ok=1
while IFS= read -r line; do
    case "$line" in
    "make build")
        for f in target/release/libgw.so target/release/gw-mock; do
            [ -e "$f" ] || { echo "doc-snippets: $f is missing after make build" >&2; readme_ok=0; }
        done
        ;;
    "cc "*)
        (cd "$out/reader" && eval "$line") || { echo "doc-snippets: failed: $line" >&2; readme_ok=0; }
        ;;
    "target/release/gw-mock --port 8080 &")
        (cd "$out/reader" && exec target/release/gw-mock --port 0 >mock.out 2>&1) &
        mock_pid=$!
        for _ in $(seq 100); do
            port="$(sed -n '1s#^http://127.0.0.1:\([0-9]*\)$#\1#p' "$out/reader/mock.out" 2>/dev/null)"
            [ -n "$port" ] && break
            sleep 0.1
        done
        [ -n "$port" ] || { echo "doc-snippets: gw-mock did not start" >&2; readme_ok=0; }
        ;;
    "GW_BASE_URL=http://127.0.0.1:8080 "*)
        (cd "$out/reader" && eval "${line//8080/$port}") >"$out/printed.txt" 2>&1 ||
            { echo "doc-snippets: failed: $line" >&2; readme_ok=0; }
        ;;
    *)
        echo "doc-snippets: README.md's quick start has a command this script does not run: $line" >&2
        readme_ok=0
        ;;
    esac
done <"$out/commands.sh"
if [ "$readme_ok" = 1 ] && ! diff -u "$out/expected.txt" "$out/printed.txt" >&2; then
    echo "doc-snippets: the quick start printed something else than README.md shows (above)" >&2
    readme_ok=0
fi
# Text from outside is quoted by gw_json_quote: a would-be injection is one message.
injection='m", "temperature": 9, "x": "'
if [ "$readme_ok" = 1 ]; then
    GW_BASE_URL="http://127.0.0.1:$port" GW_API_KEY=sk-test "$out/reader/quick_start" "$injection" \
        >"$out/injection.txt" 2>&1 || true
    grep -qF "Echo: $injection" "$out/injection.txt" ||
        { cat "$out/injection.txt" >&2; echo "doc-snippets: the quick start let a quote through" >&2; readme_ok=0; }
fi
[ "$readme_ok" = 1 ] && echo "doc-snippets: README.md's quick start built, ran and printed what it shows" ||
    failed+=(README.md)

# 2. The exchange's loop in docs/drivers.md compiles as it stands.
block c <docs/drivers.md >"$out/drivers.c"
if [ -s "$out/drivers.c" ] &&
    cc -std=c11 -Wall -Wextra -Werror -pedantic -Iinclude -c "$out/drivers.c" -o "$out/drivers.o"; then
    echo "doc-snippets: docs/drivers.md's C compiles"
else
    failed+=(docs/drivers.md)
fi

if [ "${#failed[@]}" -gt 0 ]; then
    echo "doc-snippets: FAILED: ${failed[*]}" >&2
    exit 1
fi
