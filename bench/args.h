/* `key=value` arguments of the bench programs, e.g. `gwbench latency port=4000 n=20000`. */
#ifndef BENCH_ARGS_H
#define BENCH_ARGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The value of key=... among argv[2..], or `fallback`; a value that is not a number ends
 * the program (a typo must not measure something else). */
static inline long long arg_num(int argc, char **argv, const char *key, long long fallback) {
    size_t klen = strlen(key);
    for (int i = 2; i < argc; i++) {
        if (strncmp(argv[i], key, klen) == 0 && argv[i][klen] == '=') {
            char *end;
            long long v = strtoll(argv[i] + klen + 1, &end, 10);
            if (*end != '\0' || end == argv[i] + klen + 1) {
                fprintf(stderr, "%s: %s is not a number\n", argv[0], argv[i]);
                exit(2);
            }
            return v;
        }
    }
    return fallback;
}

/* The string value of key=..., or `fallback`. */
static inline const char *arg_str(int argc, char **argv, const char *key, const char *fallback) {
    size_t klen = strlen(key);
    for (int i = 2; i < argc; i++) {
        if (strncmp(argv[i], key, klen) == 0 && argv[i][klen] == '=') return argv[i] + klen + 1;
    }
    return fallback;
}

/* Ends the program when an argument is not key=value with a key in `known` (a
 * comma-separated list): a misspelt key must not silently measure the default. */
static inline void args_only(int argc, char **argv, const char *known) {
    for (int i = 2; i < argc; i++) {
        const char *eq = strchr(argv[i], '=');
        size_t klen = eq ? (size_t)(eq - argv[i]) : 0;
        const char *k = known;
        int found = 0;
        while (klen && *k) {
            size_t len = strcspn(k, ",");
            if (len == klen && strncmp(k, argv[i], klen) == 0) found = 1;
            k += len + (k[len] == ',');
        }
        if (!found) {
            fprintf(stderr, "%s %s: unknown argument %s (known: %s)\n", argv[0], argv[1],
                    argv[i], known);
            exit(2);
        }
    }
}

#endif
