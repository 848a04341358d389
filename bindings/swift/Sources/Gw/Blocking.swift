import Foundation

/// One blocking job's hand-off back to its awaiting task: resumed exactly once, by the job
/// when it ran, or by cancellation while it still waited in the pool's queue.
final class Pending<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var cancelled = false
    private var started = false

    /// Stores the continuation; false (and resumed with CancellationError) when the task was
    /// cancelled before the job could be queued.
    func install(_ c: CheckedContinuation<T, any Error>) -> Bool {
        lock.lock()
        if cancelled {
            lock.unlock()
            c.resume(throwing: CancellationError())
            return false
        }
        continuation = c
        lock.unlock()
        return true
    }

    /// Called by the job on its thread: false when cancellation already resumed the task.
    func start() -> Bool {
        lock.locked {
            if cancelled { return false }
            started = true
            return true
        }
    }

    func finish(_ value: T) {
        let c = lock.locked { () -> CheckedContinuation<T, any Error>? in
            defer { continuation = nil }
            return continuation
        }
        c?.resume(returning: value)
    }

    /// Cancellation: a job still queued is dropped and its task resumed at once; a running one
    /// is stopped by gw_client_cancel (the caller's part) and resumes the task itself.
    func cancel() {
        let c = lock.locked { () -> CheckedContinuation<T, any Error>? in
            cancelled = true
            if started { return nil }
            defer { continuation = nil }
            return continuation
        }
        c?.resume(throwing: CancellationError())
    }
}

/// Runs `body` (a blocking gw call) on one of `pool`'s threads and awaits its result. When
/// the task is cancelled, `handle` is cancelled (gw returns GW_CANCELLED promptly, whatever
/// the call is doing); a job that has not started yet never starts.
func runBlocking<T: Sendable>(
    _ pool: BlockingPool, cancelling handle: Handle?, _ body: @escaping @Sendable () -> T
) async throws -> T {
    let pending = Pending<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            if pending.install(c) {
                pool.submit {
                    if pending.start() { pending.finish(body()) }
                }
            }
        }
    } onCancel: {
        handle?.cancel()
        pending.cancel()
    }
}
