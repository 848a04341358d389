package dev.gw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.gw.model.ChatCompletion;
import dev.gw.model.ChatRequest;
import dev.gw.model.EmbeddingList;
import dev.gw.model.EmbeddingRequest;
import dev.gw.model.ImageGenerationRequest;
import dev.gw.model.ImageResult;
import dev.gw.model.ModelResponse;
import dev.gw.model.ResponsesRequest;
import dev.gw.model.VideoRequest;
import dev.gw.model.VideoTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import kotlinx.serialization.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The Java API (GwClient.blocking() and async()) used from Java, against gw-mock. */
class JavaApiTest extends GwTestBase {
    private static GwOptions options() {
        return GwOptions.builder()
                .baseUrl(MockGateway.INSTANCE.getUrl())
                .apiKey(MockGateway.API_KEY)
                .maxRetries(0)
                .build();
    }

    private static ChatRequest hello(String text) {
        return ChatRequest.builder("gpt-test").user(text).build();
    }

    private static void fault(String json) {
        MockGateway.INSTANCE.fault(json);
    }

    @Test
    void blockingChatAnswersWithTheModelClass() {
        try (GwClient gw = new GwClient(options())) {
            ChatCompletion answer = gw.blocking().chat(hello("Hello from Java"));
            assertEquals("Echo: Hello from Java", answer.getText());
        }
    }

    @Test
    void blockingStreamIteratesChunksThenGivesTheResult() {
        try (GwClient gw = new GwClient(options())) {
            StringBuilder text = new StringBuilder();
            int chunks = 0;
            try (GwStream<ChatCompletion> stream = gw.blocking().chatStream(hello("stream to java"))) {
                for (GwEvent.Chunk chunk : stream) {
                    chunks++;
                    String delta = chunk.getTextDelta();
                    if (delta != null) text.append(delta);
                }
                assertEquals("Echo: stream to java", text.toString());
                assertEquals("Echo: stream to java", stream.result().getText());
                assertEquals(200, stream.response().getStatus());
            }
            assertTrue(chunks > 2, "chunks: " + chunks);
        }
    }

    @Test
    void resultAloneDrainsTheStream() {
        try (GwClient gw = new GwClient(options());
                GwStream<ModelResponse> stream = gw.blocking().responsesStream(
                        ResponsesRequest.builder("gpt-test").input("responses from java").build())) {
            assertEquals("Echo: responses from java", stream.result().getOutputText());
        }
    }

    @Test
    void aStreamIsIterableOnce() {
        try (GwClient gw = new GwClient(options());
                GwStream<ChatCompletion> stream = gw.blocking().chatStream(hello("once"))) {
            stream.iterator();
            assertThrows(IllegalStateException.class, stream::iterator);
        }
    }

    @Test
    void closingAStreamEarlyDropsItAndResultSaysSo() {
        fault("{\"match\":\"/v1/chat\",\"action\":\"drip\",\"interval_ms\":300}");
        try (GwClient gw = new GwClient(options())) {
            GwStream<ChatCompletion> stream = gw.blocking().chatStream(hello("a long answer we stop reading"));
            GwEvent.Chunk first = stream.iterator().next();
            assertNotNull(first);
            assertEquals(1, GwDiagnostics.INSTANCE.getOpenStreams());
            stream.close();
            assertEquals(0, GwDiagnostics.INSTANCE.getOpenStreams(), "the native stream outlived close()");
            assertThrows(IllegalStateException.class, stream::result);
        }
    }

    @Test
    void closingFromAnotherThreadEndsABlockedPull() throws Exception {
        fault("{\"match\":\"/v1/chat\",\"action\":\"drip\",\"interval_ms\":3000}");
        try (GwClient gw = new GwClient(options())) {
            GwStream<ChatCompletion> stream = gw.blocking().chatStream(hello("slow words"));
            CompletableFuture.runAsync(() -> {
                sleep(300);
                stream.close();
            });
            long started = System.nanoTime();
            int seen = 0;
            for (GwEvent.Chunk ignored : stream) seen++;
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            System.out.println("JavaApiTest: close() from another thread ended the pull after " + tookMs + " ms");
            assertTrue(seen < 3, "read " + seen + " events of a stream closed early");
            assertTrue(tookMs < 2500, "the iteration ran on for " + tookMs + " ms");
            assertEquals(0, GwDiagnostics.INSTANCE.getOpenStreams());
        }
    }

