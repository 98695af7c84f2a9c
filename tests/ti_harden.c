/* ti_harden.c - hostile-input tests (issue 10): what amdkit does with a FIFO,
 * a symlink, a huge sparse file, a foreign or group-writable file, or a payload
 * that is not a code object for the target at a cache entry's path; host frees
 * of pointers it never gave out; launch geometry over the device limits;
 * concurrent ak_context_refresh_memory; the one-time warning of a disk cap
 * smaller than one entry; names in cache warnings. Included by test_main.c
 * after ti_cache.c (uses its fake compiler and helpers). */
#include <signal.h>
#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>

/* ---- a logger that keeps the warnings' text --------------------------------- */
static pthread_mutex_t akh_log_m = PTHREAD_MUTEX_INITIALIZER;
static char akh_log_text[8192];
static int akh_log_warns;
static void akh_log_fn(void* u, ak_log_level lv, ak_log_item it, const char* msg) {
    (void)u; (void)it;
    if (lv > AK_LOG_WARN) return;
    pthread_mutex_lock(&akh_log_m);
    akh_log_warns++;
    _ak_appendf(akh_log_text, sizeof akh_log_text, "%s\n", msg);
    pthread_mutex_unlock(&akh_log_m);
}
static _ak_logger akh_logger(void) {
    _ak_logger l;
    pthread_mutex_lock(&akh_log_m);
    akh_log_text[0] = 0;
    akh_log_warns = 0;
    pthread_mutex_unlock(&akh_log_m);
    l.fn = akh_log_fn;
    l.user_data = NULL;
    l.level = AK_LOG_WARN;
    return l;
}

/* Make an entry for k in a fresh cache at cfg's dir; return its path. */
static int akh_seed_entry(const ak_config* cfg, const _ak_cache_key* k, char* path, size_t cap) {
    akc_job j;
    ak_cache_source src;
    uint8_t dg[32];
    _ak_cache* c = akc_new(cfg, NULL);
    if (!c) return 0;
    memset(&j, 0, sizeof j);
    _ak_cache_entry_release(c, akc_get_src(c, k, &j, 0, &src));
    akc_key_path(c, k, path, cap, dg);
    _ak_cache_destroy(c);
    return akc_exists(path);
}

/* A fresh cache asks for k: expect a recompile (no disk hit), `warns` warnings
 * containing `needle`, and the right code. Returns the compile count. */
static void akh_expect_recompile(const ak_config* cfg, const _ak_cache_key* k, const char* needle, const char* label) {
    akc_job j;
    ak_cache_source src = AK_CACHE_DISK;
    _ak_logger lg = akh_logger();
    _ak_cache* c;
    _ak_cache_entry* e;
    akc_reset();
    c = akc_new(cfg, &lg);
    if (!c) return;
    memset(&j, 0, sizeof j);
    e = akc_get_src(c, k, &j, 0, &src);
    AKT_CHECKF(src == AK_CACHE_MISS && akc_get_calls() == 1, "%s: src %d, %d compiles (expected a recompile)", label, (int)src,
               akc_get_calls());
    AKT_CHECKF(e && akc_entry_is(e, k), "%s: wrong code", label);
    AKT_CHECKF(strstr(akh_log_text, needle) != NULL, "%s: no warning containing '%s' (log: %s)", label, needle, akh_log_text);
    if (e) _ak_cache_entry_release(c, e);
    _ak_cache_destroy(c);
}
/* ... and a fresh cache after that is served from disk (the entry was repaired). */
static void akh_expect_disk_hit(const ak_config* cfg, const _ak_cache_key* k, const char* label) {
    akc_job j;
    ak_cache_source src = AK_CACHE_MISS;
    _ak_cache* c;
    _ak_cache_entry* e;
    akc_reset();
    c = akc_new(cfg, NULL);
    if (!c) return;
    memset(&j, 0, sizeof j);
    e = akc_get_src(c, k, &j, 0, &src);
    AKT_CHECKF(src == AK_CACHE_DISK && akc_get_calls() == 0, "%s: src %d after repair, expected a disk hit", label, (int)src);
    AKT_CHECKF(e && akc_entry_is(e, k), "%s: wrong code from disk", label);
    if (e) _ak_cache_entry_release(c, e);
    _ak_cache_destroy(c);
}

static void akh_alarm(int sig) {
    (void)sig;
    static const char m[] = "    FAIL: blocked on a cache entry (hang)\n";
    if (write(1, m, sizeof m - 1) < 0) {}
    _exit(3);
}

/* A FIFO at the entry's path: the open must not block; a miss, logged; the
 * write that follows replaces it with a real entry. */
static void test_harden_fifo(void) {
    ak_config cfg = akc_cfg("h_fifo");
    _ak_cache_key k = akc_key("__global__ void fifo() {}", "fifo");
    char path[AKC_PATH];
    if (!akh_seed_entry(&cfg, &k, path, sizeof path)) { AKT_CHECK(0); return; }
    unlink(path);
    AKT_CHECK(mkfifo(path, 0644) == 0);
    signal(SIGALRM, akh_alarm);
    alarm(20); /* the old code blocks forever in open() */
    akh_expect_recompile(&cfg, &k, "not a regular file", "fifo");
    alarm(0);
    signal(SIGALRM, SIG_DFL);
    akh_expect_disk_hit(&cfg, &k, "fifo");
}

