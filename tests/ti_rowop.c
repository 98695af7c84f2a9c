/* The row-op variant table (amdkit.h >>impl:ops-reduce, _ak_rowop_table):
 * suite `rowop` (cpu): every row is well formed (ops, a known variant that can
 * run its ops, a short reason; the measurements are in bench/NOTES.md), every op finds a row for every shape, and the test
 * override (_ak_rowop_force) takes precedence only where its variant applies;
 * suite `gpu_rowop` (--gpu): every variant, forced, on odd shapes (widths that
 * are not multiples of 8, unaligned bases), against the cpu backend's
 * reference: the variants no table row picks yet are checked here, so a row
 * that starts picking them starts from a tested kernel.
 * (included by test_main.c: the table and the override are internal) */

static void test_rowop_table_rows(void) {
    size_t i;
    for (i = 0; i < sizeof _ak_rowop_table / sizeof _ak_rowop_table[0]; i++) {
        const _ak_rowop_rule* r = &_ak_rowop_table[i];
        AKT_CHECKF(r->ops != 0, "row %zu: no ops", i);
        AKT_CHECKF(r->variant >= 0 && r->variant < _AK_ROW_VARIANT_COUNT, "row %zu: variant %d", i, r->variant);
        if (r->variant >= 0 && r->variant < _AK_ROW_VARIANT_COUNT)
            AKT_CHECKF((r->ops & ~_ak_row_variant_ops(r->variant)) == 0, "row %zu: variant %s cannot run every op of the row",
                       i, _ak_row_variant_names[r->variant]);
        /* a short reason in the table; the measurement behind it is in bench/NOTES.md "Row-op table" */
        AKT_CHECKF(r->why && strlen(r->why) > 20 && strlen(r->why) <= 110, "row %zu: reason missing or over 110 characters", i);
        AKT_CHECKF(r->cmin <= r->cmax && r->rmin <= r->rmax, "row %zu: empty range", i);
        AKT_CHECKF(r->block <= 1024, "row %zu: block %u", i, r->block);
    }
}

static void test_rowop_pick_every_shape(void) {
    static const unsigned ops[] = { _AK_RO_SOFTMAX, _AK_RO_NORM, _AK_RO_SUM, _AK_RO_MINMAX, _AK_RO_ARG, _AK_RO_XENT,
                                    _AK_RO_XENT_RED };
    static const size_t dims[] = { 1, 7, 8, 127, 1000, 8192, 8193, 16384, 16385, 50257, 400000, 1u << 20 };
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16 };
    ak_context* ctx = akt_cpu_context("rowop");
    size_t o, r, c, d;
    if (!ctx) return;
    for (o = 0; o < sizeof ops / sizeof ops[0]; o++)
        for (d = 0; d < 3; d++)
            for (r = 0; r < sizeof dims / sizeof dims[0]; r++)
                for (c = 0; c < sizeof dims / sizeof dims[0]; c++) {
                    const _ak_rowop_rule rule = _ak_rowop_pick(ctx, ops[o], dts[d], dims[r], dims[c]);
                    AKT_CHECKF((rule.ops & ops[o]) && (_ak_row_variant_ops(rule.variant) & ops[o]) && rule.why,
                               "op %u %zu x %zu: no fitting row", ops[o], dims[r], dims[c]);
                }
    /* the override: taken where the variant runs the op, ignored elsewhere, off again at -1 */
    _ak_rowop_force.variant = _AK_ROW_VARIANT_WIDE;
    _ak_rowop_force.block = 256;
    AKT_EQ_INT(_ak_rowop_pick(ctx, _AK_RO_SOFTMAX, AK_F32, 4, 1000).variant, _AK_ROW_VARIANT_WIDE);
    AKT_EQ_INT((int)_ak_rowop_pick(ctx, _AK_RO_SOFTMAX, AK_F32, 4, 1000).block, 256);
    AKT_CHECK(_ak_rowop_pick(ctx, _AK_RO_SUM, AK_F32, 4, 1000).variant != _AK_ROW_VARIANT_WIDE);
    _ak_rowop_force.variant = -1;
    AKT_EQ_INT(_ak_rowop_pick(ctx, _AK_RO_SOFTMAX, AK_F32, 4, 1000).variant, _AK_ROW_VARIANT_ROWS);
    ak_context_destroy(ctx);
}

