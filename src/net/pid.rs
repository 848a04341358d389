//! The process id without a system call per use: read once, and forgotten in
//! a forked child (a `pthread_atfork` hook), so a child never passes for its parent.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Once;

static PID: AtomicU32 = AtomicU32::new(0);
static FORK_HOOK: Once = Once::new();

extern "C" fn forget_in_child() {
    PID.store(0, Ordering::Relaxed);
}

/// This process's id.
pub(crate) fn current() -> u32 {
    let pid = PID.load(Ordering::Relaxed);
    if pid != 0 {
        return pid;
    }
    FORK_HOOK.call_once(|| {
        // SAFETY: registers a plain function that only stores to an atomic.
        unsafe { libc::pthread_atfork(None, None, Some(forget_in_child)) };
    });
    let pid = std::process::id();
    PID.store(pid, Ordering::Relaxed);
    pid
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forked_child_reads_its_own_id() {
        assert_eq!(current(), std::process::id());
        // SAFETY: the child only calls async-signal-safe functions and _exit.
        let child = unsafe { libc::fork() };
        assert!(child >= 0, "fork failed");
        if child == 0 {
            let own = current() == unsafe { libc::getpid() } as u32;
            unsafe { libc::_exit(if own { 0 } else { 1 }) };
        }
        let mut status = 0;
        // SAFETY: waits for the child just forked.
        assert_eq!(unsafe { libc::waitpid(child, &mut status, 0) }, child);
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
        assert_eq!(current(), std::process::id());
    }
}
