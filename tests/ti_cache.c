/* ti_cache.c - internal tests of the hashes (>>impl:hash) and the two-level
 * compile cache (>>impl:cache). Included by test_main.c after ak_test.h, so
 * the implementation's static functions are visible here.
 *
 * The cache is driven by a fake compile function that counts its calls and
 * returns bytes derived from the key, so no GPU compiler is needed. */
#include <pthread.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <time.h>
#include "fake_cuda.h"

/* ---- fake compiler / loader ------------------------------------------------ */

typedef struct akc_job {
    const _ak_cache_key* key;
    _ak_cache* cache;     /* for wait_refs */
    int fail;             /* compile fails with AK_ERROR_COMPILATION */
    int load_fail;        /* load fails with AK_ERROR_DEVICE */
    int wait_refs;        /* wait (5 s max) until the pending entry holds this many references */
    int wait_running;     /* wait (5 s max) until this many compiles run at once */
    int sleep_ms;
} akc_job;

#define AKC_MAX_HANDLES 4096
#define AKC_PATH (_AK_CACHE_PATH_MAX + 512)
static pthread_mutex_t akc_m = PTHREAD_MUTEX_INITIALIZER;
static int akc_calls, akc_loads, akc_unloads, akc_bad_unloads, akc_running, akc_max_running;
static size_t akc_payload = 1000;
static int akc_handle_live[AKC_MAX_HANDLES];
static int akc_nhandles;

static void akc_reset(void) {
    pthread_mutex_lock(&akc_m);
    akc_calls = akc_loads = akc_unloads = akc_bad_unloads = akc_running = akc_max_running = 0;
    akc_nhandles = 0;
    akc_payload = 1000;
    pthread_mutex_unlock(&akc_m);
}
static int akc_get_calls(void) { int n; pthread_mutex_lock(&akc_m); n = akc_calls; pthread_mutex_unlock(&akc_m); return n; }

