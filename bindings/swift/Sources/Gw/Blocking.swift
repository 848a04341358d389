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
    func cancel() { drop(CancellationError()) }

    /// A job still queued is dropped and its task resumed with `error`; a running one is left
    /// alone.
    func drop(_ error: any Error) {
        let c = lock.locked { () -> CheckedContinuation<T, any Error>? in
            if started { return nil }
            cancelled = true
            defer { continuation = nil }
            return continuation
        }
        c?.resume(throwing: error)
    }

    /// Drops the job with `error` if it still waits for a thread at `deadline`.
    func expire(at deadline: DispatchTime, with error: any Error) {
        // Weak: a job that ran long before its deadline is not kept until then.
        DispatchQueue.global().asyncAfter(deadline: deadline) { [weak self] in self?.drop(error) }
    }
}

/// The handle a running call is cancelled through, replaceable while the call waits: a call
/// that waited for a thread is sent on a handle derived again with the rest of its deadline.
final class CancelTarget: @unchecked Sendable {
    private let lock = NSLock()
    private var handle: Handle
    private var cancelled = false

    init(_ handle: Handle) { self.handle = handle }

    func cancel() {
        let h = lock.locked { () -> Handle in
            cancelled = true
            return handle
        }
        h.cancel()
    }

    func replace(with h: Handle) {
        let wasCancelled = lock.locked { () -> Bool in
            handle = h
            return cancelled
        }
        if wasCancelled { h.cancel() }
    }
}

/// Runs `body` (a blocking gw call) on one of `pool`'s threads and awaits its result. When
/// the task is cancelled, `handle` is cancelled (gw returns GW_CANCELLED promptly, whatever
/// the call is doing); a job that has not started yet never starts.
func runBlocking<T: Sendable>(
    _ pool: BlockingPool, cancelling handle: Handle?, _ body: @escaping @Sendable () -> T
) async throws -> T {
    try await runBlocking(pool, onCancel: { handle?.cancel() }, queueDeadline: nil, body)
}

/// ``runBlocking(_:cancelling:_:)`` with `onCancel` run on Task cancellation, and a deadline for
/// the wait for a thread: a job still queued at `queueDeadline.at` never runs and the task
/// throws `queueDeadline.error` then (not when a thread frees up).
func runBlocking<T: Sendable>(
    _ pool: BlockingPool, onCancel: @escaping @Sendable () -> Void,
    queueDeadline: (at: DispatchTime, error: GwError)?, _ body: @escaping @Sendable () -> T
) async throws -> T {
    let pending = Pending<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            if pending.install(c) {
                let queued = pool.submit {
                    if pending.start() { pending.finish(body()) }
                }
                if queued, let queueDeadline { pending.expire(at: queueDeadline.at, with: queueDeadline.error) }
            }
        }
    } onCancel: {
        onCancel()
        pending.cancel()
    }
}
