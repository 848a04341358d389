import CGw
import Foundation

/// A streamed call (``GwClient/chatStream(_:options:)-swift.method``,
/// ``GwClient/responsesStream(_:options:)-swift.method``): an `AsyncSequence` of ``GwEvent``s
/// pulled from gw one at a time, then the assembled final answer from ``result()``.
///
/// ```swift
/// let stream = client.chatStream(request)
/// for try await event in stream { print(event.textDelta ?? "", terminator: "") }
/// let completion = try await stream.result()   // the chat.completion gw assembled
/// ```
///
/// - The request is sent when the loop asks for the first event (a task already cancelled
///   sends nothing). Each further event is read only when the loop asks for it: a slow
///   consumer leaves the rest in the socket (TCP back-pressure), gw buffers nothing more.
/// - The total timeout (``GwCallOptions/totalTimeout``, else ``GwOptions/totalTimeout``) runs
///   from the first time a Task asks to read the stream: its first `next()` (the loop asking
///   for the first event), or a ``result()`` that reads the stream itself (not one waiting for
///   a loop), whichever comes first; not from `chatStream(...)`. The waits for the stream's turn
///   and for a thread (``GwOptions/maxThreads``) count: an open still waiting for a thread at
///   the deadline throws `.timeout` then and is never sent, and one that waited is opened with
///   only what is left. Once open, gw holds that same deadline: a read from the connection
///   after it fails with `.timeout`. A later step waiting for a thread is not dropped at the
///   deadline: it throws `.timeout` once it gets one and gw has to read (an event gw already
///   read may still be handed out first).
/// - Cancelling the task cancels the stream in gw at once, waiting for an event or not, and
///   the loop throws `CancellationError`. Breaking out of the loop frees the stream and
///   closes its connection right away.
/// - A stream is iterated once; a second `for` loop (or ``textDeltas(choice:)``) throws
///   `stream_reused`. ``result()`` without a loop reads the whole stream and gives only the
///   final answer; a loop that starts after it gets no events.
/// - Failures (in-stream error events, a stream cut short) are thrown by the loop as
///   ``GwError`` after the events before them: `.stream` for an error event or a stream that
///   ended before its terminal event, `.network` for a connection broken mid-stream (a reset),
///   `.timeout`, `.tooLarge`, `.decode` as gw reports them. ``result()`` then throws the same.
///
/// Sharing one stream between Tasks (`GwStream` is `Sendable`) is safe in every interleaving:
/// gw is never entered by two threads for one stream, and each use ends in one of these ways.
/// - A loop and ``result()`` / ``resultData()`` (e.g. one Task showing the text, one saving the
///   answer): ``result()`` waits for the loop to reach the end and returns the final answer
///   (or throws what ended the loop). If ``result()`` started reading before the loop began,
///   the loop gets the events ``result()`` has not read yet (their ``GwEvent/index`` shows
///   the gap): make the iterator first to see every event.
/// - Two loops (or a loop and ``textDeltas(choice:)``): one gets the stream, the other throws
///   `stream_reused`.
/// - Several ``result()`` calls: each gets the same answer (one reads, the others wait).
/// - Cancelling the Task of the loop, or of a ``result()`` that is reading (no loop), cancels
///   the stream: that Task throws `CancellationError`, every other use of the stream then
///   throws ``GwError`` `.cancelled` (code `stream_cancelled`). A Task that only waits (a
///   ``result()`` waiting for the loop, or for another's read) just stops waiting.
/// - Leaving the loop early while ``result()`` waits: ``result()`` throws `stream_abandoned`.
/// - Dropping every reference while Tasks still use the stream is fine: they keep it alive.
public struct GwStream<Final: Decodable & Sendable>: AsyncSequence, Sendable {
    public typealias Element = GwEvent
    public typealias Failure = any Error

    /// nil only in a stream a fake made (``init(events:result:)``): every method below takes
    /// the `scripted` path first then.
    let call: StreamCall!
    var scripted: ScriptedStream<Final>? = nil

    /// The final answer: for chat the `chat.completion` gw assembled from the chunks, for
    /// Responses the `response` of `response.completed` (or `response.incomplete`). Waits for
    /// the end of the stream: while a loop iterates (in any Task) it waits for the loop's end;
    /// without a loop it reads the rest itself (without handing the events out).
    public func result() async throws -> Final {
        if let scripted { return try await scripted.result() }
        return try Codec.decode(Final.self, try await call.result())
    }

