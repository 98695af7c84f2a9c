/* A deterministic mutation driver for the fuzz harnesses where libFuzzer is
 * not available (gcc, or clang without its fuzzer runtime): the same
 * LLVMFuzzerTestOneInput, driven by random mutations of the seed corpus
 * (bit flips, interesting bytes, insertions, deletions, duplications, splices
 * and truncations; splitmix64 PRNG, so a run is replayable with -seed=N).
 * Not coverage-guided. Flags (libFuzzer's spelling): -max_total_time=S,
 * -runs=N, -seed=N, -max_len=N; other arguments are corpus directories or
 * files (a file alone: run it once, as a reproducer). A sanitizer report
 * writes the input to <-artifact_prefix>crash-driver-<pid> before the process dies. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sanitizer/common_interface_defs.h>

/* optional in a harness: weak */
int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

typedef struct { uint8_t* p; size_t n; } akd_buf;
static akd_buf* akd_seeds;
static size_t akd_nseeds, akd_capseeds;
static uint8_t* akd_cur;
static size_t akd_curn;
static uint64_t akd_state;
static const char* akd_prefix = "";

static uint64_t akd_rand(void) {
    uint64_t z = (akd_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static void akd_add(const uint8_t* p, size_t n) {
    if (akd_nseeds == akd_capseeds) {
        akd_capseeds = akd_capseeds ? akd_capseeds * 2 : 16;
        akd_seeds = (akd_buf*)realloc(akd_seeds, akd_capseeds * sizeof *akd_seeds);
        if (!akd_seeds) exit(1);
    }
    akd_seeds[akd_nseeds].p = (uint8_t*)malloc(n ? n : 1);
    if (!akd_seeds[akd_nseeds].p) exit(1);
    if (n) memcpy(akd_seeds[akd_nseeds].p, p, n);
    akd_seeds[akd_nseeds].n = n;
    akd_nseeds++;
}
static int akd_load_file(const char* path) {
    FILE* f = fopen(path, "rb");
    uint8_t* b;
    long n;
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    b = (uint8_t*)malloc(n > 0 ? (size_t)n : 1);
    if (!b || (n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n)) { fclose(f); free(b); return 0; }
    fclose(f);
    akd_add(b, n > 0 ? (size_t)n : 0);
    free(b);
    return 1;
}
static void akd_death(void) {
    char name[1200];
    FILE* f;
    snprintf(name, sizeof name, "%scrash-driver-%ld", akd_prefix, (long)getpid());
    f = fopen(name, "wb");
    if (f) { if (akd_curn) fwrite(akd_cur, 1, akd_curn, f); fclose(f); }
    fprintf(stderr, "driver: input written to %s (%zu bytes)\n", name, akd_curn);
}
static const uint8_t akd_interesting[] = { 0, 1, 0x7f, 0x80, 0xff, '\n', '=', ':', '+', '-', 'k', 'm', 'g', '.', '/', 0xe0, 0xbe };

static size_t akd_mutate(uint8_t* b, size_t n, size_t max) {
    int k, rounds = 1 + (int)(akd_rand() % 8);
    for (k = 0; k < rounds; k++) {
        size_t i, j, len;
        switch (akd_rand() % 8) {
        case 0: if (n) b[akd_rand() % n] ^= (uint8_t)(1u << (akd_rand() % 8)); break;
        case 1: if (n) b[akd_rand() % n] = akd_interesting[akd_rand() % sizeof akd_interesting]; break;
        case 2: if (n) b[akd_rand() % n] = (uint8_t)akd_rand(); break;
        case 3: /* insert a byte */
            if (n < max) { i = akd_rand() % (n + 1); memmove(b + i + 1, b + i, n - i); b[i] = (uint8_t)akd_rand(); n++; }
            break;
        case 4: /* delete a range */
            if (n) { i = akd_rand() % n; len = 1 + akd_rand() % (n - i); memmove(b + i, b + i + len, n - i - len); n -= len; }
            break;
        case 5: /* duplicate a range */
            if (n && n < max) {
                i = akd_rand() % n; len = 1 + akd_rand() % (n - i);
                if (len > max - n) len = max - n;
                j = akd_rand() % (n + 1);
                memmove(b + j + len, b + j, n - j);
                memmove(b + j, b + (i >= j ? i + len : i), len);
                n += len;
            }
            break;
        case 6: /* splice another seed's tail */
            if (akd_nseeds) {
                const akd_buf* o = &akd_seeds[akd_rand() % akd_nseeds];
                i = n ? akd_rand() % n : 0;
                j = o->n ? akd_rand() % o->n : 0;
                len = o->n - j;
                if (i + len > max) len = max - i;
                memcpy(b + i, o->p + j, len);
                n = i + len;
            }
            break;
        case 7: /* a 32-bit little-endian field set to an edge value */
            if (n >= 4) {
                static const uint32_t edge[] = { 0, 1, 88, 0x7fffffffu, 0x80000000u, 0xffffffffu, 224, 190 };
                uint32_t v = edge[akd_rand() % 8];
                i = akd_rand() % (n - 3);
                b[i] = (uint8_t)v; b[i + 1] = (uint8_t)(v >> 8); b[i + 2] = (uint8_t)(v >> 16); b[i + 3] = (uint8_t)(v >> 24);
            }
            break;
        }
    }
    return n;
}

int main(int argc, char** argv) {
    double max_time = 10;
    unsigned long long runs = 0, execs = 0;
    size_t max_len = 4096;
    int i, files_only = 1, nfiles = 0;
    struct timespec t0, t1;
    akd_state = 12345;
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (i = 1; i < argc; i++) {
        struct stat st;
        if (!strncmp(argv[i], "-max_total_time=", 16)) max_time = atof(argv[i] + 16);
        else if (!strncmp(argv[i], "-runs=", 6)) runs = strtoull(argv[i] + 6, NULL, 10);
        else if (!strncmp(argv[i], "-seed=", 6)) akd_state = strtoull(argv[i] + 6, NULL, 10);
        else if (!strncmp(argv[i], "-max_len=", 9)) max_len = (size_t)strtoull(argv[i] + 9, NULL, 10);
        else if (!strncmp(argv[i], "-artifact_prefix=", 17)) akd_prefix = argv[i] + 17;
        else if (argv[i][0] == '-') continue; /* other libFuzzer flags: ignored */
        else if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR* d = opendir(argv[i]);
            struct dirent* de;
            files_only = 0;
            while (d && (de = readdir(d)) != NULL) {
                char p[4096];
                if (de->d_name[0] == '.') continue;
                snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
                nfiles += akd_load_file(p);
            }
            if (d) closedir(d);
        } else nfiles += akd_load_file(argv[i]);
    }
    if (max_len < 16) max_len = 16;
    __sanitizer_set_death_callback(akd_death);
    if (files_only && nfiles) { /* reproducer mode */
        for (i = 0; i < (int)akd_nseeds; i++) { akd_cur = akd_seeds[i].p; akd_curn = akd_seeds[i].n; LLVMFuzzerTestOneInput(akd_cur, akd_curn); }
        printf("driver: ran %zu input(s)\n", akd_nseeds);
        return 0;
    }
    if (!akd_nseeds) akd_add((const uint8_t*)"", 0);
    akd_cur = (uint8_t*)malloc(max_len);
    if (!akd_cur) return 1;
    /* every seed once as is */
    for (i = 0; i < (int)akd_nseeds; i++) {
        akd_curn = akd_seeds[i].n < max_len ? akd_seeds[i].n : max_len;
        memcpy(akd_cur, akd_seeds[i].p, akd_curn);
        LLVMFuzzerTestOneInput(akd_cur, akd_curn);
        execs++;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        const akd_buf* s = &akd_seeds[akd_rand() % akd_nseeds];
        double el;
        akd_curn = s->n < max_len ? s->n : max_len;
        memcpy(akd_cur, s->p, akd_curn);
        akd_curn = akd_mutate(akd_cur, akd_curn, max_len);
        LLVMFuzzerTestOneInput(akd_cur, akd_curn);
        execs++;
        if (runs && execs >= runs) break;
        if ((execs & 255) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &t1);
            el = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
            if (el >= max_time) break;
        }
    }
    printf("#%llu\tDONE   (driver, %zu seeds)\n", execs, akd_nseeds);
    printf("stat::number_of_executed_units: %llu\n", execs);
    return 0;
}
