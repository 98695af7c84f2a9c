/* Fuzz target cache_entry: the disk cache's entry reader and the code object
 * check (amdkit.h >>impl:cache _ak_cache_file_read, >>impl:compile
 * _ak_code_object_check). The input is written as a cache entry file and read
 * back the way a cache lookup reads it (size bound, header, checksum); the
 * payload of a file that verifies, and the raw input itself, go through the
 * code object check for an AMD and an NVIDIA target (picked by the input).
 * Included by fuzz_main.c. */
static char akf_entry_path[256], akf_entry_dir[200];
static void akf_entry_cleanup(void) { unlink(akf_entry_path); rmdir(akf_entry_dir); }
static int akf_cache_entry(const uint8_t* data, size_t size) {
    static const char* targets[] = { "gfx90a", "gfx906:sramecc+:xnack-", "gfx1030", "gfx942", "sm_80", "sm_90", "sm_90a",
                                     "gfx", "sm_", "x" };
    const char* why = "";
    char why2[256];
    void* payload = NULL;
    size_t psize = 0;
    int fd, r;
    if (!akf_entry_path[0]) {
        snprintf(akf_entry_dir, sizeof akf_entry_dir, "%s/akf-%ld", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (long)getpid());
        mkdir(akf_entry_dir, 0700);
        snprintf(akf_entry_path, sizeof akf_entry_path, "%s/entry.akc", akf_entry_dir);
        atexit(akf_entry_cleanup);
    }
    fd = open(akf_entry_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return 0;
    if (size && _ak_write_full(fd, data, size) != 0) { close(fd); return 0; }
    close(fd);
    /* a small bound, so the "too large" path is reachable too */
    r = _ak_cache_file_read(akf_entry_path, NULL, 1024 + (size > 0 ? data[0] : 0) * 16, 0, &payload, &psize, NULL, &why);
    if (r == 1) {
        size_t i;
        for (i = 0; i < sizeof targets / sizeof targets[0]; i++)
            (void)_ak_code_object_check(targets[i], payload, psize, why2, sizeof why2);
        _ak_dealloc(payload);
    } else if (r == -1 && !why[0]) {
        abort(); /* an invalid entry always says why */
    }
    (void)_ak_code_object_check(targets[size ? data[size - 1] % 10 : 0], data, size, why2, sizeof why2);
    return 0;
}
