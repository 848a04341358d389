package dev.gw.internal

import com.sun.jna.Memory
import com.sun.jna.Native
import com.sun.jna.Pointer
import dev.gw.GwException

/** A Kotlin string as the NUL-terminated UTF-8 bytes gw reads; `what` names it in errors. */
internal fun cString(value: String, what: String): ByteArray {
    // C would silently stop at an embedded NUL: refuse instead of sending a shorter text.
    if (value.indexOf('\u0000') >= 0) {
        throw GwException.InvalidArgument("$what: contains a NUL character")
    }
    val utf8 = value.toByteArray(Charsets.UTF_8)
    return utf8.copyOf(utf8.size + 1)
}

/** A static C string owned by gw (gw_version, gw_status_str): read, never freed. */
internal fun staticString(p: Pointer?): String = p?.getString(0, "UTF-8") ?: ""

/**
 * Pointer-sized out-parameter slots (`char **out`, `gw_client **client`, ...) in one zeroed
 * native block. [takeString] reads a string gw wrote there and gw_free()s it; [close] frees
 * the block only, so the caller takes every string slot (in a finally) before closing.
 */
internal class OutSlots(count: Int) : AutoCloseable {
    private val mem = Memory(Native.POINTER_SIZE.toLong() * count).also { it.clear() }

    fun slot(i: Int): Pointer = mem.share(offset(i))

    fun pointer(i: Int): Pointer? = mem.getPointer(offset(i))

    /** The string in slot [i], freed with gw_free; null when gw left the slot NULL. */
    fun takeString(i: Int): String? {
        val p = pointer(i) ?: return null
        mem.setPointer(offset(i), null)
        try {
            return p.getString(0, "UTF-8")
        } finally {
            GwNative.gw_free(p)
        }
    }

    override fun close() = mem.close()

    private fun offset(i: Int) = Native.POINTER_SIZE.toLong() * i
}
