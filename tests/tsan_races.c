/* tests/ti_races.c under ThreadSanitizer (`make check` step races-tsan):
 * exit 0 and no report when the context identity and the prelude id are
 * race-free; TSan exits 66 on a report. */
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include "ti_races.c"

int main(void) {
    int failed = 0;
    const char* why;
#define AKR_RUN(fn) if ((why = fn()) != NULL) { printf("FAIL %s: %s\n", #fn, why); failed++; } else printf("ok   %s\n", #fn);
    AKR_CHECKS(AKR_RUN)
    printf("%d passed, %d failed\n", 3 - failed, failed);
    return failed ? 1 : 0;
}
