import Foundation
import Gw
import Testing

extension GwTests {
    /// Chat, Responses, embeddings, the native format and raw requests: JSON, typed and Data.
    @Suite struct Text {
        @Test func chatJSONPassesUnknownFieldsThrough() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            var body = chatJSON("ping pong")
            if case .object(var o) = body { o["x_custom"] = 7; body = .object(o) }
            let answer = try await gw.chat(body)
            #expect(answer["object"]?.stringValue == "chat.completion")
            #expect(answer["choices"]?[0]?["message"]?["content"]?.stringValue == "Echo: ping pong")
            let sent = try #require(try await Mock.requests(to: "/v1/chat/completions").first)
            #expect(sent["json"]?["x_custom"]?.intValue == 7)
            #expect(sent.header("authorization") == "Bearer \(Mock.apiKey)")
        }

        @Test func typedChatWithPartsToolsAndExtra() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let request = ChatRequest(
                model: "gpt-test",
                messages: [
                    .system("be brief"),
                    .user([.text("what is this"), .imageURL("https://img.example/a.png", detail: "low")]),
                ],
                maxTokens: 50, seed: 7,
                tools: [.function("lookup", description: "finds things", parameters: ["type": "object"])],
                responseFormat: .jsonObject, reasoningEffort: .low, extra: ["user": "u-1"])
            let completion = try await gw.chat(request)
            #expect(completion.text?.hasPrefix("Echo: what is this") == true)
            #expect(completion.choices.first?.finishReason == "stop")
            #expect(completion.choices.first?.message?.reasoningContent == "Thinking at low effort.")
            #expect(completion.usage?.completionTokensDetails?.reasoningTokens != nil)
            let sent = try #require(try await Mock.requests(to: "/v1/chat/completions").first)["json"]
            #expect(sent?["user"]?.stringValue == "u-1")
            #expect(sent?["seed"]?.intValue == 7)
            #expect(sent?["reasoning_effort"]?.stringValue == "low")
            #expect(sent?["response_format"]?["type"]?.stringValue == "json_object")
            #expect(sent?["messages"]?[1]?["content"]?[1]?["type"]?.stringValue == "image_url")
            #expect(sent?["tools"]?[0]?["function"]?["name"]?.stringValue == "lookup")
            #expect(sent?["temperature"] == nil, "nil fields are not sent")
        }

        @Test func chatWithAVideoPart() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let answer = try await gw.chat(
                ChatRequest(model: "gpt-test", messages: [.user([.text("describe"), .videoURL("https://v.example/a.mp4", fps: 2)])]))
            #expect(answer.text?.contains("describe") == true)
            let sent = try await Mock.requests(to: "/v1/chat/completions").first?["json"]
            #expect(sent?["messages"]?[0]?["content"]?[1]?["video_url"]?["fps"]?.doubleValue == 2)
        }

        @Test func unknownAnswerFieldsLandInExtraAndRoundTrip() throws {
            let text = #"{"id":"c1","object":"chat.completion","choices":[],"system_fingerprint":"fp_9","new_block":{"a":1}}"#
            let decoded = try JSONDecoder().decode(ChatCompletion.self, from: Data(text.utf8))
            #expect(decoded.extra["system_fingerprint"]?.stringValue == "fp_9")
            let again = try JSONValue(data: JSONEncoder().encode(decoded))
            #expect(again["new_block"] == ["a": 1])
            #expect(again["id"]?.stringValue == "c1")
        }

        @Test func completionsAndChunksRoundTripEveryField() throws {
            let completion: JSONValue = [
                "id": "c2", "object": "chat.completion", "created": 7, "model": "gpt-test",
                "choices": [["index": 1, "message": ["role": "assistant", "content": "hi"], "finish_reason": "stop", "logprobs": ["x": 1]]],
                "usage": ["prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3], "service_tier": "t",
            ]
            let c = try JSONDecoder().decode(ChatCompletion.self, from: Data(completion.jsonString.utf8))
            #expect(c.created == 7 && c.model == "gpt-test" && c.usage?.totalTokens == 3)
            #expect(c.choices.first?.index == 1 && c.choices.first?.finishReason == "stop" && c.text == "hi")
            #expect(c.choices.first?.extra["logprobs"] == ["x": 1])
            #expect(try JSONValue(data: JSONEncoder().encode(c)) == completion)

            let chunk: JSONValue = [
                "id": "c3", "object": "chat.completion.chunk", "created": 8, "model": "gpt-test",
                "choices": [["index": 0, "delta": ["role": "assistant", "content": "h"], "finish_reason": "length", "logprobs": ["y": 2]]],
                "service_tier": "t",
            ]
            let k = try JSONDecoder().decode(ChatCompletionChunk.self, from: Data(chunk.jsonString.utf8))
            #expect(k.choices.first?.delta?.text == "h" && k.choices.first?.finishReason == "length")
            #expect(k.extra["service_tier"]?.stringValue == "t" && k.usage == nil)
            #expect(try JSONValue(data: JSONEncoder().encode(k)) == chunk)
        }

        @Test func chatDataInDataOut() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let out = try await gw.chat(Data(#"{"model":"gpt-test","messages":[{"role":"user","content":"raw bytes"}]}"#.utf8))
            let answer = try JSONValue(data: out)
            #expect(answer["choices"]?[0]?["message"]?["content"]?.stringValue == "Echo: raw bytes")
        }

        @Test func aBrokenLimitIsRefusedBeforeSendingNamingTheField() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let error = await #expect(throws: GwError.self) {
                try await gw.chat(ChatRequest(model: "m", messages: [.user("x")], temperature: 3))
            }
            #expect(error?.kind == .invalidArgument)
            #expect(error?.param == "temperature")
            #expect(error?.message.contains("temperature") == true)
            #expect(try await Mock.requests().isEmpty)
            let stops = await #expect(throws: GwError.self) {
                try await gw.chat(ChatRequest(model: "m", messages: [.user("x")], stop: ["a", "b", "c", "d", "e"]))
            }
            #expect(stops?.param == "stop")
            let empty = await #expect(throws: GwError.self) { try await gw.chat(ChatRequest(model: "m", messages: [])) }
            #expect(empty?.param == "messages")
        }

        @Test func validateFalseInCallOptionsLetsTheGatewayJudge() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let error = await #expect(throws: GwError.self) {
                try await gw.chat(
                    ChatRequest(model: "m", messages: [.user("x")], temperature: 3), options: GwCallOptions(validate: false))
            }
            #expect(error?.kind == .badRequest)
            #expect(error?.status == 400)
            #expect(try await Mock.requests().count == 1)
        }

        @Test func responsesJSONAndTyped() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let raw = try await gw.responses(["model": "resp-test", "input": "tell me more"] as JSONValue)
            #expect(raw["object"]?.stringValue == "response")
            let typed = try await gw.responses(
                ResponsesRequest(model: "resp-test", input: "tell me more", reasoning: Reasoning(effort: .minimal)))
            #expect(typed.status == "completed")
            #expect(typed.outputText.contains("tell me more"))
            #expect(typed.usage?.totalTokens != nil)
        }

        @Test func responsesWithWebSearch() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let typed = try await gw.responses(
                ResponsesRequest(model: "resp-test", input: "news today", tools: [ResponsesRequest.webSearch]))
            #expect(typed.output.contains { $0.type == "web_search_call" })
            let sent = try await Mock.requests(to: "/v1/responses").first?["json"]
            #expect(sent?["tools"]?[0]?["type"]?.stringValue == "web_search_preview")
        }

        @Test func embeddingsAsFloatsAndBase64DecodeToTheSameVectors() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let floats = try await gw.embeddings(EmbeddingRequest(model: "emb-test", input: ["alpha", "beta"], dimensions: 8))
            let b64 = try await gw.embeddings(
                EmbeddingRequest(model: "emb-test", input: ["alpha", "beta"], encodingFormat: "base64", dimensions: 8))
            #expect(floats.data.count == 2)
            #expect(floats.data[0].vector.count == 8)
            #expect(floats.data == b64.data)
            let raw = try await gw.embeddings(
                ["model": "emb-test", "input": "alpha", "encoding_format": "base64", "dimensions": 8] as JSONValue)
            let text = try #require(raw["data"]?[0]?["embedding"]?.stringValue)
            #expect(try Gw.decodeEmbedding(text) == floats.data[0].vector)
            #expect(EmbeddingList.decodeBase64(text) == floats.data[0].vector)
            let bad = #expect(throws: GwError.self) { try Gw.decodeEmbedding("abc") }
            #expect(bad?.kind == .invalidArgument)
        }

        @Test func badBase64EmbeddingsFailWithGwsMessage() throws {
            let bad = #expect(throws: GwError.self) { try Gw.decodeEmbedding("not base64!") }
            #expect(bad?.kind == .invalidArgument)
            #expect(bad?.param == "base64")
            #expect(bad?.message.contains("not valid base64") == true)
            // Two bytes: valid base64, but not whole float32s.
            let short = #expect(throws: GwError.self) { try Gw.decodeEmbedding("AAA=") }
            #expect(short?.kind == .invalidArgument)
            #expect(short?.message.contains("whole number of float32") == true)
            #expect(try Gw.decodeEmbedding("AACAPw==") == [1.0])
            #expect(try Gw.decodeEmbedding("") == [])
        }

        @Test func generateContentPutsTheKeyInTheQuery() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let answer = try await gw.generateContent(
                model: "native-model", GenerateContentRequest(contents: [.user(.text("hi native"))]))
            #expect(answer.candidates.first != nil)
            #expect(answer.text != nil)
            let sent = try #require(try await Mock.requests().first)
            #expect(sent["path"]?.stringValue?.hasPrefix("/v1beta/models/native-model") == true)
            #expect(sent["query"]?.stringValue?.contains("key=\(Mock.apiKey)") == true)
            #expect(sent.header("authorization") == nil)
        }

        @Test func generateContentFunctionCallsAndInlineData() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let request = GenerateContentRequest(
                contents: [.user(.text("weather in Paris?"), .inline(Data([1, 2, 3]), mimeType: "image/png"))],
                tools: [NativeTool(functionDeclarations: [FunctionDefinition(name: "get_weather", parameters: ["type": "object"])])],
                generationConfig: ["temperature": 0.2])
            let answer = try await gw.generateContent(model: "native-model", request)
            let sent = try await Mock.requests().first?["json"]
            #expect(sent?["contents"]?[0]?["parts"]?[1]?["inline_data"]?["mime_type"]?.stringValue == "image/png")
            #expect(sent?["tools"]?[0]?["functionDeclarations"]?[0]?["name"]?.stringValue == "get_weather")
            #expect(answer.functionCalls.first?.name == "get_weather" || answer.text != nil)
        }

        @Test func rawRequestGETAndPOST() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let created = try await gw.request(
                "POST", "/v1/video/create", body: ["model": "v", "prompt": "a cat", "duration": 5])
            let id = try #require(created["task_id"]?.stringValue)
            let status = try await gw.request("GET", "/v1/video/generations/\(id)")
            #expect(status["id"]?.stringValue == id)
            let bytes = try await gw.request("GET", "/v1/video/generations/\(id)", bodyData: nil)
            #expect(try JSONValue(data: bytes)["id"]?.stringValue == id)
            let e = await #expect(throws: GwError.self) { try await gw.request("PUT", "/v1/x") }
            #expect(e?.kind == .invalidArgument)
        }

        @Test func aNULInsideAStringIsRefusedByName() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let e = await #expect(throws: GwError.self) {
                try await gw.generateContent(model: "bad\u{0}model", [:] as JSONValue)
            }
            #expect(e?.kind == .invalidArgument)
            #expect(e?.param == "model")
            #expect(try await Mock.requests().isEmpty)
        }

        @Test func jsonValueLiteralsAndAccessors() throws {
            let v: JSONValue = ["a": [1, 2.5, "x", true, nil], "big": 9_007_199_254_740_993]
            #expect(v["a"]?[0]?.intValue == 1)
            #expect(v["a"]?[1]?.doubleValue == 2.5)
            #expect(v["a"]?[4]?.isNull == true)
            let back = try JSONValue(data: v.jsonData())
            #expect(back == v)
            #expect(back["big"]?.intValue == 9_007_199_254_740_993, "integers are not rounded through Double")
        }
    }
}
