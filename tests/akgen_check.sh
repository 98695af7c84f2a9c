#!/usr/bin/env bash
# tools/akgen.c: the kernel interfaces it generates, and what it refuses.
# Prints `N passed, N failed` last (tests/run_all.sh counts it).
#   - a small kernel family -> one typed packer per parameter list, a #define for
#     a second stem of the same list, the kernel -> interface table; kernel
#     macros invoked through another macro
#   - refused, each with file:line: an unknown parameter type, two kernels of one
#     stem with different lists, a kernel with no interface (listed, never defined)
#   - make gen-check's comparison: a hand edit of amdkit.h's generated block is
#     found (akgen rewrites it)
set -u
cd "$(dirname "$0")/.."
B=build
make -s $B/akgen || { echo "0 passed, 1 failed"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
passed=0; failed=0
ok() { passed=$((passed+1)); echo "  ok   $1"; }
bad() { failed=$((failed+1)); echo "  FAIL $1"; sed 's/^/       /' "$T/out" | head -n 20; }

# family DIR FILE CONTENT: a kernels dir with an empty prelude, one family and a header with markers
family() {
  rm -rf "$T/$1"; mkdir -p "$T/$1"
  echo "// prelude" > "$T/$1/prelude.hip"
  printf '%s\n' "$3" > "$T/$1/$2"
  printf 'before\n//>#akgen prelude\n//<#akgen prelude\nmiddle\n//>#akgen library\n//<#akgen library\nafter\n' > "$T/$1.h"
}
# expect_fail NAME PATTERN: akgen must fail and say PATTERN
expect_fail() {
  if ./$B/akgen "$T/$1.h" "$T/$1" > "$T/out" 2>&1; then bad "$1 (akgen accepted it)"
  elif ! grep -qE "$2" "$T/out"; then bad "$1 (message lacks: $2)"
  else ok "$1: $(head -n 1 "$T/out")"; fi
}

family good fam.hip '#define AK_TWO(DT, D) \
    AK_KERNEL __launch_bounds__(256) void ak_two_##DT(const D::T* x, D::T* y, ak_i64 n, int k, float s) { }
// kernels: ak_two_f32 ak_two_f16
AK_TWO(f32, ak_f32_t)
AK_TWO(f16, ak_f16_t)
AK_KERNEL void ak_one_f32(const float* a, float* b, ak_i64 m, int j, float t) { }
AK_KERNEL __launch_bounds__(64, 1) void ak_three(unsigned u, double d,
                                                 long long q, const ak_i64* idx) { }'
if ./$B/akgen "$T/good.h" "$T/good" > "$T/out" 2>&1 &&
   grep -q 'static inline void _ak_kargs_two(_ak_kargs\* kargs_, const void\* x, void\* y, int64_t n, int32_t k, float s)' "$T/good.h" &&
   grep -q '#define _ak_kargs_one _ak_kargs_two' "$T/good.h" &&
   grep -q 'static inline void _ak_kargs_three(_ak_kargs\* kargs_, uint32_t u, double d, int64_t q, const void\* idx)' "$T/good.h" &&
   grep -q 'ak_args_u32(a_, u); ak_args_f64(a_, d); ak_args_i64(a_, q); ak_args_ptr(a_, idx);' "$T/good.h" &&
   grep -q '{ "ak_two_f16", _AK_KIF_two }' "$T/good.h" && grep -q '{ "ak_one_f32", _AK_KIF_two }' "$T/good.h" &&
   grep -q '{ "ak_three", _AK_KIF_three }' "$T/good.h" &&
   grep -q '"ak_two_f32 ak_two_f16 ak_one_f32 ak_three"' "$T/good.h"; then
  ok "packers, a shared list under two stems, the kernel table"
else cat "$T/good.h" >> "$T/out"; bad "packers, a shared list under two stems, the kernel table"; fi

family nested fam.hip '#define AK_NK(N, DT, D) \
    AK_KERNEL void ak_nk##N##_##DT(const D::T* x, D::T* y, int n) { }
#define AK_NK_DTYPES(N) AK_NK(N, f32, ak_f32_t) AK_NK(N, f16, ak_f16_t)
// kernels: ak_nk8_f32 ak_nk8_f16 ak_nk16_f32 ak_nk16_f16
AK_NK_DTYPES(8)
AK_NK_DTYPES(16)'
if ./$B/akgen "$T/nested.h" "$T/nested" > "$T/out" 2>&1 &&
   grep -q '{ "ak_nk8_f16", _AK_KIF_nk }' "$T/nested.h" && grep -q '{ "ak_nk16_f32", _AK_KIF_nk }' "$T/nested.h"; then
  ok "kernel macros invoked through another macro name their kernels"
else cat "$T/nested.h" >> "$T/out" 2>/dev/null; bad "kernel macros invoked through another macro name their kernels"; fi

family badtype fam.hip 'AK_KERNEL void ak_bt_f32(const float* x, ak_half h, ak_i64 n) { }'
expect_fail badtype "fam.hip:1: kernel ak_bt_f32: parameter 'h' has the type 'ak_half'"

family stem fam.hip 'AK_KERNEL void ak_st_f32(const float* x, float* y, ak_i64 n) { }
AK_KERNEL void ak_st_f16(const ak_half* x, ak_half* y, int n) { }'
expect_fail stem "fam.hip:2: kernel ak_st_f16 has the interface stem 'st' of ak_st_f32 .*fam.hip:1.*another parameter list"

family noiface fam.hip '// kernels: ak_ghost_f32
#define AK_G(DT) AK_KERNEL void ak_g_##DT(float* y) { }
AK_KERNEL void ak_real_f32(float* y, ak_i64 n) { }'
expect_fail noiface "kernel ak_ghost_f32 has no interface"

family macrostem fam.hip '#define AK_M1(NAME, D) AK_KERNEL void NAME(const D::T* x, int n) { }
#define AK_M2(DT, D) AK_KERNEL void ak_m_##DT(const D::T* x, float n) { }
#define AK_M3(DT, D) AK_KERNEL void ak_m_##DT(const D::T* x, ak_i64 n) { }
AK_M1(ak_a_f32, ak_f32_t)
AK_M2(f32, ak_f32_t)
AK_M3(f16, ak_f16_t)'
expect_fail macrostem "fam.hip:3: kernel ak_m_##DT \(macro AK_M3\) has the interface stem 'm'"

family valuetype fam.hip '#define AK_V(DT, D) AK_KERNEL void ak_v_##DT(D::T scale) { }
AK_V(f32, ak_f32_t)'
expect_fail valuetype "parameter 'scale' has the type 'D::T'"

family consts fam.hip '// >>host  constants the host reads
#define AK_FL_A 1   /* a */
// a comment line
#define AK_FL_B (AK_FL_A << 3)
// <<host
AK_KERNEL void ak_c_f32(float* y, int flags) { }'
if ./$B/akgen "$T/consts.h" "$T/consts" > "$T/out" 2>&1 &&
   grep -q '^#define _AK_FL_A 1   /\* a \*/$' "$T/consts.h" && grep -q '^#define _AK_FL_B (_AK_FL_A << 3)$' "$T/consts.h" &&
   awk '/^middle$/ { m = 1 } /_AK_FL_A/ && m { ok = 1 } END { exit !ok }' "$T/consts.h" &&
   awk '/^\/\/>#akgen library/ { l = 1 } /_ak_src_fam/ && !l { bad = 1 } END { exit bad }' "$T/consts.h"; then
  ok "host constants of a // >>host block, the library in its own region"
else cat "$T/consts.h" >> "$T/out"; bad "host constants of a // >>host block, the library in its own region"; fi
family badconst fam.hip '// >>host
#define AK_F(x) (x)
// <<host
AK_KERNEL void ak_c_f32(float* y) { }'
expect_fail badconst "fam.hip:2: a host constant is an object-like macro"

family openconst fam.hip 'AK_KERNEL void ak_c_f32(float* y) { }
// >>host
#define AK_F 1'
expect_fail openconst "not closed by"

family noregion fam.hip 'AK_KERNEL void ak_c_f32(float* y) { }'
printf 'before\n//>#akgen library\n//<#akgen library\n' > "$T/noregion.h"
expect_fail noregion "marker lines missing or out of order: //>#akgen prelude"

# make gen-check: a hand edit inside the generated block is rewritten (so the diff fails)
# make gen-check: a hand edit inside the generated block is rewritten (so the diff fails)
cp amdkit.h "$T/stale.h"
sed -i '0,/ak_args_ptr(a_, x);/s//ak_args_i64(a_, 0);/' "$T/stale.h"
cp "$T/stale.h" "$T/regen.h"
./$B/akgen "$T/regen.h" kernels > "$T/out" 2>&1
if grep -q 'ak_args_i64(a_, 0);' "$T/stale.h" && ! cmp -s "$T/stale.h" "$T/regen.h" && cmp -s amdkit.h "$T/regen.h"; then
  ok "a hand-edited packer in amdkit.h is stale for make gen-check"
else bad "a hand-edited packer in amdkit.h is stale for make gen-check"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
