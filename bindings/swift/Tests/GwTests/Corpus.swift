import Foundation
import Gw

// The conformance corpus (conformance/cases) driven through the binding's public API, the way
// a Swift user calls it: the `Data` forms (the case's request bytes passed through as they
// are), GwClient(optionsJSON:) for the client options, Task cancellation for `cancel`.
// ConformanceTests checks what a case gave; ModelRoundTripTests round-trips its answers
// through the typed models.

/// One case file: its name (`family/name`, as skip.json and the TSV spell it) and content.
struct CorpusCase: Sendable {
    let name: String
    let spec: JSONValue
}

/// A case the Swift API cannot write; skip.json lists it under "swift" with the reason.
struct NotExpressible: Error, CustomStringConvertible {
    let description: String
    init(_ why: String) { description = "the Swift API cannot express this case (list it in skip.json under \"swift\"): " + why }
}

/// What one case's call gave.
struct Seen: Sendable {
    var status = 0
    /// The answer, or `{"error": {...}}` for a failure (the error's fields and body).
    var out: JSONValue = .null
    /// The answer's bytes, when the call succeeded.
    var answer: Data?
    var events: [GwEvent] = []
    var meta: GwResponseMeta?
    /// From the cancel to the call's return; nil when the call returned before the cancel.
    var cancelToReturnMs: Double?
    var sent = 0
    var lastBody: JSONValue = .null
    var lastHeaders: [JSONValue] = []
    var lastQuery: String?
}

/// A value set from another task (the events of a stream, the metadata of a call).
final class Shared<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: T
    init(_ value: T) { self.value = value }
    func get() -> T { lock.locked { value } }
    func update(_ body: (inout T) -> Void) { lock.locked { body(&value) } }
}

