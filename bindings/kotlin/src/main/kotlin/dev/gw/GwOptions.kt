package dev.gw

import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlin.time.Duration

/**
 * Options of a [GwClient], the same as gw_client_create's options JSON. null leaves gw's
 * default (or, for [baseUrl] / [apiKey], the `GW_BASE_URL` / `GW_API_KEY` environment
 * variables). A timeout of [Duration.ZERO] means none. [extra] is merged in as is, for
 * options newer than this binding. toString() never shows the key.
 */
data class GwOptions(
    val baseUrl: String? = null,
    val apiKey: String? = null,
    val connectTimeout: Duration? = null,
    val readTimeout: Duration? = null,
    val totalTimeout: Duration? = null,
    val maxRetries: Int? = null,
    val retryBaseDelay: Duration? = null,
    val retryMaxDelay: Duration? = null,
    val retryAfterCap: Duration? = null,
    val proxy: String? = null,
    val headers: Map<String, String> = emptyMap(),
    val validate: Boolean? = null,
    val allowInsecureHttp: Boolean? = null,
    val maxResponseBytes: Long? = null,
    val maxLineBytes: Long? = null,
    val userAgent: String? = null,
    val extra: JsonObject = JsonObject(emptyMap()),
) {
    /** The options JSON gw reads. */
    fun toJson(): JsonObject = buildJsonObject {
        baseUrl?.let { put("base_url", it) }
        apiKey?.let { put("api_key", it) }
        connectTimeout?.let { put("connect_timeout_ms", it.inWholeMilliseconds) }
        readTimeout?.let { put("read_timeout_ms", it.inWholeMilliseconds) }
        totalTimeout?.let { put("total_timeout_ms", it.inWholeMilliseconds) }
        maxRetries?.let { put("max_retries", it) }
        retryBaseDelay?.let { put("retry_base_delay_ms", it.inWholeMilliseconds) }
        retryMaxDelay?.let { put("retry_max_delay_ms", it.inWholeMilliseconds) }
        retryAfterCap?.let { put("retry_after_cap_ms", it.inWholeMilliseconds) }
        proxy?.let { put("proxy", it) }
        if (headers.isNotEmpty()) put("headers", headersJson(headers))
        validate?.let { put("validate", it) }
        allowInsecureHttp?.let { put("allow_insecure_http", it) }
        maxResponseBytes?.let { put("max_response_bytes", it) }
        maxLineBytes?.let { put("max_line_bytes", it) }
        userAgent?.let { put("user_agent", it) }
        extra.forEach { (k, v) -> put(k, v) }
    }

    override fun toString(): String =
        "GwOptions(baseUrl=$baseUrl, apiKey=${if (apiKey == null) "null" else "[REDACTED]"}, " +
            "connectTimeout=$connectTimeout, readTimeout=$readTimeout, totalTimeout=$totalTimeout, " +
            "maxRetries=$maxRetries, headers=${headers.keys}, validate=$validate, extra=${extra.keys})"
}

/**
 * Per-call overrides, applied to the handle gw derives for the call
 * (gw_client_create_derived): timeouts, retries, extra headers (merged over the client's),
 * an `Idempotency-Key`, validation. [onResponse] receives the call's [ResponseMeta] when it
 * succeeds, on the IO thread that ran the call (failures carry it in [GwException.response]).
 */
class CallOptions(
    val totalTimeout: Duration? = null,
    val readTimeout: Duration? = null,
    val connectTimeout: Duration? = null,
    val maxRetries: Int? = null,
    val headers: Map<String, String> = emptyMap(),
    val idempotencyKey: String? = null,
    val validate: Boolean? = null,
    val onResponse: ((ResponseMeta) -> Unit)? = null,
) {
    /** The derive options JSON, or null when nothing is overridden. */
    internal fun toJsonOrNull(): JsonObject? {
        val json = buildJsonObject {
            totalTimeout?.let { put("total_timeout_ms", it.inWholeMilliseconds) }
            readTimeout?.let { put("read_timeout_ms", it.inWholeMilliseconds) }
            connectTimeout?.let { put("connect_timeout_ms", it.inWholeMilliseconds) }
            maxRetries?.let { put("max_retries", it) }
            if (headers.isNotEmpty()) put("headers", headersJson(headers))
            idempotencyKey?.let { put("idempotency_key", it) }
            validate?.let { put("validate", it) }
        }
        return json.takeIf { it.isNotEmpty() }
    }

    companion object {
        /** No overrides. */
        val NONE = CallOptions()
    }
}

private fun headersJson(headers: Map<String, String>): JsonObject =
    JsonObject(headers.mapValues { (_, v) -> JsonPrimitive(v) as JsonElement })
