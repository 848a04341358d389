/*
 * json_field.h: a deliberately tiny helper for the examples, so they need no JSON library.
 *
 * json_field(json, "task_id", buf, sizeof buf) copies the value of the first "task_id" key in
 * the text: a string without its quotes (escapes left as they are), an object or array as its
 * JSON text, anything else (number, true, null) as written. Enough for the flat answers the
 * examples read; a real program should use a JSON parser.
 */
#ifndef GW_EXAMPLES_JSON_FIELD_H
#define GW_EXAMPLES_JSON_FIELD_H

#include <stddef.h>
#include <string.h>

/* Length of the value starting at v (a string includes its quotes). */
static inline size_t json_value_len(const char *v)
{
    const char *p = v;
    int depth = 0, in_string = 0;
    for (; *p; p++) {
        if (in_string) {
            if (*p == '\\' && p[1]) p++;
            else if (*p == '"') {
                in_string = 0;
                if (depth == 0) return (size_t)(p - v) + 1;
            }
        } else if (*p == '"') {
            in_string = 1;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0) break;          /* end of the enclosing object */
            if (--depth == 0) return (size_t)(p - v) + 1;
        } else if (depth == 0 && (*p == ',' || *p == ' ' || *p == '\n')) {
            break;
        }
    }
    return (size_t)(p - v);
}

/* Returns 1 and fills buf (NUL-terminated, cut to size - 1 bytes) when the key is found. */
static inline int json_field(const char *json, const char *key, char *buf, size_t size)
{
    size_t key_len = strlen(key);
    for (const char *p = json; (p = strstr(p, key)) != NULL; p += key_len) {
        if (p == json || p[-1] != '"' || p[key_len] != '"') continue;
        const char *v = p + key_len + 1;
        while (*v == ' ') v++;
        if (*v != ':') continue;            /* the word appeared as a value, not a key */
        v++;
        while (*v == ' ') v++;
        size_t len = json_value_len(v);
        if (*v == '"' && len >= 2) {        /* drop the quotes of a string */
            v++;
            len -= 2;
        }
        if (len >= size) len = size - 1;
        memcpy(buf, v, len);
        buf[len] = '\0';
        return 1;
    }
    return 0;
}

#endif /* GW_EXAMPLES_JSON_FIELD_H */