void akt_suite_rowop(void);
void akt_suite_rowop(void) {
    AKT_RUN(test_rowop_table_rows);
    AKT_RUN(test_rowop_pick_every_shape);
}

/* ---- gpu_rowop ----------------------------------------------------------- */
static unsigned long long aro_rng;
enum { ARO_SOFTMAX, ARO_LOGSOFTMAX, ARO_LAYERNORM, ARO_RMSNORM, ARO_XENT_MEAN, ARO_XENT_NONE, ARO_SUM, ARO_ARGMAX };

static ak_result aro_run(ak_context* c, int op, ak_dtype t, const void* x, const void* w, const void* b,
                         const int64_t* tg, void* y, size_t rows, size_t cols) {
    switch (op) {
    case ARO_SOFTMAX: return ak_softmax(c, t, x, y, rows, cols, 0, NULL);
    case ARO_LOGSOFTMAX: return ak_softmax(c, t, x, y, rows, cols, 1, NULL);
    case ARO_LAYERNORM: return ak_layernorm(c, t, x, w, b, y, rows, cols, 1e-5f, NULL);
    case ARO_RMSNORM: return ak_rmsnorm(c, t, x, w, y, rows, cols, 1e-5f, NULL);
    case ARO_XENT_MEAN: return ak_cross_entropy(c, t, x, tg, (float*)y, rows, cols, -100, AK_LOSS_MEAN, NULL);
    case ARO_XENT_NONE: return ak_cross_entropy(c, t, x, tg, (float*)y, rows, cols, -100, AK_LOSS_NONE, NULL);
    case ARO_SUM: return ak_reduce(c, AK_REDUCE_SUM, t, x, y, rows, cols, NULL);
    default: return ak_reduce(c, AK_REDUCE_ARGMAX, t, x, y, rows, cols, NULL);
    }
}

