import Foundation
import Gw
import Testing

/// Every suite runs inside this one, one test at a time: gw-mock's fault queue and request
/// log are global to the process.
@Suite(.serialized) struct GwTests {}

/// The gw-mock the tests talk to: `GW_MOCK_URL` (scripts/test-swift.sh starts one for all
/// runs), or else a gw-mock started here from `GW_MOCK` or <repo>/target/release/gw-mock.
enum Mock {
    static let apiKey = "sk-test"

    static let url: String = {
        if let u = ProcessInfo.processInfo.environment["GW_MOCK_URL"], !u.isEmpty { return u }
        return MockProcess.shared.url
    }()

    /// A client with retries off (tests turn them on where they test them).
    static func client(_ tune: (inout GwOptions) -> Void = { _ in }) throws -> GwClient {
        var o = GwOptions(baseURL: url, apiKey: apiKey, maxRetries: 0)
        tune(&o)
        return try GwClient(o)
    }

    /// The control client: its own retries off, never faulted (control paths never are).
    static let control: GwClient = try! GwClient(GwOptions(baseURL: url, apiKey: apiKey, maxRetries: 0, validate: false))

    static func reset() async throws {
        _ = try await control.request("POST", "/__mock/reset", body: [:])
    }

    /// Queues faults (an object or an array; see tests/mock-gateway/src/faults.rs).
    static func fault(_ json: JSONValue) async throws {
        _ = try await control.request("POST", "/__mock/faults", body: json)
    }

    /// Every request recorded since the last reset, oldest first.
    static func requests() async throws -> [JSONValue] {
        try await control.request("GET", "/__mock/requests").arrayValue ?? []
    }

    static func requests(to path: String) async throws -> [JSONValue] {
        try await requests().filter { $0["path"]?.stringValue == path }
    }
}

extension JSONValue {
    /// A recorded request's header (headers are `[name, value]` pairs).
    func header(_ name: String) -> String? {
        self["headers"]?.arrayValue?.first { $0[0]?.stringValue?.lowercased() == name.lowercased() }?[1]?.stringValue
    }
}

/// A gw-mock started for this test process, when no GW_MOCK_URL was given.
final class MockProcess: Sendable {
    static let shared = MockProcess()
    let url: String
    private let process: Process

    init() {
        let env = ProcessInfo.processInfo.environment
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = env["GW_MOCK"] ?? repo.appendingPathComponent("target/release/gw-mock").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = ["--port", "0", "--exit-on-stdin-eof"]
        let out = Pipe()
        let input = Pipe()
        p.standardOutput = out
        p.standardInput = input
        do { try p.run() } catch { fatalError("cannot start gw-mock at \(binary): \(error) (set GW_MOCK_URL or GW_MOCK)") }
        var line = Data()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        url = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        process = p
        // stdin stays open (the Pipe lives in the Process) until this process exits.
        _ = input
    }
}

/// Milliseconds since `start`.
func ms(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
}

/// A chat request of `text`.
func chatJSON(_ text: String, model: String = "gpt-test") -> JSONValue {
    ["model": .string(model), "messages": [["role": "user", "content": .string(text)]]]
}

let longText = "one two three four five six seven eight"

extension NSLock {
    func locked<R>(_ body: () throws -> R) rethrows -> R {
        lock()
        defer { unlock() }
        return try body()
    }
}
