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
/// - Cancelling the task cancels the stream in gw at once, waiting for an event or not, and
///   the loop throws `CancellationError`. Breaking out of the loop frees the stream and
///   closes its connection right away.
/// - A stream is iterated once; a second `for` loop throws. ``result()`` without a loop
///   reads the whole stream and gives only the final answer.
/// - Failures (in-stream error events, a stream cut short) are thrown by the loop as
///   ``GwError`` after the events before them.
public struct GwStream<Final: Decodable & Sendable>: AsyncSequence, Sendable {
    public typealias Element = GwEvent
    public typealias Failure = any Error

    /// nil only in a stream a fake made (``init(events:result:)``): every method below takes
    /// the `scripted` path first then.
    let call: StreamCall!
    var scripted: ScriptedStream<Final>? = nil

    /// The final answer: for chat the `chat.completion` gw assembled from the chunks, for
    /// Responses the `response` of `response.completed` (or `response.incomplete`). Waits for
    /// the end of the stream, reading (without handing out) any events the loop did not take.
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
final class StreamCall: @unchecked Sendable {
    enum Opener: Sendable { case chat, responses }
    enum Phase {
        case ready, open, done, failed, abandoned
    }
    /// What one step gave: an event, the end (``final``, the final answer), or a failure.
    struct Step: Sendable {
        var event: GwEvent?
        var final: Data?
        var status: Int32 = 0
        var errorText: String?
        var meta: GwResponseMeta?

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

    private let lock = NSLock()
    private let handle: Handle?
    private let pool: BlockingPool
    private let request: CText?
    private let opener: Opener
    private let options: GwCallOptions
    private var stream: OpaquePointer?
    private var phase: Phase
    /// The final answer once `phase` is `.done`; the failure once it is `.failed`.
    private var final: Data?
    private var failure: (any Error)?
    private var claimed = false
    private var busy = false
    private var freeWhenIdle = false
    private(set) var metaStorage: GwResponseMeta?

    var meta: GwResponseMeta? { lock.locked { metaStorage } }

    init(client: GwClient, opener: Opener, body: () throws -> Data, options: GwCallOptions) {
        self.pool = client.pool
        self.opener = opener
        self.options = options
        do {
            let request = try CText(body(), "request")
            self.handle = try client.base.derive(options.json())
            self.request = request
            self.phase = .ready
        } catch {
            self.handle = nil
            self.request = nil
            self.phase = .failed
            self.failure = error
        }
    }

    deinit {
        gw_stream_free(stream)
    }

    func claim() -> Token? {
        lock.locked {
            if claimed { return nil }
            claimed = true
            return Token(self)
        }
    }

    /// The loop was left before the end: free the stream now (closing its connection).
    func abandon() {
        lock.locked {
            guard case .open = phase else {
                if case .ready = phase { phase = .abandoned }
                return
            }
            phase = .abandoned
            if busy {
                freeWhenIdle = true
            } else {
                gw_stream_free(stream)
                stream = nil
            }
        }
    }

    /// Ends the call as `error`, freeing the stream (unless a step still runs: it frees it).
    private func fail(_ error: any Error) {
        lock.locked {
            if case .open = phase {} else if case .ready = phase {} else { return }
            phase = .failed
            failure = error
            if busy {
                freeWhenIdle = true
            } else {
                gw_stream_free(stream)
                stream = nil
            }
        }
    }

    func next(_ token: Token) async throws -> GwEvent? {
        let (now, failed) = lock.locked { (phase, failure) }
        switch now {
        case .done, .abandoned: return nil
        case .failed: throw failed ?? GwError(status: -99, message: "stream failed")
        case .ready, .open: break
        }
        let step = try await blockingStep(drain: false)
        if let e = step.event { return e }
        if step.final != nil {
            if let meta = step.meta { options.onResponse?(meta) }
            return nil
        }
        throw stepError(step)
    }

    func result() async throws -> Data {
        let (now, done, failed) = lock.locked { (phase, final, failure) }
        switch now {
        case .done: return done ?? Data()
        case .failed: throw failed ?? GwError(status: -99, message: "stream failed")
        case .abandoned:
            throw GwError(
                status: -1, message: "the stream was left before its end (the loop broke out); its result is gone",
                type: "invalid_request_error", code: "stream_abandoned")
        case .ready, .open: break
        }
        let step = try await blockingStep(drain: true)
        if let final = step.final {
            if let meta = step.meta { options.onResponse?(meta) }
            return final
        }
        throw stepError(step)
    }

    /// `step(drain:)` on a pool thread, unless the Task is cancelled; a failure fails the
    /// stream.
    private func blockingStep(drain: Bool) async throws -> Step {
        if Task.isCancelled {
            fail(CancellationError())
            throw CancellationError()
        }
        do {
            return try await runBlocking(pool, cancelling: handle) { [self] in self.step(drain: drain) }
        } catch {
            fail(error)
            throw error
        }
    }

    /// The error of a step that ended the stream without its end (the stream fails with it).
    private func stepError(_ step: Step) -> any Error {
        let error: any Error =
            Task.isCancelled
            ? CancellationError() : GwError(status: Int(step.status), errorJSON: step.errorText, response: step.meta)
        fail(error)
        return error
    }

    /// One blocking step on a pool thread: open if needed, then the next event (or, with
    /// `drain`, the final answer). Frees the stream once it ended or was abandoned meanwhile.
    private func step(drain: Bool) -> Step {
        guard let handle, let request else { return .failed(-99, nil, nil) }
        var s: OpaquePointer? = lock.locked {
            switch phase {
            case .ready, .open:
                busy = true
                return stream
            default:
                return nil
            }
        }
        let result = advance(handle, request, &s, drain: drain)
        lock.locked {
            busy = false
            if result.event == nil {
                if let d = result.final {
                    phase = .done
                    final = d
                }
                metaStorage = result.meta
                freeWhenIdle = true
            }
            if freeWhenIdle {
                gw_stream_free(s)
                stream = nil
                freeWhenIdle = false
            } else {
                stream = s
                if case .ready = phase { phase = .open }
            }
        }
        return result
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
        if !drain {
            var event: UnsafePointer<gw_event>?
            let status = gw_stream_next(open, &event)
            if status == 0, let event { return .event(GwEvent(event.pointee)) }
            if status != 1 {
                var err: UnsafeMutablePointer<CChar>?
                _ = gw_stream_finish(open, &err)
                return .failed(status, takeString(err), handle.lastResponse())
            }
        }
        var out: UnsafeMutablePointer<CChar>?
        let status = gw_stream_finish(open, &out)
        let text = takeData(out)
        let meta = handle.lastResponse()
        if status == 0, let text { return .done(text, meta) }
        return .failed(status == 0 ? -4 : status, text.map { String(decoding: $0, as: UTF8.self) }, meta)
    }
}