static void akc_sleep_ms(int ms) {
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

/* Expected code for a key: bytes from a digest of every compile input (not
 * device_tag), computed independently of the cache's own key text. */
static void akc_digest(const _ak_cache_key* k, uint8_t d[32]) {
    _ak_sha256_ctx s;
    const char* parts[6];
    int i;
    parts[0] = k->kernel_name; parts[1] = k->options; parts[2] = k->arch;
    parts[3] = k->backend; parts[4] = k->compiler; parts[5] = NULL;
    _ak_sha256_init(&s);
    _ak_sha256_update(&s, k->source, k->source_len ? k->source_len : strlen(k->source));
    for (i = 0; i < 5; i++) {
        _ak_sha256_update(&s, "\x01", 1);
        if (parts[i]) _ak_sha256_update(&s, parts[i], strlen(parts[i]));
    }
    _ak_sha256_final(&s, d);
}
static void* akc_expect(const _ak_cache_key* k, size_t* size) {
    uint8_t d[32];
    size_t i, n = akc_payload;
    uint8_t* b = (uint8_t*)_ak_alloc(n);
    akc_digest(k, d);
    for (i = 0; i < n; i++) b[i] = (uint8_t)(d[i % 32] ^ (uint8_t)(i * 131u + i / 32u));
    *size = n;
    return b;
}
/* 1 if the entry holds exactly the code expected for key k. */
static int akc_entry_is(const _ak_cache_entry* e, const _ak_cache_key* k) {
    size_t n, m;
    const void* got = _ak_cache_entry_data(e, &n);
    void* want = akc_expect(k, &m);
    int ok = got && n == m && !memcmp(got, want, n);
    _ak_dealloc(want);
    return ok;
}

static int akc_max_pending_refs(_ak_cache* c) {
    _ak_cache_entry* e;
    int refs = 0;
    _ak_mutex_lock(&c->lock);
    for (e = c->head; e; e = e->next)
        if (e->state == _AK_CE_PENDING && __atomic_load_n(&e->refs, __ATOMIC_RELAXED) > refs) refs = __atomic_load_n(&e->refs, __ATOMIC_RELAXED);
    _ak_mutex_unlock(&c->lock);
    return refs;
}

static ak_result akc_compile(void* user, void** data, size_t* size) {
    akc_job* j = (akc_job*)user;
    int t;
    pthread_mutex_lock(&akc_m);
    akc_calls++;
    akc_running++;
    if (akc_running > akc_max_running) akc_max_running = akc_running;
    pthread_mutex_unlock(&akc_m);
    if (j->wait_running) {
        for (t = 0; t < 5000; t++) {
            int run;
            pthread_mutex_lock(&akc_m);
            run = akc_running;
            pthread_mutex_unlock(&akc_m);
            if (run >= j->wait_running) break;
            akc_sleep_ms(1);
        }
    }
    if (j->wait_refs)
        for (t = 0; t < 5000 && akc_max_pending_refs(j->cache) < j->wait_refs; t++) akc_sleep_ms(1);
    if (j->sleep_ms) akc_sleep_ms(j->sleep_ms);
    pthread_mutex_lock(&akc_m);
    akc_running--;
    pthread_mutex_unlock(&akc_m);
    if (j->fail) {
        ak_result r = _ak_err(AK_ERROR_COMPILATION, "boom: kernel %s does not compile", j->key->kernel_name);
        _ak_err_compile_detail("k.hip:3:1: error: boom", "-O3\n-DX=1", "k.hip");
        return r;
    }
    *data = akc_expect(j->key, size);
    return AK_OK;
}
static ak_result akc_load(void* user, const void* data, size_t size, void** loaded) {
    akc_job* j = (akc_job*)user;
    int i;
    (void)data; (void)size;
    if (j->load_fail) return _ak_err(AK_ERROR_DEVICE, "fake load failed");
    pthread_mutex_lock(&akc_m);
    i = akc_nhandles < AKC_MAX_HANDLES ? akc_nhandles++ : AKC_MAX_HANDLES - 1;
    akc_handle_live[i] = 1;
    akc_loads++;
    pthread_mutex_unlock(&akc_m);
    *loaded = &akc_handle_live[i];
    return AK_OK;
}
static void akc_unload(void* user, void* loaded) {
    int* h = (int*)loaded;
    (void)user;
    pthread_mutex_lock(&akc_m);
    if (!*h) akc_bad_unloads++; /* unloaded twice */
    *h = 0;
    akc_unloads++;
    pthread_mutex_unlock(&akc_m);
}

static _ak_cache_ops akc_ops(akc_job* j, int with_load) {
    _ak_cache_ops o;
    memset(&o, 0, sizeof o);
    o.user = j;
    o.compile = akc_compile;
    o.load = with_load ? akc_load : NULL;
    return o;
}

/* ---- log capture --------------------------------------------------------------- */

static pthread_mutex_t akc_log_m = PTHREAD_MUTEX_INITIALIZER;
static int akc_log_n[AK_LOGITEM_COUNT];
static int akc_log_warn[AK_LOGITEM_COUNT];
static void akc_log_fn(void* u, ak_log_level lv, ak_log_item it, const char* msg) {
    (void)u; (void)msg;
    pthread_mutex_lock(&akc_log_m);
    if ((int)it >= 0 && it < AK_LOGITEM_COUNT) {
        akc_log_n[it]++;
        if (lv == AK_LOG_WARN) akc_log_warn[it]++;
    }
    pthread_mutex_unlock(&akc_log_m);
}
static _ak_logger akc_logger(ak_log_level level) {
    _ak_logger l;
    pthread_mutex_lock(&akc_log_m);
    memset(akc_log_n, 0, sizeof akc_log_n);
    memset(akc_log_warn, 0, sizeof akc_log_warn);
    pthread_mutex_unlock(&akc_log_m);
    l.fn = akc_log_fn;
    l.user_data = NULL;
    l.level = level;
    return l;
}
static int akc_logged(ak_log_item it) { int n; pthread_mutex_lock(&akc_log_m); n = akc_log_n[it]; pthread_mutex_unlock(&akc_log_m); return n; }
static int akc_warned(ak_log_item it) { int n; pthread_mutex_lock(&akc_log_m); n = akc_log_warn[it]; pthread_mutex_unlock(&akc_log_m); return n; }

/* ---- helpers ------------------------------------------------------------------------ */

static char akc_dirbuf[1024];
/* Config with the cache in a fresh folder akt_tmpdir()/sub (not created). */
static ak_config akc_cfg(const char* sub) {
    ak_config cfg = ak_config_default();
    snprintf(akc_dirbuf, sizeof akc_dirbuf, "%s/%s", akt_tmpdir(), sub);
    cfg.cache_enabled = 1;
    cfg.cache_capacity = 100;
    cfg.disk_cache = 1;
    cfg.cache_dir = akc_dirbuf;
    cfg.cache_max_bytes = 0;
    return cfg;
}
static _ak_cache* akc_new(const ak_config* cfg, const _ak_logger* log) {
    _ak_cache* c = NULL;
    ak_result r = _ak_cache_create(cfg, log, akc_unload, NULL, &c);
    AKT_CHECKF(r == AK_OK && c, "cache create: %s", ak_last_error());
    return c;
}

static _ak_cache_key akc_key(const char* source, const char* name) {
    _ak_cache_key k;
    k.source = source;
    k.source_len = strlen(source);
    k.kernel_name = name;
    k.options = "-DBLOCK=256\n-O3";
    k.arch = "gfx90a:sramecc+:xnack-";
    k.backend = "hip";
    k.compiler = "hipRTC 50221153";
    k.device_tag = "dev0";
    return k;
}

/* get + check status; returns the entry (NULL on failure). */
static _ak_cache_entry* akc_get_src(_ak_cache* c, const _ak_cache_key* k, akc_job* j, int with_load,
                                    ak_cache_source* src) {
    _ak_cache_entry* e = NULL;
    _ak_cache_ops ops = akc_ops(j, with_load);
    ak_result r;
    j->key = k;
    r = _ak_cache_get(c, k, &ops, 0, &e, src);
    AKT_CHECKF(r == AK_OK && e, "cache get '%s': %s %s", k->kernel_name, ak_result_name(r), ak_last_error());
    return r == AK_OK ? e : NULL;
}

static void akc_key_path(_ak_cache* c, const _ak_cache_key* k, char* path, size_t cap, uint8_t digest[32]) {
    const char* f[_AK_KF_COUNT];
    size_t l[_AK_KF_COUNT];
    _ak_cache_key_fields(k, f, l);
    _ak_cache_disk_digest(f, l, digest);
    _ak_cache_paths(c, digest, path, cap, NULL, 0);
}
static int akc_exists(const char* path) { struct stat st; return stat(path, &st) == 0; }

static int akc_has_suffix(const char* s, const char* suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !memcmp(s + a - b, suf, b);
}
/* Count files ending in `suffix` in dir and its 2-hex shards; with verify,
 * count .akc files that fail verification (digest from the file name) into *bad. */
static int akc_count_files(const char* dir, const char* suffix, int verify, int* bad) {
    DIR* top = opendir(dir);
    struct dirent* de;
    int n = 0;
    if (bad) *bad = 0;
    if (!top) return 0;
    while ((de = readdir(top)) != NULL) {
        char sub[1400];
        DIR* sd;
        struct dirent* fe;
        if (akc_has_suffix(de->d_name, suffix)) n++;
        if (!_ak_is_shard_name(de->d_name)) continue;
        snprintf(sub, sizeof sub, "%s/%s", dir, de->d_name);
        sd = opendir(sub);
        if (!sd) continue;
        while ((fe = readdir(sd)) != NULL) {
            char path[AKC_PATH];
            if (!akc_has_suffix(fe->d_name, suffix)) continue;
            n++;
            if (verify && bad) {
                uint8_t dg[32];
                char hex[65];
                const char* why;
                int i, ok = strlen(fe->d_name) == 68;
                for (i = 0; ok && i < 32; i++) {
                    unsigned v;
                    if (sscanf(fe->d_name + 2 * i, "%2x", &v) != 1) ok = 0;
                    dg[i] = (uint8_t)v;
                }
                _ak_hex(dg, 32, hex);
                if (ok && strncmp(hex, de->d_name, 2) != 0) ok = 0; /* right shard */
                snprintf(path, sizeof path, "%s/%s", sub, fe->d_name);
                if (!ok || _ak_cache_file_read(path, dg, _AK_CACHE_MAX_ENTRY_DEFAULT, 0, NULL, NULL, NULL, &why) != 1) (*bad)++;
            }
        }
        closedir(sd);
    }
    closedir(top);
    return n;
}

/* ---- SHA-256 ---------------------------------------------------------------------------- */

static int akc_sha_is(const void* data, size_t n, const char* hex_want) {
    uint8_t d[32];
    char hex[65];
    _ak_sha256(data, n, d);
    _ak_hex(d, 32, hex);
    if (strcmp(hex, hex_want) != 0) { printf("    sha256 of %lu bytes: %s, want %s\n", (unsigned long)n, hex, hex_want); return 0; }
    return 1;
}

static void test_sha256_vectors_one(void) {
    static const char* aaa_want[5] = {
        /* 'a' x 55, 56, 63, 64, 65 (padding boundaries), from an independent implementation */
        "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
        "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
        "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
        "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
        "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"
    };
    static const size_t aaa_len[5] = { 55, 56, 63, 64, 65 };
    const char* m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    char* million = (char*)malloc(1000000);
    char aaa[65];
    _ak_sha256_ctx s;
    uint8_t d1[32], d2[32];
    size_t off, step;
    int i;
    AKT_CHECK(akc_sha_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    AKT_CHECK(akc_sha_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    AKT_CHECK(akc_sha_is(m448, strlen(m448), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    memset(aaa, 'a', sizeof aaa);
    for (i = 0; i < 5; i++) AKT_CHECK(akc_sha_is(aaa, aaa_len[i], aaa_want[i]));
    AKT_CHECK(million != NULL);
    if (!million) return;
    memset(million, 'a', 1000000);
    AKT_CHECK(akc_sha_is(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
    /* incremental, in uneven chunks, equals one shot */
    _ak_sha256_init(&s);
    for (off = 0, step = 1; off < 1000000; off += step, step = step * 3 % 997 + 1) {
        size_t n = step < 1000000 - off ? step : 1000000 - off;
        _ak_sha256_update(&s, million + off, n);
    }
    _ak_sha256_final(&s, d1);
    _ak_sha256(million, 1000000, d2);
    AKT_CHECK(!memcmp(d1, d2, 32));
    free(million);
    /* hex */
    {
        const uint8_t b[3] = { 0x00, 0xab, 0xf1 };
        char hex[7];
        _ak_hex(b, 3, hex);
        AKT_EQ_STR(hex, "00abf1");
    }
}
/* Both compressions where the CPU has SHA-NI (the hardware one, then the
 * portable one forced), and the two agree on random data of every length
 * around the block boundaries. */
static void test_sha256_vectors(void) {
    test_sha256_vectors_one();
#ifdef _AK_SHA_NI
    {
        uint8_t buf[700], a[32], b[32];
        size_t n;
        int i, bad = 0;
        printf("    SHA-NI %s\n", _ak_sha_ni() ? "present: hardware path tested, then the portable one" : "absent: portable path only");
        unsigned long long x = akt_seed() | 1u;
        for (i = 0; i < (int)sizeof buf; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; buf[i] = (uint8_t)(x >> 24); }
        _ak_sha256_force_c = 1;
        test_sha256_vectors_one();
        for (n = 0; n < sizeof buf; n++) {
            _ak_sha256_force_c = 0;
            _ak_sha256(buf, n, a);
            _ak_sha256_force_c = 1;
            _ak_sha256(buf, n, b);
            if (memcmp(a, b, 32)) bad++;
        }
        _ak_sha256_force_c = 0;
        AKT_EQ_INT(bad, 0);
    }
#endif
}

/* ---- fast 128-bit hash ----------------------------------------------------------------- */

static int akc_popcount64(uint64_t x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
static int akc_h128_cmp(const void* a, const void* b) {
    const _ak_h128* x = (const _ak_h128*)a;
    const _ak_h128* y = (const _ak_h128*)b;
    if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi) return x->hi < y->hi ? -1 : 1;
    return 0;
}

static void test_hash128(void) {
    unsigned long long st = akt_seed();
    uint8_t buf[300], buf2[310];
    _ak_h128 a, b, seed;
    _ak_h128* all;
    size_t i, n, count = 0;
    long long bits = 0, trials = 0;
    int dup = 0;
    for (i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)akt_uniform(&st, 0, 256);
    /* deterministic, and independent of alignment */
    for (n = 0; n <= 200; n++) {
        a = _ak_hash128(buf, n);
        memcpy(buf2 + 3, buf, n);
        b = _ak_hash128(buf2 + 3, n);
        AKT_CHECK(a.lo == b.lo && a.hi == b.hi);
    }
    /* length matters even when the extra bytes are zero (padding cannot alias) */
    memset(buf2, 0, sizeof buf2);
    buf2[0] = 'a';
    for (n = 1; n < 70; n++) {
        a = _ak_hash128(buf2, n);
        b = _ak_hash128(buf2, n + 1);
        AKT_CHECK(a.lo != b.lo || a.hi != b.hi);
    }
    /* the seed matters */
    seed.lo = 1; seed.hi = 0;
    a = _ak_hash128(buf, 100);
    b = _ak_hash128_seeded(buf, 100, seed);
    AKT_CHECK(a.lo != b.lo && a.hi != b.hi);
    /* avalanche: one flipped input bit changes about half of the 128 output bits */
    for (n = 1; n <= 260; n += 7) {
        size_t bit;
        for (bit = 0; bit < n * 8; bit += 5) {
            a = _ak_hash128(buf, n);
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            b = _ak_hash128(buf, n);
            buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            bits += akc_popcount64(a.lo ^ b.lo) + akc_popcount64(a.hi ^ b.hi);
            trials++;
            if (a.lo == b.lo || a.hi == b.hi) dup++; /* each half must change */
        }
    }
    AKT_EQ_INT(dup, 0);
    AKT_CHECKF(trials > 0 && fabs((double)bits / (double)trials - 64.0) < 2.0, "avalanche: mean %.2f bits of 128 change",
               trials ? (double)bits / (double)trials : 0.0);
    /* no collision among all strings of length 0..3 over 32 symbols plus 20000 random ones of length 4..100 */
    all = (_ak_h128*)malloc(sizeof(_ak_h128) * (1 + 32 + 32 * 32 + 32 * 32 * 32 + 20000));
    AKT_CHECK(all != NULL);
    if (!all) return;
    all[count++] = _ak_hash128("", 0);
    for (n = 1; n <= 3; n++) {
        size_t lim = n == 1 ? 32 : n == 2 ? 1024 : 32768, v;
        for (v = 0; v < lim; v++) {
            uint8_t s[3];
            s[0] = (uint8_t)('@' + (v & 31)); s[1] = (uint8_t)('@' + ((v >> 5) & 31)); s[2] = (uint8_t)('@' + (v >> 10));
            all[count++] = _ak_hash128(s, n);
        }
    }
    for (i = 0; i < 20000; i++) {
        uint8_t s[100];
        size_t k, len = (size_t)akt_uniform(&st, 4, 101);
        for (k = 0; k < len; k++) s[k] = (uint8_t)akt_uniform(&st, 0, 256);
        all[count++] = _ak_hash128(s, len);
    }
    qsort(all, count, sizeof *all, akc_h128_cmp);
    for (i = 1, dup = 0; i < count; i++) if (!akc_h128_cmp(&all[i - 1], &all[i])) dup++;
    AKT_CHECKF(dup == 0, "%d equal hashes among %lu distinct inputs", dup, (unsigned long)count);
    free(all);
}

/* ---- directory resolution, bad input ---------------------------------------------- */

static void akc_setenv(const char* name, const char* v) { if (v) setenv(name, v, 1); else unsetenv(name); }

static void test_cache_dir_resolution(void) {
    static const char* names[3] = { "AMDKIT_CACHE_DIR", "XDG_CACHE_HOME", "HOME" };
    char* saved[3];
    char buf[512], tiny[4];
    ak_config cfg = ak_config_default();
    int i;
    for (i = 0; i < 3; i++) saved[i] = getenv(names[i]) ? _ak_strdup(getenv(names[i])) : NULL;
    akc_setenv("AMDKIT_CACHE_DIR", "/tmp/akc-env");
    akc_setenv("XDG_CACHE_HOME", "/tmp/xdg");
    akc_setenv("HOME", "/home/someone");
    cfg.cache_dir = "/opt/mine/";
    AKT_OK(ak_cache_dir(&cfg, buf, sizeof buf));
    AKT_EQ_STR(buf, "/opt/mine");              /* config first (trailing slash dropped) */
    cfg.cache_dir = NULL;
    AKT_OK(ak_cache_dir(&cfg, buf, sizeof buf));
    AKT_EQ_STR(buf, "/tmp/akc-env");           /* then AMDKIT_CACHE_DIR */
    AKT_OK(ak_cache_dir(NULL, buf, sizeof buf));
    AKT_EQ_STR(buf, "/tmp/akc-env");
    akc_setenv("AMDKIT_CACHE_DIR", NULL);
    AKT_OK(ak_cache_dir(&cfg, buf, sizeof buf));
    AKT_EQ_STR(buf, "/tmp/xdg/amdkit");        /* then $XDG_CACHE_HOME/amdkit */
    akc_setenv("XDG_CACHE_HOME", "relative/xdg");
    AKT_OK(ak_cache_dir(&cfg, buf, sizeof buf));
    AKT_EQ_STR(buf, "/home/someone/.cache/amdkit"); /* relative XDG is ignored, then ~/.cache/amdkit */
    akc_setenv("XDG_CACHE_HOME", NULL);
    AKT_OK(ak_cache_dir(&cfg, buf, sizeof buf));
    AKT_EQ_STR(buf, "/home/someone/.cache/amdkit");
    AKT_ERR(ak_cache_dir(&cfg, tiny, sizeof tiny), AK_ERROR_INVALID_ARGUMENT);
    AKT_EQ_STR(tiny, "");
    AKT_ERR(ak_cache_dir(&cfg, NULL, 10), AK_ERROR_INVALID_ARGUMENT);
    AKT_ERR(ak_cache_dir(&cfg, buf, 0), AK_ERROR_INVALID_ARGUMENT);
    akc_setenv("HOME", NULL);
    AKT_ERR_ITEM(ak_cache_dir(&cfg, buf, sizeof buf), AK_ERROR_NOT_FOUND, AK_ERRITEM_NOT_FOUND);
    /* no directory at all: the cache still works, memory-only, with one warning */
    {
        _ak_logger lg = akc_logger(AK_LOG_WARN);
        _ak_cache* c = akc_new(&cfg, &lg);
        ak_cache_stats s;
        if (c) {
            _ak_cache_stats(c, &s);
            AKT_EQ_INT(s.disk_enabled, 0);
            AKT_EQ_INT(akc_warned(AK_LOGITEM_CACHE_DIR_UNUSABLE), 1);
            _ak_cache_destroy(c);
        }
    }
    for (i = 0; i < 3; i++) { akc_setenv(names[i], saved[i]); _ak_dealloc(saved[i]); }
}

static void test_cache_bad_args(void) {
    ak_config cfg = akc_cfg("badargs");
    _ak_cache* c = NULL;
    _ak_cache_entry* e = NULL;
    _ak_cache_key k = akc_key("x", "k");
    akc_job j;
    _ak_cache_ops ops;
    memset(&j, 0, sizeof j);
    ops = akc_ops(&j, 0);
    AKT_ERR_ITEM(_ak_cache_create(NULL, NULL, NULL, NULL, &c), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(_ak_cache_create(&cfg, NULL, NULL, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    cfg.cache_capacity = 0;
    AKT_ERR_ITEM(_ak_cache_create(&cfg, NULL, NULL, NULL, &c), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    AKT_CHECK(c == NULL);
    cfg.cache_capacity = 4;
    cfg.cache_max_bytes = -1;
    AKT_ERR_ITEM(_ak_cache_create(&cfg, NULL, NULL, NULL, &c), AK_ERROR_CONFIG, AK_ERRITEM_CONFIG_VALUE);
    cfg.cache_max_bytes = 0;
    AKT_OK(_ak_cache_create(&cfg, NULL, akc_unload, NULL, &c));
    if (!c) return;
    AKT_ERR_ITEM(_ak_cache_get(NULL, &k, &ops, 0, &e, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(_ak_cache_get(c, NULL, &ops, 0, &e, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(_ak_cache_get(c, &k, NULL, 0, &e, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(_ak_cache_get(c, &k, &ops, 0, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ops.compile = NULL;
    AKT_ERR_ITEM(_ak_cache_get(c, &k, &ops, 0, &e, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    ops = akc_ops(&j, 0);
    k.source = NULL;
    AKT_ERR_ITEM(_ak_cache_get(c, &k, &ops, 0, &e, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_CHECK(e == NULL);
    _ak_cache_entry_release(c, NULL);   /* no-op */
    _ak_cache_entry_release(NULL, NULL);
    AKT_CHECK(_ak_cache_entry_data(NULL, NULL) == NULL);
    AKT_ERR_ITEM(ak_cache_stats_get(NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_ERR_ITEM(ak_cache_purge(NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    _ak_cache_destroy(c);
    _ak_cache_destroy(NULL);
}

/* ---- memory level ----------------------------------------------------------------- */

static void test_cache_memory_hit(void) {
    ak_config cfg = akc_cfg("memhit");
    _ak_logger lg = akc_logger(AK_LOG_DEBUG);
    _ak_cache* c;
    _ak_cache_key k = akc_key("__global__ void k(float* x) { x[0] = 1; }", "k");
    akc_job j;
    _ak_cache_entry *e1, *e2;
    ak_cache_source src = AK_CACHE_DISK;
    ak_cache_stats s;
    akc_reset();
    memset(&j, 0, sizeof j);
    cfg.disk_cache = 0;
    c = akc_new(&cfg, &lg);
    if (!c) return;
    e1 = akc_get_src(c, &k, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);
    AKT_EQ_INT(akc_logged(AK_LOGITEM_CACHE_MISS), 1);
    e2 = akc_get_src(c, &k, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    AKT_EQ_INT(akc_logged(AK_LOGITEM_CACHE_MEMORY_HIT), 1);
    AKT_CHECK(e1 == e2);
    AKT_EQ_INT(akc_get_calls(), 1);
    AKT_EQ_INT(akc_loads, 1);
    AKT_CHECK(e1 && akc_entry_is(e1, &k));
    AKT_CHECK(_ak_cache_entry_loaded(e1) != NULL);
    AKT_CHECK(_ak_cache_entry_compile_ms(e1) >= 0.0);
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.compilations, 1);
    AKT_EQ_INT(s.misses, 1);
    AKT_EQ_INT(s.memory_hits, 1);
    AKT_EQ_INT(s.disk_hits, 0);
    AKT_EQ_INT(s.memory_entries, 1);
    AKT_EQ_INT(s.capacity, 100);
    AKT_EQ_INT(s.disk_enabled, 0);
    AKT_NEAR(s.hit_rate, 0.5, 1e-12);
    AKT_CHECK(s.compile_ms >= 0.0);
    /* a bypassing get compiles again, into a private entry */
    {
        _ak_cache_entry* e3 = NULL;
        _ak_cache_ops ops = akc_ops(&j, 1);
        j.key = &k;
        AKT_OK(_ak_cache_get(c, &k, &ops, 1, &e3, &src));
        AKT_EQ_INT(src, AK_CACHE_MISS);
        AKT_CHECK(e3 && e3 != e1 && akc_entry_is(e3, &k));
        AKT_EQ_INT(akc_get_calls(), 2);
        _ak_cache_entry_release(c, e3);
        AKT_EQ_INT(akc_unloads, 1);
    }
    _ak_cache_entry_release(c, e1);
    _ak_cache_entry_release(c, e2);
    AKT_EQ_INT(akc_unloads, 1); /* still cached */
    _ak_cache_destroy(c);
    AKT_EQ_INT(akc_unloads, 2);
    AKT_EQ_INT(akc_bad_unloads, 0);
}

/* Every key field matters: changing any one gives a different entry. */
static void test_cache_key_sensitivity(void) {
    ak_config cfg = akc_cfg("keys");
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key base = akc_key("__global__ void k(float* x) { x[0] = a+b; }", "k");
    _ak_cache_key v[12];
    const char* what[12];
    _ak_cache_entry *eb, *ev;
    uint8_t dbase[32], dv[32];
    char path[AKC_PATH];
    int i, nv = 0, calls;
    akc_reset();
    memset(&j, 0, sizeof j);
    c = akc_new(&cfg, NULL);
    if (!c) return;
    v[nv] = base; v[nv].source = "__global__ void k(float* x) { x[0] = a-b; }"; what[nv++] = "same-length source edit";
    v[nv] = base; v[nv].source = "__global__ void k(float* x) { x[0] = a+b;  }"; v[nv].source_len = 0; what[nv++] = "source";
    v[nv] = base; v[nv].kernel_name = "k2"; what[nv++] = "kernel name";
    v[nv] = base; v[nv].options = "-DBLOCK=128\n-O3"; what[nv++] = "one option";
    v[nv] = base; v[nv].options = "-DBLOCK=256"; what[nv++] = "an option less";
    v[nv] = base; v[nv].arch = "gfx90a:sramecc+:xnack+"; what[nv++] = "arch feature suffix";
    v[nv] = base; v[nv].arch = "gfx90a"; what[nv++] = "arch without suffix";
    v[nv] = base; v[nv].backend = "cuda"; what[nv++] = "backend";
    v[nv] = base; v[nv].compiler = "hipRTC 50221154"; what[nv++] = "compiler version";
    v[nv] = base; v[nv].kernel_name = "k-DBLOCK"; v[nv].options = "=256\n-O3"; what[nv++] = "field boundary shift";
    eb = akc_get_src(c, &base, &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);
    akc_key_path(c, &base, path, sizeof path, dbase);
    for (i = 0; i < nv; i++) {
        calls = akc_get_calls();
        ev = akc_get_src(c, &v[i], &j, 0, &src);
        AKT_CHECKF(src == AK_CACHE_MISS && akc_get_calls() == calls + 1, "%s: not a new compile (src %d)", what[i], (int)src);
        AKT_CHECKF(ev && ev != eb && akc_entry_is(ev, &v[i]) && !akc_entry_is(ev, &base), "%s: wrong entry", what[i]);
        akc_key_path(c, &v[i], path, sizeof path, dv);
        AKT_CHECKF(memcmp(dv, dbase, 32) != 0, "%s: same disk key", what[i]);
        _ak_cache_entry_release(c, ev);
    }
    /* the device tag separates memory entries but not disk files (same code object) */
    v[0] = base; v[0].device_tag = "dev1";
    calls = akc_get_calls();
    ev = akc_get_src(c, &v[0], &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_DISK);
    AKT_EQ_INT(akc_get_calls(), calls);
    AKT_CHECK(ev && ev != eb && akc_entry_is(ev, &base));
    akc_key_path(c, &v[0], path, sizeof path, dv);
    AKT_CHECK(!memcmp(dv, dbase, 32));
    _ak_cache_entry_release(c, ev);
    /* and the unchanged key is still a memory hit */
    ev = akc_get_src(c, &base, &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    AKT_CHECK(ev == eb);
    _ak_cache_entry_release(c, ev);
    _ak_cache_entry_release(c, eb);
    _ak_cache_destroy(c);
}

/* A key with its prefix made once (ak_kernel_get's options memo) finds the
 * same entries as the key without it, in either order, and the source still
 * separates entries. */
static void test_cache_key_prefix(void) {
    ak_config cfg = akc_cfg("prefix");
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key k = akc_key("__global__ void k(float* x) { x[0] = 2; }", "k"), kp, kq, k2;
    _ak_cache_prefix pre, pre2;
    _ak_cache_entry *e1, *e2, *e3, *e4;
    const char* f[_AK_KF_COUNT];
    size_t l[_AK_KF_COUNT];
    _ak_h128 h1, h2;
    akc_reset();
    memset(&j, 0, sizeof j);
    cfg.disk_cache = 0;
    c = akc_new(&cfg, NULL);
    if (!c) return;
    _ak_cache_prefix_make(&k, &pre);
    kp = k;
    kp.prefix = &pre;
    _ak_cache_key_fields(&k, f, l);
    h1 = _ak_cache_mem_hash(f, l);
    _ak_cache_key_fields(&kp, f, l);
    h2 = _ak_hash128_seeded(f[_AK_KF_SOURCE], l[_AK_KF_SOURCE], pre.seed);
    AKT_CHECK(h1.lo == h2.lo && h1.hi == h2.hi);
    e1 = akc_get_src(c, &k, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);
    e2 = akc_get_src(c, &kp, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    AKT_CHECK(e1 && e1 == e2);
    kq = kp;   /* same prefix, another source: another entry */
    kq.source = "__global__ void k(float* x) { x[0] = 3; }";
    e3 = akc_get_src(c, &kq, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);
    AKT_CHECK(e3 && e3 != e1 && akc_entry_is(e3, &kq));
    k2 = k;    /* another option: prefix first, then the plain key hits it */
    k2.options = "-DBLOCK=64";
    _ak_cache_prefix_make(&k2, &pre2);
    k2.prefix = &pre2;
    e4 = akc_get_src(c, &k2, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);
    _ak_cache_entry_release(c, e4);
    k2.prefix = NULL;
    e4 = akc_get_src(c, &k2, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    AKT_CHECK(e4 && akc_entry_is(e4, &k2) && e4 != e1);
    AKT_EQ_INT(akc_get_calls(), 3);
    _ak_cache_entry_release(c, e4);
    _ak_cache_entry_release(c, e3);
    _ak_cache_entry_release(c, e2);
    _ak_cache_entry_release(c, e1);
    _ak_cache_destroy(c);
}

/* Two different keys with the same memory hash never share an entry. */
static void test_cache_hash_collision(void) {
    ak_config cfg = akc_cfg("collide");
    _ak_cache* c;
    akc_job j;
    _ak_cache_key k1 = akc_key("source one", "k"), k2 = akc_key("source two", "k");
    const char* f1[_AK_KF_COUNT];
    const char* f2[_AK_KF_COUNT];
    size_t l1[_AK_KF_COUNT], l2[_AK_KF_COUNT];
    _ak_h128 h;
    _ak_cache_ops ops;
    _ak_cache_entry *a = NULL, *b = NULL, *a2 = NULL, *b2 = NULL;
    ak_cache_source s1 = AK_CACHE_DISK, s2 = AK_CACHE_DISK, s3 = AK_CACHE_MISS, s4 = AK_CACHE_MISS;
    akc_reset();
    memset(&j, 0, sizeof j);
    cfg.disk_cache = 0;
    c = akc_new(&cfg, NULL);
    if (!c) return;
    h.lo = 0x1234; h.hi = 0x5678;
    _ak_cache_key_fields(&k1, f1, l1);
    _ak_cache_key_fields(&k2, f2, l2);
    ops = akc_ops(&j, 0);
    j.key = &k1; AKT_OK(_ak_cache_get_hashed(c, f1, l1, h, NULL, &ops, &a, &s1));
    j.key = &k2; AKT_OK(_ak_cache_get_hashed(c, f2, l2, h, NULL, &ops, &b, &s2));
    j.key = &k1; AKT_OK(_ak_cache_get_hashed(c, f1, l1, h, NULL, &ops, &a2, &s3));
    j.key = &k2; AKT_OK(_ak_cache_get_hashed(c, f2, l2, h, NULL, &ops, &b2, &s4));
    AKT_EQ_INT(s1, AK_CACHE_MISS);
    AKT_EQ_INT(s2, AK_CACHE_MISS);
    AKT_EQ_INT(s3, AK_CACHE_MEMORY);
    AKT_EQ_INT(s4, AK_CACHE_MEMORY);
    AKT_CHECK(a && b && a != b && a == a2 && b == b2);
    AKT_CHECK(a && akc_entry_is(a, &k1));
    AKT_CHECK(b && akc_entry_is(b, &k2));
    AKT_EQ_INT(akc_get_calls(), 2);
    _ak_cache_entry_release(c, a); _ak_cache_entry_release(c, b);
    _ak_cache_entry_release(c, a2); _ak_cache_entry_release(c, b2);
    _ak_cache_destroy(c);
}

static int akc_lru_is(_ak_cache* c, _ak_cache_key* const* want, int n) {
    _ak_cache_entry* e;
    int i = 0;
    for (e = c->head; e; e = e->next, i++)
        if (i >= n || strcmp(e->kf[_AK_KF_SOURCE], want[i]->source) != 0) return 0;
    return i == n;
}

static void test_cache_lru_order(void) {
    ak_config cfg = akc_cfg("lru");
    _ak_logger lg = akc_logger(AK_LOG_DEBUG);
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key A = akc_key("A", "k"), B = akc_key("B", "k"), C = akc_key("C", "k"), D = akc_key("D", "k");
    _ak_cache_key* order[3];
    ak_cache_stats s;
    akc_reset();
    memset(&j, 0, sizeof j);
    cfg.disk_cache = 0;
    cfg.cache_capacity = 3;
    c = akc_new(&cfg, &lg);
    if (!c) return;
    _ak_cache_entry_release(c, akc_get_src(c, &A, &j, 0, &src));
    _ak_cache_entry_release(c, akc_get_src(c, &B, &j, 0, &src));
    _ak_cache_entry_release(c, akc_get_src(c, &C, &j, 0, &src));
    _ak_cache_entry_release(c, akc_get_src(c, &A, &j, 0, &src)); /* A used: B is now the oldest */
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    _ak_cache_entry_release(c, akc_get_src(c, &D, &j, 0, &src)); /* evicts B */
    AKT_EQ_INT(src, AK_CACHE_MISS);
    order[0] = &D; order[1] = &A; order[2] = &C;
    AKT_CHECK(akc_lru_is(c, order, 3));
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.evictions, 1);
    AKT_EQ_INT(s.memory_entries, 3);
    AKT_EQ_INT(akc_logged(AK_LOGITEM_CACHE_EVICT), 1);
    _ak_cache_entry_release(c, akc_get_src(c, &C, &j, 0, &src));
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    _ak_cache_entry_release(c, akc_get_src(c, &A, &j, 0, &src));
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    AKT_EQ_INT(akc_get_calls(), 4);
    _ak_cache_entry_release(c, akc_get_src(c, &B, &j, 0, &src)); /* B was evicted: compiles; evicts D */
    AKT_EQ_INT(src, AK_CACHE_MISS);
    AKT_EQ_INT(akc_get_calls(), 5);
    order[0] = &B; order[1] = &A; order[2] = &C;
    AKT_CHECK(akc_lru_is(c, order, 3));
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.evictions, 2);
    AKT_EQ_INT(s.memory_entries, 3);
    _ak_cache_destroy(c);
}

/* An entry evicted while a caller holds it stays valid; unload runs once, at the last release. */
static void test_cache_referenced_survive_eviction(void) {
    ak_config cfg = akc_cfg("refs");
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key A = akc_key("A", "k"), B = akc_key("B", "k"), C = akc_key("C", "k");
    _ak_cache_entry *ea, *eb, *ec;
    int* ha;
    akc_reset();
    memset(&j, 0, sizeof j);
    cfg.disk_cache = 0;
    cfg.cache_capacity = 1;
    c = akc_new(&cfg, NULL);
    if (!c) return;
    ea = akc_get_src(c, &A, &j, 1, &src);
    eb = akc_get_src(c, &B, &j, 1, &src); /* A leaves the index */
    if (!ea || !eb) { _ak_cache_destroy(c); return; }
    ha = (int*)_ak_cache_entry_loaded(ea);
    AKT_EQ_INT(c->count, 1);
    AKT_EQ_INT(akc_unloads, 0);
    AKT_CHECK(akc_entry_is(ea, &A));
    AKT_CHECK(ha && *ha == 1);
    _ak_cache_entry_release(c, ea);
    AKT_EQ_INT(akc_unloads, 1);
    AKT_CHECK(ha && *ha == 0);
    _ak_cache_entry_release(c, eb);
    AKT_EQ_INT(akc_unloads, 1);           /* B is cached */
    ec = akc_get_src(c, &C, &j, 1, &src); /* evicts B, unreferenced: unloaded now */
    AKT_EQ_INT(akc_unloads, 2);
    _ak_cache_entry_release(c, ec);
    _ak_cache_destroy(c);
    AKT_EQ_INT(akc_loads, 3);
    AKT_EQ_INT(akc_unloads, 3);
    AKT_EQ_INT(akc_bad_unloads, 0);
}

/* ---- disk level -------------------------------------------------------------------------- */

static void test_cache_disk_hit_fresh_cache(void) {
    ak_config cfg = akc_cfg("disk/deeper/not/yet/made");
    _ak_logger lg = akc_logger(AK_LOG_DEBUG);
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key k = akc_key("__global__ void k() {}", "k"), k2 = akc_key("__global__ void k2() {}", "k2");
    _ak_cache_entry* e;
    ak_cache_stats s;
    char path[AKC_PATH];
    uint8_t dg[32];
    int bad;
    akc_reset();
    memset(&j, 0, sizeof j);
    c = akc_new(&cfg, &lg);  /* the missing folder is created */
    if (!c) return;
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.disk_enabled, 1);
    AKT_EQ_STR(s.dir, akc_dirbuf);
    _ak_cache_entry_release(c, akc_get_src(c, &k, &j, 1, &src));
    _ak_cache_entry_release(c, akc_get_src(c, &k2, &j, 1, &src));
    akc_key_path(c, &k, path, sizeof path, dg);
    AKT_CHECK(akc_exists(path));
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".akc", 1, &bad), 2);
    AKT_EQ_INT(bad, 0);
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".tmp", 0, NULL), 0);
    _ak_cache_destroy(c);
    /* a fresh cache object (a new process would be the same) compiles nothing */
    akc_reset();
    lg = akc_logger(AK_LOG_DEBUG);
    c = akc_new(&cfg, &lg);
    if (!c) return;
    e = akc_get_src(c, &k, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_DISK);
    AKT_CHECK(e && akc_entry_is(e, &k));
    AKT_CHECK(e && _ak_cache_entry_loaded(e) != NULL);    /* loaded on a disk hit */
    AKT_CHECK(e && _ak_cache_entry_compile_ms(e) == 0.0);
    AKT_EQ_INT(akc_logged(AK_LOGITEM_CACHE_DISK_HIT), 1);
    _ak_cache_entry_release(c, e);
    e = akc_get_src(c, &k, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    _ak_cache_entry_release(c, e);
    AKT_EQ_INT(akc_get_calls(), 0);
    AKT_EQ_INT(akc_loads, 1);
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.compilations, 0);
    AKT_EQ_INT(s.disk_hits, 1);
    AKT_EQ_INT(s.memory_hits, 1);
    AKT_EQ_INT(s.misses, 0);
    AKT_NEAR(s.hit_rate, 1.0, 1e-12);
    _ak_cache_destroy(c);
}

/* Damage the file of k in one way (mode), then a fresh cache must detect it,
 * remove it, recompile, count a disk error and return the right code. */
static void akc_corrupt_case(int mode, const char* label) {
    char sub[64], path[AKC_PATH], path2[AKC_PATH];
    ak_config cfg;
    _ak_logger lg;
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key k = akc_key("__global__ void corrupt_me() {}", "corrupt_me");
    _ak_cache_key k2 = akc_key("__global__ void other() {}", "other");
    _ak_cache_entry* e;
    ak_cache_stats s;
    uint8_t dg[32], dg2[32];
    struct stat st;
    const char* why;
    FILE* fp;
    snprintf(sub, sizeof sub, "corrupt%d", mode);
    cfg = akc_cfg(sub);
    akc_reset();
    memset(&j, 0, sizeof j);
    lg = akc_logger(AK_LOG_WARN);
    c = akc_new(&cfg, &lg);
    if (!c) return;
    _ak_cache_entry_release(c, akc_get_src(c, &k, &j, 0, &src));
    _ak_cache_entry_release(c, akc_get_src(c, &k2, &j, 0, &src));
    akc_key_path(c, &k, path, sizeof path, dg);
    akc_key_path(c, &k2, path2, sizeof path2, dg2);
    _ak_cache_destroy(c);
    AKT_CHECK(stat(path, &st) == 0);
    switch (mode) {
    case 0: /* flip a payload byte */
        fp = fopen(path, "r+b");
        if (fp) { int ch; fseek(fp, 88 + 10, SEEK_SET); ch = fgetc(fp); fseek(fp, 88 + 10, SEEK_SET); fputc(ch ^ 0x20, fp); fclose(fp); }
        break;
    case 1: /* truncated payload */
        AKT_CHECK(truncate(path, st.st_size - 5) == 0);
        break;
    case 2: /* truncated inside the header */
        AKT_CHECK(truncate(path, 20) == 0);
        break;
    case 3: /* foreign file: wrong magic */
        fp = fopen(path, "wb");
        if (fp) { int i; for (i = 0; i < 50; i++) fputs("not an amdkit cache file\n", fp); fclose(fp); }
        break;
    case 4: /* valid file of another key under this name: key digest mismatch */
        AKT_CHECK(rename(path2, path) == 0);
        break;
    case 5: /* another format version */
        fp = fopen(path, "r+b");
        if (fp) { fseek(fp, 8, SEEK_SET); fputc(99, fp); fclose(fp); }
        break;
    case 6: /* extra bytes after the payload */
        fp = fopen(path, "ab");
        if (fp) { fputs("junk", fp); fclose(fp); }
        break;
    case 7: /* zero-length file */
        AKT_CHECK(truncate(path, 0) == 0);
        break;
    }
    akc_reset();
    lg = akc_logger(AK_LOG_WARN);
    c = akc_new(&cfg, &lg);
    if (!c) return;
    e = akc_get_src(c, &k, &j, 0, &src);
    AKT_CHECKF(src == AK_CACHE_MISS, "%s: src %d, expected a recompile", label, (int)src);
    AKT_CHECKF(akc_get_calls() == 1, "%s: %d compiles", label, akc_get_calls());
    AKT_CHECKF(e && akc_entry_is(e, &k), "%s: wrong code returned", label);
    _ak_cache_stats(c, &s);
    AKT_CHECKF(s.disk_errors == 1, "%s: disk_errors %llu", label, s.disk_errors);
    AKT_CHECKF(akc_warned(AK_LOGITEM_CACHE_CORRUPT_ENTRY) == 1, "%s: %d corrupt warnings", label,
               akc_warned(AK_LOGITEM_CACHE_CORRUPT_ENTRY));
    /* rewritten, valid */
    AKT_CHECKF(_ak_cache_file_read(path, dg, _AK_CACHE_MAX_ENTRY_DEFAULT, 0, NULL, NULL, NULL, &why) == 1, "%s: file not rewritten (%s)", label, why);
    _ak_cache_entry_release(c, e);
    _ak_cache_destroy(c);
    /* and now a plain disk hit */
    akc_reset();
    c = akc_new(&cfg, NULL);
    if (!c) return;
    e = akc_get_src(c, &k, &j, 0, &src);
    AKT_CHECKF(src == AK_CACHE_DISK && akc_get_calls() == 0, "%s: no disk hit after repair", label);
    AKT_CHECK(e && akc_entry_is(e, &k));
    _ak_cache_entry_release(c, e);
    _ak_cache_destroy(c);
}

static void test_cache_corruption(void) {
    akc_corrupt_case(0, "flipped payload byte");
    akc_corrupt_case(1, "truncated payload");
    akc_corrupt_case(2, "truncated header");
    akc_corrupt_case(3, "foreign file (magic)");
    akc_corrupt_case(4, "wrong key digest");
    akc_corrupt_case(5, "other format version");
    akc_corrupt_case(6, "trailing bytes");
    akc_corrupt_case(7, "empty file");
}

/* A disk entry that verifies but does not load: removed, recompiled. */
static void test_cache_disk_load_failure(void) {
    ak_config cfg = akc_cfg("loadfail");
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key k = akc_key("__global__ void lf() {}", "lf");
    _ak_cache_entry* e = NULL;
    _ak_cache_ops ops;
    ak_cache_stats s;
    _ak_logger lg = akc_logger(AK_LOG_WARN);
    akc_reset();
    memset(&j, 0, sizeof j);
    c = akc_new(&cfg, &lg);
    if (!c) return;
    _ak_cache_entry_release(c, akc_get_src(c, &k, &j, 0, &src));
    _ak_cache_destroy(c);
    akc_reset();
    c = akc_new(&cfg, &lg);
    if (!c) return;
    j.key = &k;
    j.load_fail = 1;
    ops = akc_ops(&j, 1);
    AKT_ERR_ITEM(_ak_cache_get(c, &k, &ops, 0, &e, &src), AK_ERROR_DEVICE, AK_ERRITEM_RUNTIME_CALL); /* disk payload rejected, recompiled, fails again */
    AKT_CHECK(e == NULL);
    AKT_EQ_INT(akc_get_calls(), 1);
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.disk_errors, 1);
    AKT_EQ_INT(akc_warned(AK_LOGITEM_CACHE_CORRUPT_ENTRY), 1);
    AKT_EQ_INT(s.memory_entries, 0); /* failures are not cached */
    j.load_fail = 0;
    e = akc_get_src(c, &k, &j, 1, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);
    AKT_CHECK(e && akc_entry_is(e, &k));
    _ak_cache_entry_release(c, e);
    _ak_cache_destroy(c);
}

static void akc_memory_only_case(const char* dir, const char* label) {
    ak_config cfg = ak_config_default();
    _ak_logger lg = akc_logger(AK_LOG_WARN);
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key k = akc_key("__global__ void ro() {}", "ro");
    ak_cache_stats s;
    _ak_cache_entry* e;
    akc_reset();
    memset(&j, 0, sizeof j);
    cfg.cache_enabled = 1; cfg.disk_cache = 1; cfg.cache_capacity = 10; cfg.cache_dir = dir;
    c = akc_new(&cfg, &lg);
    if (!c) return;
    _ak_cache_stats(c, &s);
    AKT_CHECKF(s.disk_enabled == 0, "%s: disk still enabled", label);
    AKT_CHECKF(akc_warned(AK_LOGITEM_CACHE_DIR_UNUSABLE) == 1, "%s: %d warnings", label,
               akc_warned(AK_LOGITEM_CACHE_DIR_UNUSABLE));
    e = akc_get_src(c, &k, &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);
    AKT_CHECK(e && akc_entry_is(e, &k));
    _ak_cache_entry_release(c, e);
    e = akc_get_src(c, &k, &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    _ak_cache_entry_release(c, e);
    AKT_EQ_INT(akc_get_calls(), 1);
    AKT_EQ_INT(akc_warned(AK_LOGITEM_CACHE_DIR_UNUSABLE), 1); /* once, not per get */
    AKT_EQ_INT(akc_logged(AK_LOGITEM_CACHE_WRITE_FAILED), 0);
    _ak_cache_destroy(c);
}

/* A cache folder that cannot be created or written: memory-only, one warning, gets work. */
static void test_cache_unusable_dir(void) {
    char file[1024], under[1100], ro[1024], ro_sub[1100];
    FILE* fp;
    snprintf(file, sizeof file, "%s/cache-is-a-file", akt_tmpdir());
    fp = fopen(file, "w");
    AKT_CHECK(fp != NULL);
    if (fp) { fputs("x", fp); fclose(fp); }
    akc_memory_only_case(file, "path is a regular file");           /* works as root too */
    snprintf(under, sizeof under, "%s/sub/dir", file);
    akc_memory_only_case(under, "path below a regular file");
    if (geteuid() != 0) { /* root ignores permission bits: only the checks above apply then */
        snprintf(ro, sizeof ro, "%s/readonly", akt_tmpdir());
        mkdir(ro, 0755);
        AKT_CHECK(chmod(ro, 0555) == 0);
        akc_memory_only_case(ro, "read-only folder");
        snprintf(ro_sub, sizeof ro_sub, "%s/sub", ro);
        akc_memory_only_case(ro_sub, "missing folder below a read-only one");
        chmod(ro, 0755);
    }
}

/* A write that fails (the shard path is taken by a file) is logged; the get still works. */
static void test_cache_write_failure(void) {
    ak_config cfg = akc_cfg("writefail");
    _ak_logger lg = akc_logger(AK_LOG_WARN);
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key k = akc_key("__global__ void wf() {}", "wf");
    _ak_cache_entry* e;
    char path[AKC_PATH], shard[AKC_PATH];
    uint8_t dg[32];
    FILE* fp;
    ak_cache_stats s;
    akc_reset();
    memset(&j, 0, sizeof j);
    c = akc_new(&cfg, &lg);
    if (!c) return;
    akc_key_path(c, &k, path, sizeof path, dg);
    _ak_cache_paths(c, dg, path, sizeof path, shard, sizeof shard);
    fp = fopen(shard, "w");
    AKT_CHECK(fp != NULL);
    if (fp) fclose(fp);
    e = akc_get_src(c, &k, &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);
    AKT_CHECK(e && akc_entry_is(e, &k));
    AKT_EQ_INT(akc_warned(AK_LOGITEM_CACHE_WRITE_FAILED), 1);
    _ak_cache_entry_release(c, e);
    e = akc_get_src(c, &k, &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    _ak_cache_entry_release(c, e);
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.disk_enabled, 1); /* one failed write does not disable the disk level */
    _ak_cache_destroy(c);
    unlink(shard);
}

static void akc_set_mtime(const char* path, time_t t) {
    struct timespec ts[2];
    ts[0].tv_sec = t; ts[0].tv_nsec = 0;
    ts[1] = ts[0];
    AKT_CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

static void test_cache_size_cap(void) {
    ak_config cfg = akc_cfg("cap");
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key k[5];
    char src_text[5][64], path[5][AKC_PATH], old_tmp[AKC_PATH + 128], new_tmp[AKC_PATH + 128];
    uint8_t dg[32];
    ak_cache_stats s;
    time_t base = time(NULL) - 1000;
    int i, bad;
    akc_reset();
    memset(&j, 0, sizeof j);
    akc_payload = 1000;                                   /* files of 1088 bytes */
    cfg.cache_max_bytes = 3 * (1000 + 88) + 100;          /* room for three */
    c = akc_new(&cfg, NULL);
    if (!c) return;
    for (i = 0; i < 5; i++) {
        snprintf(src_text[i], sizeof src_text[i], "__global__ void cap%d() {}", i);
        k[i] = akc_key(src_text[i], "cap");
        akc_key_path(c, &k[i], path[i], sizeof path[i], dg);
    }
    for (i = 0; i < 3; i++) {
        _ak_cache_entry_release(c, akc_get_src(c, &k[i], &j, 0, &src));
        akc_set_mtime(path[i], base + i); /* distinct ages: 0 oldest */
    }
    {   /* temp files of writers that died: an old one is cleaned up on the next write, a fresh one is kept */
        char shard[AKC_PATH], scratch[AKC_PATH], hex[65];
        FILE* fp;
        _ak_cache_paths(c, dg, scratch, sizeof scratch, shard, sizeof shard); /* shard of k[4] */
        _ak_hex(dg, 32, hex);                                                 /* the writers' temp naming */
        snprintf(old_tmp, sizeof old_tmp, "%s/%s.1.1a.1.tmp", shard, hex);
        snprintf(new_tmp, sizeof new_tmp, "%s/%s.1.1a.2.tmp", shard, hex);
        mkdir(shard, 0755);
        fp = fopen(old_tmp, "w"); if (fp) fclose(fp);
        fp = fopen(new_tmp, "w"); if (fp) fclose(fp);
        akc_set_mtime(old_tmp, base - 7200);
    }
    _ak_cache_entry_release(c, akc_get_src(c, &k[3], &j, 0, &src)); /* over the cap: the oldest goes */
    AKT_CHECK(!akc_exists(path[0]));
    AKT_CHECK(akc_exists(path[1]) && akc_exists(path[2]) && akc_exists(path[3]));
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".akc", 1, &bad), 3);
    AKT_EQ_INT(bad, 0);
    AKT_CHECK(!akc_exists(old_tmp));
    AKT_CHECK(akc_exists(new_tmp));
    unlink(new_tmp);
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.evictions, 1);
    akc_set_mtime(path[3], base + 3);
    _ak_cache_destroy(c);
    /* a disk hit refreshes the file's age, so the cap evicts the least recently used */
    akc_reset();
    c = akc_new(&cfg, NULL);
    if (!c) return;
    _ak_cache_entry_release(c, akc_get_src(c, &k[1], &j, 0, &src));
    AKT_EQ_INT(src, AK_CACHE_DISK);
    _ak_cache_entry_release(c, akc_get_src(c, &k[4], &j, 0, &src)); /* evicts k[2], not k[1] */
    AKT_CHECK(akc_exists(path[1]) && akc_exists(path[3]) && akc_exists(path[4]));
    AKT_CHECK(!akc_exists(path[2]));
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.evictions, 1);
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".akc", 0, NULL), 3);
    _ak_cache_destroy(c);
}

static void test_cache_purge(void) {
    ak_config cfg = akc_cfg("purge");
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key a = akc_key("purge a", "k"), b = akc_key("purge b", "k"), d = akc_key("purge d", "k");
    _ak_cache_entry *ea, *e;
    char path[AKC_PATH], shard[AKC_PATH], extra[AKC_PATH + 100];
    uint8_t dg[32];
    FILE* fp;
    ak_cache_stats s;
    akc_reset();
    memset(&j, 0, sizeof j);
    c = akc_new(&cfg, NULL);
    if (!c) return;
    ea = akc_get_src(c, &a, &j, 0, &src); /* held across the purge */
    _ak_cache_entry_release(c, akc_get_src(c, &b, &j, 0, &src));
    _ak_cache_entry_release(c, akc_get_src(c, &d, &j, 0, &src));
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".akc", 0, NULL), 3);
    /* stray temp files (a crashed writer) and a file that is not ours */
    akc_key_path(c, &b, path, sizeof path, dg);
    _ak_cache_paths(c, dg, path, sizeof path, shard, sizeof shard);
    {
        char hex[65];
        _ak_hex(dg, 32, hex);
        snprintf(extra, sizeof extra, "%s/%s.999.1.1.tmp", shard, hex);
    }
    fp = fopen(extra, "w"); if (fp) fclose(fp);
    snprintf(extra, sizeof extra, "%s/.probe.999.1.1.tmp", akc_dirbuf);
    fp = fopen(extra, "w"); if (fp) fclose(fp);
    snprintf(extra, sizeof extra, "%s/README", akc_dirbuf);
    fp = fopen(extra, "w"); if (fp) fclose(fp);
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".tmp", 0, NULL), 2);
    AKT_OK(_ak_cache_purge(c));
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".akc", 0, NULL), 0);
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".tmp", 0, NULL), 0);
    AKT_CHECK(akc_exists(extra)); /* only amdkit's files go */
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.memory_entries, 1); /* the held entry stays */
    AKT_CHECK(ea && akc_entry_is(ea, &a));
    e = akc_get_src(c, &a, &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_MEMORY);
    _ak_cache_entry_release(c, e);
    e = akc_get_src(c, &b, &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);      /* gone from both levels */
    _ak_cache_entry_release(c, e);
    AKT_EQ_INT(akc_get_calls(), 4);
    _ak_cache_entry_release(c, ea);
    _ak_cache_destroy(c);
    /* purge of a folder that does not exist is fine */
    cfg = akc_cfg("purge-none");
    cfg.disk_cache = 0;
    c = akc_new(&cfg, NULL);
    if (c) { AKT_OK(_ak_cache_purge(c)); _ak_cache_destroy(c); }
}


/* Purge and the size cap delete only the cache's own files: a user's
 * thesis.tmp (top folder and shard), a foreign *.akc (another name, or the
 * cache's name without its magic), a FIFO, and everything behind a shard that
 * is a symlink out of the cache stay. Before: purge deleted every *.tmp and
 * every *.akc of any two-hex folder, following the symlink. */
static void akc_touch(const char* path, const char* text) {
    FILE* fp = fopen(path, "w");
    if (fp) { fputs(text, fp); fclose(fp); }
}
static void test_cache_purge_own_files_only(void) {
    ak_config cfg = akc_cfg("purge-own");
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    _ak_cache_key a = akc_key("own a", "k"), b = akc_key("own b", "k");
    char pa[AKC_PATH], shard[AKC_PATH], hex[65], outside[AKC_PATH], link[AKC_PATH], f[16][AKC_PATH + 200];
    char outshard[3];
    uint8_t dg[32];
    int i, n = 0;
    akc_reset();
    memset(&j, 0, sizeof j);
    c = akc_new(&cfg, NULL);
    if (!c) return;
    _ak_cache_entry_release(c, akc_get_src(c, &a, &j, 0, &src));
    _ak_cache_entry_release(c, akc_get_src(c, &b, &j, 0, &src));
    akc_key_path(c, &a, pa, sizeof pa, dg);
    _ak_cache_paths(c, dg, pa, sizeof pa, shard, sizeof shard);
    _ak_hex(dg, 32, hex);
    /* the user's files, in the top folder and in a shard */
    snprintf(f[n], sizeof f[n], "%s/thesis.tmp", akc_dirbuf); akc_touch(f[n++], "chapter 1");
    snprintf(f[n], sizeof f[n], "%s/thesis.tmp", shard); akc_touch(f[n++], "chapter 2");
    snprintf(f[n], sizeof f[n], "%s/notes.akc", shard); akc_touch(f[n++], "AKCACHE\0 but not named as an entry");
    snprintf(f[n], sizeof f[n], "%s/x.probe.1.2.3.tmp", akc_dirbuf); akc_touch(f[n++], "not the probe's name");
    /* the cache's name, another shard's digits, or no magic */
    snprintf(f[n], sizeof f[n], "%s/%c%c%s.akc", shard, hex[0] == 'f' ? '0' : 'f', hex[1], hex + 2); akc_touch(f[n++], "AKCACHE");
    {
        char h2[65];
        memcpy(h2, hex, sizeof h2);
        h2[63] = h2[63] == '0' ? '1' : '0';
        snprintf(f[n], sizeof f[n], "%s/%s.akc", shard, h2); akc_touch(f[n++], "a foreign file with an entry's name");
    }
    snprintf(f[n], sizeof f[n], "%s/%s.fifo.akc", shard, hex);
    mkfifo(f[n++], 0600);
    /* a shard that is a symlink to a folder outside the cache, holding files of the cache's naming and magic */
    snprintf(outside, sizeof outside, "%s/purge-own-outside", akt_tmpdir());
    mkdir(outside, 0755);
    outshard[0] = hex[0] == 'a' ? 'b' : 'a'; outshard[1] = 'a'; outshard[2] = 0;
    snprintf(link, sizeof link, "%s/%s", akc_dirbuf, outshard);
    AKT_CHECK(symlink(outside, link) == 0);
    snprintf(f[n], sizeof f[n], "%s/%s%s.akc", outside, outshard, hex + 2); akc_touch(f[n++], "AKCACHE");
    snprintf(f[n], sizeof f[n], "%s/%s%s.1.2.3.tmp", outside, outshard, hex + 2); akc_touch(f[n++], "x");
    /* a symlink inside a real shard, named as an entry, pointing at a user's file */
    snprintf(f[n], sizeof f[n], "%s/precious.txt", outside); akc_touch(f[n++], "AKCACHE\0 precious");
    {
        char l2[AKC_PATH + 200];
        char h3[65];
        memcpy(h3, hex, sizeof h3);
        h3[62] = h3[62] == '0' ? '1' : '0';
        snprintf(l2, sizeof l2, "%s/%s.akc", shard, h3);
        AKT_CHECK(symlink(f[n - 1], l2) == 0);
    }
    AKT_OK(_ak_cache_purge(c));
    AKT_CHECK(!akc_exists(pa));                                /* the cache's entries go */
    for (i = 0; i < n; i++) AKT_CHECKF(akc_exists(f[i]), "purge removed %s", f[i]);
    /* the size cap's eviction under the same rules: a cap of one entry, entries written into the real shard */
    _ak_cache_destroy(c);
    cfg.cache_max_bytes = 1000 + 88 + 10;
    akc_reset();
    c = akc_new(&cfg, NULL);
    if (!c) return;
    _ak_cache_entry_release(c, akc_get_src(c, &a, &j, 0, &src));
    akc_set_mtime(pa, time(NULL) - 100);                          /* a is the oldest entry */
    _ak_cache_entry_release(c, akc_get_src(c, &b, &j, 0, &src));   /* over the cap: evicts a, nothing of the user's */
    for (i = 0; i < n; i++) AKT_CHECKF(akc_exists(f[i]), "the size cap removed %s", f[i]);
    AKT_CHECK(!akc_exists(pa));
    _ak_cache_destroy(c);
    unlink(link);
}

static void test_cache_disabled(void) {
    ak_config cfg = akc_cfg("disabled");
    _ak_cache* c;
    akc_job j;
    ak_cache_source src1 = AK_CACHE_DISK, src2 = AK_CACHE_DISK;
    _ak_cache_key k = akc_key("__global__ void off() {}", "off");
    _ak_cache_entry *e1, *e2;
    ak_cache_stats s;
    akc_reset();
    memset(&j, 0, sizeof j);
    cfg.cache_enabled = 0;
    cfg.cache_capacity = 0; /* ignored when disabled */
    c = akc_new(&cfg, NULL);
    if (!c) return;
    e1 = akc_get_src(c, &k, &j, 1, &src1);
    e2 = akc_get_src(c, &k, &j, 1, &src2);
    AKT_EQ_INT(src1, AK_CACHE_MISS);
    AKT_EQ_INT(src2, AK_CACHE_MISS);
    AKT_CHECK(e1 && e2 && e1 != e2);
    AKT_CHECK(e1 && akc_entry_is(e1, &k));
    AKT_EQ_INT(akc_get_calls(), 2);
    AKT_EQ_INT(akc_loads, 2);
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.compilations, 2);
    AKT_EQ_INT(s.memory_entries, 0);
    AKT_EQ_INT(s.disk_enabled, 0);
    _ak_cache_entry_release(c, e1);
    AKT_EQ_INT(akc_unloads, 1);  /* private: freed on release */
    _ak_cache_entry_release(c, e2);
    AKT_EQ_INT(akc_unloads, 2);
    AKT_CHECK(!akc_exists(akc_dirbuf)); /* no disk activity at all */
    _ak_cache_destroy(c);
    AKT_EQ_INT(akc_bad_unloads, 0);
}

/* ---- threads ----------------------------------------------------------------------- */

typedef struct akc_thread {
    pthread_t tid;
    _ak_cache* c;
    const _ak_cache_key* key;
    akc_job job;
    int with_load;
    ak_result r;
    _ak_cache_entry* e;
    ak_cache_source src;
    char msg[256];
    char log[128];
} akc_thread;

static void* akc_thread_main(void* p) {
    akc_thread* t = (akc_thread*)p;
    _ak_cache_ops ops = akc_ops(&t->job, t->with_load);
    t->job.key = t->key;
    t->r = _ak_cache_get(t->c, t->key, &ops, 0, &t->e, &t->src);
    if (t->r != AK_OK) {
        const ak_error_info* info = ak_last_error_info();
        _ak_copy(t->msg, sizeof t->msg, info->message);
        _ak_copy(t->log, sizeof t->log, info->log);
    }
    return NULL;
}

static void test_cache_single_flight(void) {
    ak_config cfg = akc_cfg("flight");
    _ak_cache* c;
    _ak_cache_key k = akc_key("__global__ void flight() {}", "flight");
    akc_thread t[8];
    ak_cache_stats s;
    int i, created = 0, misses = 0, mem = 0;
    akc_reset();
    c = akc_new(&cfg, NULL);
    if (!c) return;
    memset(t, 0, sizeof t);
    for (i = 0; i < 8; i++) {
        t[i].c = c; t[i].key = &k; t[i].with_load = 1;
        t[i].job.cache = c;
        t[i].job.wait_refs = 2 + 7; /* the compile waits until all 7 others wait on it */
        if (pthread_create(&t[i].tid, NULL, akc_thread_main, &t[i]) == 0) created++;
    }
    AKT_EQ_INT(created, 8);
    for (i = 0; i < created; i++) pthread_join(t[i].tid, NULL);
    AKT_EQ_INT(akc_get_calls(), 1);
    AKT_EQ_INT(akc_loads, 1);
    for (i = 0; i < created; i++) {
        AKT_CHECKF(t[i].r == AK_OK, "thread %d: %s", i, t[i].msg);
        AKT_CHECK(t[i].e != NULL && t[i].e == t[0].e);
        if (t[i].src == AK_CACHE_MISS) misses++;
        if (t[i].src == AK_CACHE_MEMORY) mem++;
    }
    AKT_EQ_INT(misses, 1);
    AKT_EQ_INT(mem, 7);
    AKT_CHECK(t[0].e && akc_entry_is(t[0].e, &k));
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.compilations, 1);
    AKT_EQ_INT(s.memory_entries, 1);
    for (i = 0; i < created; i++) _ak_cache_entry_release(c, t[i].e);
    _ak_cache_destroy(c);
    AKT_EQ_INT(akc_unloads, 1);
}

/* Different keys compile at the same time (no global lock held while compiling). */
static void test_cache_parallel_keys(void) {
    ak_config cfg = akc_cfg("parallel");
    _ak_cache* c;
    _ak_cache_key k1 = akc_key("__global__ void p1() {}", "p1"), k2 = akc_key("__global__ void p2() {}", "p2");
    akc_thread t[2];
    int i;
    akc_reset();
    c = akc_new(&cfg, NULL);
    if (!c) return;
    memset(t, 0, sizeof t);
    for (i = 0; i < 2; i++) {
        t[i].c = c; t[i].key = i ? &k2 : &k1;
        t[i].job.wait_running = 2; /* each compile waits (5 s max) until both run */
        AKT_CHECK(pthread_create(&t[i].tid, NULL, akc_thread_main, &t[i]) == 0);
    }
    for (i = 0; i < 2; i++) pthread_join(t[i].tid, NULL);
    AKT_EQ_INT(akc_max_running, 2);
    AKT_EQ_INT(akc_get_calls(), 2);
    for (i = 0; i < 2; i++) {
        AKT_CHECK(t[i].r == AK_OK && t[i].e && akc_entry_is(t[i].e, t[i].key));
        _ak_cache_entry_release(c, t[i].e);
    }
    _ak_cache_destroy(c);
}

/* A failed compile: every waiter gets the error; nothing is cached. */
static void test_cache_failed_compile(void) {
    ak_config cfg = akc_cfg("failed");
    _ak_cache* c;
    _ak_cache_key k = akc_key("__global__ void broken( {}", "broken");
    akc_thread t[4];
    akc_job j;
    ak_cache_source src;
    ak_cache_stats s;
    _ak_cache_entry* e;
    int i;
    akc_reset();
    c = akc_new(&cfg, NULL);
    if (!c) return;
    memset(t, 0, sizeof t);
    for (i = 0; i < 4; i++) {
        t[i].c = c; t[i].key = &k;
        t[i].job.cache = c;
        t[i].job.fail = 1;
        t[i].job.wait_refs = 2 + 3;
        AKT_CHECK(pthread_create(&t[i].tid, NULL, akc_thread_main, &t[i]) == 0);
    }
    for (i = 0; i < 4; i++) pthread_join(t[i].tid, NULL);
    AKT_EQ_INT(akc_get_calls(), 1);
    for (i = 0; i < 4; i++) {
        AKT_EQ_INT(t[i].r, AK_ERROR_COMPILATION);
        AKT_CHECK(t[i].e == NULL);
        AKT_CONTAINS(t[i].msg, "boom");
        AKT_CONTAINS(t[i].log, "k.hip:3:1: error");
    }
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.memory_entries, 0);
    AKT_EQ_INT(s.compilations, 1);
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".akc", 0, NULL), 0);
    /* not cached: the next get compiles again (and now succeeds) */
    memset(&j, 0, sizeof j);
    e = akc_get_src(c, &k, &j, 0, &src);
    AKT_EQ_INT(src, AK_CACHE_MISS);
    AKT_EQ_INT(akc_get_calls(), 2);
    AKT_CHECK(e && akc_entry_is(e, &k));
    _ak_cache_entry_release(c, e);
    /* single thread: the callee's error message and log stay as recorded */
    {
        _ak_cache_key k2 = akc_key("__global__ void broken2( {}", "broken2");
        _ak_cache_ops ops;
        j.fail = 1; j.key = &k2;
        ops = akc_ops(&j, 0);
        e = NULL;
        AKT_ERR_ITEM(_ak_cache_get(c, &k2, &ops, 0, &e, &src), AK_ERROR_COMPILATION, AK_ERRITEM_COMPILE_FAILED);
        AKT_CONTAINS(ak_last_error(), "boom: kernel broken2");
        AKT_CONTAINS(ak_last_error_info()->log, "error: boom");
        AKT_CHECK(e == NULL);
    }
    _ak_cache_destroy(c);
}

/* Writes are atomic: a poller watching the final file names while large
 * entries are written never sees a partial file (temp file + rename). */
typedef struct akc_poll {
    const char* paths[3];
    long long want;
    pthread_mutex_t m;
    int stop;
    int seen_full, seen_partial;
} akc_poll;
static int akc_poll_stopped(akc_poll* q) {
    int s;
    pthread_mutex_lock(&q->m);
    s = q->stop;
    pthread_mutex_unlock(&q->m);
    return s;
}
static void* akc_poll_main(void* p) {
    akc_poll* q = (akc_poll*)p;
    while (!akc_poll_stopped(q)) {
        int i;
        for (i = 0; i < 3; i++) {
            struct stat st;
            if (stat(q->paths[i], &st) != 0) continue;
            if ((long long)st.st_size == q->want) q->seen_full++;
            else q->seen_partial++;
        }
    }
    return NULL;
}
typedef struct akc_writer { _ak_cache* c; _ak_cache_key* k; int done; } akc_writer;
static void* akc_writer_main(void* p) {
    akc_writer* w = (akc_writer*)p;
    akc_job j;
    int i;
    memset(&j, 0, sizeof j);
    for (i = 0; i < 3; i++) {
        _ak_cache_entry* e = NULL;
        _ak_cache_ops ops = akc_ops(&j, 0);
        j.key = &w->k[i];
        if (_ak_cache_get(w->c, &w->k[i], &ops, 0, &e, NULL) == AK_OK) w->done++;
        _ak_cache_entry_release(w->c, e);
    }
    return NULL;
}
static void test_cache_atomic_write(void) {
    ak_config cfg = akc_cfg("atomic");
    _ak_cache* c;
    _ak_cache_key k[3];
    char text[3][64], path[3][AKC_PATH];
    uint8_t dg[32];
    akc_poll q;
    akc_writer w;
    pthread_t tp, tw;
    int i;
    akc_reset();
    akc_payload = (size_t)8 << 20; /* 8 MiB: a write takes long enough to be watched */
    c = akc_new(&cfg, NULL);
    if (!c) return;
    memset(&q, 0, sizeof q);
    pthread_mutex_init(&q.m, NULL);
    for (i = 0; i < 3; i++) {
        snprintf(text[i], sizeof text[i], "__global__ void big%d() {}", i);
        k[i] = akc_key(text[i], "big");
        akc_key_path(c, &k[i], path[i], sizeof path[i], dg);
        q.paths[i] = path[i];
    }
    q.want = (long long)akc_payload + 88;
    w.c = c; w.k = k; w.done = 0;
    AKT_CHECK(pthread_create(&tp, NULL, akc_poll_main, &q) == 0);
    AKT_CHECK(pthread_create(&tw, NULL, akc_writer_main, &w) == 0);
    pthread_join(tw, NULL);
    pthread_mutex_lock(&q.m);
    q.stop = 1;
    pthread_mutex_unlock(&q.m);
    pthread_join(tp, NULL);
    pthread_mutex_destroy(&q.m);
    AKT_EQ_INT(w.done, 3);
    AKT_EQ_INT(q.seen_partial, 0);
    AKT_CHECK(q.seen_full > 0);
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".tmp", 0, NULL), 0);
    _ak_cache_destroy(c);
    akc_payload = 1000;
}

/* ---- processes ------------------------------------------------------------------------ */

static int akc_child(const char* dir, int child) {
    ak_config cfg = ak_config_default();
    _ak_logger quiet;
    _ak_cache* c = NULL;
    char text[12][64];
    _ak_cache_key k[12];
    akc_job j;
    int i, bad = 0;
    quiet.fn = akc_log_fn; quiet.user_data = NULL; quiet.level = AK_LOG_WARN;
    cfg.cache_enabled = 1; cfg.disk_cache = 1; cfg.cache_capacity = 3; cfg.cache_dir = dir; cfg.cache_max_bytes = 0;
    if (_ak_cache_create(&cfg, &quiet, NULL, NULL, &c) != AK_OK) return 100;
    memset(&j, 0, sizeof j);
    for (i = 0; i < 12; i++) {
        snprintf(text[i], sizeof text[i], "__global__ void proc%d() {}", i);
        k[i] = akc_key(text[i], "proc");
    }
    for (i = 0; i < 80; i++) {
        int n = (i * 7 + child * 5) % 12;
        _ak_cache_entry* e = NULL;
        _ak_cache_ops ops = akc_ops(&j, 0);
        j.key = &k[n];
        if (_ak_cache_get(c, &k[n], &ops, 0, &e, NULL) != AK_OK || !akc_entry_is(e, &k[n])) bad++;
        _ak_cache_entry_release(c, e);
    }
    if (akc_warned(AK_LOGITEM_CACHE_WRITE_FAILED) || akc_warned(AK_LOGITEM_CACHE_CORRUPT_ENTRY)) bad += 1000;
    _ak_cache_destroy(c);
    return bad ? 1 : 0;
}

static void test_cache_processes(void) {
    ak_config cfg = akc_cfg("procs");
    pid_t pids[4];
    int i, bad = 0;
    _ak_cache* c;
    akc_job j;
    char text[12][64];
    _ak_cache_key k[12];
    ak_cache_source src;
    ak_cache_stats s;
    akc_reset();
    (void)akc_logger(AK_LOG_WARN);
    fflush(stdout);
    fflush(stderr);
    for (i = 0; i < 4; i++) {
        pids[i] = fork();
        if (pids[i] == 0) _exit(akc_child(akc_dirbuf, i));
        AKT_CHECK(pids[i] > 0);
    }
    for (i = 0; i < 4; i++) {
        int status = 0;
        if (pids[i] <= 0) continue;
        AKT_CHECK(waitpid(pids[i], &status, 0) == pids[i]);
        AKT_CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d: status %d", i, status);
    }
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".akc", 1, &bad), 12);
    AKT_EQ_INT(bad, 0);
    AKT_EQ_INT(akc_count_files(akc_dirbuf, ".tmp", 0, NULL), 0);
    /* everything is on disk now: a fresh cache compiles nothing */
    c = akc_new(&cfg, NULL);
    if (!c) return;
    memset(&j, 0, sizeof j);
    for (i = 0; i < 12; i++) {
        _ak_cache_entry* e;
        snprintf(text[i], sizeof text[i], "__global__ void proc%d() {}", i);
        k[i] = akc_key(text[i], "proc");
        e = akc_get_src(c, &k[i], &j, 0, &src);
        AKT_EQ_INT(src, AK_CACHE_DISK);
        AKT_CHECK(e && akc_entry_is(e, &k[i]));
        _ak_cache_entry_release(c, e);
    }
    _ak_cache_stats(c, &s);
    AKT_EQ_INT(s.compilations, 0);
    AKT_EQ_INT(s.disk_hits, 12);
    _ak_cache_destroy(c);
}

