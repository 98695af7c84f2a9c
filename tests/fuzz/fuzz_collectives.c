/* Fuzz target collectives: call sequences of the cpu backend's communicators,
 * driven by one thread: init (all at once or by unique id), groups (nested),
 * all_reduce / all_gather / reduce_scatter / broadcast / send / recv of any
 * rank with buffers that are freed as soon as the call (or its group)
 * returns, communicators and contexts destroyed in any order, inside groups
 * too, contexts made again. With 2 or 3 ranks a call outside a group is a
 * late or missing rank: it times out (1-3 ms) and breaks the communicator, and
 * every later call must fail without touching a buffer (ASan sees a write
 * into a freed one). Every error must carry a message; a 1-rank collective
 * on a working communicator must succeed. Leaks are LSan's. Included by
 * fuzz_main.c. Input: byte 0 the rank count and timeout, then one operation
 * per byte (48 at most), operands from the next bytes. */

#define AKF_CR 3
#define AKF_CPEND 256
typedef struct {
    int n, ms;
    ak_context* ctx[AKF_CR];
    ak_comm* comm[AKF_CR];
    int broken;                 /* a call failed (a timeout breaks the communicator) */
    int depth;
    void* pend[AKF_CPEND];      /* buffers of the open group */
    int npend;
    const uint8_t* p;
    const uint8_t* end;
} akf_coll_state;

static void akf_coll_require(int cond, const char* what) {
    if (!cond) {
        fprintf(stderr, "fuzz collectives: %s\n", what);
        abort();
    }
}
static int akf_coll_byte(akf_coll_state* s) { return s->p < s->end ? *s->p++ : 0; }
static ak_context* akf_coll_ctx(int ms) {
    ak_config cfg = ak_config_default();
    ak_context* ctx = NULL;
    cfg.backend = AK_BACKEND_CPU;
    cfg.disk_cache = 0;
    cfg.log_level = AK_LOG_NONE;
    cfg.comm_timeout_ms = ms;
    if (ak_context_create(&cfg, &ctx) != AK_OK) return NULL;
    return ctx;
}
static void akf_coll_free_pending(akf_coll_state* s) {
    int i;
    for (i = 0; i < s->npend; i++) free(s->pend[i]);
    s->npend = 0;
}
/* a buffer of count floats; kept until the group ends, or freed by the caller at once */
static float* akf_coll_buf(akf_coll_state* s, size_t count) {
    float* b = (float*)malloc((count ? count : 1) * sizeof(float));
    size_t i;
    if (!b) return NULL;
    for (i = 0; i < count; i++) b[i] = (float)i;
    if (s->depth > 0) {
        if (s->npend == AKF_CPEND) { free(b); return NULL; }
        s->pend[s->npend++] = b;
    }
    return b;
}
static void akf_coll_result(akf_coll_state* s, ak_result r) {
    if (r != AK_OK) {
        akf_coll_require(ak_last_error()[0] != 0, "an error without a message");
        s->broken = 1;   /* a timeout (a 1-rank recv from itself too) breaks the communicator */
    }
}

