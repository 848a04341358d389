package dev.gw

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.BeforeEach

/**
 * Every test starts from a reset mock and ends with the same native objects alive as it
 * started with: each test is also a leak check of the paths it took.
 */
abstract class GwTestBase {
    private lateinit var before: Triple<Long, Long, Long>

    @BeforeEach
    fun resetMockAndCount() {
        MockGateway.reset()
        before = GwDiagnostics.snapshot()
    }

    @AfterEach
    fun nothingLeaked() {
        assertEquals(before, GwDiagnostics.snapshot(), "(clients, call handles, streams) alive after the test")
    }

    /** A client of the mock for the test's body, closed afterwards. */
    fun withClient(
        options: GwOptions = MockGateway.options(),
        block: suspend CoroutineScope.(GwClient) -> Unit,
    ) = runBlocking { GwClient(options).use { block(it) } }
}

/** A JSON object from text, for requests written as the API document shows them. */
fun json(text: String): JsonObject = GwJson.parseToJsonElement(text).jsonObject

const val CHAT = """{"model":"gpt-test","messages":[{"role":"user","content":"hello there kotlin"}]}"""
