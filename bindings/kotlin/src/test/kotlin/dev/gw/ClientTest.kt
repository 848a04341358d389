package dev.gw

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.time.Duration.Companion.seconds

/** Creating, configuring and closing clients; the library-wide functions. */
class ClientTest : GwTestBase() {
    @Test
    fun `version and status names come from the library`() {
        assertTrue(Gw.version.matches(Regex("""\d+\.\d+\.\d+.*""")), Gw.version)
        assertEquals("GW_TIMEOUT", Gw.statusName(-3))
        assertEquals("GW_RATE_LIMITED", Gw.statusName(429))
        assertEquals("GW_HTTP_STATUS", Gw.statusName(502))
    }

    @Test
    fun `an unknown option is refused by name and nothing is created`() {
        val e = assertThrows<GwException.InvalidArgument> {
            GwClient(json("""{"base_url":"${MockGateway.url}","api_key":"sk-secret-1","max_retrys":3}"""))
        }
        assertTrue(e.message!!.contains("max_retrys"), e.message)
        assertFalse(e.message!!.contains("sk-secret-1"), "the key must not appear: ${e.message}")
    }

    @Test
    fun `a client from gw's options JSON as is`() = runBlocking {
        GwClient(json("""{"base_url":"${MockGateway.url}/v1","api_key":"${MockGateway.API_KEY}","headers":{"x-from":"json"}}""")).use { gw ->
            assertEquals("chat.completion", gw.chat(json(CHAT)).str("object"))
        }
        val sent = MockGateway.requests().single()
        assertEquals("/v1/chat/completions", sent.str("path"), "a base URL ending in /v1 never gives /v1/v1")
        assertEquals("json", sent.header("x-from"))
    }

    @Test
    fun `plain http to a non-loopback host is refused`() {
        val e = assertThrows<GwException.InvalidArgument> {
            GwClient(GwOptions(baseUrl = "http://gateway.example", apiKey = "k"))
        }
        assertTrue(e.message!!.contains("http"), e.message)
    }

    @Test
    fun `options never print the key`() {
        val o = GwOptions(baseUrl = MockGateway.url, apiKey = "sk-very-secret", readTimeout = 5.seconds)
        assertFalse(o.toString().contains("sk-very-secret"), o.toString())
        assertEquals("sk-very-secret", o.toJson().str("api_key"))
        assertEquals(5000L, o.toJson().str("read_timeout_ms")!!.toLong())
    }

    @Test
    fun `close is idempotent and later calls throw Closed`() = runBlocking {
        val client = GwClient(MockGateway.options())
        assertFalse(client.isClosed)
        client.close()
        client.close()
        assertTrue(client.isClosed)
        assertThrows<GwException.Closed> { client.chat(json(CHAT)) }
        Unit
    }

    @Test
    fun `bad per-call options are refused before anything is sent`() = withClient { gw ->
        val e = assertThrows<GwException.InvalidArgument> {
            gw.chat(json(CHAT), CallOptions(headers = mapOf("bad header" to "x")))
        }
        assertNotNull(e.message)
        assertEquals(0, MockGateway.requests().size)
    }

    @Test
    fun `the Cleaner frees a client nobody closed`() {
        val before = GwDiagnostics.openClients
        createAndDrop()
        assertEquals(before + 1, GwDiagnostics.openClients)
        val deadline = System.nanoTime() + 10_000_000_000
        while (GwDiagnostics.openClients > before && System.nanoTime() < deadline) {
            System.gc()
            Thread.sleep(20)
        }
        assertEquals(before, GwDiagnostics.openClients, "the Cleaner did not free the dropped client")
    }

    private fun createAndDrop() {
        GwClient(MockGateway.options())
    }
}
