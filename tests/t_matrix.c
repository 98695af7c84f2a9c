/* Matrix-fragment lane layouts of kernels/prelude.hip (the layer GEMM and
 * attention share), checked on the host since no AMD GPU runs here.
 * The prelude's forward maps (lane, element) -> matrix coordinate are
 * compiled here as plain C (AK_HOST_LAYOUT_TEST). Each is checked against
 * an independent statement of the instruction's register layout written the
 * other way round, coordinate -> (lane, element), in the form AMD's matrix
 * instruction calculator and NVIDIA's PTX ISA tables give it:
 *   1. round trip: inverse(forward(lane, e)) == (lane, e) for every slot;
 *   2. coverage: every tile element is held exactly once (gfx11 WMMA: lanes
 *      16..31 repeat lanes 0..15, as the ISA requires);
 *   3. an emulated instruction: random A, B, C tiles are put into registers
 *      with the forward maps, an emulated matrix unit computes D = A B + C
 *      reading its operands where the inverse model says the hardware reads
 *      them, and D read back through the forward C map must equal the
 *      product computed directly. */
#define AK_HOST_LAYOUT_TEST 1
#include "../kernels/prelude.hip"
#include "ak_test.h"
#include <stdlib.h>

typedef void (*lay_fn)(int lane, int e, int* r, int* c);
/* inverse model: coordinate (r, c) of the operand -> lane and element; *lane2 = replica lane or -1 */
typedef void (*inv_fn)(int r, int c, int* lane, int* e, int* lane2);

typedef struct inst {
    const char* name;
    int M, N, K, lanes, na, nb, nc;
    lay_fn a, b, c;   /* A: (m, k), B: (k, n), C: (m, n) */
    inv_fn ia, ib, ic;
} inst;

/* ---- inverse models (CDNA3 ISA / matrix instruction calculator: "lane = i + 32 * (k / KL), item = k % KL") ---- */
#define INV_MFMA32(KL, NAME)                                                                            \
    static void NAME##_ia(int m, int k, int* l, int* e, int* l2) { *l = m + 32 * (k / (KL)); *e = k % (KL); *l2 = -1; } \
    static void NAME##_ib(int k, int n, int* l, int* e, int* l2) { *l = n + 32 * (k / (KL)); *e = k % (KL); *l2 = -1; }
INV_MFMA32(4, m8)
INV_MFMA32(8, m16)
INV_MFMA32(2, m4)
INV_MFMA32(1, m2)
/* D[i][j] of the 32x32 MFMA: lane j + 32 * ((i / 4) % 2), register (i % 4) + 4 * (i / 8) */
static void mfma32_ic(int i, int j, int* l, int* e, int* l2) { *l = j + 32 * ((i / 4) % 2); *e = i % 4 + 4 * (i / 8); *l2 = -1; }
/* RDNA3 WMMA: A row i in lane i and i + 16, element k; C row i in lane j + 16 (i % 2), element i / 2 */
static void w11_ia(int m, int k, int* l, int* e, int* l2) { *l = m; *l2 = m + 16; *e = k; }
static void w11_ib(int k, int n, int* l, int* e, int* l2) { *l = n; *l2 = n + 16; *e = k; }
static void w11_ic(int m, int n, int* l, int* e, int* l2) { *l = n + 16 * (m % 2); *e = m / 2; *l2 = -1; }
/* RDNA4 WMMA: lanes 16..31 hold k 8..15; C rows 8..15 in lanes 16..31 */
/* gfx12: the k order the prelude's ak_mma loads (lane group g: k 8g .. 8g + 7). The hardware's, as AMD's matrix
 * instruction calculator prints it for RDNA4, is lane m + 16 ((k / 4) % 2), element 4 (k / 8) + k % 4 (lanes
 * 0..15: k 0..3 and 8..11); A and B are permuted alike along k, so the product is the same. tests/emu_matrix.cpp
 * runs the gfx12 kernels against the hardware's order. */
static void w12_ia(int m, int k, int* l, int* e, int* l2) { *l = m + 16 * (k / 8); *e = k % 8; *l2 = -1; }
static void w12_ib(int k, int n, int* l, int* e, int* l2) { *l = n + 16 * (k / 8); *e = k % 8; *l2 = -1; }
static void w12_ic(int m, int n, int* l, int* e, int* l2) { *l = n + 16 * (m / 8); *e = m % 8; *l2 = -1; }
/* PTX m16n8k16: groupID = lane >> 2, threadID_in_group = lane % 4;
 * a_i: row groupID (+8 for a2,a3,a6,a7), col 2 tid + (i & 1) (+8 for i >= 4);
 * b_i: row 2 tid + (i & 1) (+8 for i >= 2), col groupID; c_i: row groupID (+8 for i >= 2), col 2 tid + (i & 1) */
