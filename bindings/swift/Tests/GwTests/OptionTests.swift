import Foundation
import Gw
import Testing

extension GwTests {
    /// Client options: validation naming the option, what reaches the gateway, the environment.
    @Suite struct Options {
        func refusal(_ options: GwOptions) -> GwError? {
            #expect(throws: GwError.self) { _ = try GwClient(options) }
        }

        @Test func badOptionsAreRefusedNamingTheField() {
            let space = refusal(GwOptions(baseURL: "http://loc alhost", apiKey: "k"))
            #expect(space?.kind == .invalidArgument)
            let header = refusal(GwOptions(baseURL: Mock.url, apiKey: "k", headers: ["x-bad": "a\r\nb"]))
            #expect(header?.kind == .invalidArgument)
            let reserved = refusal(GwOptions(baseURL: Mock.url, apiKey: "k", headers: ["Authorization": "x"]))
            #expect(reserved?.message.lowercased().contains("authorization") == true)
            let socks = refusal(GwOptions(baseURL: Mock.url, apiKey: "k", proxy: "socks5://127.0.0.1:1080"))
            #expect(socks?.kind == .invalidArgument)
            let insecure = refusal(GwOptions(baseURL: "http://gw.example", apiKey: "k"))
            #expect(insecure?.kind == .invalidArgument)
        }

        @Test func unknownPassThroughOptionsAreRefused() {
            let e = refusal(GwOptions(baseURL: Mock.url, apiKey: "k", extra: ["max_retriez": 3]))
            #expect(e?.message.contains("max_retriez") == true)
        }

        @Test func negativeDurationsAndCountsAreRefusedByName() {
            #expect(refusal(GwOptions(baseURL: Mock.url, readTimeout: .milliseconds(-1)))?.param == "read_timeout_ms")
            #expect(refusal(GwOptions(baseURL: Mock.url, maxRetries: -1))?.param == "max_retries")
            #expect(refusal(GwOptions(baseURL: Mock.url, maxThreads: 0))?.param == "maxThreads")
        }

        @Test func everyOptionReachesGwsJSON() throws {
            let o = GwOptions(
                baseURL: "https://gw.example/v1", apiKey: "sk-1", connectTimeout: .seconds(1),
                readTimeout: .milliseconds(1500), totalTimeout: .seconds(30), firstByteTimeout: .seconds(20),
                maxRetries: 4, retryBaseDelay: .milliseconds(100), retryMaxDelay: .seconds(2),
                retryAfterCap: .seconds(10), proxy: "http://proxy.example:3128", headers: ["x-app": "demo"],
                validate: false, allowInsecureHTTP: true, maxResponseBytes: 1000, maxLineBytes: 100,
                maxEventBytes: 200, userAgent: "app/1", maxIdleConnections: 3, idempotencyKeys: false,
                caFile: "/etc/ca.pem", caPEM: "-----BEGIN CERTIFICATE-----", tlsVerifier: .platform)
            let json = try o.json()
            let expected: JSONValue = [
                "base_url": "https://gw.example/v1", "api_key": "sk-1", "connect_timeout_ms": 1000,
                "read_timeout_ms": 1500, "total_timeout_ms": 30000, "first_byte_timeout_ms": 20000, "max_retries": 4,
                "retry_base_delay_ms": 100, "retry_max_delay_ms": 2000, "retry_after_cap_ms": 10000,
                "proxy": "http://proxy.example:3128", "headers": ["x-app": "demo"], "validate": false,
                "allow_insecure_http": true, "max_response_bytes": 1000, "max_line_bytes": 100, "max_event_bytes": 200,
                "user_agent": "app/1", "max_idle_connections": 3, "idempotency_keys": false, "ca_file": "/etc/ca.pem",
                "ca_pem": "-----BEGIN CERTIFICATE-----", "tls_verifier": "platform",
            ]
            #expect(json == expected)
            #expect(!o.description.contains("sk-1"), "the key is hidden")
        }

        @Test func headersAndUserAgentReachTheGateway() async throws {
            try await Mock.reset()
            let gw = try Mock.client {
                $0.headers = ["x-app": "demo"]
                $0.userAgent = "swift-tests/1"
            }
            _ = try await gw.chat(chatJSON("x"))
            let sent = try #require(try await Mock.requests().first)
            #expect(sent.header("x-app") == "demo")
            #expect(sent.header("user-agent")?.contains("swift-tests/1") == true)
        }

