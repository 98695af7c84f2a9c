#!/usr/bin/env bash
# amdkit embedded from other languages and as a shared library (`make test` step embed): `make install` puts
# libamdkit.so and amdkit-shared.pc beside the header; a C program built with `pkg-config --cflags --libs
# amdkit-shared` (no AMDKIT_IMPLEMENTATION) links and runs against it; examples/ctypes_softmax.py runs an op on
# the cpu backend through Python's ctypes, from the installed library; the library exports the ak_ API and
# nothing else; `make uninstall` removes it all. Prints `N passed, N failed` last.
set -u
cd "$(dirname "$0")/.."
T=$(mktemp -d "${TMPDIR:-/tmp}/akembed.XXXXXX")
trap 'rm -rf "$T"' EXIT
export AMDKIT_BACKEND=cpu AMDKIT_CACHE_DIR=$T/cache
P=$T/prefix
passed=0; failed=0
check() { local what=$1; shift; if "$@"; then passed=$((passed+1)); echo "  ok   $what"; else failed=$((failed+1)); echo "  FAIL $what"; fi; }
make -s install PREFIX="$P" > "$T/install.log" 2>&1
check "make install: lib/libamdkit.so and lib/pkgconfig/amdkit-shared.pc" test -f "$P/lib/libamdkit.so" -a -f "$P/lib/pkgconfig/amdkit-shared.pc"
check "the library exports the ak_ API only" bash -c "n=\$(nm -D --defined-only '$P/lib/libamdkit.so' | awk '\$2 == \"T\"' | wc -l); \
  o=\$(nm -D --defined-only '$P/lib/libamdkit.so' | awk '\$2 == \"T\" && \$3 !~ /^ak_/' | wc -l); [ \$n -ge 100 ] && [ \$o = 0 ]"
cat > "$T/app.c" <<'C'
#include <amdkit.h>
int main(void) {
    ak_context* ctx;
    float x[4] = { 1, 2, 3, 4 }, s = 0;
    if (ak_context_create(NULL, &ctx) != AK_OK) { puts(ak_last_error()); return 1; }
    if (ak_reduce(ctx, AK_REDUCE_SUM, AK_F32, x, &s, 1, 4, NULL) != AK_OK) { puts(ak_last_error()); return 1; }
    printf("amdkit %s, %s backend: sum = %g\n", AK_VERSION_STRING, ak_backend_name(ak_context_device(ctx)->backend), s);
    ak_context_destroy(ctx);
    return s == 10.0f ? 0 : 1;
}
C
check "a C program links libamdkit.so through pkg-config amdkit-shared and runs" \
  bash -c "PKG_CONFIG_PATH='$P/lib/pkgconfig' cc -std=c99 -Wall -Werror '$T/app.c' \$(PKG_CONFIG_PATH='$P/lib/pkgconfig' pkg-config --cflags --libs amdkit-shared) -o '$T/app' && \
           '$T/app' | tee '$T/app.txt' && grep -q 'sum = 10' '$T/app.txt' && ldd '$T/app' | grep -q '$P/lib/libamdkit.so'"
check "examples/ctypes_softmax.py runs softmax through ctypes on the installed library" \
  bash -c "python3 examples/ctypes_softmax.py '$P/lib/libamdkit.so' | tee '$T/py.txt' && grep -q 'cpu backend through ctypes: max abs error .*: ok' '$T/py.txt'"
make -s uninstall PREFIX="$P" > "$T/uninstall.log" 2>&1
check "make uninstall removes libamdkit.so and both .pc files" \
  bash -c "! [ -e '$P/lib/libamdkit.so' ] && ! [ -e '$P/lib/pkgconfig/amdkit-shared.pc' ] && ! [ -e '$P/lib/pkgconfig/amdkit.pc' ]"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
