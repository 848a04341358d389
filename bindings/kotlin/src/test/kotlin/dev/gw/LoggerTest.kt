package dev.gw

import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import java.util.concurrent.CopyOnWriteArrayList
import kotlin.time.Duration.Companion.milliseconds

/** gw's log lines through Gw.setLogger; the key never in them. */
class LoggerTest : GwTestBase() {
    @Test
    fun `log lines arrive with levels, without the key, and stop when removed`() {
        val lines = CopyOnWriteArrayList<Pair<Gw.LogLevel, String>>()
        Gw.setLogger(Gw.LogLevel.DEBUG) { level, message -> lines += level to message }
        try {
            withClient(MockGateway.options(maxRetries = 1) { copy(retryBaseDelay = 10.milliseconds) }) { gw ->
                MockGateway.fault("""{"match":"/v1/chat","action":"status","status":500}""")
                gw.chat(json(CHAT))
            }
        } finally {
            Gw.setLogger(logger = null)
        }
        assertTrue(lines.isNotEmpty(), "no log line")
        assertTrue(lines.any { it.second.contains("retry", ignoreCase = true) }, lines.toString())
        assertFalse(lines.any { it.second.contains(MockGateway.API_KEY) }, lines.toString())
        val count = lines.size
        withClient { gw -> gw.chat(json(CHAT)) }
        assertTrue(lines.size == count, "lines after the logger was removed")
    }
}
