package dev.gw.internal

import com.sun.jna.Memory
import com.sun.jna.Native
import com.sun.jna.Pointer
import dev.gw.GwFile

/**
 * A [GwFile] laid out as gw_file in native memory, with copies of the bytes and names:
 * struct_size, data, len, filename, content_type (pointers and size_t, naturally aligned).
 * Lives for one call; [close] frees it all.
 */
internal class NativeFile(file: GwFile, what: String) : AutoCloseable {
    private val blocks = ArrayList<Memory>(4)
    val pointer: Pointer

    init {
        val p = Native.POINTER_SIZE.toLong()
        val s = Native.SIZE_T_SIZE.toLong()
        val size = 3 * p + 2 * s
        val struct = alloc(size).also { it.clear() }
        // JNA refuses a 0-byte Memory; an empty file still needs a non-NULL data pointer.
        val data = alloc(maxOf(1, file.bytes.size).toLong())
        data.write(0, file.bytes, 0, file.bytes.size)
        putSize(struct, 0, size)
        struct.setPointer(s, data)
        putSize(struct, s + p, file.bytes.size.toLong())
        struct.setPointer(2 * s + p, file.filename?.let { text(it, "$what filename") })
        struct.setPointer(2 * s + 2 * p, file.contentType?.let { text(it, "$what content type") })
        pointer = struct
    }

    private fun alloc(size: Long) = Memory(size).also { blocks += it }

    private fun text(value: String, what: String): Memory {
        val bytes = cString(value, what)
        return alloc(bytes.size.toLong()).also { it.write(0, bytes, 0, bytes.size) }
    }

    private fun putSize(m: Memory, offset: Long, v: Long) {
        if (Native.SIZE_T_SIZE == 8) m.setLong(offset, v) else m.setInt(offset, v.toInt())
    }

    override fun close() = blocks.forEach { it.close() }
}
