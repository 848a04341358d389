import Foundation
import Gw
import Testing

/// A view model as an app writes one: it holds the protocol, so a test (or a SwiftUI
/// preview) hands it a fake and the app a GwClient.
actor ChatViewModel {
    let client: any GwClientProtocol
    private(set) var transcript = ""
    private(set) var finish: FinishReason?
    private(set) var sawRole: ChatRole?

    init(client: any GwClientProtocol) { self.client = client }

    func ask(_ text: String) async throws -> String {
        try await client.chat(ChatRequest(model: "gpt-test", messages: [.user(text)])).text ?? ""
    }

    func stream(_ text: String) async throws {
        let stream = client.chatStream(ChatRequest(model: "gpt-test", messages: [.user(text)]))
        for try await event in stream {
            guard let delta = event.chunk?.choices.first?.delta else { continue }
            sawRole = sawRole ?? delta.role
            transcript += delta.text ?? ""
        }
        finish = try await stream.result().choices.first?.finishReason
    }
}

struct Unscripted: Error {}

/// A fake gateway: answers built with the models' memberwise initializers, a stream from
/// scripted events. What it does not script throws.
struct FakeGw: GwClientProtocol {
    let reply: String
    let paths = Shared<[String]>([])

    func chat(_ request: ChatRequest, options: GwCallOptions) async throws -> ChatCompletion {
        ChatCompletion(
            id: "fake-1", model: request.model, choices: [.init(message: .assistant(reply), finishReason: .stop)],
            usage: ChatUsage(promptTokens: 1, completionTokens: 2, totalTokens: 3))
    }
    func chatStream(_ request: ChatRequest, options: GwCallOptions) -> GwStream<ChatCompletion> {
        var events = [GwEvent.chat(ChatCompletionChunk(choices: [.init(delta: ChatDelta(role: .assistant, content: .text("")))]))]
        for word in reply.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            let text = (word.offset == 0 ? "" : " ") + word.element
            events.append(.chat(ChatCompletionChunk(choices: [.init(delta: ChatDelta(content: .text(text)))]), index: events.count))
        }
        events.append(.chat(ChatCompletionChunk(choices: [.init(delta: ChatDelta(), finishReason: .stop)]), index: events.count))
        return GwStream(events: events, result: ChatCompletion(choices: [.init(message: .assistant(reply), finishReason: .stop)]))
    }
    func responses(_ request: ResponsesRequest, options: GwCallOptions) async throws -> ModelResponse {
        ModelResponse(id: "r1", status: .completed, output: [.message(reply)], usage: .init(inputTokens: 1, outputTokens: 1))
    }
    func responsesStream(_ request: ResponsesRequest, options: GwCallOptions) -> GwStream<ModelResponse> {
        let done = ModelResponse(status: .completed, output: [.message(reply)])
        return GwStream(
            events: [
                .response(ResponseStreamEvent(type: .outputTextDelta, delta: reply)),
                .response(ResponseStreamEvent(type: .completed, response: done), index: 1),
            ], result: done)
    }
    func embeddings(_ request: EmbeddingRequest, options: GwCallOptions) async throws -> EmbeddingList {
        EmbeddingList(data: [.init(index: 0, vector: [0.5, 0.25])], model: request.model)
    }
    func imageGenerate(_ request: ImageRequest, options: GwCallOptions) async throws -> ImageResult {
        ImageResult(created: 1, data: [.init(url: "https://fake/1.png")])
    }
    func imageEdit(_ request: ImageEditRequest, options: GwCallOptions) async throws -> ImageResult { throw Unscripted() }
    func imageEditUpload(_ request: ImageEditRequest, image: GwFile, mask: GwFile?, options: GwCallOptions)
        async throws -> ImageResult
    { throw Unscripted() }
    func generateContent(model: String, _ request: GenerateContentRequest, options: GwCallOptions)
        async throws -> GenerateContentResponse
    {
        GenerateContentResponse(candidates: [.init(content: NativeContent(role: "model", parts: [.text(reply)]), finishReason: .stop)])
    }
    func videoCreate(_ request: VideoRequest, options: GwCallOptions) async throws -> VideoTask {
        VideoTask(taskId: "t1", status: "processing")
    }
    func videoGenerate(_ request: VideoRequest, options: GwCallOptions) async throws -> VideoTask { throw Unscripted() }
    func videoCharacter(_ request: VideoRequest, options: GwCallOptions) async throws -> VideoTask { throw Unscripted() }
    func videoRemix(videoId: String, _ request: VideoRemixRequest, options: GwCallOptions) async throws -> VideoTask {
        throw Unscripted()
    }
    func videoStatus(_ family: VideoFamily, taskId: String, options: GwCallOptions) async throws -> VideoTask {
        throw Unscripted()
    }
    func videoWait(
        _ family: VideoFamily, taskId: String, interval: Duration?, timeout: Duration?, options: GwCallOptions,
        progress: (@Sendable (VideoTask) throws -> Void)?
    ) async throws -> VideoTask {
        // As gw's: progress sees every record polled, the terminal one too.
        let done = VideoTask(taskId: taskId, status: "succeeded", progress: 100, videoURL: "https://fake/v.mp4")
        try progress?(VideoTask(taskId: taskId, status: "processing", progress: 50))
        try progress?(done)
        return done
    }
    func request(_ method: String, _ path: String, body: JSONValue?, options: GwCallOptions) async throws -> JSONValue {
        paths.update { $0.append(method + " " + path) }
        return ["ok": true]
    }
    func vendorFEdit(modelSlug: String, _ request: JSONValue, options: GwCallOptions) async throws -> JSONValue {
        throw Unscripted()
    }
}

