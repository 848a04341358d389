package dev.gw.internal

import dev.gw.GwException
import dev.gw.GwException.ErrorParts
import dev.gw.ResponseMeta
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull

/**
 * The exception for a failed gw call: [status] picks the subclass, [errorJson] (gw's
 * `{"error":{...}}`, or a vendor's whole body for GW_VENDOR) gives message, type and code.
 */
internal fun gwError(status: Int, errorJson: String?, meta: ResponseMeta?): GwException {
    val body = errorJson?.let { runCatching { Json.parseToJsonElement(it) as? JsonObject }.getOrNull() }
    val inner = body?.get("error") as? JsonObject
    fun text(o: JsonObject?, key: String) = (o?.get(key) as? JsonPrimitive)?.contentOrNull
    val message = text(inner, "message")
        ?: text(body, "message")
        ?: text(body, "description")
        ?: text(body, "failure")
        ?: errorJson?.take(200)?.takeIf { it.isNotBlank() }
        ?: "gw call failed"
    val parts = ErrorParts(
        type = text(inner, "type"),
        code = text(inner, "code") ?: text(body, "code"),
        // A vendor failure keeps the vendor's whole body: the caller may need its fields.
        error = if (status == -6) body else inner ?: body,
        response = meta,
    )
    return when (status) {
        -1 -> GwException.InvalidArgument(message, parts)
        -2 -> GwException.Network(message, parts)
        -3 -> GwException.Timeout(message, parts)
        -4 -> GwException.Decode(message, parts)
        -5 -> GwException.Cancelled(message, parts)
        -6 -> GwException.Vendor(message, parts)
        -7 -> GwException.Stream(message, parts)
        -8 -> GwException.TooLarge(message, parts)
        400 -> GwException.BadRequest(message, parts)
        401 -> GwException.Unauthorized(message, parts)
        403 -> GwException.Forbidden(message, parts)
        404 -> GwException.NotFound(message, parts)
        429 -> GwException.RateLimited(message, parts)
        in 100..599 -> GwException.Gateway(status, message, parts)
        else -> GwException.Internal(status, message, parts)
    }
}
