package dev.gw.internal

import com.sun.jna.Pointer
import kotlinx.coroutines.Job
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.job

/**
 * Runs [block] (which blocks in gw on [handle]) so that cancelling the calling coroutine
 * calls gw_client_cancel(handle): gw then returns GW_CANCELLED within ~50 ms and the caller
 * ends with its CancellationException.
 *
 * Why a child Job and not a watcher coroutine: a cancelled child Job with no body completes
 * at once, and its completion handler runs synchronously on the cancelling thread, so the
 * cancel never waits for a free thread (the client's threads may all be blocked in gw).
 * The lock makes "block returned" and "cancel sent" exclusive: once this function returns,
 * nothing touches [handle] again and the caller may free it.
 */
internal suspend inline fun <T> cancelNativeOnCancellation(handle: Pointer, block: () -> T): T {
    val lock = Any()
    var done = false
    val watcher = Job(currentCoroutineContext().job)
    watcher.invokeOnCompletion { cause ->
        if (cause != null) synchronized(lock) { if (!done) GwNative.gw_client_cancel(handle) }
    }
    try {
        return block()
    } finally {
        synchronized(lock) { done = true }
        watcher.complete()
    }
}
