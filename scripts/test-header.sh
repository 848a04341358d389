#!/usr/bin/env bash
# make test-header: include/gw.h is current and other compilers and languages take it.
#  1. The checked-in header is what the build generated (scripts/check-header.sh).
#  2. C89: tests/header/c89_consumer.c with gcc -std=c89 -pedantic -Wall -Wextra -Werror,
#     linked with libgw.so, run under valgrind.
#  3. C++: tests/header/cxx_consumer.cpp with g++ -std=c++11 and -std=c++17 (and clang++),
#     -Wall -Wextra -Werror -pedantic, linked with libgw.a, run.
#  4. Nullability as clang, Swift and Kotlin/Native read it: complete, NULL accepted where
#     GW_NULLABLE (nullability_ok.c), warned about where not (nullability_misuse.c), and the
#     types of a few declarations in clang's AST (nullability.expected).
# Every step runs even when an earlier one fails. Expects `make build` to have run.
set -euo pipefail
cd "$(dirname "$0")/.."

lib=target/release
src=tests/header
out=build/header-tests
mkdir -p "$out"
failed=()

scripts/check-header.sh || failed+=(stale-header)
command -v clang >/dev/null || { echo "test-header: clang is missing (scripts/ci/install-clang.sh)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "test-header: valgrind is missing" >&2; exit 1; }

echo "test-header: C89 (gcc -std=c89 -pedantic), shared library, under valgrind"
if gcc -std=c89 -pedantic -Wall -Wextra -Werror -Iinclude "$src/c89_consumer.c" \
    -o "$out/c89_consumer" -L"$lib" -lgw -Wl,-rpath,"$PWD/$lib"; then
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
        --show-leak-kinds=definite,indirect,possible --error-exitcode=1 \
        --suppressions=tests/c/valgrind.supp "$out/c89_consumer" || failed+=(c89-run)
else
    failed+=(c89-compile)
fi

for std in c++11 c++17; do
    echo "test-header: C++ (g++ -std=$std), static library"
    if g++ -std="$std" -pedantic -Wall -Wextra -Werror -Iinclude "$src/cxx_consumer.cpp" \
        -o "$out/cxx_consumer_$std" "$lib/libgw.a" -lpthread -ldl -lm; then
        "$out/cxx_consumer_$std" || failed+=("$std-run")
    else
        failed+=("$std-compile")
    fi
done
echo "test-header: C++ (clang++ -std=c++17), syntax"
clang++ -std=c++17 -pedantic -Wall -Wextra -Werror -Wnullability-completeness -Iinclude \
    -fsyntax-only "$src/cxx_consumer.cpp" || failed+=(clang++)

echo "test-header: nullability: complete, and NULL accepted where GW_NULLABLE"
clang -std=c11 -Wall -Wextra -Werror -Wnullability-completeness -Wnonnull \
    -Wnullable-to-nonnull-conversion -Iinclude -fsyntax-only "$src/nullability_ok.c" ||
    failed+=(nullability-ok)

echo "test-header: nullability: clang warns on each line of nullability_misuse.c marked so"
clang -std=c11 -Wno-nullability-completeness -Wnonnull -Wnullable-to-nonnull-conversion \
    -Iinclude -fsyntax-only "$src/nullability_misuse.c" 2>"$out/misuse.log" || true
grep -n '/\* warns' "$src/nullability_misuse.c" | cut -d: -f1 | sort -n >"$out/misuse.want"
sed -n 's/^[^:]*nullability_misuse\.c:\([0-9]*\):[0-9]*: warning:.*/\1/p' "$out/misuse.log" |
    sort -nu >"$out/misuse.got"
if [ ! -s "$out/misuse.want" ] || ! diff "$out/misuse.want" "$out/misuse.got" >/dev/null; then
    echo "test-header: warned lines $(paste -sd, "$out/misuse.got"), expected $(paste -sd, "$out/misuse.want"):" >&2
    cat "$out/misuse.log" >&2
    failed+=(nullability-misuse)
fi

echo "test-header: nullability: declaration types in clang's AST"
clang -Iinclude -fsyntax-only -Xclang -ast-dump "$src/nullability_ok.c" >"$out/ast.txt" 2>&1 ||
    failed+=(ast-dump)
while IFS= read -r want; do
    [ -n "$want" ] || continue
    if ! grep -qF " $want" "$out/ast.txt"; then
        echo "test-header: clang's AST lacks: $want" >&2
        grep -F " ${want%% *} '" "$out/ast.txt" >&2 || true
        failed+=(ast-types)
    fi
done <"$src/nullability.expected"

if [ "${#failed[@]}" -gt 0 ]; then
    echo "test-header: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test-header: header current; C89, C++11, C++17 and nullability checks passed"
