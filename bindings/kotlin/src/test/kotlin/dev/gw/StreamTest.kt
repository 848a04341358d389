package dev.gw

import dev.gw.model.ChatCompletion
import dev.gw.model.ChatCompletionChunk
import dev.gw.model.ChatMessage
import dev.gw.model.ChatRequest
import dev.gw.model.ModelResponse
import dev.gw.model.ResponsesRequest
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.cancel
import kotlinx.coroutines.flow.catch
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.flow.take
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.launch
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.TimeSource

/** Pull streams as Flows: whole, typed, cut short, cancelled, timed out, failing. */
class StreamTest : GwTestBase() {
    private val long = """{"model":"gpt-test","messages":[{"role":"user","content":"one two three four five six seven eight"}]}"""

    @Test
    fun `a chat stream gives its chunks then the assembled completion`() = withClient { gw ->
        val events = gw.chatStream(json(long)).toList()
        val chunks = events.filterIsInstance<GwEvent.Chunk>()
        val done = events.last() as GwEvent.Done
        assertTrue(chunks.size >= 4, "chunks: ${chunks.size}")
        assertEquals(chunks.indices.map { it.toLong() }, chunks.map { it.index })
        assertTrue(chunks.all { it.event == "message" && it.choiceIndex == 0 })
        val text = chunks.mapNotNull { it.textDelta }.joinToString("")
        assertEquals("Echo: one two three four five six seven eight", text)
        assertEquals(text, done.decode<ChatCompletion>().text)
        assertEquals("chat.completion.chunk", chunks[1].decode<ChatCompletionChunk>().objectType)
        assertEquals(200, done.response!!.status)
        assertEquals(true, MockGateway.requestsTo("/v1/chat/completions").single().path("json", "stream")?.toString()?.toBoolean())
    }

    @Test
    fun `a typed chat stream and the textDeltas and result helpers`() = withClient { gw ->
        val request = ChatRequest("gpt-test", listOf(ChatMessage.user("alpha beta")))
        val text = gw.chatStream(request).textDeltas().toList().joinToString("")
        assertEquals("Echo: alpha beta", text)
        val result = gw.chatStream(request).result()
        assertEquals("Echo: alpha beta", result.decodeAs<ChatCompletion>().text)
    }

    @Test
    fun `two choices per chunk are told apart by choiceIndex`() = withClient { gw ->
        MockGateway.fault("""{"action":"stream_shape","shape":"n2"}""")
        val events = gw.chatStream(json("""{"model":"gpt-test","n":2,"messages":[{"role":"user","content":"red green"}]}""")).toList()
        val chunks = events.filterIsInstance<GwEvent.Chunk>()
        fun textOf(choice: Int) = chunks.filter { it.choiceIndex == choice }.mapNotNull { it.textDelta }.joinToString("")
        assertEquals("Echo: red green", textOf(0))
        assertEquals("ECHO: RED GREEN", textOf(1)) // the mock answers choice 1 in capitals
        val completion = (events.last() as GwEvent.Done).decode<ChatCompletion>()
        assertEquals(listOf("Echo: red green", "ECHO: RED GREEN"), completion.choices.map { it.message!!.text })
    }

    @Test
    fun `fields the model classes do not name stay in extra`() = withClient { gw ->
        MockGateway.fault("""{"action":"stream_shape","shape":"extra_fields"}""")
        val chunks = gw.chatStream(json(long)).toList().filterIsInstance<GwEvent.Chunk>()
        val typed = chunks.map { it.decode<ChatCompletionChunk>() }
        assertTrue(typed.any { it.extra.containsKey("system_fingerprint") }, typed.first().toString())
        assertTrue(typed.flatMap { it.choices }.any { it.extra.isNotEmpty() || it.delta.extra.isNotEmpty() })
    }

    @Test
    fun `a Responses stream gives named events then the response`() = withClient { gw ->
        val events = gw.responsesStream(json("""{"model":"resp-test","input":"stream this please"}""")).toList()
        val chunks = events.filterIsInstance<GwEvent.Chunk>()
        assertTrue(chunks.any { it.event == "response.output_text.delta" && it.textDelta != null })
        assertEquals("response.completed", chunks.last().event)
        val done = events.last() as GwEvent.Done
        assertEquals("completed", done.result.str("status"))
        val typed = gw.responsesStream(ResponsesRequest("resp-test", "stream this please")).result().decodeAs<ModelResponse>()
        assertEquals(chunks.mapNotNull { it.textDelta }.joinToString(""), typed.outputText)
    }

    @Test
    fun `take(n) stops early and frees the stream`() = withClient { gw ->
        val streams = GwDiagnostics.openStreams
        val handles = GwDiagnostics.openCallHandles
        val first = gw.chatStream(json(long)).take(2).toList()
        assertEquals(2, first.size)
        // Freed before collect returned, not later.
        assertEquals(streams, GwDiagnostics.openStreams)
        assertEquals(handles, GwDiagnostics.openCallHandles)
    }

    @Test
    fun `cancelling the collector mid-stream returns promptly`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"drip","interval_ms":400}""")
        var seen = 0
        val started = TimeSource.Monotonic.markNow()
        val job = launch {
            gw.chatStream(json(long)).collect {
                seen++
                if (seen == 1) this@launch.cancel()
            }
        }
        job.join()
        val took = started.elapsedNow()
        assertEquals(1, seen)
        assertTrue(job.isCancelled)
        // The first event comes after one 400 ms drip; the rest would take seconds.
        assertTrue(took < 1500.milliseconds, "took $took")
    }

    @Test
    fun `withTimeout cancels a stream blocked in gw`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"drip","interval_ms":2000}""")
        val started = TimeSource.Monotonic.markNow()
        assertThrows<TimeoutCancellationException> {
            withTimeout(300.milliseconds) { gw.chatStream(json(long)).collect() }
        }
        val took = started.elapsedNow()
        assertTrue(took < 1000.milliseconds, "cancellation took $took")
    }

    @Test
    fun `an error inside the stream is a Stream exception after the events before it`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"stream_error","after_events":2}""")
        val got = mutableListOf<GwEvent>()
        val e = assertThrows<GwException.Stream> { gw.chatStream(json(long)).collect { got += it } }
        assertEquals(2, got.size)
        assertEquals("stream_failure", e.code)
        assertTrue(e.message!!.contains("upstream model failed"), e.message)
    }

    @Test
    fun `a stream cut before its end is a Stream exception, not a success`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"truncate","after_events":3}""")
        var caught: Throwable? = null
        gw.chatStream(json(long)).catch { caught = it }.collect()
        assertTrue(caught is GwException.Stream, "got $caught")
    }

    @Test
    fun `a stream that cannot open reports the HTTP error with metadata`() = withClient(
        MockGateway.options(apiKey = "sk-wrong"),
    ) { gw ->
        val e = assertThrows<GwException.Unauthorized> { gw.chatStream(json(long)).collect() }
        assertEquals(401, e.response!!.status)
        assertEquals("invalid_api_key", e.code)
    }

    @Test
    fun `a cold flow sends one request per collection`() = withClient { gw ->
        val flow = gw.chatStream(json(long)).filterIsInstance<GwEvent.Done>().onEach { }
        flow.toList()
        flow.toList()
        assertEquals(2, MockGateway.requestsTo("/v1/chat/completions").size)
    }
}
