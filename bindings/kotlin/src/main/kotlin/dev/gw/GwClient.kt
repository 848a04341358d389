package dev.gw

import com.sun.jna.Pointer
import dev.gw.internal.BaseHandle
import dev.gw.internal.CallThreads
import dev.gw.internal.GwNative
import dev.gw.internal.OutSlots
import dev.gw.internal.SafetyNet
import dev.gw.internal.cString
import dev.gw.internal.cancelNativeOnCancellation
import dev.gw.internal.gwError
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.ensureActive
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject

/**
 * A client of the gateway: one gw_client (one connection pool) shared by every call.
 *
 * Safe to share between threads and coroutines. Each call runs on a handle derived for it
 * (its own cancellation, per-call options and response metadata), blocking one of the
 * client's own threads ([GwOptions.maxThreads], or [GwOptions.executor]), never one of
 * Dispatchers.IO; cancelling the coroutine cancels the native call. [close] frees the
 * native client once the calls in flight have returned; a [java.lang.ref.Cleaner] frees
 * it if the client is dropped unclosed. The operations are extension functions grouped by
 * area (TextApi.kt, ImageApi.kt, VideoApi.kt, VendorApi.kt).
 */
class GwClient private constructor(optionsJson: String, threads: () -> CallThreads) : AutoCloseable {
    /** A client from typed options (all defaults: base URL and key from the environment). */
    constructor(options: GwOptions = GwOptions()) :
        this(options.toJson().toString(), { CallThreads.of(options.maxThreads, options.executor) })

    /**
     * A client from gw's options JSON as is, e.g. read from a config file; its calls run on a
     * pool of at most [maxThreads] threads of its own (see [GwOptions.maxThreads]).
     */
    @JvmOverloads
    constructor(options: JsonObject, maxThreads: Int = CallThreads.DEFAULT_MAX_THREADS) :
        this(options.toString(), { CallThreads.of(maxThreads, null) })

    /** Where this client's blocking gw calls run (the pool, or the app's executor), and how many at once. */
    internal val threads: CallThreads = threads()
    internal val dispatcher: CoroutineDispatcher get() = threads.dispatcher

    private val base: BaseHandle
    private val closer: Runnable

    init {
        base = BaseHandle(create(optionsJson))
        closer = SafetyNet.register(this, base)
    }

    private val blockingApi by lazy { GwBlocking(this) }
    private val asyncApi by lazy { GwAsync(this) }

    /** The operations as blocking methods (Java, or Kotlin outside coroutines). */
    fun blocking(): GwBlocking = blockingApi

    /** The operations as CompletableFutures (Java). */
    fun async(): GwAsync = asyncApi

    /** True once [close] ran; calls then throw [GwException.Closed]. */
    val isClosed: Boolean get() = base.isClosed

    /** Refuses new calls; the native client is freed when the calls in flight return. Idempotent. */
    override fun close() = closer.run()

    override fun toString(): String = "GwClient(closed=$isClosed)"

    /**
     * Runs [block] with a per-call handle derived from the base, freed afterwards whatever
     * happens. The base stays referenced meanwhile, so a concurrent close() waits for us.
     */
    internal suspend fun <T> withCallHandle(options: CallOptions, block: suspend (Pointer) -> T): T {
        val handle = openCallHandle(options)
        try {
            return block(handle)
        } finally {
            closeCallHandle(handle)
        }
    }

    /** A call handle derived from the base, which stays referenced until [closeCallHandle]. */
    internal fun openCallHandle(options: CallOptions): Pointer {
        if (!base.acquire()) throw GwException.Closed()
        try {
            return derive(options)
        } catch (t: Throwable) {
            base.release()
            throw t
        }
    }

    internal fun closeCallHandle(handle: Pointer) {
        GwNative.gw_client_free(handle)
        GwDiagnostics.callHandles.decrementAndGet()
        base.release()
    }

