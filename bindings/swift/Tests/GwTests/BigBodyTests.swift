import Foundation
import Gw
import Testing

/// Pseudo-random base64 of `bytes` bytes: every position varies, as a compressed photo's does.
func randomBase64(bytes: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> String {
    var x = seed
    var words = [UInt64](repeating: 0, count: (bytes + 7) / 8)
    for i in words.indices {
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
        words[i] = x
    }
    return words.withUnsafeBytes { Data($0.prefix(bytes)) }.base64EncodedString()
}

/// A chat of a photo as a base64 data URI, the JSON bytes as a client would have them.
func imageChatData(photoBytes: Int) -> (body: Data, url: String) {
    let url = "data:image/jpeg;base64," + randomBase64(bytes: photoBytes)
    let json =
        #"{"model":"vision-model","messages":[{"role":"user","content":[{"type":"text","text":"What is in this photo?"},"#
        + #"{"type":"image_url","image_url":{"url":""# + url + #"","detail":"high"}}]}],"max_tokens":300}"#
    return (Data(json.utf8), url)
}

extension GwTests {
    /// Request bodies of several MiB (a photo as a data URI): sent exactly, a NUL anywhere in
    /// them refused by name before anything is sent.
    @Suite struct BigBodies {
        static let photo = 3 << 20  // 3 MiB of photo: a 4 MiB data URI
        // Made per test, not kept in a static: LeakSanitizer reports a Data held by a global.
        static var chat: (body: Data, url: String) { imageChatData(photoBytes: photo) }

        @Test func aBigDataChatIsSentByteForByte() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let chat = Self.chat
            let body = chat.body
            #expect(body.count > 4 << 20)
            let answer = try JSONValue(data: await gw.chat(body))
            #expect(answer["object"]?.stringValue == "chat.completion")
            let sent = try #require(try await Mock.requests(to: "/v1/chat/completions").first)
            let recorded = Data(try #require(sent["body"]?.stringValue).utf8)
            #expect(recorded.count == body.count)
            #expect(recorded == body, "the mock got other bytes than the Data held")
            #expect(sent["json"]?["messages"]?[0]?["content"]?[1]?["image_url"]?["url"]?.stringValue == chat.url)
        }

        @Test func aBigDataChatStreamIsSentByteForByte() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let chat = Self.chat
            let body = chat.body
            let stream = gw.chatStream(body)
            for try await _ in stream {}
            _ = try await stream.resultData()
            let sent = try #require(try await Mock.requests(to: "/v1/chat/completions").first)
            let recorded = Data(try #require(sent["body"]?.stringValue).utf8)
            // gw adds "stream":true before the closing brace; every byte before it is the caller's.
            #expect(recorded.count > body.count)
            #expect(recorded.prefix(body.count - 1) == body.prefix(body.count - 1))
            #expect(sent["json"]?["stream"]?.boolValue == true)
            #expect(sent["json"]?["messages"]?[0]?["content"]?[1]?["image_url"]?["url"]?.stringValue == chat.url)
        }

        @Test func aBigTypedChatIsSentExactly() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let url = Self.chat.url
            let request = ChatRequest(model: "vision-model", messages: [.user([.text("what is this"), .imageURL(url)])])
            let completion = try await gw.chat(request)
            #expect(completion.choices.first?.finishReason == "stop")
            let sent = try await Mock.requests(to: "/v1/chat/completions").first?["json"]
            #expect(sent?["messages"]?[0]?["content"]?[1]?["image_url"]?["url"]?.stringValue == url)
        }

        /// The big body with a NUL at `at`.
        static func withNUL(at: Int) -> Data {
            var d = chat.body
            d[d.startIndex + at] = 0
            return d
        }

        static let nulPositions = { let n = chat.body.count; return [0, n / 2, n - 1] }()

        @Test(arguments: nulPositions) func aNULInABigDataBodyIsRefusedByName(at: Int) async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let body = Self.withNUL(at: at)
            let e = await #expect(throws: GwError.self) { try await gw.chat(body) }
            #expect(e?.kind == .invalidArgument)
            #expect(e?.param == "request")
            #expect(e?.message.contains("NUL") == true)
            let s = await #expect(throws: GwError.self) { for try await _ in gw.chatStream(body) {} }
            #expect(s?.param == "request")
            let r = await #expect(throws: GwError.self) {
                try await gw.request("POST", "/v1/chat/completions", bodyData: body)
            }
            #expect(r?.param == "body")
            #expect(try await Mock.requests().isEmpty, "nothing is sent")
        }

        /// A big ASCII string with a NUL at `at` (or none).
        static func bigString(nulAt at: Int?) -> String {
            var bytes = Array(randomBase64(bytes: photo).utf8)
            if let at { bytes[at] = 0 }
            return String(decoding: bytes, as: UTF8.self)
        }

        static let stringNULPositions = [0, (photo / 3 * 4) / 2, photo / 3 * 4 - 1]

        @Test(arguments: stringNULPositions) func aNULInABigStringIsRefusedByName(at: Int) async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let text = Self.bigString(nulAt: at)
            #expect(text.utf8.count == Self.photo / 3 * 4)
            // CText(String): held for a call on another thread.
            let m = await #expect(throws: GwError.self) { try await gw.generateContent(model: text, [:] as JSONValue) }
            #expect(m?.kind == .invalidArgument)
            #expect(m?.param == "model")
            #expect(m?.message.contains("NUL") == true)
            // withCString(String): used in place.
            let b = #expect(throws: GwError.self) { try Gw.decodeEmbedding(text) }
            #expect(b?.param == "base64")
            #expect(b?.message.contains("NUL") == true)
            #expect(try await Mock.requests().isEmpty, "nothing is sent")
        }

        @Test func aBigStringIsPassedExactly() async throws {
            // 3 MiB of float32s as base64, decoded by gw: one changed byte changes a float.
            let text = Self.bigString(nulAt: nil)
            let floats = try Gw.decodeEmbedding(text)
            let raw = try #require(Data(base64Encoded: text))
            #expect(floats.count == raw.count / 4)
            #expect(floats.withUnsafeBytes { Data($0) } == raw)
            // A long model name through CText(String), recorded in the path as it was given.
            try await Mock.reset()
            let gw = try Mock.client()
            let model = String(decoding: randomBase64(bytes: 3000).utf8.map { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") ? UInt8(ascii: "x") : $0 }, as: UTF8.self)
            _ = try await gw.generateContent(model: model, GenerateContentRequest(contents: [.user(.text("hi"))]))
            let path = try #require(try await Mock.requests().first?["path"]?.stringValue)
            #expect(path == "/v1beta/models/\(model):generateContent")
        }
    }
}
