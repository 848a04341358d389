//! The JNI side of `dev.gw.GwAndroid.init(context)`: runs the platform verifier's initialiser
//! with the caller's `JNIEnv` and `Context` and turns every outcome into a status, never into
//! an unwind or an abort (a panic crossing a JNI frame aborts the app).
//!
//! Uses only `jni`, std and `super::PLATFORM_INIT` (the initialiser, or None when gw is built
//! without the platform verifier), so tests/android_jni_glue.rs compiles this very file on
//! Linux with a stand-in initialiser and calls the entry point from a real JVM. The library
//! compiles it for Android only (src/android/mod.rs): the Linux libgw.so carries no JNI code.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use jni::errors::Error as JniError;
use jni::objects::{JClass, JObject};
use jni::sys::jint;
use jni::{Env, EnvUnowned, Outcome};

// What `nativeInit` returns. dev.gw.GwAndroid (bindings/kotlin) maps each to a GwException
// with the same meaning: keep the two in step.
/// The initialiser ran (or had already run: later calls do nothing).
pub(crate) const INIT_OK: jint = 0;
/// `context` was null.
pub(crate) const INIT_NULL_CONTEXT: jint = 1;
/// A Java exception was thrown (e.g. the object has no `getClassLoader()`); it was printed
/// (logcat on Android) and cleared, so it does not surface in the caller.
pub(crate) const INIT_JAVA_EXCEPTION: jint = 2;
/// A JNI failure without a Java exception (no memory, a detached thread, ...).
pub(crate) const INIT_JNI_ERROR: jint = 3;
/// The initialiser panicked; the panic was caught.
pub(crate) const INIT_PANIC: jint = 4;
/// This libgw was built without the cargo feature `platform-verifier`.
pub(crate) const INIT_NO_PLATFORM_VERIFIER: jint = 5;

static VERIFIER_READY: AtomicBool = AtomicBool::new(false);

/// Whether `GwAndroid.init` has succeeded in this process: src/net/tls.rs refuses
/// `"tls_verifier": "platform"` before it, instead of letting the verifier panic at the
/// first handshake.
#[allow(dead_code)] // read by src/net/tls.rs only with the feature platform-verifier
pub(crate) fn verifier_ready() -> bool {
    VERIFIER_READY.load(Ordering::Acquire)
}

/// `private static native int nativeInit(Object context)` of `dev.gw.GwAndroid`: an `INIT_*`
/// status, never an exception or an abort. scripts/test-android-package.sh checks this name
/// against the compiled Kotlin class. Calling it again after a success does nothing more
/// (rustls-platform-verifier keeps the first `Context`) and returns INIT_OK.
#[no_mangle]
pub extern "system" fn Java_dev_gw_GwAndroid_nativeInit<'local>(
    env: EnvUnowned<'local>,
    _class: JClass<'local>,
    context: JObject<'local>,
) -> jint {
    let Some(init) = super::PLATFORM_INIT else {
        return INIT_NO_PLATFORM_VERIFIER;
    };
    let status = init_from_java(env, context, init);
    if status == INIT_OK {
        VERIFIER_READY.store(true, Ordering::Release);
    }
    status
}

/// Runs `init(env, context)` for a native method whose JNI frame `env` belongs to. Any Java
/// exception left pending by `init` is cleared before returning, whatever the outcome.
pub(crate) fn init_from_java<'local>(
    mut env: EnvUnowned<'local>,
    context: JObject<'local>,
    init: impl FnOnce(&mut Env<'local>, JObject<'local>) -> Result<(), JniError>,
) -> jint {
    // with_env catches a panic of `init`; the outer guard covers the bookkeeping around it.
    catch_unwind(AssertUnwindSafe(move || {
        if context.is_null() {
            return INIT_NULL_CONTEXT;
        }
        let outcome = env
            .with_env(|env| -> Result<(), JniError> { init(env, context) })
            .into_outcome();
        let status = match outcome {
            Outcome::Ok(()) => INIT_OK,
            Outcome::Err(e) if is_java_exception(&e) => INIT_JAVA_EXCEPTION,
            Outcome::Err(_) => INIT_JNI_ERROR,
            Outcome::Panic(_) => INIT_PANIC,
        };
        clear_pending_exception(&mut env);
        status
    }))
    .unwrap_or(INIT_PANIC)
}

fn is_java_exception(e: &JniError) -> bool {
    matches!(
        e,
        JniError::JavaException
            | JniError::CaughtJavaException { .. }
            | JniError::MethodNotFound { .. }
            | JniError::NoSuchMethod(_)
            | JniError::NoClassDefFound { .. }
            | JniError::ExceptionInInitializer { .. }
    )
}

/// Prints (to logcat on Android, stderr on a desktop JVM) and clears a pending exception, so
/// the caller gets a status instead of an exception thrown from the native frame.
fn clear_pending_exception(env: &mut EnvUnowned<'_>) {
    let _ = env
        .with_env_no_catch(|env| -> Result<(), JniError> {
            if env.exception_check() {
                env.exception_describe();
                env.exception_clear();
            }
            Ok(())
        })
        .into_outcome();
}