/* A directory and a symlink at the entry's path: refused, not followed. */
static void test_harden_symlink_and_dir(void) {
    ak_config cfg = akc_cfg("h_link");
    _ak_cache_key k = akc_key("__global__ void link() {}", "link");
    _ak_cache_key other = akc_key("__global__ void other_link() {}", "other_link");
    char path[AKC_PATH], opath[AKC_PATH];
    if (!akh_seed_entry(&cfg, &k, path, sizeof path) || !akh_seed_entry(&cfg, &other, opath, sizeof opath)) { AKT_CHECK(0); return; }
    unlink(path);
    AKT_CHECK(symlink(opath, path) == 0);
    akh_expect_recompile(&cfg, &k, "symbolic link", "symlink");
    akh_expect_disk_hit(&cfg, &k, "symlink");
    unlink(path);
    AKT_CHECK(mkdir(path, 0755) == 0);
    akh_expect_recompile(&cfg, &k, "not a regular file", "directory");
    rmdir(path);
}

/* A 2 GiB sparse file with a header that claims a 2 GiB payload: never read
 * (the size bound comes first), removed, recompiled. */
static void test_harden_huge_sparse_entry(void) {
    ak_config cfg = akc_cfg("h_huge");
    _ak_cache_key k = akc_key("__global__ void huge() {}", "huge");
    char path[AKC_PATH];
    uint8_t hdr[_AK_CACHE_HDR];
    long long big = 2ll << 30;
    int fd;
    struct stat st;
    if (!akh_seed_entry(&cfg, &k, path, sizeof path)) { AKT_CHECK(0); return; }
    fd = open(path, O_RDWR);
    AKT_CHECK(fd >= 0);
    if (fd < 0) return;
    AKT_CHECK(read(fd, hdr, sizeof hdr) == (ssize_t)sizeof hdr);
    _ak_put_u64le(hdr + 48, (uint64_t)(big - _AK_CACHE_HDR)); /* consistent with the file size */
    AKT_CHECK(pwrite(fd, hdr, sizeof hdr, 0) == (ssize_t)sizeof hdr);
    AKT_CHECK(ftruncate(fd, (off_t)big) == 0);
    close(fd);
    AKT_CHECK(stat(path, &st) == 0 && (long long)st.st_size == big);
    akh_expect_recompile(&cfg, &k, "larger than cache_max_entry_bytes", "2 GiB sparse");
    akh_expect_disk_hit(&cfg, &k, "2 GiB sparse");
    /* a lower limit refuses a normal entry too, and the bound is a config field */
    cfg.cache_max_entry_bytes = 4096;
    akc_payload = 5000;
    {
        _ak_cache_key k2 = akc_key("__global__ void big5000() {}", "big5000");
        akc_job j;
        ak_cache_source src;
        _ak_logger lg = akh_logger();
        _ak_cache* c = akc_new(&cfg, &lg);
        char p2[AKC_PATH];
        uint8_t dg[32];
        if (!c) return;
        memset(&j, 0, sizeof j);
        akc_payload = 5000;
        _ak_cache_entry_release(c, akc_get_src(c, &k2, &j, 0, &src));
        akc_key_path(c, &k2, p2, sizeof p2, dg);
        AKT_CHECKF(!akc_exists(p2), "an entry over cache_max_entry_bytes was written");
        AKT_CONTAINS(akh_log_text, "AMDKIT_CACHE_MAX_ENTRY_BYTES");
        _ak_cache_destroy(c);
    }
    akc_payload = 1000;
}

/* Owner and mode: a group/other-writable entry is refused unless the
 * directory is trusted; an entry owned by another user likewise (tested as a
 * second uid when running as root: a child drops to nobody and writes it). */
static void test_harden_foreign_entry(void) {
    ak_config cfg = akc_cfg("h_mode");
    _ak_cache_key k = akc_key("__global__ void modes() {}", "modes");
    char path[AKC_PATH];
    if (!akh_seed_entry(&cfg, &k, path, sizeof path)) { AKT_CHECK(0); return; }
    AKT_CHECK(chmod(path, 0666) == 0);
    akh_expect_recompile(&cfg, &k, "writable by group or others", "mode 0666");
    akh_expect_disk_hit(&cfg, &k, "mode 0666 (rewritten 0644)");
    {
        struct stat st;
        AKT_CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644);
    }
    AKT_CHECK(chmod(path, 0620) == 0);
    cfg.cache_trusted = 1;
    akh_expect_disk_hit(&cfg, &k, "mode 0620, trusted directory");
    cfg.cache_trusted = 0;
    AKT_CHECK(chmod(path, 0644) == 0);
    /* file written with a umask that would make it group-writable: stored 0644 anyway */
    {
        mode_t old = umask(0);
        _ak_cache_key k3 = akc_key("__global__ void umask0() {}", "umask0");
        char p3[AKC_PATH];
        struct stat st;
        int ok = akh_seed_entry(&cfg, &k3, p3, sizeof p3);
        umask(old);
        AKT_CHECK(ok && stat(p3, &st) == 0 && (st.st_mode & 0777) == 0644);
    }
    if (geteuid() != 0) {
        printf("    (not root: the other-uid case is the mode check above only)\n");
        return;
    }
    {
        /* a shared 0777 directory (what a lab sets up); user nobody plants the entry */
        ak_config sh = akc_cfg("h_shared");
        char dir[1024];
        _ak_cache_key k2 = akc_key("__global__ void planted() {}", "planted");
        pid_t pid;
        int status = 0;
        char p2[AKC_PATH];
        uint8_t dg[32];
        _ak_cache* c;
        snprintf(dir, sizeof dir, "%s", sh.cache_dir);
        AKT_CHECK(mkdir(dir, 0777) == 0 || errno == EEXIST);
        chmod(dir, 0777);
        chmod(akt_tmpdir(), 0755);
        c = akc_new(&sh, NULL);
        if (!c) return;
        akc_key_path(c, &k2, p2, sizeof p2, dg);
        _ak_cache_destroy(c);
        pid = fork();
        if (pid == 0) {
            akc_job j;
            ak_cache_source src;
            _ak_cache* cc;
            if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
            cc = NULL;
            if (_ak_cache_create(&sh, NULL, NULL, NULL, &cc) != AK_OK) _exit(4);
            memset(&j, 0, sizeof j);
            {
                _ak_cache_entry* e = NULL;
                _ak_cache_ops ops = akc_ops(&j, 0);
                j.key = &k2;
                if (_ak_cache_get(cc, &k2, &ops, 0, &e, &src) != AK_OK) _exit(5);
                _ak_cache_entry_release(cc, e);
            }
            _ak_cache_destroy(cc);
            _exit(akc_exists(p2) ? 0 : 6);
        }
        AKT_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            /* e.g. the scratch dir's parents are not reachable for nobody */
            printf("    (second uid could not write the shared cache: status %d; mode check only)\n", status);
            return;
        }
        {
            struct stat st;
            AKT_CHECK(stat(p2, &st) == 0 && st.st_uid == 65534);
        }
        akh_expect_recompile(&sh, &k2, "owned by another user", "entry of uid 65534");
        /* our write could not replace it (nobody's shard is 0755): it is refused again, the trusted config serves it */
        sh.cache_trusted = 1;
        akh_expect_disk_hit(&sh, &k2, "uid 65534 entry, trusted directory");
    }
}

