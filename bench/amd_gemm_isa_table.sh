#!/usr/bin/env bash
# The static table of the AMD GEMM kernels' code objects (ROCm 6.4, as tests/check_rocm64.sh leaves them
# in BUILD/rocm64-co: <family>.<arch>.s = llvm-objdump -d, .meta = llvm-readelf --notes):
#   bench/amd_gemm_isa_table.sh [CO_DIR [all|gemm|attention]]   (default build/rocm64-co, all) -> markdown on stdout
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
# The attention rows (kernels/attention_mma.hip, the generic AMD kernel: ak_attn_mma<HD>_*), the loop = the key
# loop (one key tile of 32, 16 for WMMA past head size 128). Cycles of a matrix instruction: gfx942 as above;
# gfx90a v_mfma_f32_32x32x8f16 / _bf16_1k 64 (16 passes, the calculator's CDNA2 table); WMMA
# v_wmma_f32_16x16x16_{f16,bf16} (wave32, 8192 FLOP): gfx1100 32 cycles (derived: RX 7900 XTX 122.8 TFLOPS
# = 96 CUs x 512 FLOP/clk x 2.5 GHz, 2 SIMD32 a CU: 256 FLOP/clk a SIMD), gfx1201 16 cycles (derived: RX 9070
# XT 194.6 TFLOPS = 64 CUs x 1024 FLOP/clk x 2.97 GHz); other instructions of a wave32 loop 1 issue cycle each
# (32 lanes on a SIMD32), s_nop N: N + 1. Whether RDNA issues other VALU work under a WMMA as CDNA does under
# an MFMA is not documented in the sources used: the no-overlap bound is the safer number there.
# Occupancy for RDNA: waves a SIMD32 from the VGPRs (1536 a lane in wave32 on gfx1100, the same assumed for
# gfx1201; granule 8; at most 16) and the LDS (128 KiB a WGP of 4 SIMD32s).
hdr() {
  echo "| kernel | arch | VGPR+AGPR (AGPR) | SGPR (spilled) | LDS bytes | scratch | waves/SIMD | $1 / $2 loop | $1 cycles | other insns (cycles) | $1-busy estimate | no-overlap bound |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
}
SECTION=${2:-all}
if [ "$SECTION" = all ] || [ "$SECTION" = gemm ]; then
hdr MFMA k
fi
for fam in gemm_cdna gemm attention_mma; do
  case $SECTION in all) ;; gemm) [ $fam = attention_mma ] && continue ;; attention) [ $fam = attention_mma ] || continue ;; esac
  [ $fam = attention_mma ] && { echo; hdr "MFMA/WMMA" key; }
  for arch in gfx942 gfx950 gfx90a gfx1100 gfx1201; do
    s="$D/$fam.$arch.s"; m="$D/$fam.$arch.meta"
    [ -f "$s" ] && [ -f "$m" ] || continue
    case $fam in gemm) ks="ak_gemm_mma_l_f16 ak_gemm_mma_l_bf16" ;; attention_mma) ks="ak_attn_mma64_f16 ak_attn_mma96_f16 ak_attn_mma128_f16 ak_attn_mma160_f16 ak_attn_mma192_f16 ak_attn_mma256_f16 ak_attn_mma256_bf16" ;;
      *) ks=$(grep -oE 'ak_gemm_cdna_[a-z]+_[a-z0-9]+' "$m" | sort -u) ;; esac
    case $arch in gfx950) ldsmax=163840; mcyc=32 ;; gfx942) ldsmax=65536; mcyc=32 ;; gfx1100) ldsmax=131072; mcyc=32 ;; gfx1201) ldsmax=131072; mcyc=16 ;; *) ldsmax=65536; mcyc=64 ;; esac
    case $arch in gfx1*) mm=v_wmma; icyc=1; simds=4; regs=1536; wmax=16 ;; *) mm=v_mfma; icyc=4; simds=4; regs=512; wmax=8 ;; esac
    for k in $ks; do
      base=$(grep -m1 "^[0-9a-f]* <$k>:" "$s" | awk '{print $1}')
      [ -n "$base" ] || continue
      loop=$(awk -v k="<$k>:" 'index($0, k) { on = 1; next } on && /^[0-9a-f]+ <.*>:/ { on = 0 } on' "$s" | awk -v kbase=$((16#$base)) -v mm=$mm -f "$LOOP")
      nm=$(printf '%s\n' "$loop" | grep -c "$mm")
      oth=$(printf '%s\n' "$loop" | awk -v mm="^$mm" -v ic=$icyc '$1 !~ mm && NF { n++; if ($1 == "s_nop") c += $2 + 1; else c += ic } END { print n + 0, c + 0 }')
      read -r no oc <<< "$oth"
      vg=$(meta "$m" "$k" .vgpr_count); ag=$(meta "$m" "$k" .agpr_count); sg=$(meta "$m" "$k" .sgpr_count)
      sp=$(meta "$m" "$k" .sgpr_spill_count); lds=$(meta "$m" "$k" .group_segment_fixed_size); ps=$(meta "$m" "$k" .private_segment_fixed_size)
      nt=$(meta "$m" "$k" .max_flat_workgroup_size); wave=$(meta "$m" "$k" .wavefront_size)
      [ "${vg:-0}" = 0 ] && continue   # an empty kernel (not this target's)
      # waves a SIMD: the register file (CDNA 512 VGPR + AGPR a lane, RDNA3/4 1536 in wave32; granule 8) and the LDS
      # (blocks a CU (CDNA) / WGP (RDNA) x waves a block / its SIMDs)
      vr=$(( (vg + 7) / 8 * 8 )); wv=$(( regs / (vr > 0 ? vr : 1) )); [ $wv -gt $wmax ] && wv=$wmax
      wg=$(( lds > 0 ? ldsmax / lds : 8 )); wl=$(( wg * (nt / ${wave:-64}) / simds )); [ $wl -lt 1 ] && wl=1; occ=$(( wv < wl ? wv : wl ))
      mc=$(( nm * mcyc )); den=$(( mc > oc ? mc : oc ))
      est=$(awk -v a=$mc -v b=$den 'BEGIN { printf "%.0f%%", b ? 100 * a / b : 0 }')
      lo=$(awk -v a=$mc -v b=$oc 'BEGIN { printf "%.0f%%", a + b ? 100 * a / (a + b) : 0 }')
      echo "| $k | $arch | $vg ($ag) | $sg ($sp) | $lds | $ps | $occ | $nm | $mc | $no ($oc) | $est | $lo |"
    done
  done
done