    @Test
    void aStreamErrorIsThrownFromTheIterator() {
        fault("{\"match\":\"/v1/chat\",\"action\":\"stream_error\",\"after\":2}");
        try (GwClient gw = new GwClient(options());
                GwStream<ChatCompletion> stream = gw.blocking().chatStream(hello("an error event comes"))) {
            List<String> deltas = new ArrayList<>();
            GwException.Stream e = assertThrows(GwException.Stream.class, () -> {
                for (GwEvent.Chunk chunk : stream) deltas.add(chunk.getTextDelta());
            });
            assertEquals(2, deltas.size());
            assertThrows(GwException.Stream.class, stream::result, "result() repeats the failure");
            assertEquals(-7, e.getStatus());
        }
    }

    @Test
    void anHttpErrorIsThrownWhenTheStreamOpens() {
        GwOptions wrongKey = GwOptions.builder().baseUrl(MockGateway.INSTANCE.getUrl()).apiKey("sk-wrong-java").build();
        try (GwClient gw = new GwClient(wrongKey)) {
            GwException.Unauthorized e =
                    assertThrows(GwException.Unauthorized.class, () -> gw.blocking().chatStream(hello("no")));
            assertFalse(e.getMessage().contains("sk-wrong-java"), e.getMessage());
            assertThrows(GwException.Unauthorized.class, () -> gw.blocking().chat(hello("no")));
        }
    }

    @Test
    void asyncChatCompletesTheFuture() throws Exception {
        try (GwClient gw = new GwClient(options())) {
            CompletableFuture<ChatCompletion> future = gw.async().chat(hello("async java"));
            assertEquals("Echo: async java", future.get().getText());
        }
    }

    @Test
    void asyncFailureCompletesExceptionallyWithTheGwException() {
        GwOptions wrongKey = GwOptions.builder().baseUrl(MockGateway.INSTANCE.getUrl()).apiKey("sk-nope").build();
        try (GwClient gw = new GwClient(wrongKey)) {
            ExecutionException e = assertThrows(ExecutionException.class, () -> gw.async().chat(hello("x")).get());
            assertInstanceOf(GwException.Unauthorized.class, e.getCause());
        }
    }

    @Test
    void cancellingTheFutureCancelsTheNativeCall() throws Exception {
        fault("{\"match\":\"/v1/chat\",\"action\":\"delay\",\"ms\":8000}");
        try (GwClient gw = new GwClient(options())) {
            CompletableFuture<ChatCompletion> future = gw.async().chat(hello("cancel me"));
            awaitOpenCallHandles(1);
            long started = System.nanoTime();
            assertTrue(future.cancel(true));
            assertThrows(CancellationException.class, future::get);
            // The handle is freed only once gw returned: the native call ended, not just the future.
            awaitOpenCallHandles(0);
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            System.out.println("JavaApiTest: future.cancel(true) ended the native call in " + tookMs + " ms");
            assertTrue(tookMs < 5000, "took " + tookMs + " ms");
        }
    }

