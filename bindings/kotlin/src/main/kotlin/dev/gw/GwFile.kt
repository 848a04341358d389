package dev.gw

import java.io.File
import java.io.IOException
import java.nio.file.Files
import java.nio.file.Path

/**
 * A file for a multipart upload (image edits with an image and a mask): the bytes, the name
 * sent in the form and its MIME type. From a [ByteArray], a [File] or a [Path]; for files the
 * name is the file's and the type is guessed from the extension (png, jpg, webp, gif).
 */
class GwFile @JvmOverloads constructor(
    val bytes: ByteArray,
    val filename: String? = null,
    val contentType: String? = null,
) {
    override fun toString() = "GwFile($filename, $contentType, ${bytes.size} bytes)"

    companion object {
        /** Reads [path] now; an unreadable file is a [GwException.InvalidArgument] naming it. */
        @JvmStatic @JvmOverloads
        fun of(path: Path, contentType: String? = null): GwFile {
            val bytes = try {
                Files.readAllBytes(path)
            } catch (e: IOException) {
                throw GwException.InvalidArgument("file $path: cannot be read (${e.javaClass.simpleName}: ${e.message})")
            }
            val name = path.fileName?.toString()
            return GwFile(bytes, name, contentType ?: name?.let(::guessType))
        }

        @JvmStatic @JvmOverloads
        fun of(file: File, contentType: String? = null): GwFile = of(file.toPath(), contentType)

        private fun guessType(name: String): String? = when (name.substringAfterLast('.', "").lowercase()) {
            "png" -> "image/png"
            "jpg", "jpeg" -> "image/jpeg"
            "webp" -> "image/webp"
            "gif" -> "image/gif"
            else -> null
        }
    }
}