    /// ``result()`` as the gateway's JSON bytes.
    public func resultData() async throws -> Data {
        if let scripted { return try await scripted.resultData() }
        return try await call.result()
    }

    /// The HTTP exchange's metadata, once the stream ended (nil before).
    public var response: GwResponseMeta? { scripted == nil ? call.meta : nil }

    /// The text of one choice (``GwEvent/textDelta`` of its events), as it comes.
    public func textDeltas(choice: Int = 0) -> AsyncThrowingStream<String, any Error> {
        let stream = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var it = stream.makeAsyncIterator()
                    while let e = try await it.next() {
                        if e.choiceIndex == choice, let t = e.textDelta { continuation.yield(t) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        if let scripted { return AsyncIterator(call: nil, token: nil, cursor: scripted.claim()) }
        return AsyncIterator(call: call, token: call.claim())
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let call: StreamCall!
        /// Frees the stream when the loop is left early (the iterator dropped before the end).
        let token: StreamCall.Token?
        /// A scripted stream's events (``GwStream/init(events:result:)``).
        var cursor: ScriptedStream<Final>.Cursor? = nil

        public mutating func next() async throws -> GwEvent? {
            if let cursor { return try await cursor.next() }
            guard let token else {
                throw GwError(
                    status: -1, message: "a GwStream is iterated once; this one already was",
                    type: "invalid_request_error", code: "stream_reused")
            }
            return try await call.next(token)
        }
    }
}

/// The state of one streamed call: its derived handle, the gw_stream once open, how it ended.
///
/// gw.h: a gw_stream is used from one thread at a time. `GwStream` is `Sendable`, so any number
/// of Tasks may use one call at once; every native step (open, `gw_stream_next_buffered`,
/// `gw_stream_next`, `gw_stream_finish`) therefore runs while holding the call's one *turn*, an
/// async FIFO lock, and the stream is freed only by the holder of the turn or while nobody
/// holds it. An event already in gw's read buffer is taken on the calling Task
/// (`gw_stream_next_buffered` never blocks); only when gw would read does the step hop to a
/// pool thread for the blocking `gw_stream_next`.
final class StreamCall: @unchecked Sendable {
    enum Opener: Sendable {
        case chat, responses

        /// The operation's path in gw's table (the URLSession transport's exchange).
        var path: String {
            switch self {
            case .chat: return PostOp.chat.path
            case .responses: return PostOp.responses.path
            }
        }
    }
    enum Phase {
        case ready, open, done, failed, abandoned

        var ended: Bool {
            switch self {
            case .ready, .open: return false
            case .done, .failed, .abandoned: return true
            }
        }
    }
    /// What one native step gave: an event, the end (``final``, the final answer), a failure,
    /// or nothing because a loop claimed the stream (``handedOff``) or the call already ended
    /// (``ended``).
    struct Step: Sendable {
        var event: GwEvent?
        var final: Data?
        var status: Int32 = 0
        var errorText: String?
        var meta: GwResponseMeta?
        var handedOff = false
        var ended = false

        static func event(_ e: GwEvent) -> Step { Step(event: e) }
        static func done(_ d: Data, _ m: GwResponseMeta?) -> Step { Step(final: d, meta: m) }
        static func failed(_ status: Int32, _ text: String?, _ m: GwResponseMeta?) -> Step {
            Step(status: status, errorText: text, meta: m)
        }
    }

    /// Held by the one iterator; its deinit abandons a stream left before its end.
    final class Token: Sendable {
        let call: StreamCall
        init(_ call: StreamCall) { self.call = call }
        deinit { call.abandon() }
    }

    /// What Tasks other than the cancelled one get once a Task's cancellation stopped the stream.
    static let cancelledByATask = GwError(
        status: -5, message: "the stream was cancelled: a Task reading it was cancelled", code: "stream_cancelled")
    static let abandonedError = GwError(
        status: -1, message: "the stream was left before its end (the loop broke out); its result is gone",
        type: "invalid_request_error", code: "stream_abandoned")

    private typealias Waiter = (id: UInt64, continuation: CheckedContinuation<Void, any Error>)

    private let lock = NSLock()
    /// The handle the stream opens on (and is read through). Replaced, by the turn holder
    /// only, when the open waited: it then opens on a handle derived again with the rest of
    /// the total timeout. Under `lock`.
    private var handle: Handle?
    /// Where every cancellation goes: the current `handle`, whichever it is.
    private let target: CancelTarget?
    private let base: Handle
    private let pool: BlockingPool
    /// The URLSession transport (nil: gw's blocking pull on the pool's threads), and the
    /// stream's exchange once open (under `lock`; freed as `stream` is).
    private let session: URLSessionTransport?
    private var run: ExchangeRun?
    /// The total timeout (the call's, else the client's; nil: none) and the first time a Task
    /// asked to read the stream (the first `next()`, or a `result()` that reads it itself),
    /// from which it runs. `askedAt` is under `lock`.
    private let total: Duration?
    private let queueTimeout: GwError?
    private var askedAt: (clock: ContinuousClock.Instant, dispatch: DispatchTime)?
    private let request: CText?
    private let opener: Opener
    private let options: GwCallOptions
    private var stream: OpaquePointer?
    private var phase: Phase
    /// The final answer once `phase` is `.done`; the failure once it is `.failed`.
    private var final: Data?
    private var failure: (any Error)?
    /// A loop (an iterator, `textDeltas`) took the stream: result() then waits for its end.
    private var claimed = false
    /// The turn: whether a Task holds it, and the Tasks waiting for it, first come first served.
    private var turnHeld = false
    private var turnWaiters: [Waiter] = []
    /// result() calls waiting for the loop to end the call.
    private var endWaiters: [Waiter] = []
    private var lastWaiterID: UInt64 = 0
    private var metaStorage: GwResponseMeta?

    var meta: GwResponseMeta? { lock.locked { metaStorage } }

    init(client: GwClient, opener: Opener, body: () throws -> Data, options: GwCallOptions) {
        self.pool = client.pool
        self.session = client.session
        self.base = client.base
        self.opener = opener
        self.options = options
        let total = client.totalTimeout(options)
        self.total = total
        self.queueTimeout = total.map { client.queueTimeout($0, "stream's open") }
        do {
            let request = try CText(body(), "request")
            let handle = try client.base.derive(options.json())
            self.handle = handle
            self.target = CancelTarget(handle)
            self.request = request
            self.phase = .ready
        } catch {
            self.handle = nil
            self.target = nil
            self.request = nil
            self.phase = .failed
            self.failure = error
        }
    }

    deinit {
        gw_stream_free(stream)
        run?.close()
    }

    func claim() -> Token? {
        lock.locked {
            if claimed { return nil }
            claimed = true
            return Token(self)
        }
    }

    // MARK: the turn and the end, under `lock`

    /// Frees the stream once the call ended. Only while nobody else can be inside it: by the
    /// holder of the turn, or when the turn is free.
    private func freeIfEndedLocked() {
        if phase.ended, let s = stream {
            gw_stream_free(s)
            stream = nil
        }
        if phase.ended, let r = run {
            r.close()
            run = nil
        }
    }

    /// Ends the call (first end wins) and returns the result() calls to wake.
    private func endLocked(_ to: Phase, final: Data? = nil, failure: (any Error)? = nil, meta: GwResponseMeta? = nil)
        -> [Waiter]
    {
        guard !phase.ended else { return [] }
        phase = to
        self.final = final
        self.failure = failure
        if let meta { metaStorage = meta }
        if !turnHeld { freeIfEndedLocked() }
        defer { endWaiters = [] }
        return endWaiters
    }

    private func wake(_ waiters: [Waiter]) {
        for w in waiters { w.continuation.resume() }
    }

    private func nextID() -> UInt64 {
        lock.locked {
            lastWaiterID += 1
            return lastWaiterID
        }
    }

    /// Waits for the turn. A Task cancelled while waiting leaves the queue with
    /// CancellationError (and never holds the turn).
    private func acquireTurn() async throws {
        // A free turn is taken at once, without suspending (nobody waits for a free turn: a
        // released turn goes straight to the first waiter, so first come first served holds).
        let free: Bool? = lock.locked {
            if Task.isCancelled { return nil }
            if turnHeld { return false }
            turnHeld = true
            return true
        }
        switch free {
        case nil: throw CancellationError()
        case true?: return
        case false?: break
        }
        try await wait(in: .turn) {
            if turnHeld { return false }
            turnHeld = true
            return true
        }
    }

    /// Gives the turn to the next waiter, freeing the stream first if the call ended.
    private func releaseTurn() {
        let next = lock.locked { () -> CheckedContinuation<Void, any Error>? in
            freeIfEndedLocked()
            if turnWaiters.isEmpty {
                turnHeld = false
                return nil
            }
            return turnWaiters.removeFirst().continuation
        }
        next?.resume()
    }

    /// Waits until the call ended (the loop reached the end, failed, was cancelled or left).
    /// A Task cancelled while waiting stops waiting (the loop goes on).
    private func waitForEnd() async throws {
        try await wait(in: .end) { phase.ended }
    }

    /// The two queues a Task can wait in.
    private enum Queue: Sendable { case turn, end }

    /// `body` on `queue`'s waiters, in place (callers hold the lock).
    private func withWaiters<R>(_ queue: Queue, _ body: (inout [Waiter]) -> R) -> R {
        switch queue {
        case .turn: return body(&turnWaiters)
        case .end: return body(&endWaiters)
        }
    }

    /// Waits in `queue` unless `over` (called under the lock) says the wait is already over;
    /// whoever ends the wait resumes the waiter. A Task cancelled while waiting leaves the queue
    /// with CancellationError.
    private func wait(in queue: Queue, over: () -> Bool) async throws {
        let id = nextID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let now: Bool? = lock.locked {
                    if Task.isCancelled { return nil }
                    if over() { return true }
                    withWaiters(queue) { $0.append((id, c)) }
                    return false
                }
                switch now {
                case nil: c.resume(throwing: CancellationError())
                case true?: c.resume()
                case false?: break
                }
            }
        } onCancel: {
            let c = lock.locked { () -> CheckedContinuation<Void, any Error>? in
                withWaiters(queue) { list in
                    list.firstIndex(where: { $0.id == id }).map { list.remove(at: $0).continuation }
                }
            }
            c?.resume(throwing: CancellationError())
        }
    }

