/* Inserted in amdkit.h _ak_gemm_plan_one after the gemvn block (the line 'p->k_splits = _ak_gemm_k_splits(g, p, cus, &kc);'),
 * with kernels/gemm_decode.hip patched by kernel.diff: variant b3 as below; b2: "" for "h" and 512 threads. */
        if (!strncmp(p->kernel, "ak_gemm_decode_kn_", 18) && g->m <= 4 && !g->trans_a && !g->trans_b &&
            (g->m == 1 || _ak_gemm_vec(g->a, s->lda, g->stride_a, s->esz)) && _ak_gemm_vec(g->b, s->ldb, g->stride_b, s->esz)) {
            snprintf(p->kernel, sizeof p->kernel, "ak_gemm_gemvn4%s_%s", "h", g->dtype == AK_F16 ? "f16" : "bf16");
            p->bn = 32; p->bm = 16; p->threads = 256; p->path = "gemv"; p->k_splits = 1; p->shared_bytes = 0;
        }
