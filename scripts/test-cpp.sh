#!/usr/bin/env bash
# The C++ suite (bindings/cpp/tests): the header compiled under strict warnings (g++ and
# clang++, C++17 and C++20, with and without exceptions); GoogleTest built with -Wall -Wextra -Werror and
# AddressSanitizer + UndefinedBehaviorSanitizer, linked once with libgw.so and once with
# libgw.a; a -fno-exceptions program over the try_ API; and the installed package: `make
# install` into a scratch prefix (and a DESTDIR staging), examples/cpp built with CMake
# against it (gw::cpp and gw::cpp_static), and a C-only project against gw::gw and
# gw::gw_static. All run against one gw-mock, every part even when
# an earlier one fails, so one pass shows everything. Expects `make build` to have run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/mock.sh
source scripts/lib/cpp-example.sh

lib=target/release
out=build/cpp-tests
cxx="${CXX:-g++}"
flags=(-std=c++17 -Wall -Wextra -Werror -Wshadow -g -O0
       -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -Iinclude -Ibindings/cpp/include -pthread)
mkdir -p "$out"
start=$SECONDS
# Objects built with other flags (or another compiler) are not reused.
if [ "$(cat "$out/flags" 2>/dev/null)" != "$cxx ${flags[*]}" ]; then
    rm -f "$out"/*.o
    echo "$cxx ${flags[*]}" >"$out/flags"
fi

# Each file compiled once (two at a time; skipped when its object is newer than it and
# every header), then linked twice.
echo "test-cpp: compiling bindings/cpp/tests with $("$cxx" --version | head -n 1)"
sources=(bindings/cpp/tests/support.cpp bindings/cpp/tests/*_test.cpp)
objects=()
compile() {  # SOURCE OBJECT
    if [ "$2" -nt "$1" ] &&
        [ -z "$(find include/gw.h bindings/cpp/include bindings/cpp/tests/support.hpp -newer "$2")" ]; then
        return 0
    fi
    "$cxx" "${flags[@]}" -c "$1" -o "$2"
}
pending=()
compile_failed=0
for src in "${sources[@]}"; do
    obj="$out/$(basename "${src%.cpp}").o"
    objects+=("$obj")
    compile "$src" "$obj" &
    pending+=($!)
    if [ "${#pending[@]}" -ge 2 ]; then
        wait "${pending[0]}" || compile_failed=1
        pending=("${pending[@]:1}")
    fi
done
for pid in "${pending[@]}"; do wait "$pid" || compile_failed=1; done
[ "$compile_failed" -eq 0 ] || { echo "test-cpp: compiling the tests failed" >&2; exit 1; }
"$cxx" "${flags[@]}" "${objects[@]}" -o "$out/gw_cpp_tests_shared" \
    -L"$lib" -lgw -Wl,-rpath,"$PWD/$lib" -lgtest_main -lgtest
"$cxx" "${flags[@]}" "${objects[@]}" -o "$out/gw_cpp_tests_static" \
    "$lib/libgw.a" -lgtest_main -lgtest -ldl -lm
if ldd "$out/gw_cpp_tests_static" | grep libgw >/dev/null; then
    echo "test-cpp: gw_cpp_tests_static links libgw.so dynamically" >&2
    exit 1
fi
"$cxx" "${flags[@]}" -fno-exceptions bindings/cpp/tests/no_exceptions_main.cpp \
    -o "$out/no_exceptions" -L"$lib" -lgw -Wl,-rpath,"$PWD/$lib"
echo "test-cpp: built in $((SECONDS - start)) s"

# The header under the strict warnings users turn on, with both compilers and standards.
strict=(-Wall -Wextra -Werror -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wold-style-cast
        -Wnon-virtual-dtor -Wcast-qual -Wundef -Iinclude -Ibindings/cpp/include -fsyntax-only)
strict_failed=0
for compiler in g++ clang++; do
    for std in c++17 c++20; do
        for exceptions in -fexceptions -fno-exceptions; do
            extra=()
            [ "$compiler" = g++ ] || extra=(-Wnullable-to-nonnull-conversion)  # gw.h's nullability
            "$compiler" -std="$std" "$exceptions" "${strict[@]}" "${extra[@]}" \
                bindings/cpp/tests/strict_flags_check.cpp ||
                { echo "test-cpp: gw/gw.hpp warns under $compiler -std=$std $exceptions" >&2; strict_failed=1; }
        done
    done
done

start_mock
export GW_TEST_BASE_URL="$MOCK_URL"
echo "test-cpp: gw-mock at $GW_TEST_BASE_URL"
# A second gw-mock, over HTTPS with a CA made for this run, for tls_test.cpp. Its stdin is this
# script's fd 7, so it ends with the script (--exit-on-stdin-eof) without a trap of its own.
tls_mock="$out/tls-mock"
rm -rf "$tls_mock" && mkdir -p "$tls_mock"
exec 7> >(exec "$lib/gw-mock" --port 0 --exit-on-stdin-eof --tls-ca-out "$tls_mock/ca.pem" >"$tls_mock/address")
for _ in $(seq 100); do
    [ -s "$tls_mock/address" ] && break
    sleep 0.1
done
GW_TEST_TLS_URL="$(head -n 1 "$tls_mock/address")"
[ -n "$GW_TEST_TLS_URL" ] || { echo "test-cpp: the TLS gw-mock did not start" >&2; exit 1; }
export GW_TEST_TLS_URL GW_TEST_TLS_CA="$tls_mock/ca.pem"
# Leak checking stays on; UBSan stops at the first finding.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

failed=()
[ "$strict_failed" -eq 0 ] || failed+=(strict-warnings)

echo "test-cpp: GoogleTest, linked with libgw.so"
"$out/gw_cpp_tests_shared" --gtest_brief=1 || failed+=(shared)

echo "test-cpp: GoogleTest, linked with libgw.a"
"$out/gw_cpp_tests_static" --gtest_brief=1 || failed+=(static)

echo "test-cpp: built with -fno-exceptions"
"$out/no_exceptions" || failed+=(no-exceptions)

# The installed package, as a user finds it: a PREFIX install and a DESTDIR staging (the
# CMake config locates itself, so the staged tree works where it lies).
echo "test-cpp: examples/cpp against installed trees"
rm -rf "$out/prefix" "$out/stage"
PREFIX="$PWD/$out/prefix" scripts/install.sh
DESTDIR="$PWD/$out/stage" PREFIX=/usr/local scripts/install.sh
check_example() {  # PREFIX STATIC NAME
    local dir="$out/example-$3"
    build_cpp_example "$1" "$dir" "$2" || return 1
    if [ "$2" = ON ] && ldd "$dir/chat_stream" | grep libgw >/dev/null; then
        echo "test-cpp: the gw::cpp_static example needs libgw.so" >&2
        return 1
    fi
    local output
    output="$(GW_BASE_URL="$MOCK_URL" GW_API_KEY=sk-test "$dir/chat_stream")" || return 1
    echo "$output" | sed 's/^/    /'
    grep -q "Echo: Say hello to C++ in five words" <<<"$output" && grep -q '"total_tokens"' <<<"$output"
}
check_example "$PWD/$out/prefix" OFF shared || failed+=(cmake-gw::cpp)
check_example "$PWD/$out/stage/usr/local" ON static || failed+=(cmake-gw::cpp_static)

# gw::gw stays usable from C: a project with no C++ compiler enabled links it and gw::gw_static.
echo "test-cpp: a C-only CMake project links gw::gw and gw::gw_static"
c_project="$out/c-consumer"
rm -rf "$c_project" && mkdir -p "$c_project/src"
cat >"$c_project/src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.16)
project(gw_c_consumer LANGUAGES C)
find_package(gw 0.1 CONFIG REQUIRED)
add_executable(hello_shared main.c)
target_link_libraries(hello_shared PRIVATE gw::gw)
add_executable(hello_static main.c)
target_link_libraries(hello_static PRIVATE gw::gw_static)
CMAKE
cat >"$c_project/src/main.c" <<'C'
#include <stdio.h>
#include <gw.h>
int main(void) { printf("gw %s from C\n", gw_version()); return 0; }
C
if { cmake -S "$c_project/src" -B "$c_project/build" -DCMAKE_PREFIX_PATH="$PWD/$out/prefix" \
         -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" && cmake --build "$c_project/build"; } \
        >"$c_project.log" 2>&1 &&
    "$c_project/build/hello_shared" && "$c_project/build/hello_static" &&
    ! ldd "$c_project/build/hello_static" | grep libgw >/dev/null; then
    :
else
    cat "$c_project.log" >&2
    failed+=(cmake-c-consumer)
fi

if [ "${#failed[@]}" -gt 0 ]; then
    echo "test-cpp: FAILED: ${failed[*]} ($((SECONDS - start)) s)" >&2
    exit 1
fi
echo "test-cpp: GoogleTest (shared, static), no-exceptions and CMake package runs passed in $((SECONDS - start)) s"
