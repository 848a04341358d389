import Foundation
import Gw
import Testing

/// How one side of a shared stream ended, reduced to what the documented outcomes tell apart.
enum SideOutcome: Sendable, Equatable, CustomStringConvertible {
    case text(String)
    case cancelled
    case gw(GwError.Kind, String?)
    case other(String)

    init(_ result: Result<String, any Error>) {
        switch result {
        case .success(let t): self = .text(t)
        case .failure(let e as GwError): self = .gw(e.kind, e.code)
        case .failure(let e) where e is CancellationError: self = .cancelled
        case .failure(let e): self = .other("\(e)")
        }
    }

    var description: String {
        switch self {
        case .text(let t): return "text(\(t.count))"
        case .cancelled: return "cancelled"
        case .gw(let k, let c): return "gw(\(k), \(c ?? "-"))"
        case .other(let s): return "other(\(s))"
        }
    }

    var isReused: Bool { self == .gw(.invalidArgument, "stream_reused") }
    var isAbandoned: Bool { self == .gw(.invalidArgument, "stream_abandoned") }
    /// The stream was cancelled in gw by another Task (GW_CANCELLED, the Task itself was not).
    var isCancelledByAnother: Bool { if case .gw(.cancelled, _) = self { return true } else { return false } }
}

/// The ways two Tasks (or one and a drop or a cancel) share one GwStream.
enum SharedUse: String, CaseIterable, Sendable {
    case iterateAndResult, iterateAndResultData, iterateAndTextDeltas, textDeltasAndResult
    case resultAndResult, resultAndResultData, iterateAndIterate
    case resultAndCancelIt, iterateAndCancelIt, iterateCancelledAndResult
    case dropMidFlightAndResult, dropEverythingMidFlight
}

extension GwTests {
    /// One GwStream used from several Tasks at once (issue 42, D1): every interleaving is
    /// memory-safe and ends in one of the documented outcomes. Runs plain, under ASan and TSan.
    @Suite struct StreamSharing {
        static let rounds = ProcessInfo.processInfo.environment["GW_SWIFT_STREAM_ROUNDS"].flatMap(Int.init) ?? 40
        static let words = "one two three four five six"
        static let full = "Echo: " + words

        /// The text of a result (the assembled chat.completion).
        static func text(_ v: JSONValue) -> String { v["choices"]?[0]?["message"]?["content"]?.stringValue ?? "?" }

        static func iterate(_ s: GwStream<JSONValue>, breakAfter: Int? = nil) async throws -> String {
            var t = ""
            var n = 0
            for try await e in s {
                t += e.textDelta ?? ""
                n += 1
                if let b = breakAfter, n >= b { break }
            }
            return t
        }

        static func deltas(_ s: GwStream<JSONValue>) async throws -> String {
            var t = ""
            for try await d in s.textDeltas() { t += d }
            return t
        }

        static func resultText(_ s: GwStream<JSONValue>) async throws -> String { text(try await s.result()) }

        static func resultDataText(_ s: GwStream<JSONValue>) async throws -> String {
            text(try JSONValue(data: try await s.resultData()))
        }

        /// A random pause of 0 to `maxMicros` µs, so the two sides start in every order.
        static func jitter(_ maxMicros: Int = 3000) async {
            let us = Int.random(in: 0...maxMicros)
            if us > 100 { try? await Task.sleep(for: .microseconds(us)) } else { await Task.yield() }
        }

