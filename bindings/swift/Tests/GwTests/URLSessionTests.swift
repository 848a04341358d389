import Foundation
import Testing

@testable import Gw

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// The URLSession transport (FoundationNetworking here) on what only a driver decides: its
// task cancelled with the Task, redirects left to gw, the stream's bytes held back while the
// consumer is slow, gw's timers run without a thread. The corpus runs through it as well
// (ConformanceTests' second pass).

/// A client on the URLSession transport, retries off unless tuned.
func urlSessionClient(_ tune: (inout GwOptions) -> Void = { _ in }) throws -> GwClient {
    try Mock.client {
        $0.transport = .urlSession()
        tune(&$0)
    }
}

/// The ends of a client's URLSession tasks, as its delegate saw them.
final class TaskEnds: @unchecked Sendable {
    private let lock = NSLock()
    private var ends: [(error: (any Error)?, at: ContinuousClock.Instant)] = []

    init(_ client: GwClient) {
        client.session?.observeTaskEnds { [self] _, error in
            lock.lock()
            ends.append((error, .now))
            lock.unlock()
        }
    }

    var all: [(error: (any Error)?, at: ContinuousClock.Instant)] {
        lock.lock()
        defer { lock.unlock() }
        return ends
    }
}

extension GwTests {
    @Suite struct URLSessionTransport {
        @Test func callsGoThroughTheSessionWithGwsHeaders() async throws {
            try await Mock.reset()
            let gw = try urlSessionClient { $0.userAgent = "gw-swift-test/1" }
            let ends = TaskEnds(gw)
            let answer = try await gw.chat(chatJSON("hello"))
            #expect(answer["choices"]?[0]?["message"]?["content"]?.stringValue == "Echo: hello")
            #expect(ends.all.count == 1 && ends.all.allSatisfy { $0.error == nil })
            let sent = try #require(try await Mock.requests(to: "/v1/chat/completions").first)
            #expect(sent.header("user-agent")?.hasSuffix(" gw-swift-test/1") == true, "gw's User-Agent, not the session's")
            #expect(sent.header("authorization") == "Bearer " + Mock.apiKey)
            #expect(sent.header("idempotency-key")?.isEmpty == false)
            #expect(gw.threadCount == 0, "no thread of the client's pool was used")
        }

        @Test func cancellingTheTaskCancelsTheURLSessionTaskMidStream() async throws {
            try await Mock.reset()
            try await Mock.fault(["action": "drip", "interval_ms": 300])
            let gw = try urlSessionClient()
            let ends = TaskEnds(gw)
            let first = AsyncStream<Void>.makeStream()
            let task = Task {
                var n = 0
                for try await _ in gw.chatStream(chatJSON(longText)) {
                    n += 1
                    if n == 1 { first.continuation.yield() }
                }
            }
            for await _ in first.stream { break }
            try await Task.sleep(for: .milliseconds(50))  // between two events
            let cancelledAt = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            var end = ends.all.first
            let waitUntil = ContinuousClock.now + .seconds(2)
            while end == nil, ContinuousClock.now < waitUntil {
                try await Task.sleep(for: .milliseconds(2))
                end = ends.all.first
            }
            let ended = try #require(end, "the URLSession task never ended")
            #expect((ended.error as? URLError)?.code == .cancelled)
            let latency = ms(since: cancelledAt) - ms(since: ended.at)
            print("gw-swift urlsession: Task cancel to URLSession task cancelled mid-stream " + String(format: "%.2f ms", latency))
            #expect(latency < cancelBudget)
        }

