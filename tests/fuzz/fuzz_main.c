/* Fuzz harnesses of amdkit, one binary for all of them.
 *
 * Each harness is a file tests/fuzz/fuzz_NAME.c defining
 *     static int akf_NAME(const uint8_t* data, size_t size);   (returns 0)
 * listed once in AKF_TARGETS below, with seed inputs in tests/fuzz/corpus/NAME/.
 * The target is picked by the environment variable AKF_TARGET=NAME.
 * (A harness may also stand alone: tests/fuzz/fuzz_NAME.c defining
 * LLVMFuzzerTestOneInput and including the implementation itself gets its
 * own binary; see run.sh. The shared binary saves a build per target.)
 *
 * Built two ways by tests/fuzz/run.sh:
 *   - clang -fsanitize=fuzzer,address,undefined: libFuzzer drives it
 *     (coverage-guided), the usual flags apply (-max_total_time=S, ...);
 *   - where libFuzzer is not installed: any C compiler with ASan + UBSan and
 *     tests/fuzz/driver.c, a deterministic mutation driver (same entry point).
 * `make check` runs every target for a few seconds; `make fuzz` longer. */
#define AMDKIT_IMPLEMENTATION
#include "../../amdkit.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#define AKF_TARGETS(X) \
    X(cache_entry) \
    X(config_env) \
    X(argspec) \
    X(npy) \
    X(kernelsig) \
    X(collectives) \
    X(target_id)

#include "fuzz_cache_entry.c"
#include "fuzz_config_env.c"
#include "fuzz_argspec.c"
#include "fuzz_npy.c"        /* after fuzz_argspec.c: amdkit_run.c's .npy reader */
#include "fuzz_kernelsig.c"  /* after fuzz_argspec.c: --arg specs against a kernel's parameters */
#include "fuzz_collectives.c"
#include "fuzz_target_id.c" /* rocm helper: the target-ID parser */

typedef int (*akf_fn)(const uint8_t* data, size_t size);
static akf_fn akf_target;

static void akf_pick(void) {
    const char* t = getenv("AKF_TARGET");
    if (!t) { fprintf(stderr, "fuzz: set AKF_TARGET to one of:"); }
#define AKF_X(name) if (t && !strcmp(t, #name)) { akf_target = akf_##name; return; }
    AKF_TARGETS(AKF_X)
#undef AKF_X
#define AKF_X(name) fprintf(stderr, " %s", #name);
    AKF_TARGETS(AKF_X)
#undef AKF_X
    fprintf(stderr, "\n");
    exit(2);
}

int LLVMFuzzerInitialize(int* argc, char*** argv);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerInitialize(int* argc, char*** argv) { (void)argc; (void)argv; akf_pick(); return 0; }
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!akf_target) akf_pick();
    return akf_target(data, size);
}
