package dev.gw

/**
 * Android only: gives gw the app's `Context`, which `"tls_verifier": "platform"` (the system
 * trust store, with user-added CAs as the app's network security config allows) needs there:
 * rustls-platform-verifier asks Android's trust manager through the JVM.
 *
 * Call it once, before the first [GwClient] with `tls_verifier` "platform" is made, e.g. in
 * `Application.onCreate`: `GwAndroid.init(this)` (Java: `GwAndroid.init(this);`). Later calls
 * do nothing more (the first `Context` is kept; the application context is the right one).
 * Before it, such a client is refused with a [GwException.InvalidArgument] naming this call.
 * The default verifier (gw's built-in roots) needs no init.
 *
 * [context] is `Any` so this jar compiles and loads without android.jar; anything but an
 * `android.content.Context` is refused. On a JVM that is not Android it throws
 * [GwException.InvalidArgument]: the platform verifier of a desktop or server JVM needs no
 * init. Untested on a device by this project (bindings/kotlin/README.md, "Android").
 */
object GwAndroid {
    // Statuses of nativeInit: INIT_* of src/android/jni_init.rs, keep in step.
    private const val INIT_OK = 0
    private const val INIT_NULL_CONTEXT = 1
    private const val INIT_JAVA_EXCEPTION = 2
    private const val INIT_JNI_ERROR = 3
    private const val INIT_PANIC = 4
    private const val INIT_NO_PLATFORM_VERIFIER = 5

    private const val GW_INTERNAL = -99

    /** Gives the platform verifier the app's [context] (an `android.content.Context`). */
    @JvmStatic
    fun init(context: Any) = initWith(context, "android.content.Context") { System.loadLibrary("gw") }

    /**
     * [init] with the context's class and the loading of libgw given, so the JVM suite can
     * reach the native call off Android (GwAndroidTest).
     */
    @Synchronized
    internal fun initWith(context: Any, contextClass: String, loadLibrary: () -> Unit) {
        val expected = try {
            Class.forName(contextClass)
        } catch (_: ClassNotFoundException) {
            throw GwException.InvalidArgument(
                "GwAndroid.init: this JVM (${System.getProperty("java.vm.name")}) is not Android; " +
                    "tls_verifier \"platform\" needs no init here",
                GwException.ErrorParts("invalid_request_error", "not_android"),
            )
        }
        if (!expected.isInstance(context)) {
            throw GwException.InvalidArgument(
                "GwAndroid.init: context must be an $contextClass (got ${context.javaClass.name})",
                GwException.ErrorParts("invalid_request_error", "not_a_context"),
            )
        }
        val status = try {
            // JNI resolves nativeInit in libraries loaded through System.loadLibrary, not in
            // the copy JNA opened (the same libgw.so, opened again: no second instance).
            loadLibrary()
            nativeInit(context)
        } catch (e: UnsatisfiedLinkError) {
            throw internal(
                "libgw cannot be loaded or has no Android entry point; use the libgw.so of " +
                    "gw-kotlin-android's AAR for this ABI (scripts/build-android.sh)",
                e,
            )
        }
        when (status) {
            INIT_OK -> return
            INIT_NULL_CONTEXT -> throw GwException.InvalidArgument("GwAndroid.init: context is null")
            INIT_JAVA_EXCEPTION -> throw internal(
                "the platform verifier's setup threw a Java exception (printed to logcat); " +
                    "pass the application Context",
                null,
            )
            INIT_NO_PLATFORM_VERIFIER -> throw internal(
                "this libgw was built without the cargo feature platform-verifier " +
                    "(scripts/build-android.sh enables it)",
                null,
            )
            INIT_JNI_ERROR -> throw internal("a JNI call failed", null)
            INIT_PANIC -> throw internal("gw panicked (a bug in gw; the panic was caught)", null)
            else -> throw internal("unknown status $status of the native library", null)
        }
    }

    private fun internal(why: String, cause: Throwable?): GwException =
        GwException.Internal(GW_INTERNAL, "GwAndroid.init: $why", GwException.ErrorParts("internal_error", "android_init"))
            .apply { if (cause != null) initCause(cause) }

    /** `Java_dev_gw_GwAndroid_nativeInit` (src/android/jni_init.rs); checked by test-android-package. */
    @JvmStatic
    private external fun nativeInit(context: Any): Int
}
