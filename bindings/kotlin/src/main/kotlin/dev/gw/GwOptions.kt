package dev.gw

import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import java.util.concurrent.Executor
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

/**
 * Options of a [GwClient], the same as gw_client_create's options JSON. null leaves gw's
 * default (or, for [baseUrl] / [apiKey], the `GW_BASE_URL` / `GW_API_KEY` environment
 * variables). A timeout of [Duration.ZERO] means none. [extra] is merged in as is, for
 * options newer than this binding. toString() never shows the key.
 *
 * [maxThreads] and [executor] are the binding's own (not sent to gw): where the client's
 * blocking gw calls run. By default on a pool of the client's own of at most [maxThreads]
 * threads (null: [DEFAULT_MAX_THREADS] = 64); calls beyond wait for a thread, cancellable
 * while they wait. Never on Dispatchers.IO or Default, so gw calls in flight never delay the
 * app's other work. An [executor] given replaces the pool (and [maxThreads]): bound it, as
 * each call holds one of its threads until the gateway answers.
 *
 * Trust: behind a proxy that inspects TLS, or with a gateway whose certificate a private CA
 * signed, give that CA as [caFile] (a PEM file) or [caPem] (PEM text); the built-in roots stay
 * trusted. [tlsVerifier] is "webpki" (the built-in roots, the default) or "platform" (the OS
 * store: Android, with [GwAndroid.init], or a gw built with it).
 *
 * The options after [executor] came later; they sit at the end so positional callers keep
 * working.
 *
 * From Java: `GwOptions.builder().baseUrl(...).apiKey(...).build()`.
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
    val maxThreads: Int? = null,
    val executor: Executor? = null,
    /** Wait for an answer's head once the request is sent (a model may think long). */
    val firstByteTimeout: Duration? = null,
    /** The largest data of one stream event. */
    val maxEventBytes: Long? = null,
    /** Pooled connections kept: size it for the calls the client runs at once. */
    val maxIdleConnections: Int? = null,
    /** false: no automatic `Idempotency-Key` on POSTs. */
    val idempotencyKeys: Boolean? = null,
    val caFile: String? = null,
    val caPem: String? = null,
    val tlsVerifier: String? = null,
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
        firstByteTimeout?.let { put("first_byte_timeout_ms", it.inWholeMilliseconds) }
        maxEventBytes?.let { put("max_event_bytes", it) }
        maxIdleConnections?.let { put("max_idle_connections", it) }
        idempotencyKeys?.let { put("idempotency_keys", it) }
        caFile?.let { put("ca_file", it) }
        caPem?.let { put("ca_pem", it) }
        tlsVerifier?.let { put("tls_verifier", it) }
        extra.forEach { (k, v) -> put(k, v) }
    }

    override fun toString(): String =
        "GwOptions(baseUrl=$baseUrl, apiKey=${if (apiKey == null) "null" else "[REDACTED]"}, " +
            "connectTimeout=$connectTimeout, readTimeout=$readTimeout, totalTimeout=$totalTimeout, " +
            "maxRetries=$maxRetries, headers=${headers.keys}, validate=$validate, extra=${extra.keys}, " +
            "maxThreads=$maxThreads, executor=${executor?.let { it::class.java.name }})"

    /** The Java way to build options; every setter is optional. */
    class Builder internal constructor() {
        private var o = GwOptions()

        fun baseUrl(baseUrl: String?) = apply { o = o.copy(baseUrl = baseUrl) }
        fun apiKey(apiKey: String?) = apply { o = o.copy(apiKey = apiKey) }
        fun connectTimeout(timeout: java.time.Duration?) = apply { o = o.copy(connectTimeout = timeout?.toKotlin()) }
        fun readTimeout(timeout: java.time.Duration?) = apply { o = o.copy(readTimeout = timeout?.toKotlin()) }
        fun totalTimeout(timeout: java.time.Duration?) = apply { o = o.copy(totalTimeout = timeout?.toKotlin()) }
        fun maxRetries(maxRetries: Int?) = apply { o = o.copy(maxRetries = maxRetries) }
        fun retryBaseDelay(delay: java.time.Duration?) = apply { o = o.copy(retryBaseDelay = delay?.toKotlin()) }
        fun retryMaxDelay(delay: java.time.Duration?) = apply { o = o.copy(retryMaxDelay = delay?.toKotlin()) }
        fun retryAfterCap(cap: java.time.Duration?) = apply { o = o.copy(retryAfterCap = cap?.toKotlin()) }
        fun proxy(proxy: String?) = apply { o = o.copy(proxy = proxy) }
        fun header(name: String, value: String) = apply { o = o.copy(headers = o.headers + (name to value)) }
        fun headers(headers: Map<String, String>) = apply { o = o.copy(headers = o.headers + headers) }
        fun validate(validate: Boolean?) = apply { o = o.copy(validate = validate) }
        fun allowInsecureHttp(allow: Boolean?) = apply { o = o.copy(allowInsecureHttp = allow) }
        fun maxResponseBytes(bytes: Long?) = apply { o = o.copy(maxResponseBytes = bytes) }
        fun maxLineBytes(bytes: Long?) = apply { o = o.copy(maxLineBytes = bytes) }
        fun userAgent(userAgent: String?) = apply { o = o.copy(userAgent = userAgent) }
        /** gw's options JSON keys this binding does not name, merged in as is. */
        fun extra(extra: JsonObject) = apply { o = o.copy(extra = JsonObject(o.extra + extra)) }
        fun maxThreads(maxThreads: Int?) = apply { o = o.copy(maxThreads = maxThreads) }
        fun executor(executor: Executor?) = apply { o = o.copy(executor = executor) }
        fun firstByteTimeout(timeout: java.time.Duration?) = apply { o = o.copy(firstByteTimeout = timeout?.toKotlin()) }
        fun maxEventBytes(bytes: Long?) = apply { o = o.copy(maxEventBytes = bytes) }
        fun maxIdleConnections(connections: Int?) = apply { o = o.copy(maxIdleConnections = connections) }
        fun idempotencyKeys(enabled: Boolean?) = apply { o = o.copy(idempotencyKeys = enabled) }
        fun caFile(path: String?) = apply { o = o.copy(caFile = path) }
        fun caPem(pem: String?) = apply { o = o.copy(caPem = pem) }
        fun tlsVerifier(verifier: String?) = apply { o = o.copy(tlsVerifier = verifier) }
        fun build(): GwOptions = o
    }

    companion object {
        /** GwOptions.maxThreads when left null. */
        const val DEFAULT_MAX_THREADS: Int = dev.gw.internal.CallThreads.DEFAULT_MAX_THREADS

        @JvmStatic
        fun builder(): Builder = Builder()
    }
}