static void s16_ia(int m, int k, int* l, int* e, int* l2) { *l = 4 * (m % 8) + (k % 8) / 2; *e = (k & 1) + 2 * (m / 8) + 4 * (k / 8); *l2 = -1; }
static void s16_ib(int k, int n, int* l, int* e, int* l2) { *l = 4 * n + (k % 8) / 2; *e = (k & 1) + 2 * (k / 8); *l2 = -1; }
static void s_ic(int m, int n, int* l, int* e, int* l2) { *l = 4 * (m % 8) + n / 2; *e = (n & 1) + 2 * (m / 8); *l2 = -1; }
/* PTX m16n8k8 tf32: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4); b0 (t, g), b1 (t + 4, g) */
static void s8_ia(int m, int k, int* l, int* e, int* l2) { *l = 4 * (m % 8) + k % 4; *e = m / 8 + 2 * (k / 4); *l2 = -1; }
static void s8_ib(int k, int n, int* l, int* e, int* l2) { *l = 4 * n + k % 4; *e = k / 4; *l2 = -1; }

static const inst insts[] = {
    { "mfma32x32x8", 32, 32, 8, 64, 4, 4, 16, ak_lay_mfma32x32x8_a, ak_lay_mfma32x32x8_b, ak_lay_mfma32x32x8_c, m8_ia, m8_ib, mfma32_ic },
    { "mfma32x32x16", 32, 32, 16, 64, 8, 8, 16, ak_lay_mfma32x32x16_a, ak_lay_mfma32x32x16_b, ak_lay_mfma32x32x16_c, m16_ia, m16_ib, mfma32_ic },
    { "mfma32x32x4", 32, 32, 4, 64, 2, 2, 16, ak_lay_mfma32x32x4_a, ak_lay_mfma32x32x4_b, ak_lay_mfma32x32x4_c, m4_ia, m4_ib, mfma32_ic },
    { "mfma32x32x2", 32, 32, 2, 64, 1, 1, 16, ak_lay_mfma32x32x2_a, ak_lay_mfma32x32x2_b, ak_lay_mfma32x32x2_c, m2_ia, m2_ib, mfma32_ic },
    { "wmma11", 16, 16, 16, 32, 16, 16, 8, ak_lay_wmma11_a, ak_lay_wmma11_b, ak_lay_wmma11_c, w11_ia, w11_ib, w11_ic },
    { "wmma12", 16, 16, 16, 32, 8, 8, 8, ak_lay_wmma12_a, ak_lay_wmma12_b, ak_lay_wmma12_c, w12_ia, w12_ib, w12_ic },
    { "mma16816", 16, 8, 16, 32, 8, 4, 4, ak_lay_mma16816_a, ak_lay_mma16816_b, ak_lay_mma16816_c, s16_ia, s16_ib, s_ic },
    { "mma1688", 16, 8, 8, 32, 4, 2, 4, ak_lay_mma1688_a, ak_lay_mma1688_b, ak_lay_mma1688_c, s8_ia, s8_ib, s_ic },
};

/* checks 1 and 2 for one operand (rows x cols tile, n elements per lane) */
static void check_operand(const inst* I, const char* op, lay_fn f, inv_fn inv, int rows, int cols, int n, int replicated) {
    int* hits = (int*)calloc((size_t)(rows * cols), sizeof(int));
    int lane, e, bad = 0, i;
    for (lane = 0; lane < I->lanes; lane++)
        for (e = 0; e < n; e++) {
            int r = -1, c = -1, l = -1, ee = -1, l2 = -1;
            f(lane, e, &r, &c);
            if (r < 0 || r >= rows || c < 0 || c >= cols) {
                if (bad++ < 3) akt_fail(__FILE__, __LINE__, "%s %s: lane %d elem %d -> (%d, %d) outside %dx%d", I->name, op, lane, e, r, c, rows, cols);
                continue;
            }
            hits[r * cols + c]++;
            inv(r, c, &l, &ee, &l2);
            if (ee != e || (l != lane && l2 != lane))
                if (bad++ < 3) akt_fail(__FILE__, __LINE__, "%s %s: lane %d elem %d -> (%d, %d) -> lane %d elem %d", I->name, op, lane, e, r, c, l, ee);
        }
    for (i = 0; i < rows * cols; i++)
        if (hits[i] != (replicated ? 2 : 1))
            if (bad++ < 3) akt_fail(__FILE__, __LINE__, "%s %s: element (%d, %d) held %d times", I->name, op, i / cols, i % cols, hits[i]);
    free(hits);
}

