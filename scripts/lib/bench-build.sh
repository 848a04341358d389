# Sourced by scripts/bench.sh: compiles the bench programs (bench/*.c) into target/bench with
# the warnings the C suite uses. bench_build LIB_DIR sets LOADSERVER, FLOOR and GWBENCH;
# gwbench links the libgw.so in LIB_DIR with its header (LIB_DIR/gw.h, else include/gw.h).

bench_cflags=(-O2 -Wall -Wextra -Werror -std=c11 -pthread)
common_c=(bench/rawhttp.c bench/chunked.c bench/http_head.c bench/measure.c bench/alloc_count.c)

bench_build() {
    local lib_dir="$1" out=target/bench header_dir=include
    [ -f "$lib_dir/gw.h" ] && header_dir="$lib_dir"
    mkdir -p "$out"
    LOADSERVER="$out/loadserver"
    FLOOR="$out/floor"
    cc "${bench_cflags[@]}" bench/loadserver.c bench/loadserver_routes.c bench/chunked.c \
        bench/http_head.c -o "$LOADSERVER"
    cc "${bench_cflags[@]}" bench/floor.c bench/floor_sse.c "${common_c[@]}" -o "$FLOOR"

    # One directory per library under test, so a "before" and an "after" run never mix. It
    # links libgw.so under its soname too: a build directory such as artifacts/ may hold only
    # libgw.so, while the program asks the loader for libgw.so.0.
    local tag soname under
    tag="$(printf '%s' "$lib_dir" | cksum | cut -d' ' -f1)"
    under="$PWD/$out/under-test-$tag"
    mkdir -p "$under"
    soname="$(objdump -p "$lib_dir/libgw.so" 2>/dev/null | awk '$1 == "SONAME" {print $2}')" ||
        true
    [ -n "$soname" ] || soname=libgw.so.0 # build.rs sets it; objdump is only the way to read it
    ln -sf "$lib_dir/libgw.so" "$under/libgw.so"
    [ -n "$soname" ] && [ "$soname" != libgw.so ] && ln -sf "$lib_dir/libgw.so" "$under/$soname"
    GWBENCH="$under/gwbench"
    cc "${bench_cflags[@]}" -I"$header_dir" bench/gwbench.c bench/gwbench_stream.c \
        bench/gwbench_scale.c bench/gwbench_upload.c bench/gwbench_bigbody.c bench/bodies.c bench/gwcheck.c "${common_c[@]}" -o "$GWBENCH" \
        -L"$under" -lgw -Wl,-rpath,"$under"
}
