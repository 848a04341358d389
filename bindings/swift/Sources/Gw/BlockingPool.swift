import Foundation

/// Threads of the binding's own for gw's blocking calls (never Swift's cooperative pool).
///
/// A job goes to an idle thread, or to a new one while fewer than `cap` exist, or waits in a
/// FIFO queue. Each job therefore gets a thread to itself as long as the cap allows: one slow
/// call never sits behind another. Threads exit after `idleTimeout` without work, or as soon
/// as they have none once the pool is retired (its client is gone).
final class BlockingPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    /// One parked thread: a job is handed to it through `job`, then `wake` is signalled.
    private final class Worker: @unchecked Sendable {
        let wake = DispatchSemaphore(value: 0)
        var job: Job?
    }

    let cap: Int
    private let idleTimeout: DispatchTimeInterval
    private let lock = NSLock()
    /// Waiting jobs; a taken slot is set to nil at once, so a job's closure (and what it
    /// holds: handles, request bytes) is released when the job ends, never kept by the queue.
    private var queue: [Job?] = []
    private var queueHead = 0
    private var idle: [Worker] = []
    private var threads = 0
    /// The client is gone: no thread idles any more (streams that outlive their client still
    /// get a thread per step, which exits when the queue is empty).
    private var retired = false

    init(cap: Int, idleTimeout: DispatchTimeInterval = .seconds(10)) {
        self.cap = max(1, cap)
        self.idleTimeout = idleTimeout
    }

    /// Threads alive now (busy or idle).
    var threadCount: Int { lock.locked { threads } }

    /// Runs `job` on a thread of the pool. Returns true when it waits in the queue (every
    /// thread busy, the cap reached).
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        lock.lock()
        if let worker = idle.popLast() {
            worker.job = job
            lock.unlock()
            worker.wake.signal()
        } else if threads < cap {
            threads += 1
            lock.unlock()
            // The job goes through the worker, not the thread's closure: Foundation's Thread
            // keeps its closure (and so what the job captured) until the thread exits.
            let worker = Worker()
            worker.job = job
            let thread = Thread { [self] in self.run(worker) }
            thread.name = "gw-call"
            thread.stackSize = 1 << 20
            thread.start()
        } else {
            queue.append(job)
            lock.unlock()
            return true
        }
        return false
    }

    /// The owning client was released: idle threads exit now, busy ones once the queue is
    /// empty (so a dropped client keeps no thread for `idleTimeout`).
    func retire() {
        let sleepers = lock.locked { () -> [Worker] in
            retired = true
            defer { idle = [] }
            return idle
        }
        // Woken without a job, a worker exits.
        for w in sleepers { w.wake.signal() }
    }

    private func run(_ me: Worker) {
        var next: Job? = lock.locked {
            defer { me.job = nil }
            return me.job
        }
        while true {
            // The closure is released at the end of this block, before the thread idles.
            if let job = next {
                next = nil
                job()
            } else {
                break
            }
            lock.lock()
            if queueHead < queue.count {
                next = queue[queueHead]
                queue[queueHead] = nil
                queueHead += 1
                if queueHead > 64 && queueHead * 2 > queue.count {
                    queue.removeFirst(queueHead)
                    queueHead = 0
                }
                lock.unlock()
                continue
            }
            if retired {
                threads -= 1
                lock.unlock()
                return
            }
            idle.append(me)
            lock.unlock()
            if me.wake.wait(timeout: .now() + idleTimeout) == .timedOut {
                lock.lock()
                if let i = idle.firstIndex(where: { $0 === me }) {
                    // Nobody claimed us: exit.
                    idle.remove(at: i)
                    threads -= 1
                    lock.unlock()
                    return
                }
                lock.unlock()
                // Claimed just as the wait timed out: the signal is on its way.
                me.wake.wait()
            }
            lock.lock()
            next = me.job
            me.job = nil
            lock.unlock()
        }
        lock.locked { threads -= 1 }
    }
}

extension NSLock {
    /// `body` under the lock (NSLocking.withLock needs macOS 14 / iOS 17; the package
    /// supports macOS 13 / iOS 16).
    func locked<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
