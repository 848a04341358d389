package dev.gw

import java.util.concurrent.atomic.AtomicLong

/**
 * Live native objects this process holds through the binding: what a leak check compares
 * before and after. Every count goes up when gw hands an object out and down when the
 * binding frees it, whatever path (success, error, cancellation, close, Cleaner) it takes.
 */
object GwDiagnostics {
    internal val clients = AtomicLong()
    internal val callHandles = AtomicLong()
    internal val streams = AtomicLong()

    /** Base handles (one per open [GwClient]). */
    val openClients: Long get() = clients.get()

    /** Per-call handles derived from a base: one per call or stream in flight. */
    val openCallHandles: Long get() = callHandles.get()

    /** Pull streams not yet freed. */
    val openStreams: Long get() = streams.get()

    /** All three, e.g. `assertEquals(before, GwDiagnostics.snapshot())`. */
    fun snapshot(): Triple<Long, Long, Long> = Triple(openClients, openCallHandles, openStreams)
}
