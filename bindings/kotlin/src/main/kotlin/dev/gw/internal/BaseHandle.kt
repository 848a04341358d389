package dev.gw.internal

import com.sun.jna.Pointer
import dev.gw.GwDiagnostics
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicLong

/**
 * A GwClient's base gw_client and who uses it: the owner holds one reference, every call in
 * flight one more. Freed when the last goes, so close() (or the Cleaner) during calls never
 * frees a handle a call is still deriving from. Holds no reference to the GwClient, so the
 * Cleaner can run it after the client became unreachable.
 */
internal class BaseHandle(val pointer: Pointer) : Runnable {
    private val refs = AtomicLong(1)
    private val ownerReleased = AtomicBoolean(false)

    /** Takes a reference for a call; false once the client is closed. */
    fun acquire(): Boolean {
        while (true) {
            val n = refs.get()
            if (n == 0L || ownerReleased.get()) return false
            if (refs.compareAndSet(n, n + 1)) return true
        }
    }

    fun release() {
        if (refs.decrementAndGet() == 0L) {
            GwNative.gw_client_free(pointer)
            GwDiagnostics.clients.decrementAndGet()
        }
    }

    val isClosed: Boolean get() = ownerReleased.get()

    /** The owner's release: close() or the Cleaner; idempotent. */
    override fun run() {
        if (ownerReleased.compareAndSet(false, true)) release()
    }
}
