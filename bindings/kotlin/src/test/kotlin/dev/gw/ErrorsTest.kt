package dev.gw

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.net.ServerSocket
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlin.time.TimeSource

/** Each failure kind as its GwException subclass, with the error fields and the metadata. */
class ErrorsTest : GwTestBase() {
    @Test
    fun `a wrong key is Unauthorized and never shows the key`() = withClient(MockGateway.options(apiKey = "sk-wrong-secret-42")) { gw ->
        val e = assertThrows<GwException.Unauthorized> { gw.chat(json(CHAT)) }
        assertEquals(401, e.status)
        assertEquals("authentication_error", e.type)
        assertEquals("invalid_api_key", e.code)
        assertEquals(401, e.response!!.status)
        assertTrue(e.response!!.requestId!!.isNotEmpty(), "x-request-id")
        assertTrue(e.message!!.contains("request_id=${e.response!!.requestId}"), e.message)
        assertTrue(e.response!!.url!!.endsWith("/v1/chat/completions"), e.response!!.url)
        for (text in listOf(e.message!!, e.toString(), e.error.toString(), e.response.toString())) {
            assertFalse(text.contains("sk-wrong-secret-42"), text)
        }
    }

    @Test
    fun `429 is RateLimited with the retry-after the gateway sent`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"status","status":429,"headers":{"retry-after":"7"}}""")
        val e = assertThrows<GwException.RateLimited> { gw.chat(json(CHAT)) }
        assertEquals(7.seconds, e.retryAfter)
        assertEquals(1, e.response!!.attempts)
        assertEquals(429, (e as GwException.Gateway).status)
    }

    @Test
    fun `a retried 500 succeeds and the metadata counts the attempts`() = withClient(
        MockGateway.options(maxRetries = 2) { copy(retryBaseDelay = 10.milliseconds, retryMaxDelay = 20.milliseconds) },
    ) { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"status","status":500}""")
        var meta: ResponseMeta? = null
        val answer = gw.chat(json(CHAT), CallOptions(onResponse = { meta = it }))
        assertEquals("chat.completion", answer.str("object"))
        assertEquals(2, meta!!.attempts)
        assertEquals(200, meta!!.status)
    }

    @Test
    fun `other HTTP statuses are Gateway, 403 and 404 their own`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"status","status":503}""")
        val e = assertThrows<GwException.Gateway> { gw.chat(json(CHAT)) }
        assertEquals(GwException.Gateway::class, e::class)
        assertEquals(503, e.status)
        MockGateway.fault("""{"match":"/v1/embeddings","action":"status","status":403}""")
        assertThrows<GwException.Forbidden> { gw.embeddings(json("""{"model":"e","input":"x"}""")) }
        assertThrows<GwException.NotFound> { gw.request("GET", "/v1/no/such/thing") }
    }

    @Test
    fun `nobody listening is Network`() {
        val port = ServerSocket(0).use { it.localPort }
        withClient(GwOptions(baseUrl = "http://127.0.0.1:$port", apiKey = "k", maxRetries = 0)) { gw ->
            val e = assertThrows<GwException.Network> { gw.chat(json(CHAT)) }
            assertEquals(-2, e.status)
            assertEquals(null, e.response, "no HTTP answer, no metadata")
        }
    }

    @Test
    fun `a per-call total timeout is gw's Timeout`() = withClient { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"delay","ms":3000}""")
        val started = TimeSource.Monotonic.markNow()
        assertThrows<GwException.Timeout> { gw.chat(json(CHAT), CallOptions(totalTimeout = 300.milliseconds)) }
        assertTrue(started.elapsedNow() < 2.seconds, "took ${started.elapsedNow()}")
    }

    @Test
    fun `garbage is Decode, an oversized answer TooLarge`() = withClient(
        MockGateway.options { copy(maxResponseBytes = 100_000) },
    ) { gw ->
        MockGateway.fault("""{"match":"/v1/chat","action":"garbage"}""")
        assertThrows<GwException.Decode> { gw.chat(json(CHAT)) }
        MockGateway.fault("""{"match":"/v1/chat","action":"huge_body","bytes":400000}""")
        assertThrows<GwException.TooLarge> { gw.chat(json(CHAT)) }
    }

    @Test
    fun `per-call headers and idempotency key reach the gateway`() = withClient(
        MockGateway.options { copy(headers = mapOf("x-app" to "demo")) },
    ) { gw ->
        gw.chat(json(CHAT), CallOptions(headers = mapOf("x-trace" to "t-1"), idempotencyKey = "idem-9"))
        val sent = MockGateway.requests().single()
        assertEquals("demo", sent.header("x-app"))
        assertEquals("t-1", sent.header("x-trace"))
        assertEquals("idem-9", sent.header("idempotency-key"))
    }

    @Test
    fun `every exception kind is one branch of an exhaustive when`() {
        fun kind(e: GwException): String = when (e) {
            is GwException.InvalidArgument -> "invalid"
            is GwException.Network -> "network"
            is GwException.Timeout -> "timeout"
            is GwException.Decode -> "decode"
            is GwException.Cancelled -> "cancelled"
            is GwException.Vendor -> "vendor"
            is GwException.Stream -> "stream"
            is GwException.TooLarge -> "too large"
            is GwException.Internal -> "internal"
            is GwException.Closed -> "closed"
            is GwException.Gateway -> "http ${e.status}"
        }
        assertEquals("closed", kind(GwException.Closed()))
        assertEquals("invalid", kind(GwException.InvalidArgument("x")))
    }
}
