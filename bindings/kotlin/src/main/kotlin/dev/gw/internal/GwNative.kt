package dev.gw.internal

import com.sun.jna.Callback
import com.sun.jna.Native
import com.sun.jna.NativeLibrary
import com.sun.jna.Platform
import com.sun.jna.Pointer

/**
 * gw.h through JNA direct mapping: every function is a JVM `native` method bound once to
 * libgw, so a call costs about what JNI costs (no reflection, no proxy).
 *
 * Conventions of this file: `const char *` arguments are NUL-terminated UTF-8 [ByteArray]s
 * (see [cString]; a null array is a NULL pointer), so no platform charset is ever involved;
 * out-parameters (`char **`, `gw_client **`, ...) are [Pointer]s to pointer-sized slots.
 *
 * Which libgw is loaded, first found wins:
 *  1. `gw.library` (a path), when that system property is set;
 *  2. the copy bundled in this jar (`linux-x86-64/libgw.so`, ... : JNA's resource prefixes, as
 *     the release jar carries them), loaded by its own path (extracted from the jar when needed),
 *     so a stale system copy (an old `make install` in /usr/local/lib, LD_LIBRARY_PATH) never
 *     wins: JNA's own search for "gw" tries those before the classpath;
 *  3. "gw" on `jna.library.path` / the platform's usual places (jniLibs on Android).
 * Then the library's gw_version() must be the version this binding was built with.
 */
internal object GwNative {
    init {
        val explicit = System.getProperty("gw.library")
        val lib = try {
            if (!explicit.isNullOrEmpty()) {
                NativeLibrary.getInstance(explicit)
            } else {
                bundledLibrary() ?: NativeLibrary.getInstance("gw")
            }
        } catch (e: UnsatisfiedLinkError) {
            // JNA's own message lists every place it tried; say first what the user can do.
            throw UnsatisfiedLinkError(
                "gw: cannot load the native library (${explicit ?: "libgw"}): set -Dgw.library=/path/to/libgw.so, " +
                    "or -Djna.library.path=<dir>, or bundle it on the classpath (see the binding's README). " +
                    "JNA said: ${e.message}",
            )
        }
        // Before binding: another version of libgw then fails with this message, not with a
        // missing function.
        checkVersion(lib)
        Native.register(GwNative::class.java, lib)
    }

    /** The libgw this jar carries for this platform, or null when it carries none. */
    private fun bundledLibrary(): NativeLibrary? {
        val resource = "/" + Platform.RESOURCE_PREFIX + "/" + System.mapLibraryName("gw")
        if (GwNative::class.java.getResource(resource) == null) return null
        // A file: URL is used in place; one inside a jar is extracted to a temporary file.
        val file = Native.extractFromResourcePath(resource, GwNative::class.java.classLoader)
        return NativeLibrary.getInstance(file.absolutePath)
    }

    /**
     * The version this binding was built with (gw-kotlin.properties, filled in by Maven), or null
     * where the build did not fill it in.
     */
    private fun bindingVersion(): String? =
        GwNative::class.java.getResourceAsStream("/dev/gw/gw-kotlin.properties")?.use { stream ->
            java.util.Properties().apply { load(stream) }.getProperty("version")?.takeUnless { it.startsWith("\${") }
        }

    private fun checkVersion(lib: NativeLibrary) {
        val expected = bindingVersion() ?: return
        val actual = lib.getFunction("gw_version").invokeString(emptyArray(), false)
        if (actual != expected) {
            throw UnsatisfiedLinkError(
                "gw: the native library ${lib.file ?: lib.name} is gw $actual, but this binding (gw-kotlin) is " +
                    "$expected: use the libgw of the same release (remove -Dgw.library, or the old copy on the library path)",
            )
        }
    }

    /** gw_progress_cb: `int (*)(const char *status, const char *task_json, void *user_data)`. */
    fun interface ProgressCallback : Callback {
        fun invoke(status: Pointer?, taskJson: Pointer?, userData: Pointer?): Int
    }

    /** gw_log_cb: `void (*)(int level, const char *message, void *user_data)`. */
    fun interface LogCallback : Callback {
        fun invoke(level: Int, message: Pointer?, userData: Pointer?)
    }

    // Library-wide.
    @JvmStatic external fun gw_version(): Pointer?
    @JvmStatic external fun gw_status_str(status: Int): Pointer?
    @JvmStatic external fun gw_free(ptr: Pointer?)
    @JvmStatic external fun gw_embedding_decode(base64: ByteArray?, outFloats: Pointer, outLen: Pointer): Int
    @JvmStatic external fun gw_set_logger(cb: LogCallback?, userData: Pointer?, maxLevel: Int)

    // Handles.
    @JvmStatic external fun gw_client_create(options: ByteArray?, client: Pointer, errJson: Pointer): Int
    @JvmStatic external fun gw_client_create_derived(base: Pointer, options: ByteArray?, client: Pointer, errJson: Pointer): Int
    @JvmStatic external fun gw_client_cancel(client: Pointer)
    @JvmStatic external fun gw_client_free(client: Pointer?)
    @JvmStatic external fun gw_client_last_response(client: Pointer, out: Pointer): Int

    // Text.
    @JvmStatic external fun gw_chat(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_responses(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_embeddings(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_generate_content(client: Pointer, model: ByteArray?, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_request(client: Pointer, method: ByteArray?, path: ByteArray?, body: ByteArray?, out: Pointer): Int

    // Pull streams.
    @JvmStatic external fun gw_chat_stream_open(client: Pointer, request: ByteArray?, stream: Pointer, out: Pointer): Int
    @JvmStatic external fun gw_responses_stream_open(client: Pointer, request: ByteArray?, stream: Pointer, out: Pointer): Int
    @JvmStatic external fun gw_stream_next(stream: Pointer, event: Pointer): Int
    @JvmStatic external fun gw_stream_finish(stream: Pointer, out: Pointer): Int
    @JvmStatic external fun gw_stream_free(stream: Pointer?)

    // Images.
    @JvmStatic external fun gw_image_generate(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_image_edit(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_image_edit_upload(client: Pointer, request: ByteArray?, image: Pointer?, mask: Pointer?, out: Pointer): Int

    // Video.
    @JvmStatic external fun gw_video_create(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_video_generate(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_video_character(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_video_remix(client: Pointer, videoId: ByteArray?, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_video_status(client: Pointer, family: Int, taskId: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_video_wait(
        client: Pointer, family: Int, taskId: ByteArray?, waitOptions: ByteArray?,
        progress: ProgressCallback?, userData: Pointer?, out: Pointer,
    ): Int

    // Vendor operations.
    @JvmStatic external fun gw_vendor_k_text2video(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_k_image2video(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_k_multi_image2video(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_k_effects(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_k_extend(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_h_image_to_video(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_m_imagine(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_i_describe(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_i_generate(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_i_text_to_image(client: Pointer, request: ByteArray?, out: Pointer): Int
    @JvmStatic external fun gw_vendor_f_edit(client: Pointer, modelSlug: ByteArray?, request: ByteArray?, out: Pointer): Int

    const val GW_OK = 0
    const val GW_DONE = 1
    const val GW_INVALID_ARGUMENT = -1
    const val GW_CANCELLED = -5
}