enum Corpus {
    /// `GW_CONFORMANCE_DIR` (scripts/conformance.sh sets it), else the repository's conformance/.
    static let dir: URL = {
        if let d = ProcessInfo.processInfo.environment["GW_CONFORMANCE_DIR"], !d.isEmpty {
            return URL(fileURLWithPath: d)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("conformance")
    }()

    /// Every case, sorted by name.
    static func cases() throws -> [CorpusCase] {
        let root = dir.appendingPathComponent("cases").standardizedFileURL.path
        guard let walk = FileManager.default.enumerator(atPath: root) else { return [] }
        var out: [CorpusCase] = []
        while let rel = walk.nextObject() as? String {
            guard rel.hasSuffix(".json") else { continue }
            let data = try Data(contentsOf: URL(fileURLWithPath: root + "/" + rel))
            out.append(CorpusCase(name: String(rel.dropLast(5)), spec: try JSONValue(data: data)))
        }
        return out.sorted { $0.name < $1.name }
    }

    /// skip.json's cases for `language`, with their reasons.
    static func skips(_ language: String) throws -> [String: String] {
        let all = try JSONValue(data: Data(contentsOf: dir.appendingPathComponent("skip.json")))
        return (all[language]?.objectValue ?? [:]).compactMapValues(\.stringValue)
    }

    /// The runner's client options with the case's merged over them.
    static func options(_ c: JSONValue) -> JSONValue {
        var o: [String: JSONValue] = [
            "base_url": .string(Mock.url), "api_key": "sk-test", "retry_base_delay_ms": 5, "retry_max_delay_ms": 20,
        ]
        for (k, v) in c["options"]?.objectValue ?? [:] { o[k] = v }
        return .object(o)
    }

    static func family(_ args: JSONValue) throws -> VideoFamily {
        switch args["family"]?.stringValue {
        case "unified": return .unified
        case "character": return .character
        case "vendor_k": return .vendorK
        case "vendor_r": return .vendorR
        default: throw NotExpressible("video family \(args["family"] ?? .null)")
        }
    }

    /// `args.wait` as videoWait's interval and timeout.
    static func wait(_ args: JSONValue) throws -> (interval: Duration?, timeout: Duration?) {
        guard let w = args["wait"] else { return (nil, nil) }
        guard let fields = w.objectValue else {
            throw NotExpressible("wait options \(w): videoWait takes interval and timeout as Durations")
        }
        var interval: Duration?
        var timeout: Duration?
        for (k, v) in fields {
            guard let n = v.doubleValue else { throw NotExpressible("wait option \(k) \(v) is not a number") }
            switch k {
            case "interval_ms": interval = .milliseconds(n)
            case "timeout_ms": timeout = .milliseconds(n)
            default: throw NotExpressible("wait option \(k): videoWait has no such argument")
            }
        }
        return (interval, timeout)
    }

    /// One call of `verb` through the public API: the answer's bytes (events go to `events`
    /// as they come, metadata to `meta`).
    static func call(
        _ gw: GwClient, _ verb: String, body: Data?, args: JSONValue, events: Shared<[GwEvent]>,
        meta: Shared<GwResponseMeta?>
    ) async throws -> Data {
        let options = GwCallOptions(onResponse: { m in meta.update { $0 = m } })
        let b = body ?? Data()
        let id = args["id"]?.stringValue ?? ""
        func streamed(_ stream: GwStream<JSONValue>) async throws -> Data {
            defer { meta.update { $0 = stream.response ?? $0 } }
            for try await e in stream { events.update { $0.append(e) } }
            return try await stream.resultData()
        }
        switch verb {
        case "chat": return try await gw.chat(b, options: options)
        case "chatStream": return try await streamed(gw.chatStream(b, options: options))
        case "responses": return try await gw.responses(b, options: options)
        case "responsesStream": return try await streamed(gw.responsesStream(b, options: options))
        case "embeddings": return try await gw.embeddings(b, options: options)
        case "imageGenerate": return try await gw.imageGenerate(b, options: options)
        case "imageEdit": return try await gw.imageEdit(b, options: options)
        case "videoCreate": return try await gw.videoCreate(b, options: options)
        case "videoGenerate": return try await gw.videoGenerate(b, options: options)
        case "videoCharacter": return try await gw.videoCharacter(b, options: options)
        case "videoRemix": return try await gw.videoRemix(videoId: id, b, options: options)
        case "generateContent":
            return try await gw.generateContent(model: args["model"]?.stringValue ?? "", b, options: options)
        case "videoStatus": return try await gw.videoStatusData(try family(args), taskId: id, options: options)
        case "videoWait":
            let w = try wait(args)
            return try await gw.videoWaitData(
                try family(args), taskId: id, interval: w.interval, timeout: w.timeout, options: options)
        case "request":
            return try await gw.request(
                args["method"]?.stringValue ?? "", args["path"]?.stringValue ?? "", bodyData: body, options: options)
        default:
            throw NotExpressible("the Swift runner knows no verb \(verb)")
        }
    }

    /// A failure as the case's `out`: `{"error": {...}}` with the error object's members and
    /// GwError's fields.
    static func errorOut(_ e: GwError) -> JSONValue {
        var o = e.status == -6 ? [:] : (e.body?.objectValue ?? [:])
        let fields: [(String, String?)] = [("type", e.type), ("code", e.code), ("param", e.param), ("message", e.message)]
        for (k, v) in fields where o[k] == nil || o[k] == .null { o[k] = v.map(JSONValue.string) ?? .null }
        o["status"] = .int(Int64(e.status))
        return ["error": .object(o)]
    }

    /// Runs one case against the mock: reset, setup, faults, the call (cancelled when the
    /// case says so), then what the mock recorded.
    static func run(_ c: CorpusCase, transport: GwTransport = .builtIn) async throws -> Seen {
        let spec = c.spec
        _ = try await Mock.control.request("POST", "/__mock/reset", body: [:])
        var seen = Seen()
        var args = spec["args"] ?? [:]
        let verb = spec["operation"]?.stringValue ?? ""
        var setupRequests = 0
        let gw: GwClient
        do {
            gw = try GwClient(optionsJSON: options(spec), transport: transport)
        } catch let e as GwError {
            seen.status = e.status
            seen.out = errorOut(e)
            return try await recorded(seen, setupRequests)
        }
        if let setup = spec["setup"] {
            let made = try await call(
                gw, setup["operation"]?.stringValue ?? "", body: setup["request"]?.jsonData(), args: args,
                events: Shared([]), meta: Shared(nil))
            let id = try JSONValue(data: made)[path: setup["id_path"]?.stringValue ?? "id"]
            guard let id = id?.stringValue else { throw NotExpressible("setup answer has no id") }
            if case .object(var a) = args { a["id"] = .string(id); args = .object(a) } else { args = ["id": .string(id)] }
            setupRequests = try await Mock.requests().count
        }
        for fault in spec["faults"]?.arrayValue ?? [] { try await Mock.fault(fault) }
        let body: Data? = try spec["request"].map { try $0.jsonData() } ?? spec["request_text"]?.stringValue.map { Data($0.utf8) }
        let events = Shared<[GwEvent]>([])
        let meta = Shared<GwResponseMeta?>(nil)
        let returned = Shared<ContinuousClock.Instant?>(nil)
        let callArgs = args
        let task = Task {
            defer { returned.update { $0 = .now } }
            return try await call(gw, verb, body: body, args: callArgs, events: events, meta: meta)
        }
        if let cancel = spec["cancel"] {
            try await Task.sleep(for: .milliseconds(cancel["after_ms"]?.intValue ?? 0))
            let at = ContinuousClock.now
            task.cancel()
            _ = await task.result
            if let end = returned.get(), end >= at { seen.cancelToReturnMs = ms(since: at) - ms(since: end) }
        }
        switch await task.result {
        case .success(let data):
            seen.status = 0
            seen.answer = data
            seen.out = (try? JSONValue(data: data)) ?? .string(String(decoding: data, as: UTF8.self))
        case .failure(let e as GwError):
            seen.status = e.status
            seen.out = errorOut(e)
            meta.update { $0 = e.response ?? $0 }
        case .failure(is CancellationError):
            seen.status = -5
        case .failure(let e as NotExpressible):
            throw e
        case .failure(let e):
            seen.status = -99
            seen.out = ["error": ["message": .string("\(e)")]]
        }
        seen.events = events.get()
        seen.meta = meta.get()
        return try await recorded(seen, setupRequests)
    }

    /// `seen` with what the mock recorded since the setup.
    static func recorded(_ seen: Seen, _ setupRequests: Int) async throws -> Seen {
        var seen = seen
        let requests = try await Mock.requests()
        seen.sent = requests.count - setupRequests
        if let last = requests.last {
            seen.lastBody = last["json"] ?? .null
            seen.lastHeaders = last["headers"]?.arrayValue ?? []
            seen.lastQuery = last["query"]?.stringValue
        }
        return seen
    }
}

extension JSONValue {
    /// The value at a dotted path of keys and indexes (`choices.0.message.content`), as
    /// gw_json_get reads it; the value itself for "".
    subscript(path path: String) -> JSONValue? {
        if path.isEmpty { return self }
        var node: JSONValue? = self
        for step in path.split(separator: ".", omittingEmptySubsequences: false) {
            switch node {
            case .object(let o)?: node = o[String(step)]
            case .array(let a)?:
                guard let i = Int(step), a.indices.contains(i) else { return nil }
                node = a[i]
            default: return nil
            }
        }
        return node
    }
}
