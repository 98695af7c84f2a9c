/* Internal checks of >>impl:multi (included by test_main.c, which holds the
 * implementation): the NCCL / RCCL loader either loads the library with every
 * entry point of _AK_COMM_CCL_API, or names the library and every place it looked. */
static void test_ccl_loader(void) {
    int rccl;
    for (rccl = 0; rccl < 2; rccl++) {
        _ak_api* api = (_ak_api*)_ak_calloc(sizeof *api);
        char why[2048];
        if (!api) { AKT_CHECK(api != NULL); return; }
        why[0] = 0;
        if (_ak_load_ccl(api, rccl, why, sizeof why)) {
            AKT_CHECK(api->ccl_version >= 20000);   /* NCCL_VERSION_CODE of 2.x */
            AKT_CHECK(api->ncclAllReduce && api->ncclCommInitRank && api->ncclGroupEnd && api->ncclSend);
            AKT_CONTAINS(api->ccl_path, rccl ? "librccl" : "libnccl");
            printf("    %s: %s, version %d\n", rccl ? "RCCL" : "NCCL", api->ccl_path, api->ccl_version);
        } else {
            AKT_CONTAINS(why, rccl ? "librccl.so.1 (RCCL) not found" : "libnccl.so.2 (NCCL) not found");
            AKT_CONTAINS(why, "loader path");
            AKT_CONTAINS(why, rccl ? "/opt/rocm/lib/librccl.so.1" : "/usr/local/cuda/lib64/libnccl.so.2");
            AKT_CONTAINS(why, rccl ? "torch/lib/librccl.so.1" : "nvidia/nccl/lib/libnccl.so.2");
            AKT_CHECK(api->lib_ccl == NULL);
            printf("    %s\n", why);
        }
        _ak_api_close(api);
    }
}
void akt_suite_multi_internals(void);
void akt_suite_multi_internals(void) {
    AKT_RUN(test_ccl_loader);
}
