package dev.gw

import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import java.io.BufferedReader
import java.io.InputStreamReader
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.util.concurrent.TimeUnit

/**
 * The gw-mock binary (system property `gw.mock`), started once for the whole test JVM on a
 * free port. It exits when its stdin closes (--exit-on-stdin-eof), so it never outlives the
 * JVM, and a shutdown hook stops it at the end of a normal run.
 */
object MockGateway {
    const val API_KEY = "sk-test"

    private val process: Process
    val url: String

    init {
        val binary = System.getProperty("gw.mock")
            ?: System.getenv("GW_MOCK")
            ?: error("set -Dgw.mock=/path/to/gw-mock")
        process = ProcessBuilder(binary, "--port", "0", "--exit-on-stdin-eof")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start()
        val reader = BufferedReader(InputStreamReader(process.inputStream))
        url = reader.readLine()?.trim()?.takeIf { it.startsWith("http") }
            ?: error("gw-mock ($binary) printed no address")
        Runtime.getRuntime().addShutdownHook(
            Thread {
                process.outputStream.close()
                process.destroy()
                process.waitFor(5, TimeUnit.SECONDS)
            },
        )
    }

    private val http = HttpClient.newHttpClient()

    /** Options of a client of this mock; [extra] tunes it per test. */
    fun options(
        apiKey: String = API_KEY,
        maxRetries: Int? = 0,
        extra: GwOptions.() -> GwOptions = { this },
    ): GwOptions = GwOptions(baseUrl = url, apiKey = apiKey, maxRetries = maxRetries).extra()

    fun reset() {
        post("/__mock/reset", "{}")
    }

    /** Queues faults (an object or an array, see tests/mock-gateway/src/faults.rs). */
    fun fault(json: String) {
        val (status, body) = post("/__mock/faults", json)
        check(status == 200) { "fault refused: $body" }
    }

    /** Every request the mock recorded since the last reset, oldest first. */
    fun requests(): List<JsonObject> {
        val resp = http.send(
            HttpRequest.newBuilder(URI("$url/__mock/requests")).GET().build(),
            HttpResponse.BodyHandlers.ofString(),
        )
        return GwJson.parseToJsonElement(resp.body()).jsonArray.map { it.jsonObject }
    }

    /** The recorded requests to [path]. */
    fun requestsTo(path: String): List<JsonObject> = requests().filter { it.str("path") == path }

    private fun post(path: String, body: String): Pair<Int, String> {
        val resp = http.send(
            HttpRequest.newBuilder(URI("$url$path"))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString(),
        )
        return resp.statusCode() to resp.body()
    }
}

fun JsonObject.str(key: String): String? = (this[key] as? JsonPrimitive)?.contentOrNull

/** A recorded request's header (its headers are `[name, value]` pairs). */
fun JsonObject.header(name: String): String? =
    (this["headers"] as? JsonArray)?.map { it.jsonArray }
        ?.firstOrNull { it[0].jsonPrimitive.content.equals(name, ignoreCase = true) }
        ?.get(1)?.jsonPrimitive?.content

fun JsonElement.path(vararg keys: Any): JsonElement? = keys.fold(this as JsonElement?) { at, k ->
    when (k) {
        is Int -> (at as? JsonArray)?.getOrNull(k)
        else -> (at as? JsonObject)?.get(k.toString())
    }
}
