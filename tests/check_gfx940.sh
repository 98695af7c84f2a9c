#!/usr/bin/env bash
# Compile every embedded kernel family for gfx940 (CDNA3 ISA) with clang-15 and
# the ROCm device libraries, since ROCm 5.2's hipRTC cannot build that target;
# then disassemble each code object with llvm-objdump-15 and check that every
# kernel of the family is there as real gfx940 code (s_endpgm in its body).
# Prints one line per family and "N passed, N failed" last.
set -u
AMDKIT=${1:-build/amdkit}
OUT=${2:-build/gfx940}
BITCODE=$(dirname "$(find /usr/lib /opt/rocm* -name ocml.bc 2>/dev/null | head -n 1)")
CLANG=$(command -v clang-15 || true)
OBJDUMP=$(command -v llvm-objdump-15 || true)
pass=0; fail=0
if [ -z "$CLANG" ] || [ -z "$OBJDUMP" ] || [ "$BITCODE" = "." ]; then
  echo "check_gfx940: clang-15, llvm-objdump-15 or the ROCm device libraries (ocml.bc) are missing"
  echo "0 passed, 1 failed"; exit 1
fi
rm -rf "$OUT"; mkdir -p "$OUT"
"$AMDKIT" kernels --dump "$OUT" > "$OUT/list.txt" || { echo "0 passed, 1 failed"; exit 1; }
while read -r family names; do
  src="$OUT/$family.hip"; co="$OUT/$family.gfx940.co"
  # -include hip/hip_runtime.h: what hipRTC puts in front of every source implicitly
  if ! "$CLANG" -x hip --cuda-device-only --offload-arch=gfx940 -include hip/hip_runtime.h --no-gpu-bundle-output -O3 -std=c++17 \
        -DAK_WAVE=64 -DAK_AMD=1 --rocm-path=/usr --rocm-device-lib-path="$BITCODE" \
        -o "$co" "$src" 2> "$OUT/$family.log"; then
    echo "  FAIL gfx940 $family: clang-15 failed"; sed -n 1,20p "$OUT/$family.log"; fail=$((fail+1)); continue
  fi
  "$OBJDUMP" -d --mcpu=gfx940 "$co" > "$OUT/$family.s" 2>&1
  missing=""
  for k in $names; do
    grep -q "^[0-9a-f]* <$k>:" "$OUT/$family.s" || missing="$missing $k"
  done
  if ! grep -q "s_endpgm" "$OUT/$family.s"; then missing="$missing (no s_endpgm)"; fi
  if [ -n "$missing" ]; then echo "  FAIL gfx940 $family: not in the disassembly:$missing"; fail=$((fail+1))
  else echo "  ok   gfx940 $family ($(wc -c < "$co") bytes, $(grep -c '^\s' "$OUT/$family.s") instructions)"; pass=$((pass+1)); fi
done < "$OUT/list.txt"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