extension GwTests {
    /// GwClientProtocol: a view model runs on a fake and on GwClient alike.
    @Suite struct MockClient {
        @Test func aViewModelRunsOnAFake() async throws {
            let model = ChatViewModel(client: FakeGw(reply: "fake answer here"))
            #expect(try await model.ask("hi") == "fake answer here")
            try await model.stream("hi")
            #expect(await model.transcript == "fake answer here")
            #expect(await model.finish == .stop)
            #expect(await model.sawRole == .assistant)
        }

        @Test func theSameViewModelRunsOnGwClient() async throws {
            try await Mock.reset()
            let model = ChatViewModel(client: try Mock.client())
            #expect(try await model.ask("alpha beta") == "Echo: alpha beta")
            try await model.stream("alpha beta")
            #expect(await model.transcript == "Echo: alpha beta")
            #expect(await model.finish == .stop)
            #expect(await model.sawRole == .assistant)
        }

        @Test func aScriptedStreamBehavesLikeARealOne() async throws {
            let fake: any GwClientProtocol = FakeGw(reply: "one two")
            let stream = fake.chatStream(ChatRequest(model: "m", messages: [.user("x")]))
            var events: [GwEvent] = []
            for try await e in stream { events.append(e) }
            #expect(events.map(\.index) == Array(0..<events.count))
            #expect(events.compactMap(\.textDelta).joined() == "one two")
            #expect(try await stream.result().text == "one two")
            let again = try JSONValue(data: try await stream.resultData())
            #expect(again["choices"]?[0]?["finish_reason"] == "stop")
            #expect(stream.response == nil)
            // Iterated once, as a real stream: a second loop throws stream_reused.
            await #expect(throws: GwError.self) { for try await _ in stream {} }
            // Responses events: typed, named by their type, the delta as textDelta.
            let r = fake.responsesStream(ResponsesRequest(model: "m", input: "x"))
            var kinds: [ResponseEventType] = []
            var text = ""
            for try await e in r {
                kinds.append(try #require(e.responseEvent).type)
                text += e.textDelta ?? ""
                #expect(e.name == e.responseEvent?.type.rawValue)
            }
            #expect(kinds == [.outputTextDelta, .completed])
            #expect(text == "one two")
            #expect(try await r.result().outputText == "one two")
        }

        @Test func aScriptedStreamFails() async throws {
            struct Cut: Error {}
            let (events, continuation) = AsyncThrowingStream<GwEvent, any Error>.makeStream()
            continuation.yield(.chat(ChatCompletionChunk(choices: [.init(delta: ChatDelta(content: .text("a")))])))
            continuation.finish(throwing: Cut())
            let stream = GwStream<ChatCompletion>(events: events, result: { throw Cut() })
            var got = 0
            await #expect(throws: Cut.self) { for try await _ in stream { got += 1 } }
            #expect(got == 1)
            await #expect(throws: Cut.self) { _ = try await stream.result() }
        }

        @Test func defaultsAreTheOperationsThemselves() async throws {
            let fake = FakeGw(reply: "x")
            _ = try await fake.vendorKText2Video(["prompt": "p"], options: .none)
            _ = try await fake.vendorMImagine(["prompt": "p"], options: .none)
            _ = try await fake.request("GET", "/vendorR/task/t1")
            #expect(fake.paths.get() == ["POST /vendorK/v1/videos/text2video", "POST /vendorM/submit/imagine", "GET /vendorR/task/t1"])
            var seen: [VideoTask] = []
            for try await t in fake.videoUpdates(.unified, taskId: "t9") { seen.append(t) }
            #expect(seen.map(\.status) == ["processing", "succeeded"])
            #expect(seen.last?.taskId == "t9")
        }

        /// The memberwise initializers build what decoding the same JSON gives.
        @Test func memberwiseAnswersEncodeAsTheirJSON() throws {
            let fake = FakeGw(reply: "hi")
            let answers: [(any Encodable, JSONValue)] = [
                (
                    ChatCompletion(id: "c", choices: [.init(message: .assistant("hi"), finishReason: .stop)], usage: .init(totalTokens: 3)),
                    [
                        "id": "c", "object": "chat.completion", "usage": ["total_tokens": 3],
                        "choices": [["index": 0, "message": ["role": "assistant", "content": "hi"], "finish_reason": "stop"]],
                    ]
                ),
                (
                    ChatCompletionChunk(choices: [.init(delta: ChatDelta(content: .text("h")))]),
                    ["object": "chat.completion.chunk", "choices": [["index": 0, "delta": ["content": "h"]]]]
                ),
                (
                    ModelResponse(status: .completed, output: [.message("hi")]),
                    [
                        "object": "response", "status": "completed",
                        "output": [
                            [
                                "type": "message", "status": "completed", "role": "assistant",
                                "content": [["type": "output_text", "text": "hi"]],
                            ]
                        ],
                    ]
                ),
                (
                    EmbeddingList(data: [.init(index: 0, vector: [0.5])], model: "e"),
                    ["object": "list", "model": "e", "data": [["object": "embedding", "index": 0, "embedding": [0.5]]]]
                ),
                (ImageResult(data: [.init(url: "u", seed: 2)]), ["data": [["url": "u", "seed": 2]]]),
                (VideoTask(taskId: "t", status: "queued"), ["task_id": "t", "status": "queued"]),
                (
                    GenerateContentResponse(candidates: [.init(content: NativeContent(role: "model", parts: [.text("hi")]), finishReason: .stop)]),
                    ["candidates": [["content": ["role": "model", "parts": [["text": "hi"]]], "finishReason": "STOP"]]]
                ),
            ]
            for (value, json) in answers {
                let lost = differences(json, try JSONValue(encoding: value))
                #expect(lost.isEmpty, "\(type(of: value)): \(lost)")
            }
            _ = fake
        }
    }
}
