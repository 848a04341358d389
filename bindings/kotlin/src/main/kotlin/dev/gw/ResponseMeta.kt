package dev.gw

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.intOrNull
import kotlinx.serialization.json.longOrNull
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/**
 * What gw saw of the HTTP exchange behind a call (gw_client_last_response on the call's own
 * handle): the final status, the gateway's request id, the response headers (lower-case
 * names), how many attempts retries took, the time spent and the URL (key redacted).
 */
data class ResponseMeta(
    val status: Int,
    val requestId: String?,
    val headers: Map<String, String>,
    val attempts: Int,
    val elapsed: Duration,
    val url: String?,
) {
    /** `retry-after-ms` or `retry-after` (seconds) when the gateway sent one. */
    val retryAfter: Duration?
        get() = headers["retry-after-ms"]?.toLongOrNull()?.milliseconds
            ?: headers["retry-after"]?.toLongOrNull()?.seconds

    internal companion object {
        /** Parses gw's metadata JSON; null for "null" (no exchange finished on the handle). */
        fun parse(json: JsonObject?): ResponseMeta? {
            json ?: return null
            fun prim(key: String) = json[key] as? JsonPrimitive
            val headers = (json["headers"] as? JsonObject)?.let { h ->
                h.mapValues { (_, v) -> (v as? JsonPrimitive)?.contentOrNull ?: v.toString() }
            } ?: emptyMap()
            return ResponseMeta(
                status = prim("status")?.intOrNull ?: 0,
                requestId = prim("request_id")?.contentOrNull,
                headers = headers,
                attempts = prim("attempts")?.intOrNull ?: 0,
                elapsed = (prim("elapsed_ms")?.longOrNull ?: 0L).milliseconds,
                url = prim("url")?.contentOrNull,
            )
        }

    }
}