    @Test
    void interruptingABlockingCallCancelsIt() throws Exception {
        fault("{\"match\":\"/v1/chat\",\"action\":\"delay\",\"ms\":8000}");
        try (GwClient gw = new GwClient(options())) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread caller = new Thread(() -> {
                try {
                    gw.blocking().chat(hello("interrupt me"));
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            caller.start();
            awaitOpenCallHandles(1);
            caller.interrupt();
            caller.join(5000);
            assertFalse(caller.isAlive(), "the blocking call ignored the interrupt");
            assertInstanceOf(InterruptedException.class, thrown.get());
            awaitOpenCallHandles(0);
        }
    }

    @Test
    void asyncStreamDeliversChunksThenTheResult() throws Exception {
        try (GwClient gw = new GwClient(options())) {
            List<String> deltas = Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<ChatCompletion> future = gw.async().chatStream(hello("async stream"), chunk -> {
                if (chunk.getTextDelta() != null) deltas.add(chunk.getTextDelta());
            });
            assertEquals("Echo: async stream", future.get().getText());
            assertEquals("Echo: async stream", String.join("", deltas));
        }
    }

    @Test
    void otherOperationsThroughBuilders() throws Exception {
        try (GwClient gw = new GwClient(options())) {
            EmbeddingList vectors = gw.blocking().embeddings(
                    EmbeddingRequest.builder("embed-test").input("java", "kotlin").encodingFormat("base64").build());
            assertEquals(2, vectors.getData().size());
            assertTrue(vectors.getData().get(0).getVector().length > 0);

            ImageResult image = gw.async().imageGenerate(
                    ImageGenerationRequest.builder("image-test", "a lighthouse").size("1024x1024").build()).get();
            assertFalse(image.getData().isEmpty());

            VideoTask task = gw.blocking().videoCreate(VideoRequest.builder("video-test", "waves").duration(5).build());
            List<String> polled = new ArrayList<>();
            JsonObject done = gw.blocking().videoWait(VideoFamily.UNIFIED, task.getPollId(),
                    Duration.ofMillis(20), Duration.ofSeconds(30), CallOptions.NONE,
                    record -> polled.add(record.get("status").toString()));
            assertEquals("\"succeeded\"", done.get("status").toString());
            assertEquals("\"succeeded\"", polled.get(polled.size() - 1));

            JsonObject raw = gw.blocking().chat(Gw.json("{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"raw\"}]}"));
            assertEquals("chat.completion", raw.get("object").toString().replace("\"", ""));
        }
    }

    @Test
    void callOptionsFromTheBuilderReachTheCall() {
        List<ResponseMeta> seen = new ArrayList<>();
        CallOptions perCall = CallOptions.builder()
                .header("X-From-Java", "yes")
                .idempotencyKey("java-key-1")
                .totalTimeout(Duration.ofSeconds(20))
                .onResponse(seen::add)
                .build();
        try (GwClient gw = new GwClient(options())) {
            gw.blocking().chat(hello("with options"), perCall);
        }
        assertEquals(1, seen.size());
        assertEquals(200, seen.get(0).getStatus());
        JsonObject recorded = MockGateway.INSTANCE.requestsTo("/v1/chat/completions").get(0);
        assertEquals("yes", MockGatewayKt.header(recorded, "x-from-java"));
        assertEquals("java-key-1", MockGatewayKt.header(recorded, "idempotency-key"));
    }

    @Test
    void optionsBuilderNeverShowsTheKeyAndRefusesBadThreadCounts() {
        GwOptions o = GwOptions.builder().apiKey("sk-secret-java").maxThreads(8).build();
        assertFalse(o.toString().contains("sk-secret-java"), o.toString());
        assertEquals(8, o.getMaxThreads());
        assertNull(o.getBaseUrl());
        GwException.InvalidArgument e = assertThrows(GwException.InvalidArgument.class,
                () -> new GwClient(GwOptions.builder().baseUrl(MockGateway.INSTANCE.getUrl()).maxThreads(0).build()));
        assertTrue(e.getMessage().contains("maxThreads"), e.getMessage());
    }

    @Test
    void jsonHelperRefusesWhatIsNotAnObject() {
        assertThrows(GwException.InvalidArgument.class, () -> Gw.json("[1,2]"));
        assertThrows(GwException.InvalidArgument.class, () -> Gw.json("{broken"));
        assertEquals(1, Gw.json("{\"a\":1}").size());
    }

    private static void awaitOpenCallHandles(long n) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (GwDiagnostics.INSTANCE.getOpenCallHandles() != n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("open call handles stayed " + GwDiagnostics.INSTANCE.getOpenCallHandles() + ", expected " + n);
            }
            Thread.sleep(10);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
