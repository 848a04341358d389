import Foundation
import Gw
import Testing

/// The cancellation latency allowed (50 ms; sanitizer runs may raise it with GW_CANCEL_BUDGET_MS).
let cancelBudget: Double = ProcessInfo.processInfo.environment["GW_CANCEL_BUDGET_MS"].flatMap(Double.init) ?? 50

/// Starts `body` in a task, cancels it after `after`, and returns how long the task took to
/// end after cancel(); the task must end with CancellationError.
func cancellationLatency(
    _ phase: String, after: Duration, _ body: @escaping @Sendable () async throws -> Void
) async throws -> Double {
    let task = Task { try await body() }
    try await Task.sleep(for: after)
    let start = ContinuousClock.now
    task.cancel()
    let result = await task.result
    let latency = ms(since: start)
    print("gw-swift cancel latency " + phase.padding(toLength: 24, withPad: " ", startingAt: 0) + String(format: "%7.2f ms", latency))
    switch result {
    case .success: Issue.record("\(phase): the call finished instead of being cancelled")
    case .failure(let error): #expect(error is CancellationError, "\(phase): \(error)")
    }
    #expect(latency < cancelBudget, "\(phase): \(latency) ms")
    return latency
}

extension GwTests {
    /// Task cancellation reaches gw in every phase of a call, within 50 ms.
    @Suite struct Cancellation {
        @Test func whileConnecting() async throws {
            let server = try SilentServer(accepting: false)
            defer { server.close() }
            let gw = try GwClient(GwOptions(baseURL: "http://127.0.0.1:\(server.port)", apiKey: "k", maxRetries: 0))
            _ = try await cancellationLatency("connect", after: .milliseconds(300)) { _ = try await gw.chat(chatJSON("x")) }
        }

