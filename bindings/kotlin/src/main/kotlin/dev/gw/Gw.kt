package dev.gw

import com.sun.jna.Native
import com.sun.jna.Pointer
import dev.gw.internal.GwNative
import dev.gw.internal.OutSlots
import dev.gw.internal.cString
import dev.gw.internal.staticString
import kotlinx.serialization.json.JsonObject

/** Library-wide functions of gw: version, status names, logging, embedding decoding. */
object Gw {
    /** The native library's version, e.g. "0.1.0". */
    @JvmStatic val version: String get() = staticString(GwNative.gw_version())

    /** gw's name of a status, e.g. "GW_TIMEOUT", "GW_RATE_LIMITED", "GW_HTTP_STATUS". */
    @JvmStatic fun statusName(status: Int): String = staticString(GwNative.gw_status_str(status))

    /** Log levels of [setLogger], as gw numbers them. */
    enum class LogLevel(val native: Int) { ERROR(1), WARN(2), INFO(3), DEBUG(4), TRACE(5) }

    // The callback gw holds must stay strongly reachable while installed, or JNA frees it.
    @Volatile private var installed: GwNative.LogCallback? = null

    /**
     * Sends gw's log lines (one per attempt, retry, redirect, stream end, failure; keys
     * redacted) up to [maxLevel] to [logger], or turns logging off when [logger] is null.
     * Process-wide. [logger] runs on the thread of the gw call, so keep it short; what it
     * throws is dropped (a logger must not break a call).
     */
    @JvmStatic fun setLogger(maxLevel: LogLevel = LogLevel.INFO, logger: ((LogLevel, String) -> Unit)?) {
        synchronized(this) {
            if (logger == null) {
                GwNative.gw_set_logger(null, null, 0)
                installed = null
                return
            }
            val levels = LogLevel.entries
            val cb = GwNative.LogCallback { level, message, _ ->
                try {
                    val lvl = levels.firstOrNull { it.native == level } ?: LogLevel.TRACE
                    logger(lvl, message?.getString(0, "UTF-8") ?: "")
                } catch (_: Throwable) {
                    // Dropped on purpose: see the doc comment.
                }
            }
            GwNative.gw_set_logger(cb, null, maxLevel.native)
            installed = cb
        }
    }

    /**
     * [setLogger] for Java: `Gw.setJavaLogger(Gw.LogLevel.INFO, (level, line) -> log.info(line))`;
     * null turns logging off.
     */
    @JvmStatic fun setJavaLogger(maxLevel: LogLevel, listener: java.util.function.BiConsumer<LogLevel, String>?) =
        setLogger(maxLevel, listener?.let { l -> { level: LogLevel, line: String -> l.accept(level, line) } })

    /**
     * A JSON object from its text, for requests and options given as JSON (handy from Java,
     * where kotlinx.serialization's builders are awkward). Not an object: InvalidArgument.
     */
    @JvmStatic fun json(text: String): JsonObject =
        try {
            GwJson.parseToJsonElement(text) as? JsonObject
        } catch (e: IllegalArgumentException) {
            null
        } ?: throw GwException.InvalidArgument("json: not a JSON object: ${text.take(80)}")

    /**
     * Decodes an embedding sent with `"encoding_format": "base64"` (little-endian float32s)
     * with gw's own decoder. The model classes decode in Kotlin (EmbeddingVector); this is the
     * same operation for raw JSON answers.
     */
    @JvmStatic fun decodeEmbedding(base64: String): FloatArray {
        val slots = OutSlots(2)
        try {
            val status = GwNative.gw_embedding_decode(cString(base64, "base64"), slots.slot(0), slots.slot(1))
            if (status != GwNative.GW_OK) {
                throw GwException.InvalidArgument(
                    "base64: not an embedding (invalid base64, or a byte count that is not a multiple of 4)",
                )
            }
            val floats: Pointer? = slots.pointer(0)
            val count = if (Native.SIZE_T_SIZE == 8) slots.slot(1).getLong(0) else slots.slot(1).getInt(0).toLong()
            if (floats == null) return FloatArray(0)
            try {
                return floats.getFloatArray(0, count.toInt())
            } finally {
                GwNative.gw_free(floats)
            }
        } finally {
            slots.close()
        }
    }
}
