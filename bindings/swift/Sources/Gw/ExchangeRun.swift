import CGw
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What an exchange gives its caller next: a stream's event, or the call's end.
enum ExchangeNext: Sendable {
    case event(GwEvent)
    case done(GwClient.Outcome)
}

/// One call's exchange (`gw_exchange`, gw.h) driven by URLSession: it sends the request the
/// exchange asks for as a data task, feeds back the head, the body bytes and the end as the
/// session's delegate gets them, steps again on the exchange's timers, and hands events and
/// the outcome to the awaiting Task. No thread waits: the delegate's queue, a timer or the
/// consumer's Task steps the exchange, a few microseconds at a time.
///
/// gw.h: an exchange is used by one thread at a time. Every use here is under `lock`, which is
/// never held across anything that waits; URLSession is told to start or cancel tasks, and
/// awaiting Tasks are resumed, only after it is released.
final class ExchangeRun: @unchecked Sendable {
    /// How an attempt's body ended, as fed to the exchange.
    enum Ending {
        case end
        case failure(status: Int32, requestSent: Bool, message: String)
    }

    /// What a locked step leaves to do once the lock is released.
    private struct Effects {
        var start: [URLSessionTask] = []
        var cancel: [URLSessionTask] = []
        /// A finished stream's task, left a moment to end by itself (its connection is then
        /// kept for the next call) before it is cancelled.
        var cancelSoon: URLSessionTask?
        var resume: (CheckedContinuation<ExchangeNext, Never>, ExchangeNext)?
    }

    private let lock = NSLock()
    /// nil once the call ended (then freed) or was closed.
    private var exchange: OpaquePointer?
    private let handle: Handle
    private let transport: URLSessionTransport
    private let wantsMeta: Bool

    /// The attempt in flight; nil between attempts. Callbacks of any other task are stale.
    private var task: URLSessionTask?
    private var headSeen = false
    private var bodyLength: Int64 = 0
    private var bodySent = false
    /// Body bytes gw did not take yet (`GW_WOULD_BLOCK`: its stream buffer holds 64 KiB of
    /// events not taken), fed once the consumer took events; then the end that came after.
    private var pending = Data()
    private var pendingEnd: Ending?
    /// Feeds in a row that gw took nothing of (a guard against a step that never frees room).
    private var emptyFeeds = 0

    /// When gw wants to be stepped without input (`GW_WANT_RECEIVE`'s and `GW_WANT_WAIT`'s
    /// `wait_ms`), and when the connect must have happened (`connect_timeout_ms`).
    private var wakeAt: DispatchTime?
    private var connectDue: DispatchTime?
    private var connectTimeoutMs: UInt64 = 0
    private var timer: (any DispatchSourceTimer)?
    private var timerDue: DispatchTime?

    /// A stream's next event, stepped out before the consumer asked (one at most).
    private var ready: GwEvent?
    private var outcome: GwClient.Outcome?
    private var waiter: CheckedContinuation<ExchangeNext, Never>?

    init(_ exchange: OpaquePointer, handle: Handle, transport: URLSessionTransport, wantsMeta: Bool) {
        self.exchange = exchange
        self.handle = handle
        self.transport = transport
        self.wantsMeta = wantsMeta
    }

    deinit {
        gw_exchange_free(exchange)
        task?.cancel()
        timer?.cancel()
    }

    // MARK: the caller's side

    /// Sends the first request.
    func start() { locked { pump(&$0) } }

    /// The next event of a stream, or the outcome (a plain call's only answer).
    func next() async -> ExchangeNext {
        await withCheckedContinuation { c in
            locked { fx in
                if let now = immediate(&fx) {
                    fx.resume = (c, now)
                } else if waiter != nil {
                    // One step at a time (StreamCall's turn): a second waiter is a bug, not a hang.
                    let why = #"{"error":{"message":"two Tasks stepped one exchange at once","type":"internal_error"}}"#
                    fx.resume = (c, .done(GwClient.Outcome(status: GW_INTERNAL, text: Data(why.utf8), meta: nil)))
                } else {
                    waiter = c
                }
            }
        }
    }

    /// The outcome of a plain call.
    func outcome() async -> GwClient.Outcome {
        while true {
            if case .done(let o) = await next() { return o }
        }
    }

    /// An event already stepped out, without waiting (nil: none is ready).
    func readyEvent() -> GwEvent? {
        var event: GwEvent?
        locked { fx in
            if let e = ready {
                ready = nil
                event = e
                pump(&fx)
            }
        }
        return event
    }

