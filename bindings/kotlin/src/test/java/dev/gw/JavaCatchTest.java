package dev.gw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.fail;

import dev.gw.model.ChatRequest;
import org.junit.jupiter.api.Test;

/**
 * Java code catches GwException around the blocking verbs, as GwBlocking's documentation
 * promises ("errors are the same GwExceptions (unchecked)"): javac refuses a catch of a
 * checked exception that the body never declares, so this file compiling is half the test.
 */
class JavaCatchTest extends GwTestBase {
    @Test
    void aBlockingFailureIsCaughtAsGwException() {
        GwOptions wrongKey = GwOptions.builder()
                .baseUrl(MockGateway.INSTANCE.getUrl()).apiKey("sk-wrong-catch").maxRetries(0).build();
        try (GwClient gw = new GwClient(wrongKey)) {
            try {
                gw.blocking().chat(ChatRequest.builder("gpt-test").user("no").build());
                fail("a wrong key must fail");
            } catch (GwException.Unauthorized e) {
                assertEquals(401, e.getStatus());
                assertFalse(e.getMessage().contains("sk-wrong-catch"), e.getMessage());
            }
        }
    }

    @Test
    void gwExceptionIsUnchecked() {
        try {
            Gw.json("[1,2]");
            fail("not an object");
        } catch (GwException e) {
            assertInstanceOf(RuntimeException.class, e);
            assertEquals(-1, e.getStatus());
        }
    }

    @Test
    void androidInitIsAStaticThatThrowsGwExceptionOffAndroid() {
        // GwAndroid.init(context) from Java, as an Application.onCreate would call it.
        try {
            GwAndroid.init(new Object());
            fail("this JVM is not Android");
        } catch (GwException.InvalidArgument e) {
            assertEquals("not_android", e.getCode());
        }
    }
}