static void layouts_round_trip_and_cover(void) {
    size_t i;
    for (i = 0; i < sizeof insts / sizeof insts[0]; i++) {
        const inst* I = &insts[i];
        int rep = !strcmp(I->name, "wmma11");
        AKT_EQ_INT(I->lanes * I->na, I->M * I->K * (rep ? 2 : 1));
        AKT_EQ_INT(I->lanes * I->nb, I->K * I->N * (rep ? 2 : 1));
        AKT_EQ_INT(I->lanes * I->nc, I->M * I->N);
        check_operand(I, "A", I->a, I->ia, I->M, I->K, I->na, rep);
        check_operand(I, "B", I->b, I->ib, I->K, I->N, I->nb, rep);
        check_operand(I, "C", I->c, I->ic, I->M, I->N, I->nc, 0);
    }
}

/* check 3: emulated instruction */
static void emulated_mma(void) {
    unsigned long long st = akt_seed() ^ 0x5bd1e995ull;
    size_t i;
    for (i = 0; i < sizeof insts / sizeof insts[0]; i++) {
        const inst* I = &insts[i];
        int M = I->M, N = I->N, K = I->K, L = I->lanes;
        double* A = (double*)malloc(sizeof(double) * (size_t)(M * K));
        double* B = (double*)malloc(sizeof(double) * (size_t)(K * N));
        double* C = (double*)malloc(sizeof(double) * (size_t)(M * N));
        double* ra = (double*)calloc((size_t)(L * I->na), sizeof(double));
        double* rb = (double*)calloc((size_t)(L * I->nb), sizeof(double));
        double* rc = (double*)calloc((size_t)(L * I->nc), sizeof(double));
        double* rd = (double*)calloc((size_t)(L * I->nc), sizeof(double));
        int lane, e, m, n, k, worst = 0;
        for (m = 0; m < M * K; m++) A[m] = akt_uniform(&st, -1, 1);
        for (m = 0; m < K * N; m++) B[m] = akt_uniform(&st, -1, 1);
        for (m = 0; m < M * N; m++) C[m] = akt_uniform(&st, -1, 1);
        /* the kernel side: fill registers through the prelude's forward maps */
        for (lane = 0; lane < L; lane++) {
            for (e = 0; e < I->na; e++) { I->a(lane, e, &m, &k); ra[lane * I->na + e] = A[m * K + k]; }
            for (e = 0; e < I->nb; e++) { I->b(lane, e, &k, &n); rb[lane * I->nb + e] = B[k * N + n]; }
            for (e = 0; e < I->nc; e++) { I->c(lane, e, &m, &n); rc[lane * I->nc + e] = C[m * N + n]; }
        }
        /* the matrix unit: reads operands where the inverse model says */
        for (m = 0; m < M; m++)
            for (n = 0; n < N; n++) {
                int l, ee, l2;
                double s;
                I->ic(m, n, &l, &ee, &l2);
                s = rc[l * I->nc + ee];
                for (k = 0; k < K; k++) {
                    int la, ea, lb, eb;
                    I->ia(m, k, &la, &ea, &l2);
                    I->ib(k, n, &lb, &eb, &l2);
                    s += ra[la * I->na + ea] * rb[lb * I->nb + eb];
                }
                rd[l * I->nc + ee] = s;
            }
        /* the kernel side again: read D through the forward C map */
        for (lane = 0; lane < L; lane++)
            for (e = 0; e < I->nc; e++) {
                double ref;
                I->c(lane, e, &m, &n);
                ref = C[m * N + n];
                for (k = 0; k < K; k++) ref += A[m * K + k] * B[k * N + n];
                if (fabs(rd[lane * I->nc + e] - ref) > 1e-12 && worst++ < 3)
                    akt_fail(__FILE__, __LINE__, "%s: D(%d, %d) = %g, expected %g", I->name, m, n, rd[lane * I->nc + e], ref);
            }
        free(A); free(B); free(C); free(ra); free(rb); free(rc); free(rd);
    }
}

void akt_suite_matrix(void) {
    AKT_RUN(layouts_round_trip_and_cover);
    AKT_RUN(emulated_mma);
}