        /// Runs `use` once on a fresh stream; checks the two outcomes; returns them for the tally.
        static func run(_ use: SharedUse, _ gw: GwClient) async -> (SideOutcome, SideOutcome) {
            let stream = gw.chatStream(chatJSON(words))
            func both(
                _ a: @escaping @Sendable () async throws -> String, _ b: @escaping @Sendable () async throws -> String,
                cancelA: Bool = false
            ) async -> (SideOutcome, SideOutcome) {
                let ta = Task { await jitter(); return try await a() }
                let tb = Task { await jitter(); return try await b() }
                if cancelA {
                    await jitter(4000)
                    ta.cancel()
                }
                return (SideOutcome(await ta.result), SideOutcome(await tb.result))
            }
            let full = Self.full
            switch use {
            case .iterateAndResult:
                let (l, r) = await both({ try await iterate(stream) }, { text(try await stream.result()) })
                // The loop gets every event result() has not read; result() the whole answer.
                if case .text(let t) = l { #expect(full.hasSuffix(t), "\(use): loop \(t)") } else { Issue.record("\(use): loop \(l)") }
                #expect(r == .text(full), "\(use): result \(r)")
                return (l, r)
            case .iterateAndResultData:
                let (l, r) = await both(
                    { try await iterate(stream) }, { text(try JSONValue(data: try await stream.resultData())) })
                if case .text(let t) = l { #expect(full.hasSuffix(t), "\(use): loop \(t)") } else { Issue.record("\(use): loop \(l)") }
                #expect(r == .text(full), "\(use): result \(r)")
                return (l, r)
            case .iterateAndTextDeltas, .iterateAndIterate:
                let (a, b): (SideOutcome, SideOutcome)
                if use == .iterateAndIterate {
                    (a, b) = await both({ try await iterate(stream) }, { try await iterate(stream) })
                } else {
                    (a, b) = await both({ try await iterate(stream) }, { try await deltas(stream) })
                }
                // One loop claims the stream and reads it all; the other throws stream_reused.
                #expect((a == .text(full) && b.isReused) || (b == .text(full) && a.isReused), "\(use): \(a) \(b)")
                return (a, b)
            case .textDeltasAndResult:
                let (l, r) = await both({ try await deltas(stream) }, { try await resultText(stream) })
                if case .text(let t) = l { #expect(full.hasSuffix(t), "\(use): deltas \(t)") } else { Issue.record("\(use): deltas \(l)") }
                #expect(r == .text(full), "\(use): result \(r)")
                return (l, r)
            case .resultAndResult, .resultAndResultData:
                let (a, b): (SideOutcome, SideOutcome)
                if use == .resultAndResult {
                    (a, b) = await both({ try await resultText(stream) }, { try await resultText(stream) })
                } else {
                    (a, b) = await both({ try await resultText(stream) }, { try await resultDataText(stream) })
                }
                #expect(a == .text(full) && b == .text(full), "\(use): \(a) \(b)")
                return (a, b)
            case .resultAndCancelIt:
                // A is cancelled at a random moment: it either finished, or threw CancellationError;
                // B then gets the answer, or GW_CANCELLED when A's cancellation stopped the stream.
                let (a, b) = await both({ text(try await stream.result()) }, { text(try await stream.result()) }, cancelA: true)
                #expect(a == .text(full) || a == .cancelled, "\(use): a \(a)")
                #expect(b == .text(full) || b.isCancelledByAnother, "\(use): b \(b)")
                return (a, b)
            case .iterateAndCancelIt, .iterateCancelledAndResult:
                let (l, r) = await both({ try await iterate(stream) }, { text(try await stream.result()) }, cancelA: true)
                if case .text(let t) = l { #expect(full.hasSuffix(t), "\(use): loop \(t)") } else { #expect(l == .cancelled, "\(use): loop \(l)") }
                #expect(r == .text(full) || r.isCancelledByAnother, "\(use): result \(r)")
                if use == .iterateCancelledAndResult, l == .cancelled {
                    // After the cancellation every later use gives the documented failure.
                    let again = SideOutcome(await Task { text(try await stream.result()) }.result)
                    #expect(again == r || again.isCancelledByAnother, "\(use): again \(again)")
                }
                return (l, r)
            case .dropMidFlightAndResult:
                // The loop breaks after one event (frees the stream): result() either read it all
                // before the loop claimed it, or throws stream_abandoned, or waits for nothing.
                let (l, r) = await both({ try await iterate(stream, breakAfter: 1) }, { text(try await stream.result()) })
                // One event's text, wherever the loop came in.
                if case .text(let t) = l { #expect(t.isEmpty || full.contains(t), "\(use): loop \(t)") } else { Issue.record("\(use): loop \(l)") }
                #expect(r == .text(full) || r.isAbandoned, "\(use): result \(r)")
                return (l, r)
            case .dropEverythingMidFlight:
                return await dropEverythingMidFlight(gw)
            }
        }

        /// Only two Tasks hold a stream: one claims it (and maybe reads an event) and drops its
        /// iterator at a random moment, the other reads result() and may be cancelled.
        /// Whatever they end with, nothing may crash or leak, and the stream is freed after both.
        static func dropEverythingMidFlight(_ gw: GwClient) async -> (SideOutcome, SideOutcome) {
            let (a, b): (Task<String, any Error>, Task<String, any Error>) = {
                let stream = gw.chatStream(chatJSON(words))
                let a = Task {
                    var it = stream.makeAsyncIterator()
                    await jitter()
                    if Bool.random() { _ = try await it.next() }
                    return ""
                }
                let b = Task { await jitter(); return try await resultDataText(stream) }
                return (a, b)
            }()
            await jitter(4000)
            if Bool.random() { b.cancel() }
            let (ra, rb) = (SideOutcome(await a.result), SideOutcome(await b.result))
            #expect(ra == .text("") || ra == .cancelled || ra.isCancelledByAnother, "drop: a \(ra)")
            #expect(
                rb == .text(full) || rb == .cancelled || rb.isAbandoned || rb.isCancelledByAnother, "drop: b \(rb)")
            return (ra, rb)
        }

        @Test func everyPairOfUsesIsSafeAndDocumented() async throws {
            try await Self.everyPair(try Mock.client(), rounds: Self.rounds, "")
        }

        /// The same through the URLSession transport (its own step and cancel paths under
        /// StreamCall's turn), a quarter of the rounds.
        @Test func everyPairOfUsesIsSafeAndDocumentedThroughURLSession() async throws {
            try await Self.everyPair(try urlSessionClient(), rounds: max(1, Self.rounds / 4), " (urlsession)")
        }

        static func everyPair(_ gw: GwClient, rounds: Int, _ label: String) async throws {
            try await Mock.reset()
            var tally: [SharedUse: [String: Int]] = [:]
            let start = ContinuousClock.now
            for round in 0..<rounds {
                for use in SharedUse.allCases {
                    let (a, b) = await Self.run(use, gw)
                    tally[use, default: [:]]["\(a) + \(b)", default: 0] += 1
                }
                if round % 4 == 3 { try await Mock.reset() }  // keep the mock's request log short
            }
            print(
                "gw-swift stream sharing\(label): \(rounds) rounds x \(SharedUse.allCases.count) uses in "
                    + String(format: "%.0f ms", ms(since: start)))
            for use in SharedUse.allCases {
                let seen = (tally[use] ?? [:]).sorted { $0.value > $1.value }.map { "\($0.value)x \($0.key)" }
                print("gw-swift   \(use.rawValue): " + seen.joined(separator: ", "))
            }
        }

        @Test func aLoopClaimedFirstGetsEveryEventAndResultWaitsForIt() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            // A slow stream, so result() is awaited while the loop is in the middle of it.
            try await Mock.fault(["match": "/v1/chat", "action": "drip", "interval_ms": 30])
            let stream = gw.chatStream(chatJSON(Self.words))
            var it = stream.makeAsyncIterator()  // claims the stream for this loop
            let saver = Task { Self.text(try await stream.result()) }
            var t = ""
            while let e = try await it.next() { t += e.textDelta ?? "" }
            #expect(t == Self.full, "the loop got every event: result() did not read any")
            #expect(try await saver.value == Self.full)
            #expect(try await Mock.requests(to: "/v1/chat/completions").count == 1)
        }

        @Test func resultWhileNoLoopIsClaimedHandsTheRestToALateLoop() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "drip", "interval_ms": 40])
            let stream = gw.chatStream(chatJSON(Self.words))
            let saver = Task { Self.text(try await stream.result()) }
            try await Task.sleep(for: .milliseconds(150))  // result() is reading by now
            var indices: [Int] = []
            var t = ""
            for try await e in stream {
                indices.append(e.index)
                t += e.textDelta ?? ""
            }
            #expect(try await saver.value == Self.full)
            #expect(Self.full.hasSuffix(t), "the late loop gets the events result() has not read")
            if let first = indices.first { #expect(indices == Array(first..<(first + indices.count))) }
            #expect(try await Mock.requests(to: "/v1/chat/completions").count == 1, "one stream, read by both")
            print("gw-swift late loop got \(indices.count) events, from index \(indices.first ?? -1)")
        }

        @Test func aResetMidStreamIsNetworkAndACleanCutIsStream() async throws {
            // gw: GW_NETWORK for a broken connection, GW_STREAM for a stream that ended
            // cleanly before its terminal event (the README's stream section says so).
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "reset", "after_events": 2])
            let reset = gw.chatStream(chatJSON(longText))
            let e = await #expect(throws: GwError.self) { for try await _ in reset {} }
            #expect(e?.kind == .network, "a reset: \(String(describing: e))")
            let again = await #expect(throws: GwError.self) { try await reset.result() }
            #expect(again?.kind == .network, "result() gives the same failure")
            try await Mock.fault(["match": "/v1/chat", "action": "truncate", "after_events": 2])
            let cut = await #expect(throws: GwError.self) { for try await _ in gw.chatStream(chatJSON(longText)) {} }
            #expect(cut?.kind == .stream, "a clean cut: \(String(describing: cut))")
        }
    }
}
