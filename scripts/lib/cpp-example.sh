# Sourced by scripts/test-cpp.sh and scripts/demo-cpp.sh: builds examples/cpp the way a user
# does, with CMake's find_package(gw CONFIG) against an installed tree.

# build_cpp_example PREFIX BUILD_DIR STATIC: configures and builds examples/cpp against the
# gw installed in PREFIX, linking gw::cpp_static when STATIC is ON, gw::cpp when OFF. The
# program is BUILD_DIR/chat_stream; CMake's output goes to BUILD_DIR.log, shown on failure.
build_cpp_example() {
    local prefix="$1" dir="$2" static="$3"
    rm -rf "$dir"
    if ! { cmake -S examples/cpp -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" \
               -DGW_EXAMPLE_STATIC="$static" -DCMAKE_BUILD_TYPE=Release \
               -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" &&
           cmake --build "$dir"; } >"$dir.log" 2>&1; then
        cat "$dir.log" >&2
        echo "examples/cpp did not build against $prefix (GW_EXAMPLE_STATIC=$static)" >&2
        return 1
    fi
}
