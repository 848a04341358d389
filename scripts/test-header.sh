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
#  5. Every name the header defines starts with gw_ or GW_; GW_VERSION_NUM is right.
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

# Every name gw.h defines (macros, functions, types, struct tags, enum constants) starts with
# gw_ or GW_, so it cannot collide with a user's own (a user's DEFAULT_MAX_EVENT once did).
# Macros: what the preprocessor knows after gw.h beyond what <stddef.h> and <stdint.h> define,
# for gcc and clang, C and C++. Declarations: the top level of clang's AST after a marker.
echo "test-header: every name gw.h defines starts with gw_ or GW_"
names_log="$out/names.log"
: >"$names_log"
macro_names() {  # COMPILER LANGUAGE FILE
    "$1" -x "$2" -dM -E -Iinclude "$3" | awk '{ sub(/\(.*/, "", $2); print $2 }' | sort -u
}
printf '#include <stddef.h>\n#include <stdint.h>\n' >"$out/names_base.h"
printf '#include <stddef.h>\n#include <stdint.h>\n#include "gw.h"\n' >"$out/names_gw.h"
for compiler in gcc clang; do
    for lang in c c++; do
        comm -13 <(macro_names "$compiler" "$lang" "$out/names_base.h") \
            <(macro_names "$compiler" "$lang" "$out/names_gw.h") |
            sed "s/^/macro ($compiler, $lang): /" >>"$names_log"
    done
done
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' 'typedef int gw_names_begin;' \
    '#include "gw.h"' >"$out/names_decls.c"
if clang -Iinclude -fsyntax-only -fno-color-diagnostics -Xclang -ast-dump "$out/names_decls.c" \
    >"$out/names_ast.txt"; then
    sed -n '/gw_names_begin/,$p' "$out/names_ast.txt" | grep -E '^[|`]-|EnumConstantDecl' |
        awk '{ line = $0; sub(/ '"'"'.*/, "", line); n = split(line, w, " ");
               name = w[n]; if (name == "definition") name = w[n - 1];
               if (name != "struct" && name != "enum" && name != "union") print "declaration: " name }' \
        >>"$out/names_decls.txt"
    cat "$out/names_decls.txt" >>"$names_log"
    grep -q 'declaration: gw_chat$' "$out/names_decls.txt" || {
        echo "test-header: the declaration list lacks gw_chat: the AST parse is broken" >&2
        failed+=(names-parse)
    }
else
    failed+=(names-ast)
fi
if grep -Ev ': (GW_|gw_)[A-Za-z0-9_]*$' "$names_log" | grep -v 'gw_names_begin'; then
    echo "test-header: gw.h defines the names above, without the gw_/GW_ prefix" >&2
    failed+=(names)
fi

# GW_VERSION_NUM and GW_VERSION_AT_LEAST agree with the other version macros.
cat >"$out/version_num.c" <<'C'
#include "gw.h"
#if GW_VERSION_NUM != ((GW_VERSION_MAJOR << 16) | (GW_VERSION_MINOR << 8) | GW_VERSION_PATCH)
#error "GW_VERSION_NUM does not match GW_VERSION_MAJOR/MINOR/PATCH"
#endif
#if !GW_VERSION_AT_LEAST(GW_VERSION_MAJOR, GW_VERSION_MINOR, GW_VERSION_PATCH) || \
    GW_VERSION_AT_LEAST(GW_VERSION_MAJOR, GW_VERSION_MINOR, GW_VERSION_PATCH + 1)
#error "GW_VERSION_AT_LEAST is wrong"
#endif
int version_num_ok(void);
int version_num_ok(void) { return sizeof(GW_VERSION_STRING) > 5; }
C
gcc -std=c89 -pedantic -Wall -Wextra -Werror -Iinclude -c "$out/version_num.c" \
    -o "$out/version_num.o" || failed+=(version-num)

if [ "${#failed[@]}" -gt 0 ]; then
    echo "test-header: FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "test-header: header current; C89, C++11, C++17, nullability and name checks passed"