        @Test func aBaseURLEndingInV1IsNotDoubled() async throws {
            try await Mock.reset()
            let gw = try GwClient(GwOptions(baseURL: Mock.url + "/v1/", apiKey: Mock.apiKey))
            _ = try await gw.chat(chatJSON("x"))
            #expect(try await Mock.requests().first?["path"]?.stringValue == "/v1/chat/completions")
        }

        @Test func optionsJSONFromAConfigFile() async throws {
            try await Mock.reset()
            let gw = try GwClient(optionsJSON: ["base_url": .string(Mock.url), "api_key": .string(Mock.apiKey)], maxThreads: 4)
            #expect(gw.maxThreads == 4)
            _ = try await gw.chat(chatJSON("from json"))
        }

        @Test func tlsTrustOptionsAreChecked() {
            // A CA file that does not exist is refused when the client is made, naming it.
            let e = refusal(GwOptions(baseURL: "https://gw.example", apiKey: "k", caFile: "/nonexistent/ca.pem"))
            #expect(e?.kind == .invalidArgument)
            let pem = refusal(GwOptions(baseURL: "https://gw.example", apiKey: "k", caPEM: "not a certificate"))
            #expect(pem?.kind == .invalidArgument)
        }

        @Test func versionIsTheHeaders() {
            #expect(Gw.version.split(separator: ".").count == 3)
        }

        @Test func theLoggerSeesEachAttemptWithoutTheKey() async throws {
            try await Mock.reset()
            let lines = LineBox()
            Gw.setLogger(maxLevel: .debug) { _, line in lines.add(line) }
            defer { Gw.setLogger(nil) }
            let gw = try Mock.client { $0.apiKey = "sk-log-secret" }
            _ = try? await gw.chat(chatJSON("logged"))
            let all = lines.all()
            #expect(!all.isEmpty)
            #expect(!all.joined().contains("sk-log-secret"))
        }

        @Test func aReplacedLoggerIsReleasedAndTheCurrentOneKeepsLogging() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            weak var weakOld: Token?
            let old = LineBox()
            do {
                let token = Token()
                weakOld = token
                Gw.setLogger(maxLevel: .debug) { _, line in token.touch(); old.add(line) }
            }
            _ = try? await gw.chat(chatJSON("to the first logger"))
            #expect(!old.all().isEmpty)
            let lines = LineBox()
            weak var weakCurrent: Token?
            do {
                let token = Token()
                weakCurrent = token
                Gw.setLogger(maxLevel: .debug) { _, line in token.touch(); lines.add(line) }
            }
            // Released as setLogger returns, with what the closure captures.
            #expect(weakOld == nil)
            #expect(weakCurrent != nil)
            let before = old.all().count
            _ = try? await gw.chat(chatJSON("to the second logger"))
            #expect(!lines.all().isEmpty)
            #expect(old.all().count == before)
            Gw.setLogger(nil)
            #expect(weakCurrent == nil)
        }