    // MARK: the ends a Task can bring about

    /// The loop was left before the end: free the stream now (closing its connection), or as
    /// soon as the step running in it returns.
    func abandon() {
        wake(lock.locked { endLocked(.abandoned) })
    }

    /// The loop's Task was cancelled: cancel the call in gw (a step running in it returns
    /// GW_CANCELLED at once) and end it.
    private func cancelCall() {
        target?.cancel()
        // The call ends before its exchange is told: a Task stepping it then reads this end,
        // not the exchange's own GW_CANCELLED.
        let (waiters, open) = lock.locked { (endLocked(.failed, failure: Self.cancelledByATask), run) }
        open?.cancel()
        wake(waiters)
    }

    /// The outcome of a call that ended, for a Task that is not cancelled: nil while it runs.
    private func endedOutcome() -> Result<Data, any Error>? {
        lock.locked {
            switch phase {
            case .ready, .open: return nil
            case .done: return .success(final ?? Data())
            case .failed: return .failure(failure ?? GwError(status: -99, message: "stream failed"))
            case .abandoned: return .failure(Self.abandonedError)
            }
        }
    }

    // MARK: the loop and result()

    /// A Task asks to read the stream: the total timeout runs from the first time (the wait for
    /// the turn and for a thread included).
    private func markAsked() {
        lock.locked {
            if askedAt == nil { askedAt = (ContinuousClock.now, DispatchTime.now()) }
        }
    }

