import Foundation
import Gw
import Testing

extension GwTests {
    /// Each failure as its GwError kind, with the error fields and the response metadata.
    @Suite struct Errors {
        @Test func aWrongKeyIsUnauthorizedAndNeverShowsTheKey() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.apiKey = "sk-wrong-secret-42" }
            let e = try #require(await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) })
            #expect(e.kind == .unauthorized)
            #expect(e.status == 401)
            #expect(e.type == "authentication_error")
            #expect(e.code == "invalid_api_key")
            #expect(e.response?.status == 401)
            let id = try #require(e.requestId)
            #expect(e.localizedDescription.contains("request_id=\(id)"))
            #expect(e.response?.url?.hasSuffix("/v1/chat/completions") == true)
            for text in [e.localizedDescription, "\(e)", "\(String(describing: e.body))", "\(String(describing: e.response))"] {
                #expect(!text.contains("sk-wrong-secret-42"))
            }
        }

        @Test func rateLimitedCarriesTheRetryAfter() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "status", "status": 429, "headers": ["retry-after": "7"]])
            let e = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) }
            #expect(e?.kind == .rateLimited)
            #expect(e?.response?.retryAfter == .seconds(7))
            #expect(e?.response?.attempts == 1)
            #expect(e?.type == "rate_limit_error")
        }

        @Test func kindsMatchInCatchClauses() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "status", "status": 429])
            var matched = false
            do {
                _ = try await gw.chat(chatJSON("x"))
            } catch let e as GwError where e.kind == .rateLimited {
                #expect(e.status == 429)
                matched = true
            } catch {
                Issue.record("unexpected \(error)")
            }
            #expect(matched)
        }

        @Test func otherStatusesMapToTheirKinds() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            for (status, kind) in [(400, GwError.Kind.badRequest), (403, .forbidden), (500, .serverError), (503, .serverError), (409, .httpStatus)] {
                try await Mock.fault(["match": "/v1/embeddings", "action": "status", "status": .int(Int64(status))])
                let e = await #expect(throws: GwError.self) {
                    try await gw.embeddings(["model": "e", "input": "x"] as JSONValue)
                }
                #expect(e?.status == status)
                #expect(e?.kind == kind)
                #expect(e?.code == "injected_fault")
            }
            let notFound = await #expect(throws: GwError.self) { try await gw.request("GET", "/v1/no/such/thing") }
            #expect(notFound?.kind == .notFound)
        }

        @Test func errorBodiesOfOtherShapesKeepAMessage() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            for shape in ["google", "html", "plain", "sse"] {
                try await Mock.fault(["match": "/v1/chat", "action": "error_body", "status": 502, "shape": .string(shape)])
                let e = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) }
                #expect(e?.status == 502, "\(shape)")
                #expect(e?.kind == .serverError)
                #expect(!(e?.message.isEmpty ?? true), "\(shape)")
            }
        }

        @Test func nobodyListeningIsNetwork() async throws {
            let server = try SilentServer()
            let port = server.port
            server.close()
            let gw = try GwClient(GwOptions(baseURL: "http://127.0.0.1:\(port)", apiKey: "k", maxRetries: 0))
            let e = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) }
            #expect(e?.kind == .network)
            #expect(e?.status == -2)
            #expect(e?.response == nil, "no HTTP answer, no metadata")
        }

        @Test func aPerCallTotalTimeoutIsGwsTimeout() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "delay", "ms": 3000])
            let start = ContinuousClock.now
            let e = await #expect(throws: GwError.self) {
                try await gw.chat(chatJSON("x"), options: GwCallOptions(totalTimeout: .milliseconds(300)))
            }
            #expect(e?.kind == .timeout)
            #expect(ms(since: start) < 2000)
        }

        @Test func garbageIsDecodeAndAnOversizedAnswerTooLarge() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.maxResponseBytes = 100_000 }
            try await Mock.fault(["match": "/v1/chat", "action": "garbage"])
            let garbage = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) }
            #expect(garbage?.kind == .decode)
            try await Mock.fault(["match": "/v1/chat", "action": "huge_body", "bytes": 400_000])
            let huge = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) }
            #expect(huge?.kind == .tooLarge)
        }

        @Test func aWrongShapeIsDecode() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            try await Mock.fault(["match": "/v1/chat", "action": "wrong_shape"])
            let e = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) }
            #expect(e?.kind == .decode)
        }

        @Test func vendorBodiesThatReportFailureAreVendorErrorsWithTheBody() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let ok = try await gw.vendorHImageToVideo(["image_url": "https://i.example/a.png", "prompt": "move"])
            #expect(ok["data"]?["status"]?.stringValue == "pending")
            let h = await #expect(throws: GwError.self) {
                try await gw.vendorHImageToVideo(["image_url": "https://i.example/a.png", "prompt": "vendor-fail"])
            }
            #expect(h?.kind == .vendor)
            #expect(h?.body?["code"]?.intValue == 1001)
            #expect(h?.message.contains("insufficient quota") == true)
            #expect(try await gw.vendorMImagine(["prompt": "a castle", "botType": "b1"])["code"]?.intValue == 1)
            let m = await #expect(throws: GwError.self) { try await gw.vendorMImagine(["prompt": "vendor-fail", "botType": "b1"]) }
            #expect(m?.kind == .vendor)
            #expect(m?.code == "4")
        }

        @Test func everyNegativeStatusHasItsKindAndName() {
            let table: [(Int, GwError.Kind, String)] = [
                (-1, .invalidArgument, "GW_INVALID_ARGUMENT"), (-2, .network, "GW_NETWORK"), (-3, .timeout, "GW_TIMEOUT"),
                (-4, .decode, "GW_DECODE"), (-5, .cancelled, "GW_CANCELLED"), (-6, .vendor, "GW_VENDOR"),
                (-7, .stream, "GW_STREAM"), (-8, .tooLarge, "GW_TOO_LARGE"), (-99, .internal, "GW_INTERNAL"),
            ]
            for (status, kind, name) in table {
                let e = GwError(status: status, message: "m")
                #expect(e.kind == kind)
                #expect(e.statusName == name)
                #expect(e.errorDescription?.hasPrefix(name + ": m") == true)
            }
            #expect(Gw.statusName(502) == "GW_HTTP_STATUS")
        }
    }

    /// gw's retries as the binding shows them: attempts in the metadata, Retry-After honoured.
    @Suite struct Retries {
        @Test func aRetried500SucceedsAndTheMetadataCountsTheAttempts() async throws {
            try await Mock.reset()
            let gw = try Mock.client {
                $0.maxRetries = 2
                $0.retryBaseDelay = .milliseconds(10)
                $0.retryMaxDelay = .milliseconds(20)
            }
            try await Mock.fault(["match": "/v1/chat", "action": "status", "status": 500])
            let box = MetaBox()
            let answer = try await gw.chat(chatJSON("again"), options: GwCallOptions(onResponse: { box.set($0) }))
            #expect(answer["object"]?.stringValue == "chat.completion")
            #expect(box.get()?.attempts == 2)
            #expect(box.get()?.status == 200)
        }

        @Test func retriesRunOutAndTheLastStatusIsThrown() async throws {
            try await Mock.reset()
            let gw = try Mock.client {
                $0.maxRetries = 2
                $0.retryBaseDelay = .milliseconds(5)
            }
            try await Mock.fault(["match": "/v1/chat", "action": "status", "status": 503, "times": 3])
            let e = await #expect(throws: GwError.self) { try await gw.chat(chatJSON("x")) }
            #expect(e?.status == 503)
            #expect(e?.response?.attempts == 3)
            #expect(try await Mock.requests(to: "/v1/chat/completions").count == 3)
        }

        @Test func retryAfterMsIsHonoured() async throws {
            try await Mock.reset()
            let gw = try Mock.client { $0.maxRetries = 1 }
            try await Mock.fault(["match": "/v1/chat", "action": "status", "status": 429, "headers": ["retry-after-ms": "300"]])
            let start = ContinuousClock.now
            _ = try await gw.chat(chatJSON("x"))
            #expect(ms(since: start) >= 280)
        }

        @Test func perCallMaxRetriesOverridesTheClients() async throws {
            try await Mock.reset()
            let gw = try Mock.client {
                $0.maxRetries = 3
                $0.retryBaseDelay = .milliseconds(5)
            }
            try await Mock.fault(["match": "/v1/chat", "action": "status", "status": 500, "times": 5])
            let e = await #expect(throws: GwError.self) {
                try await gw.chat(chatJSON("x"), options: GwCallOptions(maxRetries: 0))
            }
            #expect(e?.response?.attempts == 1)
        }

        @Test func theIdempotencyKeyIsTheSameAcrossRetries() async throws {
            try await Mock.reset()
            let gw = try Mock.client {
                $0.maxRetries = 1
                $0.retryBaseDelay = .milliseconds(5)
            }
            try await Mock.fault(["match": "/v1/chat", "action": "status", "status": 500])
            _ = try await gw.chat(chatJSON("x"))
            let keys = try await Mock.requests(to: "/v1/chat/completions").map { $0.header("idempotency-key") }
            #expect(keys.count == 2)
            #expect(keys[0] != nil && keys[0] == keys[1])
        }
    }
}
