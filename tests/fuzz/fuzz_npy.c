/* Fuzz target npy: the .npy header reader of `amdkit run` (akr_npy_header in
 * examples/amdkit_run.c, included by fuzz_argspec.c) on arbitrary bytes. It
 * may not crash, read out of bounds or overflow (UBSan); an accepted header
 * has its data start inside the file, at most 2^40 elements and a terminated
 * descr; a refused .npy says why; bytes without the magic are "not a .npy".
 * Included by fuzz_main.c after fuzz_argspec.c. */

static void akf_npy_require(int cond, const char* what) {
    if (!cond) {
        fprintf(stderr, "fuzz npy: %s\n", what);
        abort();
    }
}

static int akf_npy(const uint8_t* data, size_t size) {
    char descr[16], why[300];
    size_t numel = 0, off = 0;
    int r;
    memset(descr, 'x', sizeof descr);
    why[0] = 0;
    r = akr_npy_header(data, size, descr, sizeof descr, &numel, &off, why, sizeof why);
    if (r == 1) {
        akf_npy_require(off <= size, "data offset past the end");
        akf_npy_require(numel <= AKR_MAX_BYTES, "element count over 2^40");
        akf_npy_require(memchr(descr, 0, sizeof descr) != NULL, "descr not terminated");
    } else if (r == -1) {
        akf_npy_require(why[0] != 0 && memchr(why, 0, sizeof why) != NULL, "refused without a reason");
        akf_npy_require(size >= 6 && !memcmp(data, "\x93NUMPY", 6), "refused bytes without the magic");
    } else {
        akf_npy_require(r == 0, "unknown result");
        akf_npy_require(size < 8 || memcmp(data, "\x93NUMPY", 6) != 0, "a .npy magic read as raw bytes");
    }
    return 0;
}