/* ---- the warm hit of ak_kernel_get under concurrency ------------------------------------
 * A cpu context switched to the cuda backend's table on a fake driver and a
 * fake NVRTC (tests/fake_cuda.h): a "compile" returns a 68-byte sm_90 ELF
 * header carrying the source's number, a "module" is heap memory holding
 * that number (freed on unload), a "function" points into it and a "launch"
 * reads it. Hitters get/launch/release kernels of more sources than the
 * memory level holds (evictions) while another thread purges memory + disk
 * and another compiles the same sources with user options and with no_cache.
 * A hit that handed back another source's module, or a module unloaded under
 * a held kernel (ASan / TSan see the read), fails. */
typedef struct akw_prog { int id; } akw_prog;
typedef struct akw_module { int magic, id; } akw_module;
static int akw_loads, akw_unloads, akw_compiles, akw_wrong;
static int akw_id_of(const char* src) { const char* p = strstr(src, "warm-race kernel "); return p ? atoi(p + 17) : -1; }
static _akT_nvrtcResult akw_create(_akT_nvrtcProgram* p, const char* src, const char* name, int nh, const char* const* h, const char* const* in) {
    akw_prog* q = (akw_prog*)malloc(sizeof *q);
    (void)name; (void)nh; (void)h; (void)in;
    if (!q) return 5;
    q->id = akw_id_of(src);
    *p = q;
    return 0;
}
static _akT_nvrtcResult akw_compile(_akT_nvrtcProgram p, int n, const char* const* o) { (void)p; (void)n; (void)o; __atomic_add_fetch(&akw_compiles, 1, __ATOMIC_RELAXED); return 0; }
static _akT_nvrtcResult akw_log_size(_akT_nvrtcProgram p, size_t* n) { (void)p; *n = 1; return 0; }
static _akT_nvrtcResult akw_log(_akT_nvrtcProgram p, char* log) { (void)p; log[0] = 0; return 0; }
static _akT_nvrtcResult akw_code_size(_akT_nvrtcProgram p, size_t* n) { (void)p; *n = 68; return 0; }
static _akT_nvrtcResult akw_code(_akT_nvrtcProgram p, char* code) {
    uint8_t* c = (uint8_t*)code;
    int id = ((akw_prog*)p)->id;
    memset(c, 0, 68);
    memcpy(c, "\x7f" "ELF", 4);
    c[4] = 2; c[5] = 1; c[18] = 190;       /* ELF64, little-endian, EM_CUDA */
    _ak_put_u32le(c + 48, 90);             /* e_flags: sm_90 (ABI version 0) */
    memcpy(c + 64, &id, 4);
    return 0;
}
static _akT_nvrtcResult akw_destroy(_akT_nvrtcProgram* p) { free(*p); *p = NULL; return 0; }
static const char* akw_errstr(_akT_nvrtcResult r) { (void)r; return "fake NVRTC error"; }
static _akT_CUresult akw_set_current(_akT_CUcontext c) { (void)c; return 0; }
static _akT_CUresult akw_sync(void) { return 0; }
static _akT_CUresult akw_load(_akT_CUmodule* m, const void* image) {
    akw_module* q = (akw_module*)malloc(sizeof *q);
    if (!q) return 2;
    q->magic = 0x4d4f44;
    memcpy(&q->id, (const uint8_t*)image + 64, 4);
    __atomic_add_fetch(&akw_loads, 1, __ATOMIC_RELAXED);
    *m = q;
    return 0;
}
static _akT_CUresult akw_unload(_akT_CUmodule m) { ((akw_module*)m)->magic = 0; free(m); __atomic_add_fetch(&akw_unloads, 1, __ATOMIC_RELAXED); return 0; }
static _akT_CUresult akw_function(_akT_CUfunction* f, _akT_CUmodule m, const char* name) { (void)name; *f = m; return 0; }
static _akT_CUresult akw_launch(_akT_CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                unsigned sh, _akT_CUstream s, void** args, void** extra) {
    const akw_module* q = (const akw_module*)f;
    (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)sh; (void)s; (void)extra;
    if (q->magic != 0x4d4f44 || q->id != *(const int*)args[0]) __atomic_add_fetch(&akw_wrong, 1, __ATOMIC_RELAXED);
    return 0;
}
#define AKW_SOURCES 12
static char akw_src[AKW_SOURCES][96];
typedef struct akw_thread { ak_context* ctx; int role, seed, iters, fails; } akw_thread;
static void* akw_main(void* arg) {
    akw_thread* t = (akw_thread*)arg;
    unsigned x = (unsigned)t->seed * 2654435761u + 1u;
    int i;
    for (i = 0; i < t->iters; i++) {
        ak_kernel* k = NULL;
        ak_compile_options o;
        const char* def[1] = { "-DAKW_OPT=1" };
        int id;
        ak_dim3 one = { 1, 1, 1 };
        void* args[1];
        x = x * 1664525u + 1013904223u;
        id = (int)((x >> 8) % AKW_SOURCES);
        args[0] = &id;
        memset(&o, 0, sizeof o);
        if (t->role == 1) { ak_cache_purge(t->ctx); continue; }                           /* purger */
        if (t->role == 2) { o.options = def; o.num_options = (x >> 20) & 1; o.no_cache = !o.num_options; } /* compiler */
        if (ak_kernel_get(t->ctx, akw_src[id], "akw", t->role == 2 ? &o : NULL, &k) != AK_OK) { t->fails++; continue; }
        if (ak_launch(k, one, one, 0, NULL, args) != AK_OK) t->fails++;
        ak_kernel_release(k);
    }
    return NULL;
}
static void test_cache_warm_hit_races(void) {
    ak_context* ctx = akt_cpu_context("warmrace");
    akw_thread t[8];
    pthread_t tid[8];
    ak_cache_stats st;
    int i, n = 0;
    if (!ctx) return;
    {
        static const akf_driver fake = { akw_set_current, akw_sync, akw_load, akw_unload, akw_function, akw_launch,
                                         akw_create, akw_compile, akw_log_size, akw_log, akw_code_size, akw_code,
                                         akw_destroy, akw_errstr, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
        akf_cuda_attach(ctx, &fake, "sm_90");
    }
    ctx->cache->capacity = 4;              /* fewer than the sources: hits race evictions */
    akw_loads = akw_unloads = akw_compiles = akw_wrong = 0;
    for (i = 0; i < AKW_SOURCES; i++)
        snprintf(akw_src[i], sizeof akw_src[i], "// warm-race kernel %d\nextern \"C\" __global__ void akw(int* p) { (void)p; }\n", i);
    {   /* single thread first: a miss, then a hit through the fast lookup */
        ak_kernel *a = NULL, *b = NULL;
        AKT_OK(ak_kernel_get(ctx, akw_src[0], "akw", NULL, &a));
        AKT_OK(ak_kernel_get(ctx, akw_src[0], "akw", NULL, &b));
        AKT_CHECK(a && b && ak_kernel_cache_source(b) == AK_CACHE_MEMORY && a->entry == b->entry && a->fn == b->fn);
        ak_kernel_release(a);
        ak_kernel_release(b);
    }
    for (i = 0; i < 8; i++) {
        t[i].ctx = ctx; t[i].seed = i + 1; t[i].fails = 0;
        t[i].role = i == 6 ? 1 : i == 7 ? 2 : 0;
        t[i].iters = t[i].role == 1 ? 200 : 3000;
        if (pthread_create(&tid[i], NULL, akw_main, &t[i]) == 0) n++; else break;
    }
    for (i = 0; i < n; i++) pthread_join(tid[i], NULL);
    AKT_EQ_INT(n, 8);
    for (i = 0; i < n; i++) AKT_EQ_INT(t[i].fails, 0);
    AKT_EQ_INT(akw_wrong, 0);
    AKT_OK(ak_cache_stats_get(ctx, &st));
    AKT_CHECK(st.memory_hits > 0 && st.evictions > 0 && st.memory_entries <= 4);
    AKT_CHECK(akw_compiles > 0);
    akf_cuda_detach(ctx);                   /* unloads through the fake driver */
    AKT_EQ_INT(akw_loads, akw_unloads);
    ak_context_destroy(ctx);
}

void akt_suite_cache(void) {
    AKT_RUN(test_sha256_vectors);
    AKT_RUN(test_hash128);
    AKT_RUN(test_cache_dir_resolution);
    AKT_RUN(test_cache_bad_args);
    AKT_RUN(test_cache_memory_hit);
    AKT_RUN(test_cache_key_sensitivity);
    AKT_RUN(test_cache_key_prefix);
    AKT_RUN(test_cache_hash_collision);
    AKT_RUN(test_cache_lru_order);
    AKT_RUN(test_cache_referenced_survive_eviction);
    AKT_RUN(test_cache_disk_hit_fresh_cache);
    AKT_RUN(test_cache_corruption);
    AKT_RUN(test_cache_disk_load_failure);
    AKT_RUN(test_cache_unusable_dir);
    AKT_RUN(test_cache_write_failure);
    AKT_RUN(test_cache_size_cap);
    AKT_RUN(test_cache_purge);
    AKT_RUN(test_cache_purge_own_files_only);
    AKT_RUN(test_cache_disabled);
    AKT_RUN(test_cache_single_flight);
    AKT_RUN(test_cache_parallel_keys);
    AKT_RUN(test_cache_failed_compile);
    AKT_RUN(test_cache_atomic_write);
    AKT_RUN(test_cache_processes);
    AKT_RUN(test_cache_warm_hit_races);
}
