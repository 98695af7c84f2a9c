#!/usr/bin/env bash
# The static table of the AMD GEMM kernels' code objects (ROCm 6.4, as tests/check_rocm64.sh leaves them
# in BUILD/rocm64-co: <family>.<arch>.s = llvm-objdump -d, .meta = llvm-readelf --notes):
#   bench/amd_gemm_isa_table.sh [CO_DIR]   (default build/rocm64-co) -> markdown on stdout
# Per kernel x arch: registers, LDS, scratch, occupancy, and the k loop (tests/isa/loop.awk: the
# shortest backward-branch range holding MFMAs) with a static MFMA-busy estimate:
#   busy = MFMA cycles / max(MFMA cycles, issue cycles of the loop's other instructions)
# MFMA cycles: gfx94x v_mfma_f32_32x32x8_{f16,bf16} 32 cycles (8 passes; AMD Matrix Instruction
# Calculator, CDNA3 table, 'cycles': 32); gfx950 v_mfma_f32_32x32x16_{f16,bf16} 32 cycles (derived: the
# MI355X peak 2516.6 TFLOPS = 256 CUs x 4096 FLOP/clk x 2.4 GHz is 1024 FLOP/clk a SIMD, and one such MFMA
# is 2 x 32 x 32 x 16 = 32768 FLOP; the calculator has no CDNA4 table). Other instructions: 4 cycles of
# issue each (a wave64 instruction on a 16-lane SIMD; SALU, LDS and memory instructions counted alike,
# conservatively), s_nop N: N + 1. The MFMAs run in their own pipeline: the other instructions issue
# while an MFMA executes, so a loop whose other instructions need fewer cycles than its MFMAs keeps the
# matrix unit busy, if nothing waits. The no-overlap bound: MFMA cycles / (MFMA cycles + other issue
# cycles), as if nothing issued while an MFMA runs (the worst case of the count). Not modelled (no hardware to measure): the waits for the global
# loads and the barrier (one wave per SIMD: no other wave to switch to), LDS bank conflicts, clocks.
set -u
D=${1:-build/rocm64-co}
HERE=$(cd "$(dirname "$0")" && pwd)
LOOP="$HERE/../tests/isa/loop.awk"
meta() { awk -v k="$2" -v f="$3" '
    /^  - / { if (hit) { print val; exit } hit = 0; val = "" }
    /^(  - |    )\.[a-z_]+:/ { key = $0; sub(/^(  - |    )/, "", key); sub(/:.*/, "", key)
                               if (key == ".name" && $NF == k) hit = 1
                               if (key == f) val = $NF }
    END { if (hit) print val }' "$1" | head -n 1; }
echo "| kernel | arch | VGPR+AGPR (AGPR) | SGPR (spilled) | LDS bytes | scratch | waves/SIMD | MFMA / k loop | MFMA cycles | other insns (cycles) | MFMA-busy estimate | no-overlap bound |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for fam in gemm_cdna gemm; do
  for arch in gfx942 gfx950 gfx90a; do
    s="$D/$fam.$arch.s"; m="$D/$fam.$arch.meta"
    [ -f "$s" ] && [ -f "$m" ] || continue
    case $fam in gemm) ks="ak_gemm_mma_l_f16 ak_gemm_mma_l_bf16" ;; *) ks=$(grep -oE 'ak_gemm_cdna_[a-z]+_[a-z0-9]+' "$m" | sort -u) ;; esac
    case $arch in gfx950) ldsmax=163840; mcyc=32 ;; gfx942) ldsmax=65536; mcyc=32 ;; *) ldsmax=65536; mcyc=64 ;; esac
    for k in $ks; do
      base=$(grep -m1 "^[0-9a-f]* <$k>:" "$s" | awk '{print $1}')
      [ -n "$base" ] || continue
      loop=$(awk -v k="<$k>:" 'index($0, k) { on = 1; next } on && /^[0-9a-f]+ <.*>:/ { on = 0 } on' "$s" | awk -v kbase=$((16#$base)) -f "$LOOP")
      nm=$(printf '%s\n' "$loop" | grep -c 'v_mfma')
      oth=$(printf '%s\n' "$loop" | awk '$1 !~ /^v_mfma/ && NF { n++; if ($1 == "s_nop") c += $2 + 1; else c += 4 } END { print n + 0, c + 0 }')
      read -r no oc <<< "$oth"
      vg=$(meta "$m" "$k" .vgpr_count); ag=$(meta "$m" "$k" .agpr_count); sg=$(meta "$m" "$k" .sgpr_count)
      sp=$(meta "$m" "$k" .sgpr_spill_count); lds=$(meta "$m" "$k" .group_segment_fixed_size); ps=$(meta "$m" "$k" .private_segment_fixed_size)
      nt=$(meta "$m" "$k" .max_flat_workgroup_size)
      # waves a SIMD: the register file (512 VGPR + AGPR a lane, granule 8) and the LDS (blocks a CU x waves a block / 4 SIMDs)
      vr=$(( (vg + 7) / 8 * 8 )); wv=$(( 512 / (vr > 0 ? vr : 1) )); [ $wv -gt 8 ] && wv=8
      wg=$(( lds > 0 ? ldsmax / lds : 8 )); wl=$(( wg * (nt / 64) / 4 )); occ=$(( wv < wl ? wv : wl ))
      mc=$(( nm * mcyc )); den=$(( mc > oc ? mc : oc ))
      est=$(awk -v a=$mc -v b=$den 'BEGIN { printf "%.0f%%", b ? 100 * a / b : 0 }')
      lo=$(awk -v a=$mc -v b=$oc 'BEGIN { printf "%.0f%%", a + b ? 100 * a / (a + b) : 0 }')
      echo "| $k | $arch | $vg ($ag) | $sg ($sp) | $lds | $ps | $occ | $nm | $mc | $no ($oc) | $est | $lo |"
    done
  done
done