        @Test func aRedirectToAnotherOriginIsJudgedByGwNotFollowedByTheSession() async throws {
            let other = MockProcess()
            try await Mock.reset()
            let gw = try urlSessionClient()
            // A POST is never replayed to another origin: refused, nothing sent there.
            try await Mock.fault([
                "action": "redirect", "status": 307, "location": .string(other.url + "/v1/chat/completions"),
            ])
            let refused = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) }
            #expect(refused?.kind == .network)
            #expect(refused?.message.contains("another origin") == true)
            // A GET goes there bare: without the key or the caller's headers.
            try await Mock.fault(["action": "redirect", "status": 302, "location": .string(other.url + "/v1/videos/abc")])
            _ = try? await gw.request("GET", "/v1/videos/abc", options: GwCallOptions(headers: ["x-app": "demo"]))
            let there = try await GwClient(GwOptions(baseURL: other.url, apiKey: Mock.apiKey, maxRetries: 0))
                .request("GET", "/__mock/requests").arrayValue ?? []
            #expect(there.count == 1)
            #expect(there.first?.header("authorization") == nil)
            #expect(there.first?.header("x-app") == nil)
            #expect(try await Mock.requests().count == 2, "each redirect was answered once, by this origin")
        }

        @Test func aSlowConsumerHoldsTheStreamBackAndLosesNothing() async throws {
            try await Mock.reset()
            let gw = try urlSessionClient()
            // About 5000 events (~600 KiB): far over gw's 64 KiB of events not taken.
            let words = (0..<5000).map { "w\($0)" }.joined(separator: " ")
            let stream = gw.chatStream(chatJSON(words))
            var it = stream.makeAsyncIterator()
            var text = try await it.next()?.textDelta ?? ""
            try await Task.sleep(for: .milliseconds(300))  // the whole answer arrives meanwhile
            let heldBack = try #require(gw.session?.heldBack)
            #expect(heldBack > 0, "gw said GW_WOULD_BLOCK and the bytes waited")
            var count = 1
            while let e = try await it.next() {
                text += e.textDelta ?? ""
                count += 1
            }
            #expect(text == "Echo: " + words)
            #expect(try await stream.result()["choices"]?[0]?["message"]?["content"]?.stringValue == text)
            print("gw-swift urlsession: \(count) events, \(heldBack) bytes held back for the consumer")
        }

        @Test func aRetryWaitsForRetryAfterOnATimerWithoutAThread() async throws {
            try await Mock.reset()
            try await Mock.fault(["action": "status", "status": 429, "headers": ["retry-after": "1"]])
            let gw = try urlSessionClient { $0.maxRetries = 1 }
            let meta = Shared<GwResponseMeta?>(nil)
            let started = ContinuousClock.now
            let call = Task { try await gw.chat(chatJSON("again"), options: GwCallOptions(onResponse: { m in meta.update { $0 = m } })) }
            try await Task.sleep(for: .milliseconds(400))
            #expect(gw.threadCount == 0, "the backoff holds no thread")
            let answer = try await call.value
            let waited = ms(since: started)
            #expect(answer["choices"]?[0]?["message"]?["content"]?.stringValue == "Echo: again")
            #expect(meta.get()?.attempts == 2)
            #expect(waited >= 950, "Retry-After: 1 was honoured (\(waited) ms)")
            #expect(try await Mock.requests(to: "/v1/chat/completions").count == 2)
        }

        @Test func aHangingConnectEndsAtTheConnectTimeout() async throws {
            let silent = try SilentServer()
            defer { silent.close() }
            let gw = try GwClient(
                GwOptions(
                    baseURL: "http://127.0.0.1:\(silent.port)", apiKey: Mock.apiKey, connectTimeout: .milliseconds(200),
                    maxRetries: 0, transport: .urlSession()))
            let started = ContinuousClock.now
            let e = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) }
            #expect(e?.kind == .timeout)
            #expect(e?.message.contains("connect_timeout_ms") == true)
            #expect(ms(since: started) < 2000)
        }

        @Test func anUploadGoesAsMultipart() async throws {
            try await Mock.reset()
            let gw = try urlSessionClient()
            let png = Data([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3])
            let result = try await gw.imageEditUpload(
                ImageEditRequest(model: "edit-test", prompt: "sky"), image: GwFile(data: png, filename: "a.png"))
            #expect(result.data.first?.revisedPrompt == "Edited: sky")
            let parts = try await Mock.requests(to: "/v1/images/edits").first?["multipart"]?.arrayValue ?? []
            #expect(parts.first { $0["name"]?.stringValue == "image" }?["bytes_b64"]?.stringValue == png.base64EncodedString())
        }

        @Test func aVideoWaitSendsEveryPollThroughTheSessionWithoutAThread() async throws {
            try await Mock.reset()
            let gw = try urlSessionClient()
            let ends = TaskEnds(gw)
            let seen = LineBox()
            let wait = Task {
                try await gw.videoWait(.vendorR, taskId: "r-swift-wait", interval: .milliseconds(150)) {
                    seen.add($0.status ?? "?")
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            #expect(gw.threadCount == 0, "the wait holds no thread of the client's")
            let done = try await wait.value
            #expect(done.status == "SUCCEEDED")
            #expect(seen.all() == ["PENDING", "RUNNING", "SUCCEEDED"])
            #expect(ends.all.count == 3, "every poll was a URLSession task")
            #expect(try await Mock.requests(to: "/vendorR/task/r-swift-wait").count == 3)
        }

        @Test func aVideoWaitStoppedByItsProgressThrowsItsError() async throws {
            struct Stop: Error {}
            try await Mock.reset()
            let gw = try urlSessionClient()
            await #expect(throws: Stop.self) {
                try await gw.videoWait(.vendorR, taskId: "r-swift-stop", interval: .milliseconds(20)) { record in
                    if record.status == "RUNNING" { throw Stop() }
                }
            }
            #expect(try await Mock.requests(to: "/vendorR/task/r-swift-stop").count == 2, "no poll after the stop")
        }

        @Test func optionsOfGwsOwnStackAreRefused() throws {
            for (tune, param) in [
                ({ (o: inout GwOptions) in o.caPEM = "-----BEGIN CERTIFICATE-----" }, "ca_pem"),
                ({ (o: inout GwOptions) in o.proxy = "http://proxy.example:3128" }, "proxy"),
                ({ (o: inout GwOptions) in o.tlsVerifier = .webpki }, "tls_verifier"),
            ] {
                let e = #expect(throws: GwError.self) { try urlSessionClient(tune) }
                #expect(e?.param == param)
            }
        }
    }
}
