package dev.gw

import com.sun.jna.Pointer
import dev.gw.internal.GwNative
import dev.gw.internal.PullSession
import kotlinx.serialization.json.JsonObject

/**
 * A stream for blocking code (Java, or Kotlin outside coroutines), from
 * `gw.blocking().chatStream(...)`: the gateway's events as an [Iterable] of
 * [GwEvent.Chunk]s pulled on the iterating thread, then [result], the answer gw assembled.
 *
 * ```java
 * try (GwStream<ChatCompletion> stream = gw.blocking().chatStream(request)) {
 *     for (GwEvent.Chunk chunk : stream) { ... chunk.getTextDelta() ... }
 *     ChatCompletion answer = stream.result();
 * }
 * ```
 *
 * The request was sent and the answer's headers read when the stream was made (an HTTP
 * error is thrown there). Iterable once. A stream that fails throws its [GwException] from
 * the iterator. [close] before the end drops the connection; from another thread it also
 * ends a pull blocked waiting for the gateway (the iteration then just ends). Close it
 * (try-with-resources): a stream read to its end frees itself, one dropped midway does not.
 */
class GwStream<T> internal constructor(
    private val client: GwClient,
    private val options: CallOptions,
    private val decode: (JsonObject) -> T,
    open: (Pointer, Pointer, Pointer) -> Int,
) : Iterable<GwEvent.Chunk>, AutoCloseable {
    private val lock = Any()
    private val handle: Pointer = client.openCallHandle(options)
    private val session = PullSession(client, handle)

    // All under [lock]: a pull in progress, close() called, native side freed, how it ended.
    private var pulling = false
    private var closed = false
    private var released = false
    private var iterated = false
    private var done: GwEvent.Done? = null
    private var failure: Throwable? = null

    init {
        try {
            session.open(open)
        } catch (t: Throwable) {
            synchronized(lock) { releaseLocked() }
            throw t
        }
    }

    override fun iterator(): Iterator<GwEvent.Chunk> {
        synchronized(lock) {
            check(!iterated) { "a GwStream can be iterated only once" }
            iterated = true
        }
        return object : Iterator<GwEvent.Chunk> {
            private var ahead: GwEvent.Chunk? = null

            override fun hasNext(): Boolean {
                if (ahead == null) ahead = pull()
                return ahead != null
            }

            override fun next(): GwEvent.Chunk {
                if (!hasNext()) throw NoSuchElementException("the stream has ended")
                return ahead!!.also { ahead = null }
            }
        }
    }

    /**
     * The answer gw assembled from the events (the `chat.completion`, or the Responses
     * `response`). Reads, and drops, the events not iterated yet. Throws the stream's
     * [GwException] when it failed, IllegalStateException when it was closed before its end.
     */
    fun result(): T {
        while (pull() != null) {
            // Draining: the caller asked for the whole answer only.
        }
        val ended = synchronized(lock) { done ?: failure?.let { throw it } }
            ?: throw IllegalStateException("the stream was closed before its end")
        return decode(ended.result)
    }

    /** The HTTP exchange behind the stream, once it ended well (null before). */
    fun response(): ResponseMeta? = synchronized(lock) { done?.response }

    /** Ends the stream: frees it, dropping the connection if the gateway was still sending. Idempotent. */
    override fun close() {
        synchronized(lock) {
            if (closed) return
            closed = true
            // A pull in progress on another thread: make gw return now; that thread frees.
            if (pulling) GwNative.gw_client_cancel(handle) else releaseLocked()
        }
    }

    /** The next event; null once the stream ended well or was closed. */
    private fun pull(): GwEvent.Chunk? {
        synchronized(lock) {
            failure?.let { throw it }
            if (released) return null
            pulling = true
        }
        var ended = true
        try {
            val chunk = session.next()
            if (chunk == null) {
                val finished = session.finish()
                finished.response?.let { options.onResponse?.invoke(it) }
                synchronized(lock) { done = finished }
            } else {
                ended = false
            }
            return chunk
        } catch (e: GwException) {
            synchronized(lock) {
                if (closed) return null // the cancel of our own close(): not a failure
                failure = e
            }
            throw e
        } finally {
            synchronized(lock) {
                pulling = false
                if (ended || closed) releaseLocked()
            }
        }
    }

    private fun releaseLocked() {
        if (released) return
        released = true
        session.close()
        client.closeCallHandle(handle)
    }

    override fun toString() = "GwStream(ended=${done != null}, closed=$closed)"
}
