//! The Android JNI glue of GwAndroid.init (src/android/), compiled here on Linux and called
//! from a JVM this test starts in-process. rustls-platform-verifier's Android initialiser
//! exists on Android only, so this crate stands in for it: src/android/mod.rs names
//! `rustls_platform_verifier::android::init_with_env`, which here is `android::init_with_env`
//! below (same signature). mod.rs and jni_init.rs compile unchanged, without the feature
//! platform-verifier (`cargo test`, clippy) and with it (scripts/test-rust.sh runs this file
//! both ways). What this proves: the entry point takes a real JNIEnv; a null context, a Java
//! exception in the initialiser and a panic each come back as their status with no pending
//! exception, no abort, and a JVM that still works; success marks the verifier ready, failure
//! does not; without the feature the entry point says so. What it cannot: the real verifier on
//! a device (see bindings/kotlin/README.md, "Android").

// `rustls_platform_verifier::...` in src/android/mod.rs resolves to this crate.
extern crate self as rustls_platform_verifier;

#[path = "../src/android/mod.rs"]
mod gw_android;

use std::sync::atomic::{AtomicUsize, Ordering};

use gw_android::jni_init::{
    init_from_java, Java_dev_gw_GwAndroid_nativeInit as native_init, INIT_JAVA_EXCEPTION,
    INIT_NULL_CONTEXT, INIT_OK, INIT_PANIC,
};
use jni::errors::Error as JniError;
use jni::objects::{JClass, JObject};
use jni::{jni_sig, jni_str, Env, EnvUnowned, InitArgsBuilder, JNIVersion, JavaVM};

static INIT_RUNS: AtomicUsize = AtomicUsize::new(0);

/// The stand-in for rustls-platform-verifier 0.7's `android` module.
pub mod android {
    use super::*;

    /// Does what the real one does first, `context.getClassLoader()` (an object without it
    /// makes JNI report NoSuchMethodError). To reach the other outcomes: panics for a
    /// java.lang.Thread, and for a String calls `charAt(99)`, which throws a Java exception
    /// that stays pending, as one thrown inside the verifier's Java setup would.
    pub fn init_with_env(env: &mut Env, context: JObject) -> Result<(), JniError> {
        INIT_RUNS.fetch_add(1, Ordering::SeqCst);
        let thread = env.find_class(jni_str!("java/lang/Thread"))?;
        if env.is_instance_of(&context, &thread)? {
            panic!("stand-in initialiser panics for a Thread");
        }
        let string = env.find_class(jni_str!("java/lang/String"))?;
        if env.is_instance_of(&context, &string)? {
            env.call_method(&context, jni_str!("charAt"), jni_sig!("(I)C"), &[99.into()])?;
        }
        env.call_method(
            &context,
            jni_str!("getClassLoader"),
            jni_sig!("()Ljava/lang/ClassLoader;"),
            &[],
        )?;
        Ok(())
    }
}

/// What src/net/tls.rs asks before it accepts "tls_verifier": "platform" on Android.
#[cfg(feature = "platform-verifier")]
fn verifier_ready() -> bool {
    gw_android::verifier_ready()
}

#[cfg(not(feature = "platform-verifier"))]
fn verifier_ready() -> bool {
    gw_android::jni_init::verifier_ready()
}

#[test]
fn native_init_turns_every_outcome_into_a_status() {
    let args = InitArgsBuilder::new()
        .version(JNIVersion::V1_8)
        .option("-Xcheck:jni")
        .option("-Xrs") // leave the test process's signal handlers alone
        .build()
        .expect("JVM arguments");
    let vm = JavaVM::new(args).expect(
        "start a JVM in-process (needs a JDK: scripts/ci/install-maven.sh; JAVA_HOME or java on PATH)",
    );
    vm.attach_current_thread(|env| -> Result<(), JniError> {
        // Runs `f` as the JVM would call a native method on this thread, and checks it left
        // no Java exception pending.
        let native =
            |env: &mut Env, context: &JObject, f: &dyn Fn(EnvUnowned, JObject) -> i32| -> i32 {
                // SAFETY: the pointer is this thread's live attachment, valid for the call.
                let unowned = unsafe { EnvUnowned::from_raw(env.get_raw()) };
                // SAFETY: `context` is a live local reference (or null) of this frame.
                let context = unsafe { JObject::from_raw(env, context.as_raw()) };
                let status = f(unowned, context);
                assert!(
                    !env.exception_check(),
                    "the glue left a Java exception pending (status {status})"
                );
                status
            };
        let guarded = |env: &mut Env, context: &JObject| {
            native(env, context, &|e, c| {
                init_from_java(e, c, android::init_with_env)
            })
        };
        let entry = |env: &mut Env, context: &JObject| {
            native(env, context, &|e, c| native_init(e, JClass::null(), c))
        };

        // The guard, with the stand-in initialiser.
        assert_eq!(guarded(env, &JObject::null()), INIT_NULL_CONTEXT);
        assert_eq!(
            INIT_RUNS.load(Ordering::SeqCst),
            0,
            "initialiser ran for null"
        );
        let plain = env.new_object(jni_str!("java/lang/Object"), jni_sig!("()V"), &[])?;
        assert_eq!(guarded(env, &plain), INIT_JAVA_EXCEPTION);
        let short = env.new_string("short")?;
        assert_eq!(guarded(env, &short), INIT_JAVA_EXCEPTION);
        let thread = env.new_object(jni_str!("java/lang/Thread"), jni_sig!("()V"), &[])?;
        assert_eq!(guarded(env, &thread), INIT_PANIC);
        // A Class has getClassLoader(): the stand-in succeeds, as the verifier's does with a
        // Context.
        let class: JObject = env.find_class(jni_str!("java/lang/String"))?.into();
        assert_eq!(guarded(env, &class), INIT_OK);
        assert_eq!(INIT_RUNS.load(Ordering::SeqCst), 4);
        assert!(
            !verifier_ready(),
            "the guard alone marked the verifier ready"
        );

        // The entry point the JVM binds GwAndroid.nativeInit to.
        if cfg!(feature = "platform-verifier") {
            assert_eq!(entry(env, &plain), INIT_JAVA_EXCEPTION);
            assert!(!verifier_ready(), "a failed init marked the verifier ready");
            assert_eq!(entry(env, &class), INIT_OK);
            assert!(
                verifier_ready(),
                "a successful init did not mark the verifier ready"
            );
            assert_eq!(INIT_RUNS.load(Ordering::SeqCst), 6);
        } else {
            assert_eq!(
                entry(env, &class),
                gw_android::jni_init::INIT_NO_PLATFORM_VERIFIER
            );
            assert!(!verifier_ready(), "no verifier, yet marked ready");
            assert_eq!(
                INIT_RUNS.load(Ordering::SeqCst),
                4,
                "initialiser ran without the feature"
            );
        }

        // The JVM still works after the failures.
        let text = env.new_string("still alive")?;
        assert!(!text.is_null());
        Ok(())
    })
    .expect("JNI calls of the test itself");
}
