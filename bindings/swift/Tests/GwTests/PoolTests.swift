import Foundation
import Gw
import Testing

/// OS threads of this process now (Linux: /proc/self/task).
func osThreads() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count
}

/// This process's resident memory in KiB (Linux: VmRSS of /proc/self/status), 0 if unknown.
func residentKiB() -> Int {
    guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = s.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// The user texts of the chat requests gw-mock recorded since the last reset.
func sentChatTexts() async throws -> [String] {
    try await Mock.requests(to: "/v1/chat/completions").compactMap { $0["json"]?["messages"]?[0]?["content"]?.stringValue }
}

extension GwTests {
    /// The binding's threads: deadlines that count the wait for one, and clients that give
    /// theirs back (issue 42, D2 and D5).
    @Suite struct Pool {
        /// Waits until the mock has recorded a chat request (the first call holds the thread).
        func waitUntilSent(_ text: String) async throws {
            let start = ContinuousClock.now
            while !(try await sentChatTexts()).contains(text) {
                if ms(since: start) > 10_000 { Issue.record("\(text) never reached the mock"); return }
                try await Task.sleep(for: .milliseconds(10))
            }
        }

        /// A fresh client of one thread (`maxThreads: 1`, and `clientTotalTimeout` as its total
        /// timeout when given), which gw-mock holds in the chat "slow" for 2 s; returns the
        /// client and that call (given 30 s, so the client's timeout does not end it).
        func oneThreadHeldBySlowChat(clientTotalTimeout: Duration? = nil) async throws -> (GwClient, Task<JSONValue, any Error>) {
            try await Mock.reset()
            let gw = try Mock.client {
                $0.maxThreads = 1
                $0.totalTimeout = clientTotalTimeout
            }
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 2000])
            let slow = Task { try await gw.chat(chatJSON("slow"), options: GwCallOptions(totalTimeout: .seconds(30))) }
            try await waitUntilSent("slow")
            return (gw, slow)
        }

        @Test func aPerCallTotalTimeoutCountsTheWaitForAThread() async throws {
            let (gw, slow) = try await oneThreadHeldBySlowChat()
            let start = ContinuousClock.now
            let e = await #expect(throws: GwError.self) {
                try await gw.chat(chatJSON("queued"), options: GwCallOptions(totalTimeout: .milliseconds(300)))
            }
            let took = ms(since: start)
            print(String(format: "gw-swift queued call, total timeout 300 ms, failed after %.0f ms", took))
            #expect(e?.kind == .timeout)
            #expect(e?.status == -3)
            // The slow call holds the only thread for 2 s: the deadline, not the thread, ended it.
            #expect(took < 1500)
            _ = try await slow.value
            #expect(try await sentChatTexts() == ["slow"], "the queued call was never sent")
        }

        @Test func theClientsTotalTimeoutCountsTheWaitForAThread() async throws {
            let (gw, slow) = try await oneThreadHeldBySlowChat(clientTotalTimeout: .milliseconds(300))
            let start = ContinuousClock.now
            let e = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("queued")) }
            let took = ms(since: start)
            print(String(format: "gw-swift queued call, client total timeout 300 ms, failed after %.0f ms", took))
            #expect(e?.kind == .timeout)
            #expect(took < 1500)
            _ = try await slow.value
            #expect(try await sentChatTexts() == ["slow"], "the queued call was never sent")
        }

        @Test func aCallThatWaitedForAThreadGetsOnlyTheRestOfItsTotalTimeout() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.maxThreads = 1 }
            // Each call is answered after 1 s. The second waits ~1 s for the thread, so of its
            // 1.6 s only ~0.6 s are left when it is sent: it times out (fresh 1.6 s would pass).
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 1000, "times": 2])
            let first = Task { try await gw.chat(chatJSON("first")) }
            try await waitUntilSent("first")
            let start = ContinuousClock.now
            let e = await #expect(throws: GwError.self) {
                try await gw.chat(chatJSON("second"), options: GwCallOptions(totalTimeout: .milliseconds(1600)))
            }
            let took = ms(since: start)
            print(String(format: "gw-swift call queued ~1 s with total timeout 1600 ms, failed after %.0f ms", took))
            // Sent with the whole 1.6 s it would have passed (answered ~1 s after it was sent).
            #expect(e?.kind == .timeout)
            _ = try await first.value
        }

        /// A stream's open that waits for the thread: the deadline runs from the first `next()`,
        /// the open still queued at it fails with `.timeout` then and is never sent.
        @Test func aStreamsOpenCountsTheWaitForAThread() async throws {
            let (gw, slow) = try await oneThreadHeldBySlowChat()
            let stream = gw.chatStream(chatJSON("queued stream"), options: GwCallOptions(totalTimeout: .milliseconds(300)))
            let start = ContinuousClock.now
            var events = 0
            let e = await #expect(throws: GwError.self) {
                for try await _ in stream { events += 1 }
            }
            let took = ms(since: start)
            print(String(format: "gw-swift queued stream open, total timeout 300 ms, failed after %.0f ms", took))
            #expect(e?.kind == .timeout)
            #expect(events == 0)
            #expect(took < 1500)
            // The stream's end is stored: result() throws the same, without sending anything.
            await #expect(throws: GwError.self) { _ = try await stream.result() }
            _ = try await slow.value
            #expect(try await sentChatTexts() == ["slow"], "the queued stream was never sent")
        }

        @Test func aStreamsResultCountsTheWaitForAThreadWithTheClientsTotalTimeout() async throws {
            let (gw, slow) = try await oneThreadHeldBySlowChat(clientTotalTimeout: .milliseconds(300))
            let stream = gw.responsesStream(["model": "resp-test", "input": "queued"] as JSONValue)
            let start = ContinuousClock.now
            let e = await #expect(throws: GwError.self) { _ = try await stream.result() }
            let took = ms(since: start)
            print(String(format: "gw-swift queued stream result(), client total timeout 300 ms, failed after %.0f ms", took))
            #expect(e?.kind == .timeout)
            #expect(took < 1500)
            _ = try await slow.value
            #expect(try await Mock.requests(to: "/v1/responses").isEmpty, "the queued stream was never sent")
        }

        @Test func aStreamThatWaitedForAThreadOpensWithOnlyTheRestOfItsTotalTimeout() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.maxThreads = 1 }
            // Each request is answered after 1 s. The stream waits ~1 s for the thread, so of its
            // 1.6 s only ~0.6 s are left when it opens: it times out (a fresh 1.6 s would pass).
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 1000, "times": 2])
            let first = Task { try await gw.chat(chatJSON("first")) }
            try await waitUntilSent("first")
            let stream = gw.chatStream(chatJSON("second"), options: GwCallOptions(totalTimeout: .milliseconds(1600)))
            let start = ContinuousClock.now
            let e = await #expect(throws: GwError.self) {
                for try await _ in stream {}
            }
            let took = ms(since: start)
            print(String(format: "gw-swift stream queued ~1 s with total timeout 1600 ms, failed after %.0f ms", took))
            #expect(e?.kind == .timeout)
            _ = try await first.value
        }

        @Test func aStreamThatWaitedForAThreadIsCancelledOnItsNewHandle() async throws {
            try await Mock.reset()
            // The default total timeout (600 s): a stream that waited opens on a handle derived
            // again with the rest, and the Task's cancellation must reach that handle.
            let gw = try Mock.client { $0.maxThreads = 1 }
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 500])
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 5000])
            let first = Task { try await gw.chat(chatJSON("first")) }
            try await waitUntilSent("first")
            let stream = gw.chatStream(chatJSON("second"))
            let reader = Task {
                var n = 0
                for try await _ in stream { n += 1 }
                return n
            }
            // The open was sent (after ~0.5 s in the queue) and is held 5 s by the mock.
            try await waitUntilSent("second")
            let start = ContinuousClock.now
            reader.cancel()
            let result = await reader.result
            let took = ms(since: start)
            print(String(format: "gw-swift stream that waited for a thread, cancelled while opening, ended after %.0f ms", took))
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(took < 2000)
            _ = try await first.value
        }

        /// The clock starts at the first read, not when the stream is made.
        @Test func aStreamsTotalTimeoutRunsFromItsFirstRead() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let stream = gw.chatStream(chatJSON("made early"), options: GwCallOptions(totalTimeout: .milliseconds(400)))
            try await Task.sleep(for: .milliseconds(600))
            var text = ""
            for try await e in stream { text += e.textDelta ?? "" }
            #expect(text == "Echo: made early")
        }

        @Test func droppedClientsGiveTheirThreadsBack() async throws {
            try await Mock.reset()
            let before = osThreads()
            let rssBefore = residentKiB()
            for i in 0..<220 {
                let gw = try Mock.client()
                _ = try await gw.chat(chatJSON("client \(i)"))
            }
            // Bounded wait, well under the 10 s an idle thread of a live client is kept.
            let start = ContinuousClock.now
            var after = osThreads()
            while after > before + 4 && ms(since: start) < 5000 {
                try await Task.sleep(for: .milliseconds(50))
                after = osThreads()
            }
            print(
                "gw-swift OS threads before 220 dropped clients: \(before), after: \(after) (\(String(format: "%.0f", ms(since: start))) ms later); "
                    + "RSS \(rssBefore / 1024) -> \(residentKiB() / 1024) MiB")
            #expect(after <= before + 4)
        }

        @Test func aDroppedClientsStreamStillFinishes() async throws {
            // A stream outlives its client; the client's threads are retired, the stream's
            // remaining steps still get one.
            try await Mock.reset()
            var gw: GwClient? = try Mock.client()
            let stream = gw!.chatStream(chatJSON("after the client"))
            var it = stream.makeAsyncIterator()
            var text = try await it.next()?.textDelta ?? ""
            gw = nil
            while let e = try await it.next() { text += e.textDelta ?? "" }
            #expect(text == "Echo: after the client")
        }

        @Test func optionsNeverShowTheKey() {
            let key = "sk-secret-123456"
            let o = GwOptions(baseURL: "http://127.0.0.1:1", apiKey: key, extra: ["api_key": .string(key)])
            var dumped = ""
            dump(o, to: &dumped)
            #expect(!dumped.contains(key), "dump: \(dumped)")
            #expect(dumped.contains("apiKey"), "dump still names the field")
            #expect(!String(describing: o).contains(key))
            #expect(!String(reflecting: o).contains(key))
            #expect(!"\(o)".contains(key))
            let mirrored = Mirror(reflecting: o).children.map { "\($0.label ?? ""): \($0.value)" }.joined(separator: ", ")
            #expect(!mirrored.contains(key))
            #expect(mirrored.contains("127.0.0.1"), "the rest is still shown")
            var without = GwOptions(baseURL: "http://127.0.0.1:1")
            without.apiKey = nil
            var d2 = ""
            dump(without, to: &d2)
            #expect(d2.contains("apiKey: nil") || d2.contains("- apiKey: nil"), "an absent key shows as nil: \(d2)")
        }
    }
}