/**
 * Per-call overrides, applied to the handle gw derives for the call
 * (gw_client_create_derived): timeouts, retries, extra headers (merged over the client's),
 * an `Idempotency-Key`, validation. [onResponse] receives the call's [ResponseMeta] when it
 * succeeds, on the gw thread that ran the call (failures carry it in [GwException.response]).
 * From Java: `CallOptions.builder().totalTimeout(Duration.ofSeconds(5)).build()`.
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
    val firstByteTimeout: Duration? = null,
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
            firstByteTimeout?.let { put("first_byte_timeout_ms", it.inWholeMilliseconds) }
        }
        return json.takeIf { it.isNotEmpty() }
    }

    /** The Java way to build per-call options; every setter is optional. */
    class Builder internal constructor() {
        private var totalTimeout: Duration? = null
        private var readTimeout: Duration? = null
        private var connectTimeout: Duration? = null
        private var maxRetries: Int? = null
        private var headers: Map<String, String> = emptyMap()
        private var idempotencyKey: String? = null
        private var validate: Boolean? = null
        private var onResponse: ((ResponseMeta) -> Unit)? = null
        private var firstByteTimeout: Duration? = null

        fun totalTimeout(timeout: java.time.Duration?) = apply { totalTimeout = timeout?.toKotlin() }
        fun readTimeout(timeout: java.time.Duration?) = apply { readTimeout = timeout?.toKotlin() }
        fun connectTimeout(timeout: java.time.Duration?) = apply { connectTimeout = timeout?.toKotlin() }
        fun maxRetries(maxRetries: Int?) = apply { this.maxRetries = maxRetries }
        fun header(name: String, value: String) = apply { headers = headers + (name to value) }
        fun idempotencyKey(key: String?) = apply { idempotencyKey = key }
        fun validate(validate: Boolean?) = apply { this.validate = validate }
        fun firstByteTimeout(timeout: java.time.Duration?) = apply { firstByteTimeout = timeout?.toKotlin() }
        fun onResponse(listener: java.util.function.Consumer<ResponseMeta>?) =
            apply { onResponse = listener?.let { l -> { meta: ResponseMeta -> l.accept(meta) } } }

        fun build() = CallOptions(
            totalTimeout, readTimeout, connectTimeout, maxRetries, headers, idempotencyKey, validate, onResponse,
            firstByteTimeout,
        )
    }

    companion object {
        /** No overrides. */
        @JvmField
        val NONE = CallOptions()

        @JvmStatic
        fun builder(): Builder = Builder()
    }
}

internal fun java.time.Duration.toKotlin(): Duration = toMillis().milliseconds

private fun headersJson(headers: Map<String, String>): JsonObject =
    JsonObject(headers.mapValues<String, String, JsonElement> { (_, v) -> JsonPrimitive(v) })
