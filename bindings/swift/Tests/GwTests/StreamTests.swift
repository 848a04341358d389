import Foundation
import Gw
import Testing

extension GwTests {
    /// Pull streams as AsyncSequences: whole, typed, shapes, cut short, failing.
    @Suite struct Streams {
        @Test func chatStreamGivesChunksThenTheAssembledCompletion() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            var meta: GwResponseMeta?
            let box = MetaBox()
            let stream = gw.chatStream(chatJSON(longText), options: GwCallOptions(onResponse: { box.set($0) }))
            var events: [GwEvent] = []
            for try await e in stream { events.append(e) }
            meta = box.get()
            #expect(events.count >= 4)
            #expect(events.map(\.index) == Array(0..<events.count))
            #expect(events.allSatisfy { $0.name == "message" && $0.choiceIndex == 0 })
            let text = events.compactMap(\.textDelta).joined()
            #expect(text == "Echo: " + longText)
            let final = try await stream.result()
            #expect(final["choices"]?[0]?["message"]?["content"]?.stringValue == text)
            #expect(try events[1].decode(ChatCompletionChunk.self).object == "chat.completion.chunk")
            #expect(meta?.status == 200)
            #expect(stream.response?.status == 200)
            let sent = try await Mock.requests(to: "/v1/chat/completions").first
            #expect(sent?["json"]?["stream"]?.boolValue == true)
        }

