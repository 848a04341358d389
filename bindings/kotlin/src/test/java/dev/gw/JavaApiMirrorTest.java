package dev.gw;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * blocking() and async() mirror the Kotlin API verb for verb: every public operation of the
 * Kotlin files (extension functions on GwClient) has a method of the same name in both.
 */
class JavaApiMirrorTest {
    private static final List<Class<?>> KOTLIN_APIS =
            Arrays.asList(TextApiKt.class, ImageApiKt.class, VideoApiKt.class, VendorApiKt.class);

    /** Kotlin-only on purpose: a Flow of polled records; Java has videoWait's progress callback. */
    private static final Set<String> KOTLIN_ONLY = Set.of("videoWaitFlow");

    private static Set<String> names(Class<?> type, boolean onlyOnClient) {
        Set<String> out = new TreeSet<>();
        for (Method m : type.getDeclaredMethods()) {
            if (!Modifier.isPublic(m.getModifiers()) || m.isSynthetic() || m.getName().contains("$")) continue;
            if (onlyOnClient && (m.getParameterCount() == 0 || m.getParameterTypes()[0] != GwClient.class)) continue;
            // A Kotlin function taking a kotlin.time.Duration has a mangled JVM name ("videoWait-Nxwt...").
            out.add(m.getName().replaceAll("-.*", ""));
        }
        return out;
    }

    @Test
    void everyKotlinOperationHasABlockingAndAnAsyncMirror() {
        Set<String> kotlin = new TreeSet<>();
        for (Class<?> api : KOTLIN_APIS) kotlin.addAll(names(api, true));
        kotlin.removeAll(KOTLIN_ONLY);
        assertTrue(kotlin.size() >= 25, "found only " + kotlin);
        Set<String> blocking = names(GwBlocking.class, false);
        Set<String> async = names(GwAsync.class, false);
        assertTrue(blocking.containsAll(kotlin), "missing in blocking(): " + missing(kotlin, blocking));
        assertTrue(async.containsAll(kotlin), "missing in async(): " + missing(kotlin, async));
    }

    @Test
    void asyncMethodsReturnFuturesAndBlockingStreamsAreGwStreams() {
        for (Method m : GwAsync.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic()) {
                assertEquals(CompletableFuture.class, m.getReturnType(), m.toString());
            }
        }
        for (Method m : GwBlocking.class.getDeclaredMethods()) {
            if (m.getName().endsWith("Stream") && Modifier.isPublic(m.getModifiers())) {
                assertEquals(GwStream.class, m.getReturnType(), m.toString());
            }
        }
    }

    private static Set<String> missing(Set<String> wanted, Set<String> have) {
        Set<String> out = new TreeSet<>(wanted);
        out.removeAll(have);
        return out;
    }
}
