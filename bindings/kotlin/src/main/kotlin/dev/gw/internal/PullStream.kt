package dev.gw.internal

import com.sun.jna.Native
import com.sun.jna.Pointer
import dev.gw.CallOptions
import dev.gw.GwClient
import dev.gw.GwDiagnostics
import dev.gw.GwEvent
import dev.gw.GwException
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.flow.catch
import kotlinx.coroutines.flow.flowOn
import kotlinx.serialization.json.JsonObject

/**
 * A pull stream (gw_*_stream_open, gw_stream_next, gw_stream_finish, gw_stream_free) as a
 * cold Flow: each collection opens its own stream on its own derived handle. The blocking
 * pulls run on the client's own threads (GwClient.dispatcher); when the collector stops early (cancellation, take(n), an
 * exception) the handle is cancelled, the stream and the handle are freed.
 *
 * [open] gets the call handle, the `gw_stream **` slot and the `char **out` slot.
 *
 * A failure travels through flowOn's buffer as an item, behind the events before it: thrown
 * on the producing side it would cancel the collector and drop the events still buffered.
 */
internal fun pullStream(
    client: GwClient,
    options: CallOptions,
    open: (Pointer, Pointer, Pointer) -> Int,
): Flow<GwEvent> {
    val produced = produce(client, options, open)
        .catch { emit(Failure(it)) }
        .flowOn(client.dispatcher)
    // The permit is taken here, before the producer moves to a gw thread (see CallThreads).
    return flow {
        client.threads.holding {
            produced.collect { if (it is Failure) throw it.error else emit(it as GwEvent) }
        }
    }
}

/** A failure of the producing side, delivered in order after the items before it. */
internal class Failure(val error: Throwable)

private fun produce(
    client: GwClient,
    options: CallOptions,
    open: (Pointer, Pointer, Pointer) -> Int,
): Flow<Any> = flow {
    client.withCallHandle(options) { handle ->
        cancelNativeOnCancellation(handle) {
            PullSession(client, handle).use { session ->
                try {
                    session.open(open)
                    while (true) emit(session.next() ?: break)
                    val done = session.finish()
                    currentCoroutineContext().ensureActive()
                    done.response?.let { options.onResponse?.invoke(it) }
                    emit(done)
                } catch (e: GwException) {
                    // A cancelled coroutine ends with its own exception, not GW_CANCELLED.
                    currentCoroutineContext().ensureActive()
                    throw e
                }
            }
        }
    }
}

/**
 * One gw pull stream on a call handle the caller owns: [open], [next] until null, [finish],
 * then [close] (which frees the stream, dropping its connection if it did not end). Used
 * from one thread at a time; only gw_client_cancel on the handle may come from another.
 */
internal class PullSession(private val client: GwClient, private val handle: Pointer) : AutoCloseable {
    private val ptrs = OutSlots(2) // 0: the stream, 1: the current event
    private val text = OutSlots(1) // error JSON or the final object
    private var stream: Pointer? = null

    fun open(open: (Pointer, Pointer, Pointer) -> Int) {
        val opened = open(handle, ptrs.slot(0), text.slot(0))
        stream = ptrs.pointer(0)
        if (stream != null) GwDiagnostics.streams.incrementAndGet()
        val openErr = text.takeString(0)
        if (opened != GwNative.GW_OK || stream == null) {
            throw gwError(if (opened == 0) -99 else opened, openErr, GwClient.lastResponse(handle))
        }
    }

    /** The next event, or null once the stream ended well (then [finish]). */
    fun next(): GwEvent.Chunk? {
        val s = stream ?: throw IllegalStateException("the stream is not open")
        val status = GwNative.gw_stream_next(s, ptrs.slot(1))
        if (status == GwNative.GW_DONE) return null
        if (status != GwNative.GW_OK) {
            // The error JSON of a failed stream comes from finish.
            GwNative.gw_stream_finish(s, text.slot(0))
            val err = text.takeString(0)
            throw gwError(status, err, GwClient.lastResponse(handle))
        }
        val event = ptrs.pointer(1) ?: throw gwError(-99, "gw_stream_next gave no event", null)
        return readEvent(event)
    }

    /** The assembled result, after [next] returned null. */
    fun finish(): GwEvent.Done {
        val s = stream ?: throw IllegalStateException("the stream is not open")
        val finished = GwNative.gw_stream_finish(s, text.slot(0))
        val answer = text.takeString(0)
        val meta = GwClient.lastResponse(handle)
        if (finished != GwNative.GW_OK) throw gwError(finished, answer, meta)
        val result = answer?.let { client.parseAnswer(it) } as? JsonObject
            ?: throw gwError(-4, "the stream's result is not a JSON object", meta)
        return GwEvent.Done(result, meta)
    }

    override fun close() {
        stream?.let {
            GwNative.gw_stream_free(it)
            GwDiagnostics.streams.decrementAndGet()
        }
        stream = null
        text.takeString(0)
        text.close()
        ptrs.close()
    }
}

// gw_event's layout (gw.h): event, data, data_len, text_delta, text_delta_len, index,
// choice_index; pointers and size_t in that order, naturally aligned.
private val P = Native.POINTER_SIZE.toLong()
private val S = Native.SIZE_T_SIZE.toLong()

private fun Pointer.sizeAt(offset: Long): Long = if (S == 8L) getLong(offset) else getInt(offset).toLong() and 0xffffffffL

/** Copies the event gw owns (valid until the next pull) into Kotlin objects. */
private fun readEvent(e: Pointer): GwEvent.Chunk {
    val name = e.getPointer(0)?.getString(0, "UTF-8") ?: ""
    val dataLen = e.sizeAt(2 * P)
    val data = e.getPointer(P)?.let { String(it.getByteArray(0, checkedLen(dataLen)), Charsets.UTF_8) } ?: ""
    val deltaPtr = e.getPointer(2 * P + S)
    val delta = deltaPtr?.let { String(it.getByteArray(0, checkedLen(e.sizeAt(3 * P + S))), Charsets.UTF_8) }
    return GwEvent.Chunk(
        event = name,
        dataText = data,
        textDelta = delta,
        index = e.sizeAt(3 * P + 2 * S),
        choiceIndex = e.sizeAt(3 * P + 3 * S).toInt(),
    )
}

private fun checkedLen(len: Long): Int {
    if (len > Int.MAX_VALUE) throw GwException.TooLarge("a stream event over 2 GiB", GwException.ErrorParts())
    return len.toInt()
}