    /// For the step that opens the stream: when its total timeout ends (an open still waiting
    /// for a thread then is dropped). nil once open, or without a total timeout.
    private func openDeadline() -> (at: DispatchTime, error: GwError)? {
        lock.locked {
            guard case .ready = phase, let total, let queueTimeout, let asked = askedAt else { return nil }
            return (asked.dispatch + .nanoseconds(Int(clamping: total.wholeNanoseconds)), queueTimeout)
        }
    }

    func next(_ token: Token) async throws -> GwEvent? {
        markAsked()
        do {
            try await acquireTurn()
        } catch {
            // Cancelled while another Task's step ran: the loop's cancellation stops the call.
            cancelCall()
            throw error
        }
        defer { releaseTurn() }
        switch lock.locked({ (phase, failure) }) {
        case (.ready, _), (.open, _): break
        case (.done, _), (.abandoned, _): return nil
        case (.failed, let e):
            if Task.isCancelled { throw CancellationError() }
            throw e ?? GwError(status: -99, message: "stream failed")
        }
        let step = try await runStep(drain: false)
        return step.event
    }

    func result() async throws -> Data {
        while true {
            if let ended = endedOutcome() { return try ended.get() }
            if lock.locked({ claimed }) {
                // A loop reads the stream: its end sets the answer.
                try await waitForEnd()
                continue
            }
            // No loop: read the stream to its end here (events not handed out), one step in
            // one turn; a loop claiming the stream meanwhile takes over the events not read.
            markAsked()
            try await acquireTurn()
            let outcome: Result<Data, any Error>?
            do {
                defer { releaseTurn() }
                if let ended = endedOutcome() {
                    outcome = ended
                } else if lock.locked({ claimed }) {
                    outcome = nil
                } else {
                    let step = try await runStep(drain: true)
                    outcome = step.final.map { .success($0) }
                }
            }
            if let outcome { return try outcome.get() }
        }
    }

