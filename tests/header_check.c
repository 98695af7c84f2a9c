/* The header alone, compiled as C99 and C++11 with -Werror (and with
 * AMDKIT_STATIC, and with the allocator hooks): declarations and the whole
 * implementation in one translation unit. */
#ifdef AKT_HOOKS /* (no system header before the implementation: see the note on _GNU_SOURCE) */
#include <stddef.h>
static void* akt_malloc(size_t n);
static void* akt_realloc(void* p, size_t n);
static void akt_free(void* p);
#define AK_MALLOC(sz) akt_malloc(sz)
#define AK_REALLOC(p, sz) akt_realloc(p, sz)
#define AK_FREE(p) akt_free(p)
#endif
#ifdef AKT_PARTIAL_HOOKS /* must be rejected with #error */
#include <stdlib.h>
#define AK_MALLOC(sz) malloc(sz)
#endif
#define AMDKIT_IMPLEMENTATION
#include "../amdkit.h"
#include "../amdkit.h" /* a second include is harmless */

#ifdef AKT_HOOKS
static size_t akt_live;
static void* akt_malloc(size_t n) { akt_live++; return malloc(n); }
static void* akt_realloc(void* p, size_t n) { if (!p) akt_live++; return realloc(p, n); }
static void akt_free(void* p) { if (p) akt_live--; free(p); }
size_t akt_hooks_live(void);
size_t akt_hooks_live(void) { return akt_live; }
#endif

int akt_header_check(void);
int akt_header_check(void) {
    ak_config c = ak_config_default();
    return ak_config_validate(&c, NULL, NULL) == AK_OK ? 0 : 1;
}
