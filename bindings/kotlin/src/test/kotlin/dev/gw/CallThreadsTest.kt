package dev.gw

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.util.Collections
import java.util.concurrent.Executors
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration
import kotlin.time.Duration.Companion.seconds
import kotlin.time.TimeSource

/**
 * Where gw's blocking calls run: on the client's own bounded pool (or the app's executor),
 * never on Dispatchers.IO, so many slow calls in flight never starve the app's own IO work.
 */
class CallThreadsTest : GwTestBase() {
    private fun chatOf(text: String) = json("""{"model":"gpt-test","messages":[{"role":"user","content":"$text"}]}""")

    /** The options of a call that records the name of the thread it ran on. */
    private fun recordingThread(into: MutableCollection<String>) =
        CallOptions(onResponse = { into.add(Thread.currentThread().name.substringBefore(" @")) })

    @Test
    fun `calls and streams run on the client's own threads`() = withClient { gw ->
        val threads = Collections.synchronizedList(mutableListOf<String>())
        gw.chat(json(CHAT), recordingThread(threads))
        gw.chatStream(json(CHAT), recordingThread(threads)).result()
        assertEquals(2, threads.size)
        assertTrue(threads.all { it.startsWith("gw-call-") }, "ran on $threads")
    }

    @Test
    fun `maxThreads bounds the threads calls run on, the others wait their turn`() =
        withClient(MockGateway.options { copy(maxThreads = 3) }) { gw ->
            MockGateway.fault("""{"match":"/v1/chat","action":"delay","ms":100,"times":12}""")
            val threads = Collections.synchronizedSet(mutableSetOf<String>())
            val answers = (1..12).map { i ->
                async(Dispatchers.Default) { gw.chat(chatOf("bounded $i"), recordingThread(threads)) }
            }.awaitAll()
            assertEquals(12, answers.size)
            assertTrue(threads.size in 1..3, "12 calls ran on ${threads.size} threads: $threads")
        }

    @Test
    fun `an executor the app gives runs the calls`() {
        val made = AtomicInteger()
        val executor = Executors.newFixedThreadPool(2) { r -> Thread(r, "app-gw-${made.incrementAndGet()}") }
        try {
            withClient(MockGateway.options { copy(executor = executor) }) { gw ->
                val threads = Collections.synchronizedList(mutableListOf<String>())
                gw.chat(json(CHAT), recordingThread(threads))
                gw.chatStream(json(CHAT), recordingThread(threads)).result()
                assertTrue(threads.size == 2 && threads.all { it.startsWith("app-gw-") }, "ran on $threads")
            }
        } finally {
            executor.shutdown()
        }
    }

    @Test
    fun `maxThreads below one is refused naming it`() {
        val e = assertThrows<GwException.InvalidArgument> { GwClient(MockGateway.options { copy(maxThreads = 0) }) }
        assertTrue("maxThreads" in e.message!!, e.message)
    }

    @Test
    fun `300 slow calls in flight leave Dispatchers IO free for the app`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"delay","ms":8000,"times":300}""")
        val finished = AtomicInteger()
        val calls = (1..300).map { i ->
            launch(Dispatchers.Default) {
                gw.chat(chatOf("slow $i"))
                finished.incrementAndGet()
            }
        }
        try {
            awaitRequests(GwOptions.DEFAULT_MAX_THREADS, 5.seconds)
            // 100 tasks of the app's own on Dispatchers.IO: each notes how long it waited to start.
            val asked = TimeSource.Monotonic.markNow()
            val waits = (1..100).map {
                async(Dispatchers.IO) { asked.elapsedNow() }
            }.awaitAll()
            val worst = waits.max()
            println("CallThreadsTest: with 300 gw calls in flight, 100 Dispatchers.IO tasks started within $worst")
            // Correctness, not timing: the app's IO work ran while every gw call was still blocked.
            assertEquals(0, finished.get(), "the IO tasks waited for gw calls to finish")
            assertTrue(worst < 5.seconds, "an IO task waited $worst")
        } finally {
            calls.forEach { it.cancel() }
            calls.forEach { it.join() }
        }
    }

    @Test
    fun `cancelling 300 calls, running and waiting for a thread, ends them all at once`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"delay","ms":8000,"times":300}""")
        val calls = (1..300).map { i -> launch(Dispatchers.Default) { gw.chat(chatOf("doomed $i")) } }
        awaitRequests(GwOptions.DEFAULT_MAX_THREADS, 5.seconds)
        val started = TimeSource.Monotonic.markNow()
        // The waiting ones first (the last launched): a running call cancelled first would
        // hand its thread to a waiting call not yet cancelled, which would then send.
        calls.asReversed().forEach { it.cancel() }
        withTimeout(5.seconds) { calls.forEach { it.join() } }
        val took = started.elapsedNow()
        println("CallThreadsTest: cancelling 300 calls (64 running, 236 queued) took $took")
        assertTrue(calls.all { it.isCancelled }, "a call was not cancelled")
        assertTrue(took < 5.seconds, "took $took")
        // The waiting calls never sent (give or take one that got a thread while the loop
        // ran); the next test pins that down exactly.
        val sent = MockGateway.requestsTo("/v1/chat/completions").size
        println("CallThreadsTest: $sent of the 300 cancelled calls had reached the gateway")
        assertTrue(sent < 300, "every queued call was sent anyway")
    }

    @Test
    fun `a call cancelled while waiting for a thread never reaches the gateway`() =
        withClient(MockGateway.options { copy(maxThreads = 1) }) { gw ->
            MockGateway.fault("""{"match":"/v1/chat","action":"delay","ms":8000,"times":1}""")
            val running = launch(Dispatchers.Default) { gw.chat(chatOf("holds the only thread")) }
            awaitRequests(1, 5.seconds)
            val waiting = (1..5).map { i -> launch(Dispatchers.Default) { gw.chat(chatOf("queued $i")) } }
            delay(100)
            waiting.forEach { it.cancel() }
            withTimeout(5.seconds) { waiting.forEach { it.join() } }
            assertTrue(waiting.all { it.isCancelled })
            assertTrue(running.isActive, "the running call was disturbed")
            running.cancel()
            withTimeout(5.seconds) { running.join() }
            assertEquals(1, MockGateway.requestsTo("/v1/chat/completions").size)
    }

    /** Waits until the mock has received [n] chat requests (they are then blocked in it). */
    private suspend fun awaitRequests(n: Int, within: Duration) {
        withTimeout(within) {
            while (MockGateway.requestsTo("/v1/chat/completions").size < n) delay(20)
        }
        // The pool is full: let the rest of the calls reach its queue.
        withContext(Dispatchers.Default) { delay(100) }
    }
}