/* _ak_code_object_check on synthetic headers. */
static size_t akh_elf(uint8_t* b, size_t cap, unsigned machine, unsigned abiver, uint32_t flags, const char* note) {
    size_t n = 64;
    memset(b, 0, cap);
    memcpy(b, "\x7f" "ELF", 4);
    b[4] = 2; b[5] = 1; b[6] = 1; b[7] = machine == 224 ? 64 : 65; b[8] = (uint8_t)abiver;
    b[18] = (uint8_t)machine; b[19] = (uint8_t)(machine >> 8);
    _ak_put_u32le(b + 48, flags);
    if (note) { memcpy(b + 100, note, strlen(note) + 1); n = 100 + strlen(note) + 9; }
    return n < cap ? n : cap;
}
static void test_harden_code_object_check(void) {
    uint8_t b[512];
    char why[256];
    size_t n;
    AKT_CHECK(_ak_code_object_check("gfx90a", "hello, this is not an ELF file at all, it is text......................", 70, why, sizeof why) != 0);
    AKT_CONTAINS(why, "not an ELF");
    n = akh_elf(b, sizeof b, 62, 0, 0, "amdgcn-amd-amdhsa--gfx90a");
    AKT_CHECK(_ak_code_object_check("gfx90a", b, n, why, sizeof why) != 0);
    AKT_CONTAINS(why, "machine 62");
    n = akh_elf(b, sizeof b, 224, 2, 0x3f, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
    AKT_CHECK(_ak_code_object_check("gfx90a", b, n, why, sizeof why) == 0);
    AKT_CHECK(_ak_code_object_check("gfx90a:sramecc+:xnack-", b, n, why, sizeof why) == 0);
    AKT_CHECK(_ak_code_object_check("gfx908", b, n, why, sizeof why) != 0);
    AKT_CHECK(_ak_code_object_check("gfx90", b, n, why, sizeof why) != 0); /* prefix of gfx90a */
    AKT_CHECK(_ak_code_object_check("sm_90", b, n, why, sizeof why) != 0);
    n = akh_elf(b, sizeof b, 224, 2, 0x2f, NULL);
    AKT_CHECK(_ak_code_object_check("gfx906", b, n, why, sizeof why) != 0); /* no target note */
    n = akh_elf(b, sizeof b, 190, 8, 0x6005a04u, NULL); /* CUDA 13 cubin for sm_90 */
    AKT_CHECK(_ak_code_object_check("sm_90", b, n, why, sizeof why) == 0);
    AKT_CHECK(_ak_code_object_check("sm_90a", b, n, why, sizeof why) == 0);
    AKT_CHECK(_ak_code_object_check("sm_80", b, n, why, sizeof why) != 0);
    AKT_CONTAINS(why, "sm_90");
    AKT_CHECK(_ak_code_object_check("gfx90a", b, n, why, sizeof why) != 0);
    n = akh_elf(b, sizeof b, 190, 7, 0x500050u, NULL); /* older ELF ABI: sm in bits 0..7 */
    AKT_CHECK(_ak_code_object_check("sm_80", b, n, why, sizeof why) == 0);
    AKT_CHECK(_ak_code_object_check("sm_86", b, n, why, sizeof why) != 0);
    memset(b, 0, sizeof b);
    memcpy(b, "__CLANG_OFFLOAD_BUNDLE__", 24);
    memcpy(b + 80, "hipv4-amdgcn-amd-amdhsa--gfx1030", 32);
    AKT_CHECK(_ak_code_object_check("gfx1030", b, 200, why, sizeof why) == 0);
    AKT_CHECK(_ak_code_object_check("gfx1100", b, 200, why, sizeof why) != 0);
    AKT_CHECK(_ak_code_object_check("gfx90a", b, 10, why, sizeof why) != 0);
    AKT_CHECK(_ak_code_object_check("gfx90a", b, 0, why, sizeof why) != 0);
}

/* Real code objects (hipRTC, NVRTC): each passes for its own target only; a
 * valid cache file whose payload is another target's code object, or not a
 * code object, is removed and recompiled, never handed to the loader/caller. */
static void akh_plant_payload(const char* path, const void* payload, size_t size) {
    uint8_t hdr[_AK_CACHE_HDR];
    int fd = open(path, O_RDWR);
    AKT_CHECK(fd >= 0);
    if (fd < 0) return;
    AKT_CHECK(read(fd, hdr, sizeof hdr) == (ssize_t)sizeof hdr);
    _ak_put_u64le(hdr + 48, (uint64_t)size);
    _ak_sha256(payload, size, hdr + 56);
    AKT_CHECK(ftruncate(fd, 0) == 0);
    AKT_CHECK(pwrite(fd, hdr, sizeof hdr, 0) == (ssize_t)sizeof hdr);
    AKT_CHECK(pwrite(fd, payload, size, sizeof hdr) == (ssize_t)size);
    close(fd);
}
static int akh_newest_entry(const char* dir, char* out, size_t cap) {
    DIR* top = opendir(dir);
    struct dirent* de;
    time_t best = 0;
    long bestns = -1;
    out[0] = 0;
    if (!top) return 0;
    while ((de = readdir(top)) != NULL) {
        char shard[1200];
        DIR* sd;
        struct dirent* fe;
        if (!_ak_is_shard_name(de->d_name)) continue;
        snprintf(shard, sizeof shard, "%s/%s", dir, de->d_name);
        if (!(sd = opendir(shard))) continue;
        while ((fe = readdir(sd)) != NULL) {
            char p[2400];
            struct stat st;
            if (!_ak_has_suffix(fe->d_name, ".akc")) continue;
            snprintf(p, sizeof p, "%s/%s", shard, fe->d_name);
            if (stat(p, &st) == 0 && (st.st_mtime > best || (st.st_mtime == best && st.st_mtim.tv_nsec > bestns))) {
                best = st.st_mtime; bestns = st.st_mtim.tv_nsec;
                _ak_copy(out, cap, p);
            }
        }
        closedir(sd);
    }
    closedir(top);
    return out[0] != 0;
}
static void test_harden_real_code_objects(void) {
    static const char* src = "extern \"C\" __global__ void akh_k(float* x) { x[threadIdx.x] += 1.0f; }\n";
    static const char* targets[2][3] = { { "gfx906", "gfx90a", "sm_80" }, { "sm_80", "sm_90", "gfx906" } };
    char dir[1024], entry[2400], why[256];
    int t, any = 0;
    ak_context* ctx = akt_cpu_context("h_real");
    if (!ctx) return;
    snprintf(dir, sizeof dir, "%s/h_real", akt_tmpdir());
    for (t = 0; t < 2; t++) {
        ak_code_object co, co2, co3;
        const char* own = targets[t][0];
        ak_result r = ak_compile_offline(ctx, own, src, "akh_k", NULL, &co);
        if (r == AK_ERROR_BACKEND_UNAVAILABLE || r == AK_ERROR_UNSUPPORTED_TARGET) {
            printf("    (%s compiler not available: %s)\n", own, ak_last_error());
            continue;
        }
        AKT_OK(r);
        if (r != AK_OK) continue;
        any = 1;
        AKT_CHECKF(_ak_code_object_check(own, co.data, co.size, why, sizeof why) == 0, "%s: own code object refused: %s", own, why);
        AKT_CHECKF(_ak_code_object_check(targets[t][1], co.data, co.size, why, sizeof why) != 0, "%s code passed as %s", own, targets[t][1]);
        AKT_CHECKF(_ak_code_object_check(targets[t][2], co.data, co.size, why, sizeof why) != 0, "%s code passed as %s", own, targets[t][2]);
        /* the disk entry just written: plant the other target's code, then text */
        AKT_CHECK(akh_newest_entry(dir, entry, sizeof entry));
        r = ak_compile_offline(ctx, targets[t][1], src, "akh_k", NULL, &co2);
        if (r == AK_OK) {
            ak_cache_stats before, after;
            AKT_CHECK(akh_newest_entry(dir, entry, sizeof entry));
            akh_plant_payload(entry, co.data, co.size);   /* valid file, checksum ok, wrong target */
            /* a fresh context, so the memory level cannot answer */
            ak_context_destroy(ctx);
            ctx = akt_cpu_context("h_real");
            if (!ctx) { ak_code_object_free(&co); ak_code_object_free(&co2); return; }
            AKT_OK(ak_cache_stats_get(ctx, &before));
            AKT_OK(ak_compile_offline(ctx, targets[t][1], src, "akh_k", NULL, &co3));
            AKT_OK(ak_cache_stats_get(ctx, &after));
            AKT_CHECKF(co3.source == AK_CACHE_MISS, "%s entry holding %s code was served (source %d)", targets[t][1], own, (int)co3.source);
            AKT_CHECK(after.disk_errors == before.disk_errors + 1);
            AKT_CHECK(co3.data && _ak_code_object_check(targets[t][1], co3.data, co3.size, why, sizeof why) == 0);
            ak_code_object_free(&co3);
            akh_plant_payload(entry, "#!/bin/sh\necho not a code object\n", 33);
            ak_context_destroy(ctx);
            ctx = akt_cpu_context("h_real");
            if (!ctx) { ak_code_object_free(&co); ak_code_object_free(&co2); return; }
            AKT_OK(ak_compile_offline(ctx, targets[t][1], src, "akh_k", NULL, &co3));
            AKT_CHECKF(co3.source == AK_CACHE_MISS, "%s entry holding text was served", targets[t][1]);
            ak_code_object_free(&co3);
            /* repaired: a disk hit now */
            ak_context_destroy(ctx);
            ctx = akt_cpu_context("h_real");
            if (!ctx) { ak_code_object_free(&co); ak_code_object_free(&co2); return; }
            AKT_OK(ak_compile_offline(ctx, targets[t][1], src, "akh_k", NULL, &co3));
            AKT_CHECK(co3.source == AK_CACHE_DISK);
            ak_code_object_free(&co3);
            ak_code_object_free(&co2);
        }
        ak_code_object_free(&co);
    }
    if (!any) akt_skip("no hipRTC or NVRTC here");
    ak_context_destroy(ctx);
}

/* A disk cap smaller than one entry: one warning (not per compile), nothing written. */
static void test_harden_cap_smaller_than_entry(void) {
    ak_config cfg = akc_cfg("h_cap");
    _ak_logger lg = akh_logger();
    _ak_cache* c;
    akc_job j;
    ak_cache_source src;
    int i, files, bad = 0;
    cfg.cache_max_bytes = 500; /* entries are 1088 bytes */
    akc_reset();
    c = akc_new(&cfg, &lg);
    if (!c) return;
    memset(&j, 0, sizeof j);
    for (i = 0; i < 3; i++) {
        char s[64], n[16];
        _ak_cache_key k;
        snprintf(s, sizeof s, "__global__ void cap%d() {}", i);
        snprintf(n, sizeof n, "cap%d", i);
        k = akc_key(s, n);
        _ak_cache_entry_release(c, akc_get_src(c, &k, &j, 0, &src));
    }
    AKT_EQ_INT(akh_log_warns, 1);
    AKT_CONTAINS(akh_log_text, "cache size cap");
    AKT_CONTAINS(akh_log_text, "'cap0'");
    files = akc_count_files(cfg.cache_dir, ".akc", 0, &bad);
    AKT_EQ_INT(files, 0);
    _ak_cache_destroy(c);
}

/* Warnings name the code even when the key's kernel name is empty (whole-source entries). */
static void test_harden_warning_names(void) {
    ak_config cfg = akc_cfg("h_names");
    _ak_cache_key k = akc_key("__global__ void named() {}", "");
    char path[AKC_PATH];
    uint8_t dg[32];
    _ak_logger lg;
    _ak_cache* c;
    akc_job j;
    _ak_cache_ops ops;
    _ak_cache_entry* e = NULL;
    ak_cache_source src;
    FILE* fp;
    if (!akh_seed_entry(&cfg, &k, path, sizeof path)) { AKT_CHECK(0); return; }
    fp = fopen(path, "r+b");
    if (fp) { fseek(fp, 100, SEEK_SET); fputc('X', fp); fclose(fp); }
    lg = akh_logger();
    c = akc_new(&cfg, &lg);
    if (!c) return;
    memset(&j, 0, sizeof j);
    ops = akc_ops(&j, 0);
    ops.name = "ak_fill_f32";
    ops.source_name = "elementwise.hip";
    j.key = &k;
    AKT_OK(_ak_cache_get(c, &k, &ops, 0, &e, &src));
    _ak_cache_entry_release(c, e);
    AKT_CONTAINS(akh_log_text, "recompiling 'ak_fill_f32' (elementwise.hip)");
    AKT_CHECKF(!strstr(akh_log_text, "''"), "empty name in: %s", akh_log_text);
    akc_key_path(c, &k, path, sizeof path, dg);
    _ak_cache_destroy(c);
}

/* ---- host memory --------------------------------------------------------------- */
static void test_harden_host_free(void) {
    ak_context* ctx = akt_cpu_context("h_host");
    ak_context* other = akt_cpu_context("h_host2");
    void *p = NULL, *q = NULL, *leak = NULL;
    int on_stack = 0;
    void* heap;
    if (!ctx || !other) { ak_context_destroy(ctx); ak_context_destroy(other); return; }
    AKT_OK(ak_host_alloc(ctx, 1000, &p));
    AKT_OK(ak_host_alloc(other, 64, &q));
    AKT_CHECK(p && ((uintptr_t)p & 255) == 0);
    memset(p, 0xab, 1000);
    AKT_ERR_ITEM(ak_host_free(ctx, (char*)p + 16), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);   /* interior pointer */
    AKT_ITEM(AK_ERRITEM_FOREIGN_POINTER);
    AKT_ERR_ITEM(ak_host_free(ctx, q), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);               /* another context's */
    AKT_ERR_ITEM(ak_host_free(ctx, &on_stack), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);       /* never allocated */
    heap = malloc(32);
    AKT_ERR_ITEM(ak_host_free(ctx, heap), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);            /* plain malloc: not ours, not freed */
    free(heap);                                                   /* still ours to free: no double free */
    AKT_OK(ak_host_free(ctx, p));
    AKT_ERR_ITEM(ak_host_free(ctx, p), AK_ERROR_MEMORY, AK_ERRITEM_FOREIGN_POINTER);               /* double free */
    AKT_OK(ak_host_free(ctx, NULL));
    AKT_ERR_ITEM(ak_host_free(NULL, q), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_NULL_ARGUMENT);
    AKT_OK(ak_host_free(other, q));
    AKT_OK(ak_host_alloc(ctx, 4096, &leak));                      /* left allocated: destroy frees it (LeakSanitizer) */
    ak_context_destroy(other);
    ak_context_destroy(ctx);
}

typedef struct akh_host_arg { ak_context* ctx; int bad; } akh_host_arg;
static void* akh_host_thread(void* u) {
    akh_host_arg* a = (akh_host_arg*)u;
    void* ps[16];
    int i, r;
    for (r = 0; r < 50; r++) {
        for (i = 0; i < 16; i++) if (ak_host_alloc(a->ctx, (size_t)(64 + 8 * i), &ps[i]) != AK_OK) { a->bad++; ps[i] = NULL; }
        for (i = 0; i < 16; i++) if (ps[i] && ak_host_free(a->ctx, ps[i]) != AK_OK) a->bad++;
        for (i = 0; i < 4; i++) if (ps[i] && ak_host_free(a->ctx, ps[i]) != AK_ERROR_MEMORY) a->bad++;
    }
    return NULL;
}
static void test_harden_host_free_threads(void) {
    ak_context* ctx = akt_cpu_context("h_hostmt");
    pthread_t th[16];
    akh_host_arg args[16];
    int i, bad = 0;
    if (!ctx) return;
    for (i = 0; i < 16; i++) { args[i].ctx = ctx; args[i].bad = 0; pthread_create(&th[i], NULL, akh_host_thread, &args[i]); }
    for (i = 0; i < 16; i++) { pthread_join(th[i], NULL); bad += args[i].bad; }
    AKT_EQ_INT(bad, 0);
    ak_context_destroy(ctx);
}

/* ---- launch geometry ---------------------------------------------------------- */
static int akh_cpu_runs;
static void akh_cpu_kernel(const ak_launch_info* info, void** args) { (void)info; (void)args; akh_cpu_runs++; }
static void test_harden_launch_geometry(void) {
    ak_context* ctx = akt_cpu_context("h_launch");
    const ak_device_info* d;
    ak_kernel* k = NULL;
    ak_dim3 g1 = { 1, 1, 1 };
    ak_dim3 b;
    if (!ctx) return;
    d = ak_context_device(ctx);
    AKT_CHECK(d->max_threads_per_block == 1024 && d->max_block[2] == 64 && d->max_grid[1] == 65535);
    AKT_OK(ak_kernel_get(ctx, "extern \"C\" __global__ void k() {}", "k", NULL, &k));
    if (!k) { ak_context_destroy(ctx); return; }
    ak_kernel_set_cpu(k, akh_cpu_kernel, NULL);
    akh_cpu_runs = 0;
    /* product 2^22 * 2^21 * 2^21 = 2^64: wraps to 0 in 64-bit arithmetic */
    b.x = 1u << 22; b.y = 1u << 21; b.z = 1u << 21;
    AKT_ERR_ITEM(ak_launch(k, g1, b, 0, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
    /* product 2^32 wraps to 0 in unsigned int */
    b.x = 65536; b.y = 65536; b.z = 1;
    AKT_ERR_ITEM(ak_launch(k, g1, b, 0, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
    b.x = 2048; b.y = 1; b.z = 1;
    AKT_ERR_ITEM(ak_launch(k, g1, b, 0, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
    AKT_CONTAINS(ak_last_error(), "block.x = 2048");
    b.x = 32; b.y = 32; b.z = 2;
    AKT_ERR(ak_launch(k, g1, b, 0, NULL, NULL), AK_ERROR_INVALID_ARGUMENT);
    AKT_CONTAINS(ak_last_error(), "2048 threads");
    b.x = 1; b.y = 1; b.z = 65;
    AKT_ERR_ITEM(ak_launch(k, g1, b, 0, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
    b.x = 256; b.y = 1; b.z = 1;
    {
        ak_dim3 g = { 1, 65536, 1 };
        AKT_ERR_ITEM(ak_launch(k, g, b, 0, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
        AKT_CONTAINS(ak_last_error(), "grid.y");
        g.x = 0xffffffffu; g.y = 1;
        AKT_ERR_ITEM(ak_launch(k, g, b, 0, NULL, NULL), AK_ERROR_INVALID_ARGUMENT, AK_ERRITEM_LAUNCH_GEOMETRY);
    }
    AKT_EQ_INT(akh_cpu_runs, 0);
    {
        ak_dim3 g = { 2147483647u, 65535, 65535 };
        b.x = 16; b.y = 16; b.z = 4;
        AKT_OK(ak_launch(k, g, b, 0, NULL, NULL)); /* at the limits: accepted (the cpu backend runs the kernel's C implementation, which ignores the size) */
    }
    AKT_EQ_INT(akh_cpu_runs, 1);
    ak_kernel_release(k);
    ak_context_destroy(ctx);
}

/* ---- ak_context_refresh_memory from many threads (ThreadSanitizer-clean) ------- */
static void* akh_refresh_thread(void* u) {
    ak_context* ctx = (ak_context*)u;
    int i;
    size_t sum = 0;
    for (i = 0; i < 200; i++) {
        if (i % 2 == 0) ak_context_refresh_memory(ctx);
        sum += __atomic_load_n(&ak_context_device(ctx)->mem_free, __ATOMIC_RELAXED);
    }
    return (void*)(uintptr_t)(sum != 0);
}
static void test_harden_refresh_memory_threads(void) {
    ak_context* ctx = akt_cpu_context("h_refresh");
    pthread_t th[16];
    int i, nonzero = 0;
    if (!ctx) return;
    for (i = 0; i < 16; i++) pthread_create(&th[i], NULL, akh_refresh_thread, ctx);
    for (i = 0; i < 16; i++) { void* r = NULL; pthread_join(th[i], &r); nonzero += r != NULL; }
    AKT_EQ_INT(nonzero, 16);
    AKT_CHECK(ak_context_device(ctx)->mem_total > 0);
    ak_context_destroy(ctx);
}

/* ---- 16 threads on one context: cache, pool, streams, host memory; 16 more
 * each with its own context (run under ThreadSanitizer by make test) ------- */
#define AKH_THREADS 16
typedef struct akh_mt { ak_context* ctx; _ak_cache* cache; int id; int bad; } akh_mt;
static void* akh_mt_shared(void* u) {
    akh_mt* a = (akh_mt*)u;
    int r;
    for (r = 0; r < 40; r++) {
        char text[96];
        _ak_cache_key k;
        _ak_cache_entry* e = NULL;
        akc_job j;
        _ak_cache_ops ops;
        ak_stream* st = NULL;
        void *d = NULL, *h = NULL;
        ak_cache_stats cs;
        ak_pool_stats ps;
        /* half the threads share keys (single flight), half use their own */
        snprintf(text, sizeof text, "__global__ void mt%d() {}", (a->id % 2 ? a->id : 0) * 100 + r % 10);
        k = akc_key(text, "mt");
        memset(&j, 0, sizeof j);
        ops = akc_ops(&j, 1);
        j.key = &k;
        if (_ak_cache_get(a->cache, &k, &ops, 0, &e, NULL) != AK_OK || !akc_entry_is(e, &k)) a->bad++;
        _ak_cache_entry_release(a->cache, e);
        if (ak_stream_create(a->ctx, "mt", 0, &st) != AK_OK) a->bad++;
        if (ak_malloc(a->ctx, (size_t)(256 + 4096 * (r % 7)), st, &d) != AK_OK) a->bad++;
        if (d && ak_memset(a->ctx, d, r, 256, st) != AK_OK) a->bad++;
        if (ak_host_alloc(a->ctx, 512, &h) != AK_OK) a->bad++;
        if (d && ak_free(a->ctx, d) != AK_OK) a->bad++;
        if (h && ak_host_free(a->ctx, h) != AK_OK) a->bad++;
        ak_stream_destroy(st);
        if (r % 8 == 0) { ak_context_refresh_memory(a->ctx); ak_cache_stats_get(a->ctx, &cs); ak_pool_stats_get(a->ctx, &ps); }
        if (r % 10 == 0) ak_pool_trim(a->ctx);
    }
    return NULL;
}
static void* akh_mt_own(void* u) {
    akh_mt* a = (akh_mt*)u;
    int r;
    for (r = 0; r < 3; r++) {
        ak_config cfg = ak_config_default();
        ak_context* c = NULL;
        void* d = NULL;
        cfg.backend = AK_BACKEND_CPU;
        cfg.disk_cache = 0;
        cfg.log_level = AK_LOG_NONE;
        if (ak_context_create(&cfg, &c) != AK_OK) { a->bad++; continue; }
        if (ak_malloc(c, 1000, NULL, &d) != AK_OK || ak_free(c, d) != AK_OK) a->bad++;
        ak_context_destroy(c);
    }
    return NULL;
}
static void test_harden_threads16(void) {
    ak_config cfg = akc_cfg("h_mt");
    ak_context* ctx = akt_cpu_context("h_mt_ctx");
    _ak_cache* c;
    pthread_t th[2 * AKH_THREADS];
    akh_mt args[2 * AKH_THREADS];
    int i, bad = 0;
    if (!ctx) return;
    akc_reset();
    c = akc_new(&cfg, NULL);
    if (!c) { ak_context_destroy(ctx); return; }
    for (i = 0; i < 2 * AKH_THREADS; i++) {
        args[i].ctx = ctx; args[i].cache = c; args[i].id = i; args[i].bad = 0;
        AKT_CHECK(pthread_create(&th[i], NULL, i < AKH_THREADS ? akh_mt_shared : akh_mt_own, &args[i]) == 0);
    }
    for (i = 0; i < 2 * AKH_THREADS; i++) { pthread_join(th[i], NULL); bad += args[i].bad; }
    AKT_EQ_INT(bad, 0);
    AKT_EQ_INT(akc_bad_unloads, 0);
    _ak_cache_destroy(c);
    ak_context_destroy(ctx);
}

/* ---- crash safety: SIGKILL a writer at random points ------------------------------- */

#define AKH_KEYS 40
static int akh_crash_round;
static _ak_cache_key akh_crash_key(int i, char* text, size_t cap) {
    /* keys of this round only: each writer stores new entries */
    snprintf(text, cap, "__global__ void crash%d_%d() { /* %d */ }", akh_crash_round, i, i * 7919);
    return akc_key(text, "crash");
}
/* The writer: compile (fake, instant) and store entries of 64..512 KiB over and
 * over under a small disk cap, so writes, renames and evictions are all in
 * flight when the kill comes. Never returns. */
static void akh_crash_writer(const char* dir, unsigned long long seed) {
    ak_config cfg = ak_config_default();
    _ak_cache* c = NULL;
    akc_job j;
    int i;
    cfg.cache_dir = dir; cfg.cache_capacity = 1; cfg.cache_max_bytes = 4ll << 20;
    if (_ak_cache_create(&cfg, NULL, NULL, NULL, &c) != AK_OK) _exit(9);
    memset(&j, 0, sizeof j);
    for (i = 0;; i++) {
        char text[96];
        _ak_cache_key k = akh_crash_key((int)((seed + (unsigned long long)i * 13u) % AKH_KEYS), text, sizeof text);
        _ak_cache_entry* e = NULL;
        _ak_cache_ops ops = akc_ops(&j, 0);
        akc_payload = (size_t)(64u << 10) * (1u + (unsigned)((seed >> 3) + (unsigned long long)i) % 8u);
        j.key = &k;
        if (_ak_cache_get(c, &k, &ops, 0, &e, NULL) == AK_OK) _ak_cache_entry_release(c, e);
    }
}
/* The next process: every entry file verifies (header, digest, checksum);
 * every key is either a miss or served with exactly its code. Exit status:
 * 0 ok, else the number of problems. */
static int akh_crash_reader(const char* dir) {
    ak_config cfg = ak_config_default();
    _ak_cache* c = NULL;
    akc_job j;
    int i, bad = 0, problems = 0;
    cfg.cache_dir = dir; cfg.cache_max_bytes = 4ll << 20;
    akc_count_files(dir, ".akc", 1, &bad);
    problems += bad;
    if (_ak_cache_create(&cfg, NULL, NULL, NULL, &c) != AK_OK) return 100;
    memset(&j, 0, sizeof j);
    for (i = 0; i < AKH_KEYS; i++) {
        char text[96];
        _ak_cache_key k = akh_crash_key(i, text, sizeof text);
        _ak_cache_entry* e = NULL;
        _ak_cache_ops ops = akc_ops(&j, 0);
        ak_cache_source src;
        size_t n;
        const uint8_t* got;
        j.key = &k;
        if (_ak_cache_get(c, &k, &ops, 0, &e, &src) != AK_OK) { problems++; continue; }
        /* a disk hit must be the code compiled for this key (any size the writer used) */
        got = (const uint8_t*)_ak_cache_entry_data(e, &n);
        if (src == AK_CACHE_DISK) {
            size_t want_n;
            void* want;
            akc_payload = n;
            want = akc_expect(&k, &want_n);
            if (want_n != n || memcmp(want, got, n) != 0) problems++;
            _ak_dealloc(want);
        }
        _ak_cache_entry_release(c, e);
    }
    {
        ak_cache_stats s;
        _ak_cache_stats(c, &s);
        if (s.disk_errors) problems += 1000; /* nothing torn or corrupt was found on the way */
    }
    _ak_cache_destroy(c);
    return problems > 250 ? 250 : problems;
}
static void test_harden_crash_safety(void) {
    ak_config cfg = akc_cfg("h_crash");
    unsigned long long rng = akt_seed() ^ 0xC0FFEEull;
    int round, rounds = 40, reader_bad = 0, killed_mid = 0;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", cfg.cache_dir);
    for (round = 0; round < rounds; round++) {
        pid_t w, r;
        int status = 0;
        struct timespec ts;
        long us = (long)akt_uniform(&rng, 0.0, 30000.0); /* 0..30 ms into the writes */
        akh_crash_round = round;
        w = fork();
        if (w == 0) { akh_crash_writer(dir, (unsigned long long)round * 977u + 1u); _exit(0); }
        AKT_CHECK(w > 0);
        if (w <= 0) return;
        ts.tv_sec = 0; ts.tv_nsec = us * 1000L;
        nanosleep(&ts, NULL);
        kill(w, SIGKILL);
        AKT_CHECK(waitpid(w, &status, 0) == w);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) killed_mid++;
        r = fork();
        if (r == 0) _exit(akh_crash_reader(dir));
        AKT_CHECK(r > 0 && waitpid(r, &status, 0) == r);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            reader_bad++;
            printf("    round %d (kill after %ld us): the next process found problems (status %d)\n", round, us, status);
        }
    }
    AKT_EQ_INT(reader_bad, 0);
    AKT_CHECKF(killed_mid >= rounds / 2, "only %d of %d writers were killed mid-run", killed_mid, rounds);
    {
        /* the directory recovers: a purge clears every entry and every temp file a killed writer left */
        _ak_cache* c = akc_new(&cfg, NULL);
        int tmp = akc_count_files(dir, ".tmp", 0, NULL), bad = 0;
        printf("    %d writers killed; %d entries, %d temp files left behind (kill in the middle of a write)\n", killed_mid,
               akc_count_files(dir, ".akc", 1, &bad), tmp);
        AKT_EQ_INT(bad, 0);
        if (c) {
            AKT_OK(_ak_cache_purge(c));
            AKT_EQ_INT(akc_count_files(dir, ".akc", 0, NULL) + akc_count_files(dir, ".tmp", 0, NULL), 0);
            _ak_cache_destroy(c);
        }
    }
    akc_payload = 1000;
}

/* A message may be formatted from the last message itself (the arguments are
 * formatted before the buffer is written): no garbling. */
static void test_harden_error_from_last_error(void) {
    _ak_err(AK_ERROR_CONFIG, "config.arch: 'gfx90a:foo': feature 'foo' unknown");
    _ak_erri(AK_ERROR_CONFIG, AK_ERRITEM_TARGET_FEATURE, "AMDKIT_ARCH: %s", ak_last_error());
    AKT_EQ_STR(ak_last_error(), "AMDKIT_ARCH: config.arch: 'gfx90a:foo': feature 'foo' unknown");
    AKT_ITEM(AK_ERRITEM_TARGET_FEATURE);
    ak_clear_error();
}

void akt_suite_harden(void) {
    AKT_RUN(test_harden_error_from_last_error);
    AKT_RUN(test_harden_fifo);
    AKT_RUN(test_harden_symlink_and_dir);
    AKT_RUN(test_harden_huge_sparse_entry);
    AKT_RUN(test_harden_foreign_entry);
    AKT_RUN(test_harden_code_object_check);
    AKT_RUN(test_harden_real_code_objects);
    AKT_RUN(test_harden_cap_smaller_than_entry);
    AKT_RUN(test_harden_warning_names);
    AKT_RUN(test_harden_host_free);
    AKT_RUN(test_harden_host_free_threads);
    AKT_RUN(test_harden_launch_geometry);
    AKT_RUN(test_harden_refresh_memory_threads);
    AKT_RUN(test_harden_threads16);
    AKT_RUN(test_harden_crash_safety);
}
