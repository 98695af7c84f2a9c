#!/bin/bash
# The split-K finish that branches once on the 4-column form, against the tree before it (H200; from the repository
# root, OUT set): OLD=<commit before> bash bench/results/h200_gemm_fin_once/run.sh
# The A/B, memcheck and gpu_gemm suites of bench/results/h200_gemm_fin_nodiv/run.sh on its cases.
set -u
exec bash bench/results/h200_gemm_fin_nodiv/run.sh
