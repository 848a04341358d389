/* Big chat bodies the bench programs send (gwbench bigbody, gwinstr): a data-URI image chat and
 * a long text chat, built the same way every run so figures compare. */
#include "bodies.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gwbench.h"

/* {"model":..,"messages":[{"role":"user","content":[{text},{image_url: data URI}]}]}: the
 * base64 of pseudo-random bytes (a compressed photo), sized so the body is `bytes` long. */
char *image_chat(size_t bytes) {
    static const char head[] =
        "{\"model\":\"vision-model\",\"messages\":[{\"role\":\"user\",\"content\":["
        "{\"type\":\"text\",\"text\":\"What is in this photo?\"},"
        "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/jpeg;base64,";
    static const char tail[] = "\",\"detail\":\"high\"}}]}],\"max_tokens\":300}";
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t fixed = sizeof head - 1 + sizeof tail - 1;
    if (bytes < fixed + 4) fail("body too small");
    size_t data = (bytes - fixed) / 4 * 4;
    char *p = malloc(fixed + data + 1);
    if (!p) fail("out of memory");
    memcpy(p, head, sizeof head - 1);
    char *d = p + sizeof head - 1;
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < data; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        d[i] = b64[x & 63];
    }
    memcpy(d + data, tail, sizeof tail);
    return p;
}

/* A long context: prose with a line break (\n) every line and now and then a quoted phrase
 * (\"), as pasted documents have. */
char *text_chat(size_t bytes, int cjk) {
    static const char head[] =
        "{\"model\":\"chat-model\",\"messages\":[{\"role\":\"system\",\"content\":"
        "\"Answer from the document.\"},{\"role\":\"user\",\"content\":\"";
    static const char tail[] = "\"}],\"temperature\":0.2,\"max_tokens\":500}";
    static const char *latin[] = {"the", "gateway", "answers", "every", "request", "with",
                                  "a", "model", "that", "reads", "long", "documents",
                                  "carefully,", "and", "then", "summarises", "them."};
    /* The same prose in Chinese: three bytes a character in UTF-8. */
    static const char *chinese[] = {"网关", "回答", "每一个", "请求", "用", "一个", "模型",
                                    "它", "仔细地", "阅读", "长", "文档", "然后", "总结",
                                    "它们。", "并且", "引用"};
    const char *const *words = cjk ? chinese : latin;
    size_t word_count = cjk ? sizeof chinese / sizeof *chinese : sizeof latin / sizeof *latin;
    char *p = malloc(bytes + 64);
    if (!p) fail("out of memory");
    memcpy(p, head, sizeof head - 1);
    size_t at = sizeof head - 1, n = 0;
    size_t limit = bytes - (sizeof tail - 1) - 16;
    while (at < limit) {
        const char *w = words[n % word_count];
        size_t wl = strlen(w);
        memcpy(p + at, w, wl);
        at += wl;
        n++;
        if (n % 97 == 0) {
            memcpy(p + at, " \\\"quoted\\\"", 11);
            at += 11;
        }
        if (n % 13 == 0) {
            memcpy(p + at, "\\n", 2);
            at += 2;
        } else {
            p[at++] = ' ';
        }
    }
    memcpy(p + at, tail, sizeof tail);
    return p;
}
