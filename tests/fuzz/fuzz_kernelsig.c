/* Fuzz target kernelsig: `amdkit run`'s --arg list against a kernel's
 * parameters (akr_kernel_params, akr_check_params, akr_parse_arg in
 * examples/amdkit_run.c). Input: kernel source text, a line "@@", then one
 * --arg spec per line; the kernel is named k, the compile options are
 * -DT=float -DU=T -DW=unsigned long. Nothing may crash, read out of bounds,
 * overflow or loop; a declaration found has 0..AK_MAX_ARGS parameters with
 * terminated texts; a list the check accepts has one spec per parameter, a
 * buffer exactly for each pointer and an integer / float scalar of the right
 * width for each known scalar type; a refusal says why. Included by
 * fuzz_main.c after fuzz_argspec.c. */

static void akf_sig_require(int cond, const char* what) {
    if (!cond) {
        fprintf(stderr, "fuzz kernelsig: %s\n", what);
        abort();
    }
}

static int akf_kernelsig(const uint8_t* data, size_t size) {
    static const char* const defs[] = { "-DT=float", "-DU=T", "-DW=unsigned long" };
    char* text = (char*)malloc(size + 1);
    char* specs;
    char err[600];
    akr_param prm[AK_MAX_ARGS];
    akr_arg* args = (akr_arg*)calloc(AK_MAX_ARGS, sizeof *args);
    int np = -1, na = 0, found, i;
    if (!text || !args) { free(text); free(args); return 0; }
    memcpy(text, data, size);
    text[size] = 0;
    specs = strstr(text, "\n@@\n");
    if (specs) { *specs = 0; specs += 4; }
    err[0] = 0;
    found = akr_kernel_params(text, "k", defs, 3, prm, AK_MAX_ARGS, &np, err, sizeof err);
    akf_sig_require(found >= -1 && found <= 1, "result");
    if (found < 0) akf_sig_require(err[0] != 0, "a refused declaration without a reason");
    if (found == 1) {
        akf_sig_require(np >= 0 && np <= AK_MAX_ARGS, "parameter count");
        for (i = 0; i < np; i++) {
            akf_sig_require(memchr(prm[i].text, 0, sizeof prm[i].text) != NULL, "parameter text not terminated");
            akf_sig_require(prm[i].cls >= AKR_P_PTR && prm[i].cls <= AKR_P_UNKNOWN, "parameter class");
        }
        while (specs && *specs && na < AK_MAX_ARGS) {
            char* nl = strchr(specs, '\n');
            if (nl) *nl = 0;
            if (!akr_parse_arg(specs, &args[na], akf_argspec_lookup, NULL, err, sizeof err)) break;
            na++;
            specs = nl ? nl + 1 : NULL;
        }
        err[0] = 0;
        if (akr_check_params("k", args, na, prm, np, err, sizeof err)) {
            akf_sig_require(na == np, "accepted another number of arguments");
            for (i = 0; i < np; i++) {
                int t = args[i].type;
                akf_sig_require((prm[i].cls == AKR_P_PTR) == (args[i].kind == AKR_BUFFER), "accepted a buffer for a scalar or the reverse");
                if (prm[i].cls == AKR_P_PTR && prm[i].elem) akf_sig_require(prm[i].elem == ak_dtype_size(args[i].dtype), "pointee size");
                if (prm[i].cls == AKR_P_F32) akf_sig_require(t == AKR_T_F32, "f32 parameter");
                if (prm[i].cls == AKR_P_F64) akf_sig_require(t == AKR_T_F64, "f64 parameter");
                if (prm[i].cls == AKR_P_INT4) akf_sig_require(t == AKR_T_I32 || t == AKR_T_U32, "4-byte integer parameter");
                if (prm[i].cls == AKR_P_INT8) akf_sig_require(t == AKR_T_I64 || t == AKR_T_U64, "8-byte integer parameter");
                akf_sig_require(prm[i].cls != AKR_P_SMALL, "accepted a scalar the CLI cannot pass");
            }
        } else {
            akf_sig_require(err[0] != 0 && memchr(err, 0, sizeof err) != NULL, "a refusal without a reason");
        }
    }
    free(text);
    free(args);
    return 0;
}
