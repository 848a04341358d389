package dev.gw.internal

/**
 * The Cleaner behind GwClient.close(): frees a client the app forgot to close once it is
 * unreachable. java.lang.ref.Cleaner exists on the JVM 9+ and on Android from API 33; where
 * it is missing the client still works and close() is the only way to free it.
 */
internal object SafetyNet {
    private val cleaner: Any? = try {
        java.lang.ref.Cleaner.create()
    } catch (_: Throwable) {
        null // NoClassDefFoundError on older Android
    }

    /** Registers [action] to run once when [owner] is unreachable; returns what close() calls. */
    fun register(owner: Any, action: Runnable): Runnable {
        // Null check first: the cast must not even be attempted where the class is missing.
        val c = cleaner ?: return action
        val cleanable = (c as java.lang.ref.Cleaner).register(owner, action)
        return Runnable { cleanable.clean() }
    }
}
