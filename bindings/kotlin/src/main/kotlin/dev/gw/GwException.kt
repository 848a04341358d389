package dev.gw

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import kotlin.time.Duration

/**
 * Every failure of a gw call, one subclass per gw status, so `when (e)` is exhaustive.
 *
 * [status] is gw's status (an HTTP status, or a negative GW_* code), [type], [code] and
 * [errorMessage] come from the error JSON `{"error":{"message","type","code","status"}}`,
 * [error] is that whole `error` object (or, for [Vendor], the vendor's own body), and
 * [response] describes the HTTP exchange when there was one. Messages never hold the key.
 * A RuntimeException: Java code catches it around the blocking verbs, which declare nothing.
 */
sealed class GwException(
    val status: Int,
    val errorMessage: String,
    val type: String?,
    val code: String?,
    val error: JsonObject?,
    val response: ResponseMeta?,
) : RuntimeException(describe(status, errorMessage, type, code, response)) {

    /** Bad input: invalid JSON, a broken documented limit, a bad option. Nothing was sent. */
    class InvalidArgument internal constructor(message: String, e: ErrorParts = ErrorParts()) :
        GwException(-1, message, e.type, e.code, e.error, e.response) {
        /** The field or argument at fault, when gw names one (`"param"`). */
        val param: String? get() = (error?.get("param") as? JsonPrimitive)?.contentOrNull
    }

    /** DNS, connect, reset or TLS failure. */
    class Network internal constructor(message: String, e: ErrorParts) :
        GwException(-2, message, e.type, e.code, e.error, e.response)

    /** The connect, read-idle or total deadline passed (gw's own timeouts, not withTimeout). */
    class Timeout internal constructor(message: String, e: ErrorParts) :
        GwException(-3, message, e.type, e.code, e.error, e.response)

    /** The gateway's answer is not what the API promises (bad JSON, wrong shape). */
    class Decode internal constructor(message: String, e: ErrorParts) :
        GwException(-4, message, e.type, e.code, e.error, e.response)

    /**
     * gw reported GW_CANCELLED without the coroutine being cancelled: a progress lambda
     * stopped a video wait. A cancelled coroutine gets its own CancellationException instead.
     */
    class Cancelled internal constructor(message: String, e: ErrorParts) :
        GwException(-5, message, e.type, e.code, e.error, e.response)

    /** A vendor-style body reports failure, or a video task ended failed; [error] is that body. */
    class Vendor internal constructor(message: String, e: ErrorParts) :
        GwException(-6, message, e.type, e.code, e.error, e.response)

    /** An error event inside a stream, or a stream that ended before its terminal event. */
    class Stream internal constructor(message: String, e: ErrorParts) :
        GwException(-7, message, e.type, e.code, e.error, e.response)

    /** An answer or a stream line over the configured size cap. */
    class TooLarge internal constructor(message: String, e: ErrorParts) :
        GwException(-8, message, e.type, e.code, e.error, e.response)

    /** A bug in gw (a caught panic) or a status this binding does not know. */
    class Internal internal constructor(status: Int, message: String, e: ErrorParts) :
        GwException(status, message, e.type, e.code, e.error, e.response)

    /** The [GwClient] was closed before this call started. */
    class Closed internal constructor() :
        GwException(-1, "the GwClient is closed", "invalid_request_error", "client_closed", null, null)

    /**
     * The gateway answered with an HTTP error status (after gw's retries ran out). The
     * common ones have their own subclasses; any other (500, 502, 503, ...) is a plain Gateway.
     */
    open class Gateway internal constructor(status: Int, message: String, e: ErrorParts) :
        GwException(status, message, e.type, e.code, e.error, e.response)

    class BadRequest internal constructor(message: String, e: ErrorParts) : Gateway(400, message, e)

    class Unauthorized internal constructor(message: String, e: ErrorParts) : Gateway(401, message, e)

    class Forbidden internal constructor(message: String, e: ErrorParts) : Gateway(403, message, e)

    class NotFound internal constructor(message: String, e: ErrorParts) : Gateway(404, message, e)

    class RateLimited internal constructor(message: String, e: ErrorParts) : Gateway(429, message, e) {
        /** How long the gateway asked to wait (`retry-after-ms` / `retry-after`), if it said. */
        val retryAfter: Duration? get() = response?.retryAfter
    }

    /** The pieces of an error JSON besides the message, carried to the constructors. */
    internal class ErrorParts(
        val type: String? = null,
        val code: String? = null,
        val error: JsonObject? = null,
        val response: ResponseMeta? = null,
    )

    private companion object {
        fun describe(status: Int, message: String, type: String?, code: String?, meta: ResponseMeta?): String =
            buildString {
                // The name comes from gw; never let a missing library break an exception.
                append(runCatching { Gw.statusName(status) }.getOrElse { "GW_STATUS" })
                if (status > 0) append(" (").append(status).append(')')
                append(": ").append(message)
                val tags = listOfNotNull(type, code?.takeIf { it != type }).joinToString("/")
                if (tags.isNotEmpty()) append(" [").append(tags).append(']')
                meta?.requestId?.let { append(" request_id=").append(it) }
            }
    }
}
