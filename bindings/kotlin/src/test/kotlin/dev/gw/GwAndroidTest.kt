package dev.gw

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertInstanceOf
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.io.File

/**
 * GwAndroid.init off Android: a clear GwException, never an UnsatisfiedLinkError or a crash.
 * (On a device it is untested: bindings/kotlin/README.md, "Android".)
 */
class GwAndroidTest {
    @Test
    fun `init on a plain JVM says it is not Android`() {
        val e = assertThrows<GwException.InvalidArgument> { GwAndroid.init(Any()) }
        assertEquals("not_android", e.code)
        assertTrue(e.message!!.contains("GwAndroid.init: this JVM") && e.message!!.contains("is not Android"), e.message)
    }

    @Test
    fun `an object that is not the Context class is refused before any native call`() {
        val e = assertThrows<GwException.InvalidArgument> {
            GwAndroid.initWith("text", "java.lang.Integer") { error("libgw must not be loaded for a wrong context") }
        }
        assertEquals("not_a_context", e.code)
        assertTrue(e.message!!.contains("context must be an java.lang.Integer (got java.lang.String)"), e.message)
    }

    @Test
    fun `the desktop libgw has no Android entry point and that is a GwException`() {
        // The Linux libgw.so, loaded as Android's System.loadLibrary would: JNI then finds no
        // Java_dev_gw_GwAndroid_nativeInit (it is compiled for Android only).
        val lib = File(System.getProperty("jna.library.path"), System.mapLibraryName("gw"))
        assertTrue(lib.isFile, "libgw at $lib")
        val e = assertThrows<GwException.Internal> {
            GwAndroid.initWith(Any(), "java.lang.Object") { System.load(lib.absolutePath) }
        }
        assertEquals("android_init", e.code)
        assertTrue(e.message!!.contains("has no Android entry point"), e.message)
        assertInstanceOf(UnsatisfiedLinkError::class.java, e.cause)
        assertTrue(e.cause!!.message!!.contains("nativeInit"), e.cause!!.message)
    }

    @Test
    fun `a library that cannot be loaded is a GwException too`() {
        val e = assertThrows<GwException.Internal> {
            GwAndroid.initWith(Any(), "java.lang.Object") { System.loadLibrary("gw-no-such-library") }
        }
        assertInstanceOf(UnsatisfiedLinkError::class.java, e.cause)
    }
}
