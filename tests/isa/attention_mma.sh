# ISA rules for kernels/attention_mma.hip (sourced by tests/isa_check.sh for
# every AMD target built in the ROCm 6.4 chroot; helpers from tests/isa_lib.sh).
# Every attention kernel of a matrix target with an AMD path (head sizes 32,
# 64, 96, 128, 160, 192 and 256: the generic fragment kernel, as ak_attn_mma*,
# ak_attn_mmadec* and ak_attn_mmagen*) must run S = Q K^T and O += P V on the
# matrix units inside its key loop (the shortest backward-branch range holding
# matrix instructions, tests/isa/loop.awk): MFMA 32x32 on CDNA, WMMA
# 16x16x16 on RDNA3 / RDNA4, exactly the planned number a key tile and wave:
#   S: (key tile / N) x (head size / K), O: (head size / N) x (key tile / K)
#   CDNA (N 32, key tile 32): 2 x head size / K, K = 8 (gfx908 f16, gfx90a,
#     gfx94x), 16 (gfx950), 4 (gfx908 bf16);
#   RDNA (N = K = 16): head size / 4 (key tile 32), head size / 8 past head
#     size 128 (Q fragments read from shared memory, 16-key tiles).
# No scratch access, no v_readlane / v_writelane (SGPR spill reloads) in the
# key loop. The other head sizes (80) are NVIDIA-only (empty kernels on AMD,
# which the host never launches there; head_dim 80 runs on 96), as are the
# 8-bit K / V decode kernels (ak_attn_mmadec<HD>_<e4m3|e5m2>_*), gfx908's bf16
# head size 256 (its 2-a-lane bf16 MFMA would spill: the host runs SIMT) and
# all kernels on targets without matrix instructions (gfx906, gfx103x: the
# host runs kernels/attention.hip). No scratch anywhere (the default).
amd_kernels=$(isa_kernels | grep -E '^ak_attn_mma(dec|gen)?(32|64|96|128|160|192|256)_(f16|bf16)$')
attn_loop_rules() { # $1 matrix-instruction pattern, $2 the instruction per lane's k (K) for f16, $3 for bf16
  local k hd dt kk want base loop n
  for k in $amd_kernels; do
    hd=$(printf '%s\n' "$k" | sed -E 's/^ak_attn_mma(dec|gen)?([0-9]+)_.*/\2/'); dt=${k##*_}
    kk=$2; [ "$dt" = bf16 ] && kk=$3
    if [ "$ARCH" = gfx908 ] && [ "$dt" = bf16 ] && [ "$hd" -gt 192 ]; then
      n=$(isa_body "$k" | grep -cE 'v_mfma'); [ "$n" -eq 0 ] || isa_fail "$k: planned empty on gfx908 (the host runs SIMT), has $n MFMAs"
      continue
    fi
    case $1 in
      v_mfma*) want=$(( 2 * hd / kk )) ;;
      *) if [ "$hd" -gt 128 ]; then want=$(( hd / 8 )); else want=$(( hd / 4 )); fi ;;
    esac
    base=$(isa_kernel_addr "$k")
    [ -n "$base" ] || { isa_fail "$k: no code"; continue; }
    loop=$(isa_kernel_s "$k" |
           awk -v kbase=$((16#$base)) -v mm="$1" -f "$HERE/isa/loop.awk")
    [ -n "$loop" ] || { isa_fail "$k: no key loop with /$1/"; continue; }
    n=$(printf '%s\n' "$loop" | grep -cE "$1"); [ "$n" -eq "$want" ] || isa_fail "$k: $n x /$1/ in the key loop, $want planned"
    n=$(printf '%s\n' "$loop" | grep -cE 'v_(mfma|wmma)'); [ "$n" -eq "$want" ] || isa_fail "$k: $n matrix instructions in the key loop, $want planned"
    n=$(printf '%s\n' "$loop" | grep -cE 'v_(readlane|writelane)'); [ "$n" -eq 0 ] || isa_fail "$k: $n v_readlane/v_writelane in the key loop"
    n=$(printf '%s\n' "$loop" | grep -cE 'scratch_|buffer_(load|store)'); [ "$n" -eq 0 ] || isa_fail "$k: $n scratch / buffer accesses in the key loop"
  done
}
case $ARCH in
  gfx908)                      attn_loop_rules 'v_mfma_f32_32x32x(8f16|4bf16)' 8 4 ;;
  gfx90a)                      attn_loop_rules 'v_mfma_f32_32x32x8(f16|bf16_1k)' 8 8 ;;
  gfx940|gfx941|gfx942)        attn_loop_rules 'v_mfma_f32_32x32x8_(f16|bf16)' 8 8 ;;
  gfx950)                      attn_loop_rules 'v_mfma_f32_32x32x16_(f16|bf16)' 16 16 ;;
  gfx11*|gfx12*)               attn_loop_rules 'v_wmma_f32_16x16x16_(f16|bf16)' 16 16 ;;
esac
