import Foundation

/// Threads of the binding's own for gw's blocking calls (never Swift's cooperative pool).
///
/// A job goes to an idle thread, or to a new one while fewer than `cap` exist, or waits in a
/// FIFO queue. Each job therefore gets a thread to itself as long as the cap allows: one slow
/// call never sits behind another. Threads exit after `idleTimeout` without work.
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
    private var queue: [Job] = []
    private var queueHead = 0
    private var idle: [Worker] = []
    private var threads = 0

    init(cap: Int, idleTimeout: DispatchTimeInterval = .seconds(10)) {
        self.cap = max(1, cap)
        self.idleTimeout = idleTimeout
    }

    /// Threads alive now (busy or idle).
    var threadCount: Int { lock.withLock { threads } }

    func submit(_ job: @escaping Job) {
        lock.lock()
        if let worker = idle.popLast() {
            worker.job = job
            lock.unlock()
            worker.wake.signal()
        } else if threads < cap {
            threads += 1
            lock.unlock()
            let thread = Thread { [self] in self.run(first: job) }
            thread.name = "gw-call"
            thread.stackSize = 1 << 20
            thread.start()
        } else {
            queue.append(job)
            lock.unlock()
        }
    }

    private func run(first: @escaping Job) {
        var job: Job? = first
        let me = Worker()
        while let current = job {
            current()
            job = nil
            lock.lock()
            if queueHead < queue.count {
                job = queue[queueHead]
                queueHead += 1
                if queueHead > 64 && queueHead * 2 > queue.count {
                    queue.removeFirst(queueHead)
                    queueHead = 0
                }
                lock.unlock()
                continue
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
            job = me.job
            me.job = nil
            lock.unlock()
        }
        lock.withLock { threads -= 1 }
    }
}
