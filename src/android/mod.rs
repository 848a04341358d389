//! Android only: the JNI entry point behind `dev.gw.GwAndroid.init(context)` (jni_init.rs),
//! which hands the app's `Context` to rustls-platform-verifier. On Android that verifier asks
//! the system's trust manager through the JVM, so it needs the JVM and a `Context` before the
//! first TLS handshake of a client with `"tls_verifier": "platform"`.
//!
//! A JNI symbol, not a C ABI function: lib.rs compiles this module for `target_os = "android"`
//! only and cbindgen.toml keeps it out of include/gw.h. No Android build runs in this
//! project's CI (no NDK); tests/android_jni_glue.rs compiles these files on Linux, with and
//! without the feature, against a stand-in of the verifier's init, and calls them from a JVM.

pub(crate) mod jni_init;

#[cfg(feature = "platform-verifier")]
pub(crate) use jni_init::verifier_ready;

/// The initialiser jni_init.rs calls with the app's `Context`.
type PlatformInit = for<'a, 'b, 'c> fn(
    &'a mut jni::Env<'b>,
    jni::objects::JObject<'c>,
) -> Result<(), jni::errors::Error>;

#[cfg(feature = "platform-verifier")]
const PLATFORM_INIT: Option<PlatformInit> = Some(rustls_platform_verifier::android::init_with_env);

#[cfg(not(feature = "platform-verifier"))]
const PLATFORM_INIT: Option<PlatformInit> = None;