static int akf_collectives(const uint8_t* data, size_t size) {
    akf_coll_state s;
    int ops = 0, i;
    memset(&s, 0, sizeof s);
    s.p = data;
    s.end = data + size;
    i = akf_coll_byte(&s);
    s.n = 1 + i % AKF_CR;
    s.ms = 1 + (i / AKF_CR) % 3;
    for (i = 0; i < s.n; i++) if (!(s.ctx[i] = akf_coll_ctx(s.ms))) goto done;
    while (s.p < s.end && ops++ < 48) {
        int op = akf_coll_byte(&s) % 14, r = akf_coll_byte(&s) % s.n, live = 1, k;
        ak_comm* c = s.comm[r];
        for (k = 0; k < s.n; k++) if (!s.comm[k]) live = 0;
        switch (op) {
        case 0:    /* all ranks at once; needs every context and no communicator */
        case 1: {  /* or by a unique id, rank by rank */
            int any = 0, have_ctx = 1;
            for (k = 0; k < s.n; k++) { any |= s.comm[k] != NULL; have_ctx &= s.ctx[k] != NULL; }
            if (any || !have_ctx) break;
            if (op == 0) akf_coll_result(&s, ak_comm_init_all(s.ctx, s.n, s.comm));
            else {
                ak_comm_id id;
                if (ak_comm_get_unique_id(s.ctx[0], &id) != AK_OK) break;
                for (k = 0; k < s.n; k++) akf_coll_require(ak_comm_init_rank(s.ctx[k], s.n, &id, k, &s.comm[k]) == AK_OK, "init_rank");
            }
            s.broken = 0;
            break;
        }
        case 2:
            if (s.depth < 4) { akf_coll_require(ak_comm_group_start() == AK_OK, "group start"); s.depth++; }
            break;
        case 3:
            if (s.depth > 0) {
                ak_result e = ak_comm_group_end();
                if (e != AK_OK) akf_coll_require(ak_last_error()[0] != 0, "group end error without a message");
                if (--s.depth == 0) akf_coll_free_pending(&s);
            }
            break;
        case 4: case 5: case 6: case 7: {   /* a collective of rank r */
            size_t count = (size_t)(akf_coll_byte(&s) % 5);
            float* in = c ? akf_coll_buf(&s, count * (size_t)s.n) : NULL;
            float* out = in ? akf_coll_buf(&s, count * (size_t)s.n) : NULL;
            ak_result e;
            if (!out) { if (s.depth == 0) free(in); break; }
            if (op == 4) e = ak_all_reduce(c, AK_REDUCE_SUM, AK_F32, in, out, count, NULL);
            else if (op == 5) e = ak_all_gather(c, AK_F32, in, out, count, NULL);
            else if (op == 6) e = ak_reduce_scatter(c, AK_REDUCE_MAX, AK_F32, in, out, count, NULL);
            else e = ak_broadcast(c, AK_F32, in, out, count, akf_coll_byte(&s) % s.n, NULL);
            akf_coll_result(&s, e);
            if (s.n == 1 && s.depth == 0 && !s.broken && e != AK_OK) {
                fprintf(stderr, "fuzz collectives: %s\n", ak_last_error());
                akf_coll_require(0, "a 1-rank collective failed");
            }
            if (s.depth == 0) { free(in); free(out); }   /* gone at once: a late rank must not write it */
            break;
        }
        case 8: case 9: {                   /* send to / recv from rank p */
            int peer = akf_coll_byte(&s) % s.n;
            size_t count = (size_t)(akf_coll_byte(&s) % 5);
            float* b = c ? akf_coll_buf(&s, count) : NULL;
            if (!b) break;
            akf_coll_result(&s, op == 8 ? ak_send(c, AK_F32, b, count, peer, NULL) : ak_recv(c, AK_F32, b, count, peer, NULL));
            if (s.depth == 0) free(b);
            break;
        }
        case 10:                            /* destroy rank r's communicator (inside a group: at its end) */
            ak_comm_destroy(c);
            s.comm[r] = NULL;
            break;
        case 11:                            /* destroy rank r's context (its communicator keeps it) */
            ak_context_destroy(s.ctx[r]);
            s.ctx[r] = NULL;
            break;
        case 12:                            /* a context for rank r again */
            if (!s.ctx[r]) s.ctx[r] = akf_coll_ctx(s.ms);
            break;
        case 13:                            /* every rank of a group calls the same all_reduce: it completes */
            if (live && s.depth > 0) {
                size_t count = (size_t)(akf_coll_byte(&s) % 5);
                for (k = 0; k < s.n; k++) {
                    float* b = akf_coll_buf(&s, count);
                    if (b) akf_coll_result(&s, ak_all_reduce(s.comm[k], AK_REDUCE_SUM, AK_F32, b, b, count, NULL));
                }
            }
            break;
        }
    }
done:
    while (s.depth > 0) { ak_comm_group_end(); s.depth--; }
    akf_coll_free_pending(&s);
    for (i = 0; i < AKF_CR; i++) { ak_comm_destroy(s.comm[i]); ak_context_destroy(s.ctx[i]); }
    ak_clear_error();
    return 0;
}