    /// Cancels the call: its handle in gw, then the step that ends it (and cancels the
    /// URLSession task) at once, an event not taken yet dropped.
    func cancel() {
        handle.cancel()
        locked { fx in
            ready = nil
            pump(&fx)
        }
    }

    /// Stops a video wait at its current event, as gw_video_wait's progress callback does by
    /// returning non-zero: `GW_CANCELLED` fed to the exchange, which then ends with it.
    func stop() {
        locked { fx in
            if let exchange { gw_exchange_feed_error(exchange, GW_CANCELLED, 0, "the wait's progress stopped it") }
            ready = nil
            pump(&fx)
        }
    }

    /// Ends the call without an outcome (the loop left a stream early): the exchange is
    /// freed and the task cancelled now.
    func close() {
        locked { fx in
            if let t = task { fx.cancel.append(t) }
            task = nil
            gw_exchange_free(exchange)
            exchange = nil
            ready = nil
            stopTimer()
            if let w = waiter {
                waiter = nil
                fx.resume = (w, .done(GwClient.Outcome(status: GW_CANCELLED, text: nil, meta: nil)))
            }
        }
    }

    private func immediate(_ fx: inout Effects) -> ExchangeNext? {
        if let e = ready {
            ready = nil
            pump(&fx)  // the next one, if gw already has it
            return .event(e)
        }
        if let o = outcome { return .done(o) }
        if exchange == nil { return .done(GwClient.Outcome(status: GW_CANCELLED, text: nil, meta: nil)) }
        return nil
    }

    // MARK: the session's side (its delegate queue)

    func received(head response: URLResponse, from t: URLSessionTask) {
        locked { fx in
            guard t === task, let ex = exchange else { return }
            connectDue = nil
            headSeen = true
            guard let http = response as? HTTPURLResponse else {
                gw_exchange_feed_error(ex, GW_NETWORK, 1, "URLSession: the answer is not HTTP")
                pump(&fx)
                return
            }
            let fields = URLSessionTransport.headerFields(http)
            let status = withCHeaders(fields) { gw_exchange_feed_head(ex, Int32(clamping: http.statusCode), $0, $1) }
            if status != GW_OK {
                gw_exchange_feed_error(ex, GW_NETWORK, 1, "URLSession: the answer's head is not valid HTTP")
            }
            pump(&fx)
        }
    }

    func received(body data: Data, from t: URLSessionTask) {
        locked { fx in
            guard t === task, let ex = exchange else { return }
            if !pending.isEmpty {
                // Earlier bytes still wait for room: these go after them.
                pending.append(data)
                transport.noteHeldBack(data.count)
                return
            }
            let taken = feed(ex, data)
            if taken < data.count {
                pending = Data(data.dropFirst(taken))
                transport.noteHeldBack(data.count - taken)
            }
            pump(&fx)
        }
    }

    func sending(from t: URLSessionTask) {
        locked { _ in
            guard t === task else { return }
            // The body is going: the connection is up.
            connectDue = nil
            if t.countOfBytesSent >= bodyLength { bodySent = true }
        }
    }

    func completed(_ t: URLSessionTask, error: (any Error)?) {
        locked { fx in
            guard t === task, let ex = exchange else { return }
            task = nil
            connectDue = nil
            if t.countOfBytesSent >= bodyLength { bodySent = true }
            let ending: Ending
            if let error {
                ending = URLSessionTransport.failure(error, headSeen: headSeen, bodySent: bodySent)
            } else if headSeen {
                ending = .end
            } else {
                ending = .failure(status: GW_NETWORK, requestSent: bodySent, message: "URLSession: no answer")
            }
            if pending.isEmpty {
                end(ex, ending)
            } else {
                pendingEnd = ending
            }
            pump(&fx)
        }
    }

    // MARK: stepping the exchange (under the lock)

