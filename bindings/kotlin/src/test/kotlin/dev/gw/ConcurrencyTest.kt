package dev.gw

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlin.time.TimeSource

/** One client shared by many coroutines; cancellation, timeouts and close while calls run. */
class ConcurrencyTest : GwTestBase() {
    private fun chatOf(text: String) = json("""{"model":"gpt-test","messages":[{"role":"user","content":"$text"}]}""")

    @Test
    fun `many coroutines share one client and each gets its own answer`() = withClient { gw ->
        val answers = (1..64).map { i ->
            async(Dispatchers.Default) { i to gw.chat(chatOf("caller $i")) }
        }.awaitAll()
        for ((i, a) in answers) {
            assertEquals("Echo: caller $i", a.path("choices", 0, "message", "content")!!.jsonPrimitive.content)
        }
        assertEquals(64, MockGateway.requestsTo("/v1/chat/completions").size)
    }

    @Test
    fun `many streams at once on one client each get their own text`() = withClient { gw ->
        val texts = (1..16).map { i ->
            async(Dispatchers.Default) { i to gw.chatStream(chatOf("stream number $i")).textDeltas().toList().joinToString("") }
        }.awaitAll()
        for ((i, text) in texts) assertEquals("Echo: stream number $i", text)
    }

    @Test
    fun `withTimeout cancels a call blocked in gw promptly`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"delay","ms":5000}""")
        val started = TimeSource.Monotonic.markNow()
        assertThrows<TimeoutCancellationException> { withTimeout(300.milliseconds) { gw.chat(json(CHAT)) } }
        assertTrue(started.elapsedNow() < 1.seconds, "took ${started.elapsedNow()}")
    }

    @Test
    fun `cancelling one call leaves the others on the client alone`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"delay","ms":600,"times":2}""")
        val slow = async { gw.chat(chatOf("kept")) }
        val doomed = async { gw.chat(chatOf("dropped")) }
        delay(150)
        doomed.cancel()
        assertThrows<CancellationException> { doomed.await() }
        assertEquals("Echo: kept", slow.await().path("choices", 0, "message", "content")!!.jsonPrimitive.content)
    }

    @Test
    fun `cancelling more calls than IO threads still ends them all at once`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"delay","ms":3000,"times":100}""")
        val calls = (1..80).map { i -> launch { gw.chat(chatOf("n$i")) } }
        delay(300)
        val started = TimeSource.Monotonic.markNow()
        calls.forEach { it.cancel() }
        calls.forEach { it.join() }
        assertTrue(started.elapsedNow() < 1.5.seconds, "took ${started.elapsedNow()}")
        assertTrue(calls.all { it.isCancelled })
    }

    @Test
    fun `close while calls run lets them finish and refuses new ones`() = runBlocking {
        val before = GwDiagnostics.openClients
        val gw = GwClient(MockGateway.options())
        MockGateway.fault("""{"match":"/v1/chat","action":"delay","ms":500,"times":3}""")
        val running = (1..3).map { i -> async(Dispatchers.Default) { gw.chat(chatOf("inflight $i")) } }
        MockGateway.fault("""{"match":"/v1/chat","action":"drip","interval_ms":100}""")
        val stream = async(Dispatchers.Default) { gw.chatStream(chatOf("a stream across close")).result() }
        delay(150)
        gw.close()
        assertThrows<GwException.Closed> { gw.chat(json(CHAT)) }
        assertEquals(before + 1, GwDiagnostics.openClients, "freed while calls were still running")
        val answers = running.awaitAll()
        assertEquals(3, answers.size)
        assertEquals("chat.completion", stream.await().str("object"))
        assertEquals(before, GwDiagnostics.openClients, "not freed after the last call")
    }
}