        @Test func typedChatStreamAndTextDeltas() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let request = ChatRequest(model: "gpt-test", messages: [.user("alpha beta")])
            var text = ""
            for try await t in gw.chatStream(request).textDeltas() { text += t }
            #expect(text == "Echo: alpha beta")
            let completion = try await gw.chatStream(request).result()
            #expect(completion.text == "Echo: alpha beta")
        }

        @Test func twoChoicesAreToldApartByChoiceIndex() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["action": "stream_shape", "shape": "n2"])
            var request = ChatRequest(model: "gpt-test", messages: [.user("red green")])
            request.n = 2
            let stream = gw.chatStream(request)
            var texts = ["", ""]
            for try await e in stream { if let t = e.textDelta { texts[e.choiceIndex] += t } }
            #expect(texts[0] == "Echo: red green")
            #expect(!texts[1].isEmpty && texts[1] != texts[0])
            let completion = try await stream.result()
            #expect(completion.choices.map { $0.message?.text ?? "" } == texts)
        }

        @Test func toolCallsWithoutIndexAreAssembled() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["action": "stream_shape", "shape": "tool_calls_no_index"])
            let stream = gw.chatStream(
                ChatRequest(model: "gpt-test", messages: [.user("call tools")], tools: [.function("lookup")]))
            var chunks: [ChatCompletionChunk] = []
            for try await e in stream { chunks.append(try e.decode(ChatCompletionChunk.self)) }
            #expect(chunks.contains { $0.choices.first?.delta?.toolCalls != nil })
            let completion = try await stream.result()
            let calls = try #require(completion.choices.first?.message?.toolCalls)
            #expect(calls.count == 3)
            #expect(completion.choices.first?.finishReason == "tool_calls")
            for call in calls { #expect(try JSONValue(json: call.function.arguments ?? "") != .null) }
        }

        @Test func aUsageChunkWithoutChoices() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["action": "stream_shape", "shape": "usage_chunk"])
            var request = ChatRequest(model: "gpt-test", messages: [.user(longText)])
            request.streamOptions = StreamOptions(includeUsage: true)
            let stream = gw.chatStream(request)
            var last: ChatCompletionChunk?
            for try await e in stream { last = try e.decode(ChatCompletionChunk.self) }
            #expect(last?.choices.isEmpty == true)
            #expect(last?.usage?.totalTokens != nil)
            #expect(try await stream.result().usage?.totalTokens == last?.usage?.totalTokens)
            #expect(try await Mock.requests().first?["json"]?["stream_options"]?["include_usage"]?.boolValue == true)
        }

        @Test func keepaliveObjectsDoNotBreakTheText() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["action": "stream_shape", "shape": "keepalive"])
            var text = ""
            for try await t in gw.chatStream(chatJSON("still here")).textDeltas() { text += t }
            #expect(text == "Echo: still here")
        }

        @Test func extraFieldsStayInExtra() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["action": "stream_shape", "shape": "extra_fields"])
            var chunks: [ChatCompletionChunk] = []
            for try await e in gw.chatStream(chatJSON(longText)) { chunks.append(try e.decode(ChatCompletionChunk.self)) }
            #expect(chunks.contains { $0.extra["system_fingerprint"] != nil })
            #expect(chunks.flatMap(\.choices).contains { !$0.extra.isEmpty || !($0.delta?.extra.isEmpty ?? true) })
        }

        @Test func responsesStreamGivesNamedEventsThenTheResponse() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let stream = gw.responsesStream(ResponsesRequest(model: "resp-test", input: "stream this please"))
            var events: [GwEvent] = []
            for try await e in stream { events.append(e) }
            #expect(events.contains { $0.name == "response.output_text.delta" && $0.textDelta != nil })
            #expect(events.last?.name == "response.completed")
            let response = try await stream.result()
            #expect(response.status == "completed")
            #expect(response.outputText == events.compactMap(\.textDelta).joined())
        }

        @Test func responsesEventsWithoutEventLinesAreNamedByType() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["action": "stream_shape", "shape": "responses_no_event_lines"])
            var names: [String] = []
            let stream = gw.responsesStream(["model": "resp-test", "input": "bare data"] as JSONValue)
            for try await e in stream { names.append(e.name) }
            #expect(names.contains("response.output_text.delta"))
            #expect(try await stream.result()["status"]?.stringValue == "completed")
        }

        @Test func responsesIncompleteIsAResultAndFailedIsAStreamError() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["action": "stream_shape", "shape": "responses_incomplete"])
            let incomplete = try await gw.responsesStream(ResponsesRequest(model: "resp-test", input: "long")).result()
            #expect(incomplete.status == "incomplete")
            try await Mock.fault(["action": "stream_shape", "shape": "responses_failed"])
            let e = await #expect(throws: GwError.self) {
                for try await _ in gw.responsesStream(ResponsesRequest(model: "resp-test", input: "x")) {}
            }
            #expect(e?.kind == .stream)
        }

        @Test func anErrorInsideTheStreamComesAfterTheEventsBeforeIt() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "stream_error", "after_events": 2])
            var got = 0
            let e = await #expect(throws: GwError.self) {
                for try await _ in gw.chatStream(chatJSON(longText)) { got += 1 }
            }
            #expect(got == 2)
            #expect(e?.kind == .stream)
            #expect(e?.code == "stream_failure")
            #expect(e?.message.contains("upstream model failed") == true)
        }

        @Test func aStreamCutBeforeItsEndIsAStreamError() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "truncate", "after_events": 3])
            let stream = gw.chatStream(chatJSON(longText))
            let e = await #expect(throws: GwError.self) { for try await _ in stream {} }
            #expect(e?.kind == .stream)
            let again = await #expect(throws: GwError.self) { try await stream.result() }
            #expect(again?.kind == .stream, "result() gives the same failure")
        }

        @Test func aResetMidStreamIsANetworkError() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "reset", "after_events": 2])
            let e = await #expect(throws: GwError.self) { for try await _ in gw.chatStream(chatJSON(longText)) {} }
            #expect(e?.kind == .network, "a reset is a broken connection; .stream is a clean end too early")
        }

        @Test func aHugeLineIsTooLarge() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.maxLineBytes = 64 * 1024 }
            try await Mock.fault(["match": "/v1/chat", "action": "huge_line", "after_events": 1, "bytes": 200_000])
            let e = await #expect(throws: GwError.self) { for try await _ in gw.chatStream(chatJSON(longText)) {} }
            #expect(e?.kind == .tooLarge)
        }

        @Test func aStreamThatCannotOpenReportsTheHTTPErrorWithMetadata() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.apiKey = "sk-wrong" }
            let e = await #expect(throws: GwError.self) { for try await _ in gw.chatStream(chatJSON(longText)) {} }
            #expect(e?.kind == .unauthorized)
            #expect(e?.response?.status == 401)
            #expect(e?.code == "invalid_api_key")
        }

        @Test func textDeltasOfTheSecondChoice() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["action": "stream_shape", "shape": "n2"])
            var request = ChatRequest(model: "gpt-test", messages: [.user("blue")])
            request.n = 2
            var second = ""
            for try await t in gw.chatStream(request).textDeltas(choice: 1) { second += t }
            #expect(!second.isEmpty)
            #expect(second != "Echo: blue")
        }

        @Test func aResponsesStreamReportsItsMetadata() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let box = MetaBox()
            let stream = gw.responsesStream(
                ResponsesRequest(model: "resp-test", input: "meta"), options: GwCallOptions(headers: ["x-trace": "s-1"], onResponse: { box.set($0) }))
            for try await _ in stream {}
            #expect(box.get()?.status == 200)
            #expect(box.get()?.requestId != nil)
            #expect(try await Mock.requests().first?.header("x-trace") == "s-1")
        }

        @Test func resultWithoutALoopReadsTheWholeStream() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let data = try await gw.chatStream(Data(#"{"model":"gpt-test","messages":[{"role":"user","content":"bytes"}]}"#.utf8)).resultData()
            #expect(try JSONValue(data: data)["choices"]?[0]?["message"]?["content"]?.stringValue == "Echo: bytes")
        }

        @Test func aStreamIsIteratedOnceAndSendsNothingUntilIterated() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let stream = gw.chatStream(chatJSON("once"))
            #expect(try await Mock.requests().isEmpty, "nothing is sent before the loop asks")
            for try await _ in stream {}
            let e = await #expect(throws: GwError.self) { for try await _ in stream {} }
            #expect(e?.code == "stream_reused")
        }

        @Test func breakingOutOfTheLoopFreesTheStreamAndClosesItsConnection() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "drip", "interval_ms": 50])
            let before = openSockets()
            var during = 0
            do {
                let stream = gw.chatStream(chatJSON(longText))
                for try await _ in stream {
                    during = openSockets()
                    break
                }
                // The sequence value is still in scope here: the iterator alone held the stream.
                #expect(openSockets() == before, "the stream's connection is closed at the break")
                let e = await #expect(throws: GwError.self) { try await stream.result() }
                #expect(e?.code == "stream_abandoned")
            }
            #expect(during == before + 1)
        }

        @Test func aSlowConsumerPullsOneEventAtATime() async throws {
            // Back-pressure: nothing is read while the loop body runs, so the events the
            // consumer has not asked for stay in the server or the socket.
            try await Mock.reset()
            let gw = try Mock.client()
            let stream = gw.chatStream(chatJSON(longText))
            var it = stream.makeAsyncIterator()
            let first = try await it.next()
            #expect(first?.index == 0)
            try await Task.sleep(for: .milliseconds(100))
            let second = try await it.next()
            #expect(second?.index == 1)
            while try await it.next() != nil {}
            #expect(try await stream.result()["object"]?.stringValue == "chat.completion")
        }
    }
}

/// The number of sockets this process has open (Linux: /proc/self/fd).
func openSockets() -> Int {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return fds.filter { fd in
        ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? "").hasPrefix("socket:")
    }.count
}

/// A sendable cell for values captured by @Sendable callbacks.
final class MetaBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: GwResponseMeta?
    func set(_ v: GwResponseMeta) { lock.locked { value = v } }
    func get() -> GwResponseMeta? { lock.locked { value } }
}