        @Test func aLoggerReplacedFromInsideItsOwnCallIsReleasedAfterThatCall() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let lines = LineBox()
            weak var weakFirst: Token?
            do {
                let token = Token()
                weakFirst = token
                Gw.setLogger(maxLevel: .debug) { _, _ in
                    token.touch()
                    // The running call still uses `token`: it is released once this returns.
                    Gw.setLogger(maxLevel: .debug) { _, line in lines.add(line) }
                    token.touch()
                }
            }
            defer { Gw.setLogger(nil) }
            _ = try? await gw.chat(chatJSON("swapped inside"))
            #expect(weakFirst == nil)
            _ = try? await gw.chat(chatJSON("to the new logger"))
            #expect(!lines.all().isEmpty)
        }

        @Test func loggersSwappedWhileCallsLogAreAllReleased() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let lines = LineBox()
            let tokens = WeakTokens()
            // Handlers set from outside, and handlers that set another from inside their call.
            @Sendable func swap(_ n: Int) {
                let token = tokens.make()
                Gw.setLogger(maxLevel: .debug) { _, line in
                    token.touch()
                    lines.add(line)
                    if n % 3 == 0 {
                        let inner = tokens.make()
                        Gw.setLogger(maxLevel: .debug) { _, l in inner.touch(); lines.add(l) }
                    }
                }
            }
            await withTaskGroup(of: Void.self) { group in
                for i in 0..<4 {
                    group.addTask { for _ in 0..<10 { _ = try? await gw.chat(chatJSON("busy \(i)")) } }
                }
                group.addTask {
                    for n in 0..<150 {
                        swap(n)
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                }
            }
            Gw.setLogger(nil)
            #expect(!lines.all().isEmpty)
            #expect(tokens.made > 150)
            // A handler swapped from inside its call goes when that call returns.
            for _ in 0..<100 where tokens.alive > 0 { try await Task.sleep(for: .milliseconds(10)) }
            #expect(tokens.alive == 0)
        }
    }

    /// Per-call options through the call's derived handle.
    @Suite struct CallOptions {
        @Test func perCallHeadersAndIdempotencyKeyReachTheGateway() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.headers = ["x-app": "demo"] }
            _ = try await gw.chat(
                chatJSON("x"), options: GwCallOptions(headers: ["x-trace": "t-1"], idempotencyKey: "idem-9"))
            let sent = try #require(try await Mock.requests().first)
            #expect(sent.header("x-app") == "demo")
            #expect(sent.header("x-trace") == "t-1")
            #expect(sent.header("idempotency-key") == "idem-9")
        }

        @Test func onResponseGetsThisCallsMetadata() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let box = MetaBox()
            _ = try await gw.embeddings(
                EmbeddingRequest(model: "emb-test", input: ["a"]), options: GwCallOptions(onResponse: { box.set($0) }))
            let meta = try #require(box.get())
            #expect(meta.status == 200)
            #expect(meta.attempts == 1)
            #expect(meta.requestId?.hasPrefix("req_mock_") == true)
            #expect(meta.url?.hasSuffix("/v1/embeddings") == true)
            #expect(meta.headers["content-type"]?.contains("json") == true)
        }

        @Test func concurrentCallsEachGetTheirOwnMetadata() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let ids = try await withThrowingTaskGroup(of: String?.self) { group in
                for i in 0..<20 {
                    group.addTask {
                        let box = MetaBox()
                        _ = try await gw.chat(chatJSON("m\(i)"), options: GwCallOptions(onResponse: { box.set($0) }))
                        return box.get()?.requestId
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(Set(ids.compactMap { $0 }).count == 20)
        }

        @Test func unknownPerCallOptionsAreRefused() async throws {
            let gw = try Mock.client()
            let e = await #expect(throws: GwError.self) {
                try await gw.chat(chatJSON("x"), options: GwCallOptions(extra: ["total_timeout": 5]))
            }
            #expect(e?.kind == .invalidArgument)
            let neg = await #expect(throws: GwError.self) {
                try await gw.chat(chatJSON("x"), options: GwCallOptions(readTimeout: .seconds(-1)))
            }
            #expect(neg?.param == "read_timeout_ms")
        }

        @Test func aPerCallFirstByteTimeout() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 2000])
            let e = await #expect(throws: GwError.self) {
                try await gw.chat(chatJSON("x"), options: GwCallOptions(firstByteTimeout: .milliseconds(200)))
            }
            #expect(e?.kind == .timeout)
        }
    }
}

/// Something a logger closure captures, to see when the closure is released.
final class Token: @unchecked Sendable {
    private let lock = NSLock()
    private var uses = 0
    func touch() { lock.locked { uses += 1 } }
}

/// Tokens made for logger closures, held weakly: how many are still alive.
final class WeakTokens: @unchecked Sendable {
    private struct Ref { weak var token: Token? }
    private let lock = NSLock()
    private var refs: [Ref] = []
    func make() -> Token {
        let t = Token()
        lock.locked { refs.append(Ref(token: t)) }
        return t
    }
    var made: Int { lock.locked { refs.count } }
    var alive: Int { lock.locked { refs.filter { $0.token != nil }.count } }
}

final class LineBox: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func add(_ l: String) { lock.locked { lines.append(l) } }
    func all() -> [String] { lock.locked { lines } }
}
