package dev.gw

import kotlinx.coroutines.runBlocking
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import org.junit.jupiter.api.assertThrows
import java.io.BufferedReader
import java.io.InputStreamReader
import java.nio.file.Files
import java.util.concurrent.TimeUnit

/**
 * The trust options against a gw-mock of its own that speaks HTTPS with a certificate from a
 * CA made for this run (gw-mock --tls-ca-out writes the CA's PEM).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsTest : GwTestBase() {
    private val dir = Files.createTempDirectory("gw-tls-test")
    private val caPath = dir.resolve("ca.pem")
    private val process: Process
    private val url: String

    init {
        val binary = System.getProperty("gw.mock") ?: System.getenv("GW_MOCK") ?: error("set -Dgw.mock")
        process = ProcessBuilder(binary, "--port", "0", "--exit-on-stdin-eof", "--tls-ca-out", caPath.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start()
        url = BufferedReader(InputStreamReader(process.inputStream)).readLine()?.trim()
            ?: error("the TLS gw-mock printed no address")
    }

    @AfterAll
    fun stop() {
        process.outputStream.close()
        process.destroy()
        process.waitFor(5, TimeUnit.SECONDS)
        dir.toFile().deleteRecursively()
    }

    private fun options(trust: GwOptions.() -> GwOptions = { this }) =
        GwOptions(baseUrl = url, apiKey = MockGateway.API_KEY, maxRetries = 0).trust()

    @Test
    fun `a CA given as a file or as PEM text is trusted`() = runBlocking {
        assertTrue(url.startsWith("https://"), url)
        val pem = Files.readString(caPath)
        for (o in listOf(options { copy(caFile = caPath.toString()) }, options { copy(caPem = pem) })) {
            GwClient(o).use { gw -> assertEquals("chat.completion", gw.chat(json(CHAT)).str("object")) }
        }
    }

    @Test
    fun `an unknown CA is a network error that says so`() {
        val e = assertThrows<GwException.Network> {
            runBlocking { GwClient(options()).use { it.chat(json(CHAT)) } }
        }
        assertTrue(e.message!!.contains("not signed by a trusted CA"), e.message)
    }

    @Test
    fun `bad trust options are refused at creation`() {
        for (o in listOf(
            options { copy(caFile = dir.resolve("missing.pem").toString()) },
            options { copy(caPem = "not a certificate") },
            options { copy(tlsVerifier = "sometimes") },
        )) {
            assertThrows<GwException.InvalidArgument> { GwClient(o).close() }
        }
    }

    @Test
    fun `the later options reach gw's options JSON under gw's names`() {
        val o = GwOptions.builder().firstByteTimeout(java.time.Duration.ofSeconds(90)).maxEventBytes(1024)
            .maxIdleConnections(3).idempotencyKeys(false).caFile("/etc/ca.pem").caPem("PEM")
            .tlsVerifier("platform").build()
        assertEquals(
            json(
                """{"first_byte_timeout_ms":90000,"max_event_bytes":1024,"max_idle_connections":3,
                   "idempotency_keys":false,"ca_file":"/etc/ca.pem","ca_pem":"PEM","tls_verifier":"platform"}""",
            ),
            o.toJson(),
        )
        val call = CallOptions.builder().firstByteTimeout(java.time.Duration.ofMillis(1500)).build()
        assertEquals(json("""{"first_byte_timeout_ms":1500}"""), call.toJsonOrNull())
    }
}