    /**
     * One blocking gw call on its own handle, on [dispatcher]: [invoke] gets the handle
     * and the `char **out` slot and returns gw's status. Returns the answer text; throws the
     * [GwException] for a failure, the coroutine's CancellationException when it was cancelled.
     */
    internal suspend fun callText(options: CallOptions, invoke: (Pointer, Pointer) -> Int): String =
        threads.runCall {
            withCallHandle(options) { handle ->
                val out = OutSlots(1)
                try {
                    val status = cancelNativeOnCancellation(handle) { invoke(handle, out.slot(0)) }
                    val text = out.takeString(0)
                    // A cancelled coroutine ends with its own exception, not GwException.Cancelled.
                    currentCoroutineContext().ensureActive()
                    if (status != GwNative.GW_OK) throw gwError(status, text, lastResponse(handle))
                    options.onResponse?.let { report -> lastResponse(handle)?.let(report) }
                    text ?: throw gwError(-4, "gw returned GW_OK without an answer", null)
                } finally {
                    out.takeString(0)
                    out.close()
                }
            }
        }

    /** [callText] for answers that are JSON objects (every operation but [request]). */
    internal suspend fun callObject(options: CallOptions, invoke: (Pointer, Pointer) -> Int): JsonObject =
        parseAnswer(callText(options, invoke)) as? JsonObject
            ?: throw gwError(-4, "the answer is not a JSON object", null)

    /** The common shape `int gw_xxx(client, request_json, out)` with a JSON request. */
    internal suspend fun postJson(
        request: JsonObject,
        options: CallOptions,
        fn: (Pointer, ByteArray?, Pointer) -> Int,
    ): JsonObject {
        val body = cString(request.toString(), "request")
        return callObject(options) { h, out -> fn(h, body, out) }
    }

    internal fun parseAnswer(text: String): JsonElement =
        try {
            GwJson.parseToJsonElement(text)
        } catch (e: IllegalArgumentException) {
            throw gwError(-4, "gw returned invalid JSON: ${e.message}", null)
        }

    private fun derive(options: CallOptions): Pointer {
        val json = options.toJsonOrNull()?.toString()
        val slots = OutSlots(2)
        try {
            val status = GwNative.gw_client_create_derived(
                base.pointer, json?.let { cString(it, "call options") }, slots.slot(0), slots.slot(1),
            )
            val err = slots.takeString(1)
            val handle = slots.pointer(0)
            if (status != GwNative.GW_OK || handle == null) {
                GwNative.gw_client_free(handle)
                throw gwError(if (status == 0) -99 else status, err, null)
            }
            GwDiagnostics.callHandles.incrementAndGet()
            return handle
        } finally {
            slots.takeString(1)
            slots.close()
        }
    }

    internal companion object {
        /** The metadata of the last exchange finished on [handle], or null when none did. */
        fun lastResponse(handle: Pointer): ResponseMeta? {
            val out = OutSlots(1)
            try {
                if (GwNative.gw_client_last_response(handle, out.slot(0)) != GwNative.GW_OK) return null
                val text = out.takeString(0) ?: return null
                val json = GwJson.parseToJsonElement(text)
                return if (json is JsonNull) null else ResponseMeta.parse(json as? JsonObject)
            } finally {
                out.takeString(0)
                out.close()
            }
        }

        private fun create(optionsJson: String): Pointer {
            val slots = OutSlots(2)
            try {
                val status = GwNative.gw_client_create(cString(optionsJson, "options"), slots.slot(0), slots.slot(1))
                val err = slots.takeString(1)
                val handle = slots.pointer(0)
                if (status != GwNative.GW_OK || handle == null) {
                    GwNative.gw_client_free(handle)
                    throw gwError(if (status == 0) -99 else status, err, null)
                }
                GwDiagnostics.clients.incrementAndGet()
                return handle
            } finally {
                slots.takeString(1)
                slots.close()
            }
        }
    }
}