/* one forced variant on one shape: GPU (element offset `off` into the buffers: unaligned bases) vs cpu */
static void aro_case(ak_context* g, ak_context* cpu, int op, ak_dtype t, size_t rows, size_t cols, size_t off,
                     int variant, unsigned block, unsigned param) {
    size_t es = ak_dtype_size(t), n = rows * cols, i, nout, oes;
    int rowout = op == ARO_SOFTMAX || op == ARO_LOGSOFTMAX || op == ARO_LAYERNORM || op == ARO_RMSNORM;
    void *hx = malloc((n + off) * es), *hw = malloc((cols + off) * es), *hy = NULL, *hr = NULL;
    void *dx = NULL, *dw = NULL, *dy = NULL;
    int64_t *ht = (int64_t*)malloc(rows * 8), *dt = NULL;
    double num = 0.0, den = 0.0, err;
    char what[160];
    nout = rowout ? n : op == ARO_XENT_MEAN ? 1 : rows;
    oes = rowout ? es : op == ARO_ARGMAX ? 8 : 4;
    snprintf(what, sizeof what, "op %d %s %zux%zu off %zu variant %d/%u/%u", op, ak_dtype_name(t), rows, cols, off,
             variant, block, param);
    hy = malloc(nout * oes);
    hr = malloc(nout * oes);
    if (!hx || !hw || !ht || !hy || !hr) { akt_fail(__FILE__, __LINE__, "out of host memory"); goto done; }
    for (i = 0; i < n + off; i++) _ak_op_st(hx, t, i, (float)akt_uniform(&aro_rng, -4.0, 4.0));
    for (i = 0; i < cols + off; i++) _ak_op_st(hw, t, i, (float)akt_uniform(&aro_rng, 0.5, 2.0));
    for (i = 0; i < rows; i++) ht[i] = i % 5 == 4 ? -100 : (int64_t)akt_uniform(&aro_rng, 0.0, (double)cols - 0.5);
    AKT_OK(ak_malloc(g, (n + off) * es, NULL, &dx));
    AKT_OK(ak_malloc(g, (cols + off) * es, NULL, &dw));
    AKT_OK(ak_malloc(g, (nout + off) * oes, NULL, &dy));
    AKT_OK(ak_malloc(g, rows * 8, NULL, (void**)&dt));
    if (!dx || !dw || !dy || !dt) goto done;
    AKT_OK(ak_memcpy(g, dx, hx, (n + off) * es, AK_H2D));
    AKT_OK(ak_memcpy(g, dw, hw, (cols + off) * es, AK_H2D));
    AKT_OK(ak_memcpy(g, dt, ht, rows * 8, AK_H2D));
    AKT_OK(ak_memset(g, dy, 0xFF, (nout + off) * oes, NULL));
    _ak_rowop_force.variant = variant;
    _ak_rowop_force.block = block;
    _ak_rowop_force.param = param;
    AKT_OK(aro_run(g, op, t, (char*)dx + off * es, (char*)dw + off * es, (char*)dw + off * es, dt,
                   (char*)dy + (rowout ? off * oes : 0), rows, cols));
    _ak_rowop_force.variant = -1;
    AKT_OK(ak_device_synchronize(g));
    AKT_OK(ak_memcpy(g, hy, (char*)dy + (rowout ? off * oes : 0), nout * oes, AK_D2H));
    AKT_OK(aro_run(cpu, op, t, (char*)hx + off * es, (char*)hw + off * es, (char*)hw + off * es, ht, hr, rows, cols));
    if (op == ARO_ARGMAX) {
        for (i = 0; i < rows; i++) AKT_CHECKF(((int64_t*)hy)[i] == ((int64_t*)hr)[i], "%s: row %zu index", what, i);
        goto done;
    }
    for (i = 0; i < nout; i++) {
        double a = rowout ? _ak_op_ld(hy, t, i) : ((float*)hy)[i], r = rowout ? _ak_op_ld(hr, t, i) : ((float*)hr)[i];
        if (a != a) { num = HUGE_VAL; break; }
        num += (a - r) * (a - r);
        den += r * r;
    }
    err = num == HUGE_VAL ? HUGE_VAL : sqrt(num) / (sqrt(den) + 1e-30);
    AKT_CHECKF(err <= (!rowout || t == AK_F32 ? 1e-4 : t == AK_F16 ? 4e-3 : 2e-2), "%s: rel. error %.3e", what, err);
done:
    _ak_rowop_force.variant = -1;
    if (dx) ak_free(g, dx);
    if (dw) ak_free(g, dw);
    if (dy) ak_free(g, dy);
    if (dt) ak_free(g, dt);
    free(hx); free(hw); free(ht); free(hy); free(hr);
}