        @Test func whileWaitingForTheHeadAndTheConnectionIsClosed() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 5000])
            let before = openSockets()
            _ = try await cancellationLatency("head wait", after: .milliseconds(300)) { _ = try await gw.chat(chatJSON("x")) }
            try await Task.sleep(for: .milliseconds(20))
            #expect(openSockets() == before, "the cancelled call's connection is closed, not pooled")
        }

        @Test func whileReadingABody() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"id\":"
            try await Mock.fault(["action": "raw", "bytes": .string(head), "then": "hang"])
            _ = try await cancellationLatency("body", after: .milliseconds(300)) { _ = try await gw.chat(chatJSON("x")) }
        }

        @Test func whileAStreamWaitsBetweenEvents() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "drip", "interval_ms": 2000])
            let gotFirst = LineBox()
            let task = Task {
                for try await e in gw.chatStream(chatJSON(longText)) { gotFirst.add("\(e.index)") }
            }
            while gotFirst.all().isEmpty { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(200))
            let start = ContinuousClock.now
            task.cancel()
            let result = await task.result
            let latency = ms(since: start)
            print("gw-swift cancel latency " + "stream between events".padding(toLength: 24, withPad: " ", startingAt: 0) + String(format: "%7.2f ms", latency))
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(latency < cancelBudget)
        }

        @Test func whileWaitingForTheStreamsHead() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 5000])
            _ = try await cancellationLatency("stream open", after: .milliseconds(300)) {
                for try await _ in gw.chatStream(chatJSON("x")) {}
            }
        }

        @Test func duringARetryBackoff() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.maxRetries = 2 }
            try await Mock.fault(["match": "/v1/chat", "action": "status", "status": 503, "headers": ["retry-after-ms": "5000"]])
            _ = try await cancellationLatency("retry backoff", after: .milliseconds(300)) { _ = try await gw.chat(chatJSON("x")) }
            #expect(try await Mock.requests(to: "/v1/chat/completions").count == 1, "the retry was never sent")
        }

        @Test func duringAVideoWaitInterval() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let id = try #require(try await gw.videoCreate(VideoRequest(model: "video-test", prompt: "slow")).pollId)
            _ = try await cancellationLatency("videoWait interval", after: .milliseconds(300)) {
                _ = try await gw.videoWait(.unified, taskId: id, interval: .seconds(5))
            }
        }

        @Test func duringAnUpload() async throws {
            let server = try SilentServer(accepting: true)
            defer { server.close() }
            let gw = try GwClient(GwOptions(baseURL: "http://127.0.0.1:\(server.port)", apiKey: "k", maxRetries: 0))
            let big = GwFile(data: Data(repeating: 7, count: 32 << 20), filename: "big.png")
            _ = try await cancellationLatency("upload", after: .milliseconds(300)) {
                _ = try await gw.imageEditUpload(ImageEditRequest(model: "edit-test", prompt: "p"), image: big)
            }
        }

        @Test func whileQueuedBehindTheThreadCap() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.maxThreads = 1 }
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 1500])
            let holder = Task { try await gw.chat(chatJSON("holds the only thread")) }
            try await Task.sleep(for: .milliseconds(100))
            _ = try await cancellationLatency("queued (thread cap)", after: .milliseconds(100)) {
                _ = try await gw.chat(chatJSON("queued"))
            }
            #expect(try await holder.value["object"]?.stringValue == "chat.completion")
        }

        @Test func anAlreadyCancelledTaskSendsNothing() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let call = Task {
                while !Task.isCancelled { await Task.yield() }
                _ = try await gw.chat(chatJSON("never sent"))
            }
            call.cancel()
            await #expect(throws: CancellationError.self) { try await call.value }
            let stream = Task {
                while !Task.isCancelled { await Task.yield() }
                for try await _ in gw.chatStream(chatJSON("never sent")) {}
            }
            stream.cancel()
            await #expect(throws: CancellationError.self) { try await stream.value }
            #expect(try await Mock.requests().isEmpty)
        }

        @Test func aProgressStopWithoutTaskCancellationIsAGwError() async throws {
            // gw's own GW_CANCELLED (a handle cancelled by gw, not by the Task) stays a GwError.
            let e = GwError(status: -5, message: "cancelled")
            #expect(e.kind == .cancelled)
        }
    }

    /// One client shared by many tasks; the cooperative pool stays free.
    @Suite struct Concurrency {
        @Test func slowCallsNeverStarveTheCooperativePool() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let n = ProcessInfo.processInfo.activeProcessorCount * 4
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 1500, "times": .int(Int64(n))])
            let calls = (0..<n).map { i in Task { try await gw.chat(chatJSON("slow \(i)")) } }
            try await Task.sleep(for: .milliseconds(300))
            var worst = 0.0
            for _ in 0..<5 {
                let start = ContinuousClock.now
                let ran = await Task.detached { ms(since: start) }.value
                let plain = await Task { ms(since: start) }.value
                worst = max(worst, ran, plain)
                try await Task.sleep(for: .milliseconds(20))
            }
            print(String(format: "gw-swift unrelated Task latency with %d slow calls in flight: %.2f ms (worst of 5)", n, worst))
            #expect(worst < 50)
            for c in calls { _ = try await c.value }
        }

        @Test func twoHundredConcurrentCallsOnOneClient() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for i in 0..<200 {
                    group.addTask { (i, try await gw.chat(ChatRequest(model: "gpt-test", messages: [.user("caller \(i)")])).text) }
                }
                return try await group.reduce(into: [Int: String?]()) { $0[$1.0] = $1.1 }
            }
            #expect(answers.count == 200)
            for (i, text) in answers { #expect(text == "Echo: caller \(i)") }
            #expect(try await Mock.requests(to: "/v1/chat/completions").count == 200)
            #expect(gw.threadCount <= gw.maxThreads)
        }

        @Test func oneHundredConcurrentStreamsOnOneClient() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let texts = try await withThrowingTaskGroup(of: (Int, String, String?).self) { group in
                for i in 0..<100 {
                    group.addTask {
                        let stream = gw.chatStream(ChatRequest(model: "gpt-test", messages: [.user("stream number \(i)")]))
                        var text = ""
                        for try await e in stream { text += e.textDelta ?? "" }
                        return (i, text, try await stream.result().text)
                    }
                }
                return try await group.reduce(into: [(Int, String, String?)]()) { $0.append($1) }
            }
            #expect(texts.count == 100)
            for (i, text, final) in texts {
                #expect(text == "Echo: stream number \(i)")
                #expect(final == text)
            }
        }

        @Test func cancellingOneCallLeavesTheOthersAlone() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 600, "times": 2])
            let kept = Task { try await gw.chat(ChatRequest(model: "gpt-test", messages: [.user("kept")])) }
            let doomed = Task { try await gw.chat(ChatRequest(model: "gpt-test", messages: [.user("dropped")])) }
            try await Task.sleep(for: .milliseconds(150))
            doomed.cancel()
            await #expect(throws: CancellationError.self) { try await doomed.value }
            #expect(try await kept.value.text == "Echo: kept")
        }

        @Test func cancellingMoreCallsThanThreadsEndsThemAllAtOnce() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.maxThreads = 16 }
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 3000, "times": 100])
            let calls = (0..<80).map { i in Task { try await gw.chat(chatJSON("n\(i)")) } }
            try await Task.sleep(for: .milliseconds(300))
            let start = ContinuousClock.now
            for c in calls { c.cancel() }
            for c in calls { _ = await c.result }
            let took = ms(since: start)
            print(String(format: "gw-swift cancelling 80 calls (16 running, 64 queued): %.2f ms", took))
            #expect(took < 1000)
            for c in calls { await #expect(throws: CancellationError.self) { try await c.value } }
        }

        @Test func releasingTheClientMidStreamIsSafe() async throws {
            try await Mock.reset()
            var gw: GwClient? = try Mock.client()
            weak let weakClient = gw
            try await Mock.fault(["match": "/v1/chat", "action": "drip", "interval_ms": 50])
            let stream = gw!.chatStream(chatJSON("a stream across release"))
            var it = stream.makeAsyncIterator()
            var text = try await it.next()?.textDelta ?? ""
            gw = nil
            #expect(weakClient == nil, "the GwClient (and its gw_client) is freed while the stream runs")
            while let e = try await it.next() { text += e.textDelta ?? "" }
            #expect(text == "Echo: a stream across release")
            #expect(try await stream.result()["object"]?.stringValue == "chat.completion")
        }

        @Test func releasingTheClientWhileCallsRunLetsThemFinish() async throws {
            try await Mock.reset()
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 300, "times": 3])
            var gw: GwClient? = try Mock.client()
            weak let weakClient = gw
            let calls = try (0..<3).map { i in
                let client = try #require(gw)
                return Task { try await client.chat(chatJSON("inflight \(i)")) }
            }
            gw = nil
            for (i, c) in calls.enumerated() {
                #expect(try await c.value["choices"]?[0]?["message"]?["content"]?.stringValue == "Echo: inflight \(i)")
            }
            #expect(weakClient == nil)
        }

        @Test func idleThreadsStayUnderTheCap() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.maxThreads = 3 }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<12 { group.addTask { _ = try await gw.chat(chatJSON("c\(i)")) } }
                try await group.waitForAll()
            }
            #expect(gw.threadCount <= 3)
        }
    }
}