    /// Steps the exchange and does what it asks until it waits for input, a timer, or the
    /// consumer (an event is ready), or the call is over.
    private func pump(_ fx: inout Effects) {
        while let ex = exchange, ready == nil {
            var wait: Int64 = 0
            switch gw_exchange_step(ex, &wait) {
            case GW_WANT_SEND:
                send(ex, &fx)
            case GW_WANT_RECEIVE:
                if feedPending(ex) { continue }
                wakeAt = wait >= 0 ? .now() + .milliseconds(Int(clamping: wait)) : nil
                armTimer()
                return
            case GW_WANT_WAIT:
                // A backoff: the last answer is dropped first.
                dropAttempt(&fx)
                wakeAt = .now() + .milliseconds(Int(clamping: wait))
                armTimer()
                return
            case GW_WANT_EVENT:
                // gw fills the struct (its pointers valid until the next step): copied at once.
                let e = UnsafeMutablePointer<gw_event>.allocate(capacity: 1)
                defer { e.deallocate() }
                guard gw_exchange_event(ex, e) == GW_OK else {
                    abandon(ex, "gw_exchange_event refused the event its step announced", &fx)
                    return
                }
                let event = GwEvent(e.pointee)
                if let w = waiter {
                    waiter = nil
                    fx.resume = (w, .event(event))
                } else {
                    ready = event
                }
            case GW_WANT_DONE:
                finish(ex, &fx)
            default:
                abandon(ex, "gw_exchange_step failed", &fx)
            }
        }
    }

    /// Sends the request the exchange has ready (a new attempt or a redirect's hop).
    private func send(_ ex: OpaquePointer, _ fx: inout Effects) {
        dropAttempt(&fx)
        // gw fills the view (its pointers valid until the next request or the free).
        let slot = UnsafeMutablePointer<gw_request_view>.allocate(capacity: 1)
        defer { slot.deallocate() }
        // Not OK: the request cannot be made (the deadline passed, a cancel); the step says so.
        guard gw_exchange_request(ex, slot) == GW_OK else { return }
        let view = slot.pointee
        guard let request = URLSessionTransport.request(view) else {
            gw_exchange_feed_error(ex, GW_NETWORK, 0, "URLSession cannot send to this URL")
            return
        }
        bodyLength = Int64(clamping: view.body_len)
        connectTimeoutMs = view.connect_timeout_ms
        // Only a body's upload shows the connection is up (URLSession says nothing of the
        // connect itself); without one, gw's first-byte timeout bounds the wait.
        connectDue =
            bodyLength > 0 && connectTimeoutMs > 0 ? .now() + .milliseconds(Int(clamping: connectTimeoutMs)) : nil
        let t = transport.task(request, for: self)
        task = t
        fx.start.append(t)
    }

    /// Drops the attempt in flight (its task cancelled, its unread bytes forgotten).
    private func dropAttempt(_ fx: inout Effects) {
        if let t = task { fx.cancel.append(t) }
        task = nil
        headSeen = false
        bodySent = false
        pending = Data()
        pendingEnd = nil
        connectDue = nil
        emptyFeeds = 0
    }

    /// Feeds what waited for room: bytes first, then their end. False when nothing waits.
    private func feedPending(_ ex: OpaquePointer) -> Bool {
        if !pending.isEmpty {
            let taken = feed(ex, pending)
            pending = taken == pending.count ? Data() : Data(pending.dropFirst(taken))
            emptyFeeds = taken == 0 ? emptyFeeds + 1 : 0
            if emptyFeeds > 2 {
                // gw took nothing twice with no event between: it will not take these.
                pending = Data()
                end(ex, .failure(status: GW_NETWORK, requestSent: true, message: "gw took no more body bytes"))
            }
            return true
        }
        if let ending = pendingEnd {
            pendingEnd = nil
            end(ex, ending)
            return true
        }
        return false
    }

    /// Feeds body bytes; returns how many gw took (fewer under `GW_WOULD_BLOCK`).
    private func feed(_ ex: OpaquePointer, _ data: Data) -> Int {
        var taken = 0
        let status = data.withUnsafeBytes { raw in
            gw_exchange_feed_body(ex, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, &taken)
        }
        // GW_INVALID_ARGUMENT: the exchange awaits no body (it ended on these bytes' head):
        // nothing more of this answer is for it.
        return status == GW_INVALID_ARGUMENT ? data.count : taken
    }

    private func end(_ ex: OpaquePointer, _ ending: Ending) {
        switch ending {
        case .end: gw_exchange_feed_end(ex)
        case .failure(let status, let sent, let message): gw_exchange_feed_error(ex, status, sent ? 1 : 0, message)
        }
    }

