#!/usr/bin/env bash
# What `make test` needs beyond a C compiler: the real AMD compilers (Debian's
# ROCm: hipRTC inside libamdhip64, comgr, the device libraries, clang-15 and
# llvm-15 for gfx940 and disassembly), clang's libFuzzer (libclang-rt-14-dev) for
# the fuzz step, debootstrap for the ROCm 6.4 chroot (tests/check_rocm64.sh, as
# root), and NVRTC from the CUDA toolkit.
# As root, missing Debian packages are installed; otherwise the exact command
# is printed. Exit 1 if something is still missing.
set -u
PKGS="libamdhip64-dev hipcc rocm-device-libs clang-15 llvm-15 clang libclang-rt-14-dev pkg-config debootstrap python3"
missing=""
[ -f /usr/include/hip/hiprtc.h ] || missing="$missing libamdhip64-dev"
ls /usr/lib/x86_64-linux-gnu/libamdhip64.so* >/dev/null 2>&1 || missing="$missing libamdhip64-dev"
[ -n "$(find /usr/lib -name ocml.bc 2>/dev/null | head -n 1)" ] || missing="$missing rocm-device-libs"
command -v hipcc >/dev/null 2>&1 || missing="$missing hipcc"
command -v clang-15 >/dev/null 2>&1 || missing="$missing clang-15"
command -v llvm-objdump-15 >/dev/null 2>&1 || missing="$missing llvm-15"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"   # the README walkthrough (tests/walkthrough.sh)
command -v python3 >/dev/null 2>&1 || missing="$missing python3"   # bench/report.py's checks (tests/report_check.py, tests/bench_check.sh)
# the fuzz step (tests/fuzz/run.sh) uses clang's libFuzzer + sanitizer runtimes (it falls back to a plain driver without)
command -v clang >/dev/null 2>&1 || missing="$missing clang"
ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing="$missing libclang-rt-14-dev"
# debootstrap builds the ROCm 6.4 chroot (tests/check_rocm64.sh); only root can use it
if [ "$(id -u)" = "0" ]; then command -v debootstrap >/dev/null 2>&1 || missing="$missing debootstrap"; fi
if [ -n "$missing" ]; then
  if [ "$(id -u)" = "0" ]; then
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq $PKGS >/dev/null || { echo "deps: apt-get install failed"; exit 1; }
  else
    echo "deps: missing$missing; run as root:"
    echo "  apt-get update && apt-get install -y $PKGS"
    exit 1
  fi
fi
# NVRTC: the CUDA toolkit (not a Debian package of this version); amdkit looks
# for libnvrtc.so.13/.12 on the loader path and in /usr/local/cuda/lib64.
if ! ldconfig -p 2>/dev/null | grep -q "libnvrtc.so" && ! ls /usr/local/cuda/lib64/libnvrtc.so* >/dev/null 2>&1; then
  echo "deps: NVRTC (CUDA toolkit 12 or 13) not found: the sm_80/sm_90 compile checks need it"
  exit 1
fi
if [ ! -f /usr/local/cuda/include/cuda.h ]; then
  echo "deps: /usr/local/cuda/include/cuda.h not found: the CUDA prototype type-check needs it"
  exit 1
fi
exit 0
