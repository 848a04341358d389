import Foundation
import Gw
import Testing

/// Credentials reach the options by more roads than `apiKey`: an `Authorization` header, an
/// `api_key` in `extra`, a proxy URL with a password. None of them may show in `dump`,
/// `Mirror`, `description` or `debugDescription`.
@Suite struct Redaction {
    static let secret = "sk-secret-98765"

    /// Every way a value is commonly printed, joined.
    static func printed<T>(_ value: T) -> String {
        var dumped = ""
        dump(value, to: &dumped)
        let mirrored = Mirror(reflecting: value).children.map { "\($0.label ?? ""): \($0.value)" }
        return [dumped, String(describing: value), String(reflecting: value), mirrored.joined(separator: ", ")]
            .joined(separator: "\n")
    }

    @Test func clientOptionsHideCredentialsInHeadersAndTheProxy() {
        let o = GwOptions(
            baseURL: "http://127.0.0.1:1", apiKey: "sk-other", proxy: "http://user:\(Self.secret)@127.0.0.1:3128",
            headers: ["Authorization": "Bearer \(Self.secret)", "X-Api-Key": Self.secret, "X-Trace": "t-1"])
        let text = Self.printed(o)
        #expect(!text.contains(Self.secret), "\(text)")
        #expect(text.contains("X-Trace") && text.contains("t-1"), "other headers are still shown")
        #expect(text.contains("127.0.0.1:3128"), "the proxy's address is still shown")
    }

    @Test func callOptionsHideCredentials() {
        let o = GwCallOptions(
            headers: ["authorization": "Bearer \(Self.secret)", "X-Trace": "t-2"],
            extra: ["api_key": .string(Self.secret)])
        let text = Self.printed(o)
        #expect(!text.contains(Self.secret), "\(text)")
        #expect(text.contains("t-2"), "other headers are still shown")
    }
}

/// A fake builds the metadata its answers and errors carry.
@Suite struct FakeMetadata {
    @Test func aFakeMakesResponseMetadataAsGwGivesIt() {
        let meta = GwResponseMeta(status: 429, requestId: "req-1", headers: ["Retry-After-Ms": "1500"])
        #expect(meta.headers["retry-after-ms"] == "1500", "names are lowercase, as gw gives them")
        #expect(meta.retryAfter == .milliseconds(1500))
        #expect(meta.attempts == 1)
    }
}