    /// One native step, holding the turn: for the next event, first on the calling Task from
    /// the bytes gw already read (`bufferedEvent`), else on a pool thread. Ends the call when
    /// the stream ended; throws its failure (CancellationError to the Task that was cancelled).
    private func runStep(drain: Bool) async throws -> Step {
        if Task.isCancelled {
            cancelCall()
            throw CancellationError()
        }
        if !drain, let event = bufferedEvent() { return .event(event) }
        let step: Step
        if let session {
            step = await exchangeStep(session, drain: drain)
        } else {
            step = try await blockingStep(drain: drain)
        }
        if step.event != nil || step.handedOff { return step }
        if let final = step.final {
            wake(lock.locked { endLocked(.done, final: final, meta: step.meta) })
            if let meta = step.meta { options.onResponse?(meta) }
            return step
        }
        if Task.isCancelled {
            cancelCall()
            throw CancellationError()
        }
        if !step.ended {
            let error = GwError(status: Int(step.status), errorJSON: step.errorText, response: step.meta)
            wake(lock.locked { endLocked(.failed, failure: error, meta: step.meta) })
        }
        // The stored outcome: this step's failure, or how another Task ended the call meanwhile.
        switch endedOutcome() {
        case .success(let d)?: return Step(final: d)
        case .failure(let e)?: throw e
        case nil: throw GwError(status: -99, message: "a stream step ended without an outcome")
        }
    }

    /// One step of gw's blocking pull on a pool thread (the built-in transport).
    private func blockingStep(drain: Bool) async throws -> Step {
        do {
            return try await runBlocking(pool, onCancel: { [target] in target?.cancel() }, queueDeadline: openDeadline()) {
                [self] in self.step(drain: drain)
            }
        } catch let timeout as GwError where !Task.isCancelled {
            // The open was still waiting for a thread at its deadline: dropped, nothing sent.
            wake(lock.locked { endLocked(.failed, failure: timeout) })
            throw timeout
        } catch {
            // The job was dropped before it ran (CancellationError, or a deadline that passed
            // as the Task was cancelled).
            cancelCall()
            throw CancellationError()
        }
    }

    /// The next event when gw can make it from the bytes it already read: `gw_stream_next_buffered`
    /// never reads, waits or sleeps, so it runs on the calling Task (the cooperative pool), with
    /// no hop to a pool thread for most events of a burst. The caller holds the turn (nobody
    /// else uses or frees `stream`). nil for everything else (no stream open yet, the call
    /// ended, `GW_WOULD_BLOCK`, the end or a failure): the pool thread's step then does what it
    /// always did (`gw_stream_next` gives the same status again, `gw_stream_finish` the outcome).
    private func bufferedEvent() -> GwEvent? {
        if session != nil { return lock.locked { phase.ended ? nil : run }?.readyEvent() }
        let (current, ended) = lock.locked { (stream, phase.ended) }
        guard !ended, let open = current else { return nil }
        var event: UnsafePointer<gw_event>?
        guard gw_stream_next_buffered(open, &event) == 0, let event else { return nil }
        return GwEvent(event.pointee)
    }

    /// One blocking step on a pool thread: open if needed, then the next event (or, with
    /// `drain`, the final answer, unless a loop claims the stream first).
    private func step(drain: Bool) -> Step {
        // The turn is ours: nobody else reads, replaces or frees `stream` (or `handle`) until we
        // give it back.
        let (current, ended, held, asked) = lock.locked { (stream, phase.ended, handle, askedAt) }
        if ended { return Step(ended: true) }
        guard var handle = held, let request else { return .failed(-99, nil, nil) }
        if current == nil {
            guard let h = openingHandle(handle, asked: asked) else { return Self.openTimedOut }
            handle = h
        }
        var s = current
        let result = advance(handle, request, &s, drain: drain)
        lock.locked {
            if stream == nil, let s {
                stream = s
                if case .ready = phase { phase = .open }
            }
        }
        return result
    }

