/* The harness's bookkeeping: counts, per-test verdicts and the final line. */
#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;
static int current_failures;

void harness_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("    %s:%d: ", file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    current_failures++;
}

void harness_run(const char *name, void (*test)(void))
{
    current_failures = 0;
    test();
    if (current_failures == 0) {
        passed++;
        printf("ok   %s\n", name);
    } else {
        failed++;
        printf("FAIL %s\n", name);
    }
    fflush(stdout);
}

int harness_report(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}

int harness_contains(const char *haystack, const char *needle)
{
    return haystack != NULL && needle != NULL && strstr(haystack, needle) != NULL;
}

/* The text for a failure message, cut short so a huge answer does not flood the log. */
const char *harness_show(const char *text)
{
    static char buf[400];
    if (text == NULL) return "(NULL)";
    if (strlen(text) < sizeof buf) return text;
    memcpy(buf, text, sizeof buf - 4);
    strcpy(buf + sizeof buf - 4, "...");
    return buf;
}
