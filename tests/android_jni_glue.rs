//! The Android JNI glue of GwAndroid.init (src/android/jni_init.rs), compiled here on Linux
//! and called from a JVM this test starts in-process, with a stand-in for
//! rustls-platform-verifier's initialiser (which exists on Android only). What this proves:
//! the entry point takes a real JNIEnv; a null context, a Java exception in the initialiser and
//! a panic each come back as their status with no pending exception, no abort, and a JVM that
//! still works; success marks the verifier ready, failures do not. What it cannot: the real
//! verifier on a device (see bindings/kotlin/README.md, "Android").

#[path = "../src/android/jni_init.rs"]
mod jni_init;

use std::sync::atomic::{AtomicUsize, Ordering};

use jni::errors::Error as JniError;
use jni::objects::{JClass, JObject};
use jni::{jni_sig, jni_str, Env, EnvUnowned, InitArgsBuilder, JNIVersion, JavaVM};
use jni_init::{
    verifier_ready, Java_dev_gw_GwAndroid_nativeInit as native_init, INIT_JAVA_EXCEPTION,
    INIT_NULL_CONTEXT, INIT_OK, INIT_PANIC,
};

type PlatformInit = for<'a, 'b, 'c> fn(&'a mut Env<'b>, JObject<'c>) -> Result<(), JniError>;

/// What src/android/mod.rs sets to rustls_platform_verifier::android::init_with_env.
const PLATFORM_INIT: Option<PlatformInit> = Some(stand_in_init);

static INIT_RUNS: AtomicUsize = AtomicUsize::new(0);

/// Does what init_with_env does first, `context.getClassLoader()` (an object without it
/// makes JNI report NoSuchMethodError). To reach the other outcomes: panics for a
/// java.lang.Thread, and for a String calls `charAt(99)`, which throws a Java exception that
/// stays pending, as one thrown inside the verifier's Java setup would.
fn stand_in_init(env: &mut Env, context: JObject) -> Result<(), JniError> {
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
        let call = |env: &mut Env, context: &JObject| -> i32 {
            // SAFETY: the pointer is this thread's live attachment, valid for the call.
            let unowned = unsafe { EnvUnowned::from_raw(env.get_raw()) };
            // SAFETY: `context` is a live local reference (or null) of this frame.
            let context = unsafe { JObject::from_raw(env, context.as_raw()) };
            let status = native_init(unowned, JClass::null(), context);
            assert!(
                !env.exception_check(),
                "nativeInit left a Java exception pending (status {status})"
            );
            status
        };

        assert_eq!(call(env, &JObject::null()), INIT_NULL_CONTEXT);
        assert_eq!(
            INIT_RUNS.load(Ordering::SeqCst),
            0,
            "initialiser ran for null"
        );

        let plain = env.new_object(jni_str!("java/lang/Object"), jni_sig!("()V"), &[])?;
        assert_eq!(call(env, &plain), INIT_JAVA_EXCEPTION);

        let short = env.new_string("short")?;
        assert_eq!(call(env, &short), INIT_JAVA_EXCEPTION);

        let thread = env.new_object(jni_str!("java/lang/Thread"), jni_sig!("()V"), &[])?;
        assert_eq!(call(env, &thread), INIT_PANIC);
        assert!(!verifier_ready(), "a failed init marked the verifier ready");

        // A Class has getClassLoader(): the stand-in succeeds, as init_with_env does with a
        // Context.
        let class: JObject = env.find_class(jni_str!("java/lang/String"))?.into();
        assert_eq!(call(env, &class), INIT_OK);
        assert!(
            verifier_ready(),
            "a successful init did not mark the verifier ready"
        );
        assert_eq!(INIT_RUNS.load(Ordering::SeqCst), 4);

        // The JVM still works after the failures.
        let text = env.new_string("still alive")?;
        assert!(!text.is_null());
        Ok(())
    })
    .expect("JNI calls of the test itself");
}
