package dev.gw;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import kotlinx.serialization.json.JsonElement;
import kotlinx.serialization.json.JsonElementKt;
import kotlinx.serialization.json.JsonObject;
import kotlinx.serialization.json.JsonPrimitive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The conformance corpus (conformance/) run through the Java API: GwOptions.builder(), the
 * gw.blocking() verbs, GwStream iteration then result(), and gw.async() futures with
 * cancel(true) for the cancel cases. As ConformanceTest.kt does for Kotlin, it runs when
 * GW_CONFORMANCE_DIR is set and skips otherwise; it writes $GW_CONFORMANCE_OUT/java.tsv and
 * prints {@code conformance java: P passed, F failed, S skipped}. A case the Java API cannot
 * express fails unless conformance/skip.json lists it under "java". The corpus reading and
 * the checks are ConformanceCorpus.kt's (the same for both JVM runners); the JSON of cases
 * and answers is kotlinx.serialization's JsonElement, which the API takes and gives anyway.
 */
class ConformanceJavaTest {
    private static final String LANGUAGE = "java";

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES) // the whole corpus, not one call
    void corpus() {
        File dir = ConformanceCorpus.dirFromEnv();
        assumeTrue(dir != null, "GW_CONFORMANCE_DIR is not set: the corpus runs from scripts/conformance.sh (make conformance)");
        String base = ConformanceCorpus.mockUrl();
        ConformanceCorpus corpus = new ConformanceCorpus(dir, LANGUAGE);
        MockControl mock = new MockControl(base);
        corpus.runAll(c -> runCase(mock, base, c));
        List<String> failures = corpus.finish(ConformanceCorpus.outDir(dir));
        assertTrue(failures.isEmpty(), failures.size() + " conformance cases failed (listed above)");
    }

    private static NotExpressible notExpressible(String what) {
        return new NotExpressible(LANGUAGE, what);
    }

    private static String text(JsonElement v) {
        return v instanceof JsonPrimitive p && p.isString() ? p.getContent() : null;
    }

    private static Long number(JsonElement v) {
        if (v instanceof JsonPrimitive p && !p.isString()) {
            try {
                return new BigDecimal(p.getContent()).longValueExact();
            } catch (NumberFormatException | ArithmeticException e) {
                return null;
            }
        }
        return null;
    }

    private static Boolean flag(JsonElement v) {
        if (v instanceof JsonPrimitive p && !p.isString()) {
            if (p.getContent().equals("true")) return Boolean.TRUE;
            if (p.getContent().equals("false")) return Boolean.FALSE;
        }
        return null;
    }

    /**
     * The case's options (snake_case JSON) through GwOptions.builder(), as a Java user would
     * write them; keys the builder has no setter for go in extra(), which the binding
     * documents for gw options it does not name.
     */
    static GwOptions clientOptions(JsonObject all) {
        GwOptions.Builder b = GwOptions.builder();
        Map<String, JsonElement> extra = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> e : new TreeMap<>(all).entrySet()) {
            String key = e.getKey();
            JsonElement v = e.getValue();
            Supplier<String> str = () -> {
                String s = text(v);
                if (s == null) throw notExpressible("option " + key + " " + v + ": the builder takes a String");
                return s;
            };
            Supplier<Long> num = () -> {
                Long n = number(v);
                if (n == null) throw notExpressible("option " + key + " " + v + ": the builder takes a number");
                return n;
            };
            Supplier<Duration> ms = () -> Duration.ofMillis(num.get());
            Supplier<Boolean> bool = () -> {
                Boolean f = flag(v);
                if (f == null) throw notExpressible("option " + key + " " + v + ": the builder takes a Boolean");
                return f;
            };
            switch (key) {
                case "base_url" -> b.baseUrl(str.get());
                case "api_key" -> b.apiKey(str.get());
                case "proxy" -> b.proxy(str.get());
                case "user_agent" -> b.userAgent(str.get());
                case "headers" -> {
                    if (!(v instanceof JsonObject headers)) {
                        throw notExpressible("option headers " + v + ": the builder takes a Map<String, String>");
                    }
                    for (Map.Entry<String, JsonElement> h : headers.entrySet()) {
                        String value = text(h.getValue());
                        if (value == null) throw notExpressible("header " + h.getKey() + " " + h.getValue() + ": not a String");
                        b.header(h.getKey(), value);
                    }
                }
                case "connect_timeout_ms" -> b.connectTimeout(ms.get());
                case "read_timeout_ms" -> b.readTimeout(ms.get());
                case "total_timeout_ms" -> b.totalTimeout(ms.get());
                case "retry_base_delay_ms" -> b.retryBaseDelay(ms.get());
                case "retry_max_delay_ms" -> b.retryMaxDelay(ms.get());
                case "retry_after_cap_ms" -> b.retryAfterCap(ms.get());
                case "max_retries" -> b.maxRetries(Math.toIntExact(num.get()));
                case "validate" -> b.validate(bool.get());
                case "allow_insecure_http" -> b.allowInsecureHttp(bool.get());
                case "max_response_bytes" -> b.maxResponseBytes(num.get());
                case "max_line_bytes" -> b.maxLineBytes(num.get());
                default -> extra.put(key, v);
            }
        }
        return b.extra(new JsonObject(extra)).build();
    }

    private static VideoFamily family(JsonObject args) {
        String f = text(args.get("family"));
        if (f == null) throw notExpressible("video family " + args.get("family"));
        return switch (f) {
            case "unified" -> VideoFamily.UNIFIED;
            case "character" -> VideoFamily.CHARACTER;
            case "vendor_k" -> VideoFamily.VENDOR_K;
            case "vendor_r" -> VideoFamily.VENDOR_R;
            default -> throw notExpressible("video family " + f);
        };
    }

    /** What one call through the API gave: the answer and its metadata, or the failure. */
    private record Outcome(JsonElement answer, ResponseMeta meta, GwException failure) {}

    private static void fromError(ConformanceSeen seen, GwException e) {
        JsonObject error = e.getError();
        String param = error == null ? null : text(error.get("param"));
        seen.error(e.getStatus(), e.getType(), e.getCode(), param, e.getErrorMessage());
        seen.setOut(error);
    }

    /** One verb with its arguments read from the case, callable through blocking() or async(). */
    private static final class Verb {
        final String name;
        final JsonObject body; // null: no body (request without one, videoStatus, videoWait)
        final JsonObject args;

        Verb(String name, JsonElement request, String requestText, JsonObject args) {
            if (requestText != null) {
                throw notExpressible("request_text: the Java API takes the request as a JsonObject, not as text");
            }
            if (request != null && !(request instanceof JsonObject)) {
                throw notExpressible("request " + request + ": the Java API takes the request as a JsonObject");
            }
            this.name = name;
            this.body = (JsonObject) request;
            this.args = args;
        }

        String arg(String key) {
            String s = text(args.get(key));
            return s == null ? "" : s;
        }

        Duration waitOption(String key, Duration byDefault) {
            JsonElement wait = args.get("wait");
            if (wait == null) return byDefault;
            if (!(wait instanceof JsonObject fields)) {
                throw notExpressible("wait options " + wait + ": videoWait takes interval and timeout as java.time.Durations");
            }
            for (String k : fields.keySet()) {
                if (!k.equals("interval_ms") && !k.equals("timeout_ms")) {
                    throw notExpressible("wait option " + k + ": videoWait has no such parameter");
                }
            }
            JsonElement v = fields.get(key);
            if (v == null) return byDefault;
            Long n = number(v);
            if (n == null) throw notExpressible("wait option " + key + " " + v + ": videoWait takes a Duration");
            return Duration.ofMillis(n);
        }

        Duration interval() {
            return waitOption("interval_ms", Duration.ofSeconds(2)); // the API's defaults
        }

        Duration timeout() {
            return waitOption("timeout_ms", Duration.ofMinutes(10));
        }

        /** The call through gw.blocking(); stream chunks go to [onChunk]. */
        Outcome blocking(GwClient gw, Consumer<GwEvent.Chunk> onChunk) {
            AtomicReference<ResponseMeta> meta = new AtomicReference<>();
            CallOptions options = CallOptions.builder().onResponse(meta::set).build();
            GwBlocking api = gw.blocking();
            try {
                JsonElement answer = switch (name) {
                    case "chat" -> api.chat(body(), options);
                    case "responses" -> api.responses(body(), options);
                    case "embeddings" -> api.embeddings(body(), options);
                    case "imageGenerate" -> api.imageGenerate(body(), options);
                    case "imageEdit" -> api.imageEdit(body(), options);
                    case "videoCreate" -> api.videoCreate(body(), options);
                    case "videoGenerate" -> api.videoGenerate(body(), options);
                    case "videoCharacter" -> api.videoCharacter(body(), options);
                    case "videoRemix" -> api.videoRemix(arg("id"), body(), options);
                    case "generateContent" -> api.generateContent(arg("model"), body(), options);
                    case "videoStatus" -> api.videoStatus(family(args), arg("id"), options);
                    case "videoWait" -> api.videoWait(family(args), arg("id"), interval(), timeout(), options, null);
                    case "request" -> api.request(arg("method"), arg("path"), body, options);
                    case "chatStream" -> {
                        try (GwStream<JsonObject> stream = api.chatStream(body(), options)) {
                            yield drain(stream, onChunk, meta);
                        }
                    }
                    case "responsesStream" -> {
                        try (GwStream<JsonObject> stream = api.responsesStream(body(), options)) {
                            yield drain(stream, onChunk, meta);
                        }
                    }
                    default -> throw new IllegalStateException("the Java runner knows no verb " + name);
                };
                return new Outcome(answer, meta.get(), null);
            } catch (GwException e) {
                return new Outcome(null, e.getResponse(), e);
            }
        }

        /** The chunks, then result() (which throws the stream's failure) and response(). */
        private static JsonObject drain(GwStream<JsonObject> stream, Consumer<GwEvent.Chunk> onChunk, AtomicReference<ResponseMeta> meta) {
            try {
                for (GwEvent.Chunk chunk : stream) onChunk.accept(chunk);
            } catch (GwException e) {
                // result() below throws the same failure.
            }
            JsonObject result = stream.result();
            meta.set(stream.response());
            return result;
        }

        /** The call through gw.async(), for the cancel cases; chunks go to [onChunk] on a gw thread. */
        CompletableFuture<? extends JsonElement> async(GwClient gw, Consumer<GwEvent.Chunk> onChunk) {
            GwAsync api = gw.async();
            return switch (name) {
                case "chat" -> api.chat(body());
                case "responses" -> api.responses(body());
                case "embeddings" -> api.embeddings(body());
                case "imageGenerate" -> api.imageGenerate(body());
                case "imageEdit" -> api.imageEdit(body());
                case "videoCreate" -> api.videoCreate(body());
                case "videoGenerate" -> api.videoGenerate(body());
                case "videoCharacter" -> api.videoCharacter(body());
                case "videoRemix" -> api.videoRemix(arg("id"), body());
                case "generateContent" -> api.generateContent(arg("model"), body());
                case "videoStatus" -> api.videoStatus(family(args), arg("id"));
                case "videoWait" -> api.videoWait(family(args), arg("id"), interval(), timeout());
                case "request" -> api.request(arg("method"), arg("path"), body);
                case "chatStream" -> api.chatStream(body(), onChunk);
                case "responsesStream" -> api.responsesStream(body(), onChunk);
                default -> throw new IllegalStateException("the Java runner knows no verb " + name);
            };
        }

        private JsonObject body() {
            if (body == null) throw notExpressible("no request: " + name + " takes a JsonObject");
            return body;
        }
    }

    private static ConformanceSeen runCase(MockControl mock, String base, ConformanceCase c) {
        mock.reset();
        GwOptions options = clientOptions(ConformanceCorpus.mergedOptions(c, base));
        ConformanceSeen seen = new ConformanceSeen();
        GwClient gw;
        try {
            gw = new GwClient(options);
        } catch (GwException e) {
            fromError(seen, e);
            mock.record(seen, 0);
            return seen;
        }
        int setupRequests = 0;
        try (gw) {
            JsonObject args = c.getArgs();
            if (c.getSetupOperation() != null) {
                Outcome made = new Verb(c.getSetupOperation(), c.getSetupRequest(), null, new JsonObject(Map.of()))
                        .blocking(gw, chunk -> {});
                if (made.failure() != null) {
                    throw new IllegalStateException("setup " + c.getSetupOperation() + " failed: " + made.failure().getMessage(), made.failure());
                }
                String id = text(ConformanceCorpus.valueAt(made.answer(), c.getSetupIdPath()));
                if (id == null) {
                    throw new IllegalStateException("setup answer has no string at " + c.getSetupIdPath() + ": " + made.answer());
                }
                Map<String, JsonElement> withId = new LinkedHashMap<>(args);
                withId.put("id", JsonElementKt.JsonPrimitive(id));
                args = new JsonObject(withId);
                setupRequests = mock.requests().size();
            }
            c.getFaults().forEach(mock::fault);
            Verb verb = new Verb(c.getOperation(), c.getRequest(), c.getRequestText(), args);
            Consumer<GwEvent.Chunk> onChunk = chunk -> {
                synchronized (seen) {
                    seen.event(chunk.getEvent(), chunk.getTextDelta(), chunk.getChoiceIndex());
                }
            };
            Outcome outcome = c.getCancelAfterMs() == null
                    ? verb.blocking(gw, onChunk)
                    : cancelled(verb, gw, onChunk, c.getCancelAfterMs(), c.getCancelBoundMs(), seen);
            if (outcome != null) {
                if (outcome.failure() != null) fromError(seen, outcome.failure());
                else seen.setOut(outcome.answer());
                ResponseMeta meta = outcome.meta();
                if (meta != null) seen.meta(meta.getAttempts(), meta.getRequestId(), meta.toString());
            }
        }
        mock.record(seen, setupRequests);
        return seen;
    }

    /**
     * The call through gw.async(), cancelled with future.cancel(true) after [afterMs]. The
     * future completes at the cancel; the native call's return is seen when the client's
     * call handles (GwDiagnostics) are back to their count before the call: the binding frees
     * a call's handle only once gw returned. A cancelled future counts as GW_CANCELLED (-5).
     * Returns the outcome, or null when the call was cancelled (then [seen] holds it).
     */
    private static Outcome cancelled(Verb verb, GwClient gw, Consumer<GwEvent.Chunk> onChunk, long afterMs, long boundMs, ConformanceSeen seen) {
        long handlesBefore = GwDiagnostics.INSTANCE.getOpenCallHandles();
        AtomicLong completedAt = new AtomicLong();
        CompletableFuture<? extends JsonElement> future = verb.async(gw, onChunk);
        future.whenComplete((answer, failure) -> completedAt.compareAndSet(0, System.nanoTime()));
        sleep(afterMs);
        long cancelledAt = System.nanoTime();
        boolean cancelled = future.cancel(true);
        long deadline = cancelledAt + TimeUnit.MILLISECONDS.toNanos(boundMs + 5000);
        while (GwDiagnostics.INSTANCE.getOpenCallHandles() > handlesBefore && System.nanoTime() < deadline) {
            sleep(1);
        }
        long returnedAt = cancelled ? System.nanoTime() : completedAt.get();
        seen.setCancelToReturn(Duration.ofNanos(returnedAt - cancelledAt));
        try {
            return new Outcome(future.get(), null, null);
        } catch (CancellationException e) {
            seen.error(-5, null, null, null, "the CompletableFuture was cancelled");
            return null;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GwException g) return new Outcome(null, g.getResponse(), g);
            throw new IllegalStateException("the future failed with " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
