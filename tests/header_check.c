/* The header alone, compiled as C99 and C++11 with -Werror (and with
 * AMDKIT_STATIC, and with the allocator hooks): declarations and the whole
 * implementation in one translation unit. */
#ifdef AKT_HOOKS
#include <stdlib.h>
#define AK_MALLOC(sz) malloc(sz)
#define AK_REALLOC(p, sz) realloc(p, sz)
#define AK_FREE(p) free(p)
#endif
#ifdef AKT_PARTIAL_HOOKS /* must be rejected with #error */
#include <stdlib.h>
#define AK_MALLOC(sz) malloc(sz)
#endif
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include "../amdkit.h" /* a second include is harmless */

int akt_header_check(void);
int akt_header_check(void) {
    ak_config c = ak_config_default();
    return ak_config_validate(&c, NULL, NULL) == AK_OK ? 0 : 1;
}