    /// The handle the stream opens on: gw's deadline for the stream runs from the open, so one
    /// that waited since it was first asked (for the turn, for a thread) gets a handle derived
    /// again with only what is left of the total timeout. nil when nothing is left.
    private func openingHandle(_ handle: Handle, asked: (clock: ContinuousClock.Instant, dispatch: DispatchTime)?) -> Handle? {
        guard let total, let asked else { return handle }
        let waited = ContinuousClock.now - asked.clock
        // Got a thread (or the turn) just as the deadline passed (before the expiry dropped the job).
        if waited >= total { return nil }
        guard waited >= .milliseconds(1) else { return handle }
        var rest = options
        rest.totalTimeout = total - waited
        // Options that derived once derive again; should it fail, the stream keeps its handle.
        guard let again = try? base.derive(rest.json()) else { return handle }
        lock.locked { self.handle = again }
        target?.replace(with: again)
        return again
    }

    private static let openTimedOut = Step.failed(-3, String(decoding: GwClient.queueTimeoutJSON, as: UTF8.self), nil)

    /// One step through the URLSession transport, holding the turn: the stream's exchange made
    /// and started (the open) if needed, then the next event, or with `drain` the final
    /// answer (unless a loop claims the stream first). Awaits without a thread; Task
    /// cancellation cancels the exchange and its URLSession task.
    private func exchangeStep(_ session: URLSessionTransport, drain: Bool) async -> Step {
        let (current, ended, held, asked) = lock.locked { (run, phase.ended, handle, askedAt) }
        if ended { return Step(ended: true) }
        let active: ExchangeRun
        if let current {
            active = current
        } else {
            guard let held, let request else { return .failed(-99, nil, nil) }
            guard let handle = openingHandle(held, asked: asked) else { return Self.openTimedOut }
            var made: OpaquePointer?
            var err: UnsafeMutablePointer<CChar>?
            let status = request.with { body in
                opener.path.withCString { path in
                    gw_exchange_new(handle.pointer, "POST", path, body, GW_EXCHANGE_STREAM, &made, &err)
                }
            }
            let text = takeString(err)
            guard status == GW_OK, let made else {
                gw_exchange_free(made)
                return .failed(status == GW_OK ? GW_INTERNAL : status, text, handle.lastResponse())
            }
            active = ExchangeRun(made, handle: handle, transport: session, wantsMeta: true)
            lock.locked {
                run = active
                if case .ready = phase { phase = .open }
            }
            active.start()
        }
        while true {
            // Checked between events: a loop that claims the stream gets the rest.
            if drain, lock.locked({ claimed }) { return Step(handedOff: true) }
            let next = await withTaskCancellationHandler {
                await active.next()
            } onCancel: { [target] in
                target?.cancel()
                active.cancel()
            }
            switch next {
            case .event(let e):
                if !drain { return .event(e) }
            case .done(let o):
                if o.status == GW_OK, let text = o.text { return .done(text, o.meta) }
                return .failed(o.status == GW_OK ? -4 : o.status, o.text.map { String(decoding: $0, as: UTF8.self) }, o.meta)
            }
        }
    }

    private func advance(_ handle: Handle, _ request: CText, _ s: inout OpaquePointer?, drain: Bool) -> Step {
        if s == nil {
            var out: UnsafeMutablePointer<CChar>?
            var opened: OpaquePointer?
            let status = request.with { body in
                switch opener {
                case .chat: return gw_chat_stream_open(handle.pointer, body, &opened, &out)
                case .responses: return gw_responses_stream_open(handle.pointer, body, &opened, &out)
                }
            }
            let text = takeString(out)
            guard status == 0, let opened else {
                gw_stream_free(opened)
                return .failed(status == 0 ? -99 : status, text, handle.lastResponse())
            }
            s = opened
        }
        guard let open = s else { return .failed(-99, nil, nil) }
        var event: UnsafePointer<gw_event>?
        if drain {
            while true {
                // Checked between events: a loop that claims the stream gets the rest.
                if lock.locked({ claimed }) { return Step(handedOff: true) }
                if gw_stream_next(open, &event) != 0 { break }
            }
        } else {
            let status = gw_stream_next(open, &event)
            if status == 0, let event { return .event(GwEvent(event.pointee)) }
        }
        // The end or a failure: gw_stream_finish gives the answer, or the failure's status and
        // error JSON.
        var out: UnsafeMutablePointer<CChar>?
        let status = gw_stream_finish(open, &out)
        let text = takeData(out)
        let meta = handle.lastResponse()
        if status == 0, let text { return .done(text, meta) }
        return .failed(status == 0 ? -4 : status, text.map { String(decoding: $0, as: UTF8.self) }, meta)
    }
}
