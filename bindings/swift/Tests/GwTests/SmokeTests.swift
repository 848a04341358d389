import Foundation
import Gw
import Testing

extension GwTests {
    @Suite struct Smoke {
        @Test func chatEchoes() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let answer = try await gw.chat(ChatRequest(model: "gpt-test", messages: [.user("ping pong")]))
            #expect(answer.text == "Echo: ping pong")
        }
    }
}