static void test_gpu_rowop_variants(void) {
    static const struct { int op, variant; unsigned block, param; size_t rows, cols; } cases[] = {
        { ARO_SOFTMAX, _AK_ROW_VARIANT_WIDE, 256, 0, 3, 20001 },    { ARO_LOGSOFTMAX, _AK_ROW_VARIANT_WIDE, 1024, 0, 2, 50257 },
        { ARO_SOFTMAX, _AK_ROW_VARIANT_WIDE, 512, 0, 17, 127 },     { ARO_SOFTMAX, _AK_ROW_VARIANT_SPLIT, 256, 0, 3, 40000 },
        { ARO_SOFTMAX, _AK_ROW_VARIANT_TWOPASS, 0, 0, 2, 30001 },   { ARO_SOFTMAX, _AK_ROW_VARIANT_ROWS, 128, 4, 9, 4097 },
        { ARO_LAYERNORM, _AK_ROW_VARIANT_WIDE, 256, 0, 3, 20001 },  { ARO_RMSNORM, _AK_ROW_VARIANT_WIDE, 512, 0, 4, 1000 },
        { ARO_LAYERNORM, _AK_ROW_VARIANT_ROWS, 128, 2, 33, 127 },   { ARO_RMSNORM, _AK_ROW_VARIANT_ROWS, 256, 4, 5, 16383 },
        { ARO_XENT_MEAN, _AK_ROW_VARIANT_SMALL, 1024, 256, 13, 1000 }, { ARO_XENT_MEAN, _AK_ROW_VARIANT_SMALL, 256, 32, 300, 33 },
        { ARO_XENT_MEAN, _AK_ROW_VARIANT_STREAM, 256, 256, 9, 50257 }, { ARO_XENT_NONE, _AK_ROW_VARIANT_STREAM, 256, 32, 65, 127 },
        { ARO_SUM, _AK_ROW_VARIANT_STREAM, 256, 32, 70, 127 },      { ARO_ARGMAX, _AK_ROW_VARIANT_STREAM, 256, 16, 70, 1000 },
        { ARO_SUM, _AK_ROW_VARIANT_SEGMENTS, 256, 16, 3, 100003 },
        { ARO_LAYERNORM, _AK_ROW_VARIANT_WIDE, 1024, 64, 5, 40000 }, { ARO_RMSNORM, _AK_ROW_VARIANT_WIDE, 512, 32, 3, 20001 },
        { ARO_LAYERNORM, _AK_ROW_VARIANT_WIDE, 1024, 64, 2, 130001 }, { ARO_RMSNORM, _AK_ROW_VARIANT_WIDE, 1024, 0, 3, 65536 },
        { ARO_LAYERNORM, _AK_ROW_VARIANT_WIDE, 256, 1, 3, 5000 },
        /* slab: R rows a block through shared memory; 5001 f32 is past its 16 KiB and falls back to rows */
        { ARO_SOFTMAX, _AK_ROW_VARIANT_SLAB, 128, 4096, 65, 127 },  { ARO_LOGSOFTMAX, _AK_ROW_VARIANT_SLAB, 64, 2048, 300, 33 },
        { ARO_SOFTMAX, _AK_ROW_VARIANT_SLAB, 256, 0, 5, 3001 },     { ARO_SOFTMAX, _AK_ROW_VARIANT_SLAB, 256, 0, 3, 5001 },
        { ARO_LOGSOFTMAX, _AK_ROW_VARIANT_SLAB, 256, 0, 1000, 1 },  { ARO_SOFTMAX, _AK_ROW_VARIANT_SLAB, 256, 0, 129, 1023 },
    };
    static const ak_dtype dts[] = { AK_F32, AK_F16, AK_BF16 };
    ak_context *g = NULL, *cpu = akt_cpu_context("gpu_rowop");
    size_t i, d, off;
    aro_rng = akt_seed() ^ 0x5EEDull;
    if (ak_context_create(NULL, &g) != AK_OK || ak_context_device(g)->backend == AK_BACKEND_CPU) {
        akt_fail(__FILE__, __LINE__, "gpu_rowop needs a GPU (context: %s)", g ? "cpu backend" : ak_last_error());
        if (g) ak_context_destroy(g);
        if (cpu) ak_context_destroy(cpu);
        return;
    }
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (d = 0; d < 3; d++)
            for (off = 0; off < 2; off++)
                aro_case(g, cpu, cases[i].op, dts[d], cases[i].rows, cases[i].cols, off, cases[i].variant,
                         cases[i].block, cases[i].param);
    ak_context_destroy(g);
    ak_context_destroy(cpu);
}

void akt_suite_gpu_rowop(void);
void akt_suite_gpu_rowop(void) { AKT_RUN(test_gpu_rowop_variants); }
