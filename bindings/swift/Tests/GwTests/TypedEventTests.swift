import Foundation
import Gw
import Testing

extension GwTests {
    /// Stream events carry their typed chunk or Responses event; string sets are enums that
    /// keep values they do not name.
    @Suite struct TypedEvents {
        @Test func chatEventsCarryTheirChunk() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let stream = gw.chatStream(ChatRequest(model: "gpt-test", messages: [.user(longText)]))
            var chunks: [ChatCompletionChunk] = []
            for try await e in stream {
                let chunk = try #require(e.chunk)
                #expect(chunk == (try e.decode(ChatCompletionChunk.self)))
                #expect(e.responseEvent == nil)
                chunks.append(chunk)
            }
            // D4: only the first chunk says its role; the text is the deltas' text.
            #expect(chunks.first?.choices.first?.delta?.role == .assistant)
            #expect(chunks.dropFirst().allSatisfy { $0.choices.first?.delta?.role == nil })
            #expect(chunks.compactMap { $0.choices.first?.delta?.text }.joined() == "Echo: " + longText)
            #expect(chunks.last?.choices.first?.finishReason == .stop)
            #expect(chunks.dropLast().allSatisfy { $0.choices.first?.finishReason == nil })
            #expect(try await stream.result().choices.first?.finishReason == .stop)
        }

        @Test func responsesEventsCarryTheirTypedEvent() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let stream = gw.responsesStream(ResponsesRequest(model: "gpt-test", input: "alpha beta"))
            var text = ""
            var completed: ModelResponse?
            for try await e in stream {
                let event = try #require(e.responseEvent)
                #expect(event.type.rawValue == e.name)
                #expect(e.chunk == nil)
                if event.type == .outputTextDelta {
                    #expect(event.delta == e.textDelta)
                    text += event.delta ?? ""
                }
                if event.type == .completed { completed = event.response }
            }
            #expect(!text.isEmpty)
            #expect(completed?.status == .completed)
            #expect(completed == (try await stream.result()))
        }

        @Test func anEventDecodedOnceEqualsItsCopies() async throws {
            let data = Data(#"{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"x"}}]}"#.utf8)
            let a = GwEvent(name: "message", data: data, textDelta: "x", index: 0, choiceIndex: 0)
            let b = GwEvent(name: "message", data: data, textDelta: "x", index: 0, choiceIndex: 0)
            #expect(a.chunk?.choices.first?.delta?.text == "x")
            #expect(a == b && a.hashValue == b.hashValue)
            let odd = GwEvent(name: "message", data: Data("not json".utf8), textDelta: nil, index: 1, choiceIndex: 0)
            #expect(odd.chunk == nil)
        }

        /// Issue 39: a known value and an unknown one both decode and encode as themselves.
        @Test func enumsKeepKnownAndUnknownValues() throws {
            func trip<T: Codable & Equatable>(_ value: T, _ json: String) throws {
                let encoded = String(decoding: try JSONEncoder().encode([value]), as: UTF8.self)
                #expect(encoded == "[\"\(json)\"]")
                #expect(try JSONDecoder().decode([T].self, from: Data(encoded.utf8)) == [value])
            }
            try trip(FinishReason.toolCalls, "tool_calls")
            try trip(FinishReason.unknown("insufficient_system_resource"), "insufficient_system_resource")
            #expect(FinishReason(rawValue: "length") == .length)
            try trip(ChatRole.assistant, "assistant")
            try trip(ChatRole.unknown("developer"), "developer")
            try trip(ResponseStatus.inProgress, "in_progress")
            try trip(ResponseStatus.unknown("paused"), "paused")
            try trip(NativeFinishReason.stop, "STOP")
            try trip(NativeFinishReason.unknown("RECITATION"), "RECITATION")
            try trip(ResponseEventType.outputTextDelta, "response.output_text.delta")
            try trip(ResponseEventType.unknown("response.reasoning.delta"), "response.reasoning.delta")
            try trip(ReasoningEffort.high, "high")
            try trip(ReasoningEffort(rawValue: "max"), "max")
            #expect(FinishReason.unknown("x").rawValue == "x" && "\(FinishReason.stop)" == "stop")
        }

        @Test func reasoningEffortMaxGoesOutAndComesBack() throws {
            let chat = ChatRequest(model: "m", messages: [.user("x")], reasoningEffort: "max")
            #expect(try JSONValue(encoding: chat)["reasoning_effort"] == "max")
            let back = try JSONValue(encoding: chat).decode(ChatRequest.self)
            #expect(back.reasoningEffort?.rawValue == "max")
            let responses = ResponsesRequest(model: "m", input: "x", reasoning: Reasoning(effort: "max"))
            #expect(try JSONValue(encoding: responses)["reasoning"]?["effort"] == "max")
            #expect(try JSONValue(encoding: responses).decode(ResponsesRequest.self).reasoning?.effort == "max")
        }
    }
}