    /// The call is over: the outcome (and, on a failure or when asked, the metadata) kept,
    /// the exchange freed, the task let go.
    private func finish(_ ex: OpaquePointer, _ fx: inout Effects) {
        var out: UnsafeMutablePointer<CChar>?
        let status = gw_exchange_finish(ex, &out)
        let text = takeData(out)
        let meta = status != GW_OK || wantsMeta ? handle.lastResponse() : nil
        let o = GwClient.Outcome(status: status, text: text, meta: meta)
        outcome = o
        gw_exchange_free(ex)
        exchange = nil
        if let t = task {
            if status == GW_OK { fx.cancelSoon = t } else { fx.cancel.append(t) }
        }
        task = nil
        pending = Data()
        pendingEnd = nil
        stopTimer()
        if let w = waiter {
            waiter = nil
            fx.resume = (w, .done(o))
        }
    }

    /// A step that cannot go on (a bug in gw or here): the call ends `GW_INTERNAL`.
    private func abandon(_ ex: OpaquePointer, _ why: String, _ fx: inout Effects) {
        gw_exchange_free(ex)
        exchange = nil
        let json = JSONValue.object(["error": .object(["message": .string(why), "type": "internal_error"])])
        outcome = GwClient.Outcome(status: GW_INTERNAL, text: Data(json.jsonString.utf8), meta: nil)
        if let t = task { fx.cancel.append(t) }
        task = nil
        stopTimer()
        if let w = waiter, let o = outcome {
            waiter = nil
            fx.resume = (w, .done(o))
        }
    }

    // MARK: the timer

    /// Schedules the timer for the earliest of gw's wake-up and the connect's due time. One
    /// already due sooner is left: it fires, steps, and is set again.
    private func armTimer() {
        guard let due = [wakeAt, connectDue].compactMap({ $0 }).min() else { return }
        if let scheduled = timerDue, scheduled <= due { return }
        let t: any DispatchSourceTimer
        if let timer {
            t = timer
        } else {
            t = DispatchSource.makeTimerSource(queue: .global())
            t.setEventHandler { [weak self] in self?.timerFired() }
            timer = t
            t.schedule(deadline: due, leeway: .milliseconds(1))
            timerDue = due
            t.resume()
            return
        }
        t.schedule(deadline: due, leeway: .milliseconds(1))
        timerDue = due
    }

    private func stopTimer() {
        timer?.cancel()
        timer = nil
        timerDue = nil
        wakeAt = nil
        connectDue = nil
    }

    private func timerFired() {
        locked { fx in
            timerDue = nil
            guard let ex = exchange else { return }
            if let due = connectDue, due <= .now() {
                // No connection within connect_timeout_ms: the attempt is dropped, and gw
                // weighs the timeout (a retry, or the end).
                dropAttempt(&fx)
                gw_exchange_feed_error(
                    ex, GW_TIMEOUT, 0, "URLSession: no connection within connect_timeout_ms (\(connectTimeoutMs) ms)")
            }
            pump(&fx)
        }
    }

    // MARK: locking

    /// `body` under the lock, then what it left to do, outside it.
    private func locked(_ body: (inout Effects) -> Void) {
        var fx = Effects()
        lock.locked { body(&fx) }
        for t in fx.start { t.resume() }
        for t in fx.cancel { t.cancel() }
        if let t = fx.cancelSoon {
            let soon = TaskBox(t)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { soon.task.cancel() }
        }
        if let (c, next) = fx.resume { c.resume(returning: next) }
    }
}

/// A task carried into a closure that runs on another queue (URLSessionTask is thread-safe).
private struct TaskBox: @unchecked Sendable {
    let task: URLSessionTask
    init(_ task: URLSessionTask) { self.task = task }
}

/// `body` with `fields` as gw_header values (valid during the call): every name and value
/// in one buffer of C strings.
private func withCHeaders<R>(_ fields: [(String, String)], _ body: (UnsafePointer<gw_header>?, Int) -> R) -> R {
    var buffer: [CChar] = []
    var offsets: [(name: Int, value: Int)] = []
    offsets.reserveCapacity(fields.count)
    for (name, value) in fields {
        let at = buffer.count
        buffer.append(contentsOf: name.utf8.map { CChar(bitPattern: $0) })
        buffer.append(0)
        offsets.append((at, buffer.count))
        buffer.append(contentsOf: value.utf8.map { CChar(bitPattern: $0) })
        buffer.append(0)
    }
    return buffer.withUnsafeBufferPointer { texts in
        let headers = offsets.map { gw_header(name: texts.baseAddress! + $0.name, value: texts.baseAddress! + $0.value) }
        return headers.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
    }
}
