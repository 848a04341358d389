/* test-dist: a stale libgw.so (another version, as an old `make install` leaves in
 * /usr/local/lib), put on LD_LIBRARY_PATH: the gw-kotlin jar must load its own copy. Loading
 * this one writes the file GW_STALE_MARK names. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void mark_loaded(void)
{
    const char *path = getenv("GW_STALE_MARK");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fputs("the stale libgw.so was loaded\n", f);
        fclose(f);
    }
}

const char *gw_version(void) { return "0.0.1-stale"; }
