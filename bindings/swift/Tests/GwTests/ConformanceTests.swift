import Foundation
import Gw
import Testing

// The conformance corpus's Swift runner (conformance/README.md): every case of
// conformance/cases through the binding's public API (Corpus.swift) against the gw-mock
// scripts/conformance.sh starts. It runs when GW_CONFORMANCE_DIR is set; it writes
// $GW_CONFORMANCE_OUT/swift.tsv (case, pass|fail|skip, why) and prints
// `conformance swift: P passed, F failed, S skipped`. A case the Swift API cannot express
// fails unless conformance/skip.json lists it under "swift" with the reason. A second pass
// runs every case through the URLSession transport as `swift-urlsession` (its own TSV, line
// and skip.json key: the cases FoundationNetworking cannot show).

/// JSON equality with numbers by value (1 == 1.0).
func sameJSON(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(sameJSON)
    case (.object(let x), .object(let y)):
        return x.count == y.count && x.allSatisfy { k, v in y[k].map { sameJSON(v, $0) } ?? false }
    default:
        if let x = a.doubleValue, let y = b.doubleValue { return x == y }
        return a == b
    }
}

func show(_ v: JSONValue?) -> String { v.map { String($0.jsonString.prefix(300)) } ?? "nothing" }

/// What is wrong with `seen` for case `c`; empty when it passes.
func problems(_ c: JSONValue, _ seen: Seen) -> [String] {
    var out: [String] = []
    let e = c["expect"] ?? [:]
    if let want = e["status"]?.intValue, want != seen.status {
        out.append("status \(seen.status) (\(Gw.statusName(seen.status))), expected \(want); out: \(show(seen.out))")
    }
    for (k, want) in e["error"]?.objectValue ?? [:] {
        let err = seen.out["error"]
        if k == "message_contains" || k == "message_lacks" {
            let message = err?["message"]?.stringValue ?? ""
            if message.contains(want.stringValue ?? "") != (k == "message_contains") {
                out.append("error.message \(k): \(message)")
            }
            continue
        }
        let got = err?[k]
        if got.map({ !sameJSON($0, want) }) ?? true { out.append("error.\(k): got \(show(got)), expected \(want)") }
    }
    func pairs(_ what: String, _ doc: JSONValue, _ list: JSONValue?) {
        for pair in list?.arrayValue ?? [] {
            let path = pair[0]?.stringValue ?? ""
            let want = pair[1] ?? .null
            let got = doc[path: path]
            let ok = (want == .null && (got == nil || got == .null)) || got.map { sameJSON($0, want) } ?? false
            if !ok { out.append("\(what) \(path): got \(show(got)), expected \(want)") }
        }
    }
    pairs("answer", seen.out, e["answer"])
    for path in e["answer_lacks"]?.arrayValue ?? [] {
        if let got = seen.out[path: path.stringValue ?? ""], got != .null { out.append("answer \(path): expected absent") }
    }
    if let want = e["events"] {
        let n = seen.events.count
        if let count = want["count"]?.intValue, count != n { out.append("events: \(n), expected \(count)") }
        if let min = want["min_count"]?.intValue, n < min { out.append("events: \(n), expected at least \(min)") }
        if let text = want["text"]?.stringValue {
            let got = seen.events.filter { $0.choiceIndex == 0 }.compactMap(\.textDelta).joined()
            if got != text { out.append("event text \"\(got)\", expected \"\(text)\"") }
        }
        let names = seen.events.map(\.name)
        if let list = want["names"]?.arrayValue, list.compactMap(\.stringValue) != names || list.count != names.count {
            out.append("event names \(names)")
        }
        if let first = want["first_name"]?.stringValue, names.first != first { out.append("first_name: \(names.first ?? "none")") }
        if let last = want["last_name"]?.stringValue, names.last != last { out.append("last_name: \(names.last ?? "none")") }
    }
    let meta = e["meta"] ?? [:]
    if let attempts = meta["attempts"]?.intValue, (seen.meta?.attempts ?? -1) != attempts {
        out.append("meta.attempts \(seen.meta.map { String($0.attempts) } ?? "none"), expected \(attempts)")
    }
    if meta["request_id"] == true, seen.meta?.requestId == nil { out.append("meta.request_id: absent") }
    if let lacks = meta["text_lacks"]?.stringValue, let m = seen.meta,
        String(describing: m).lowercased().contains(lacks.lowercased())
    {
        out.append("metadata holds \(lacks) (any case)")
    }
    if let query = e["sent_query"]?.stringValue, seen.lastQuery != query {
        out.append("sent query \(seen.lastQuery ?? "none"), expected \(query)")
    }
    if let sent = e["sent"]?.intValue, seen.sent != sent { out.append("sent \(seen.sent) requests, expected \(sent)") }
    pairs("sent_body", seen.lastBody, e["sent_body"])
    for (name, want) in e["sent_header"]?.objectValue ?? [:] {
        let got = seen.lastHeaders.last { $0[0]?.stringValue == name.lowercased() }?[1]?.stringValue
        let ok = want == .null ? got == nil : got == want.stringValue
        if !ok { out.append("sent header \(name): got \(got ?? "none")") }
    }
    if let cancel = c["cancel"] {
        let bound = cancel["bound_ms"]?.doubleValue ?? 0
        if let t = seen.cancelToReturnMs, t <= bound {} else {
            out.append("cancel to return: \(seen.cancelToReturnMs.map { String(format: "%.1f", $0) } ?? "none") ms, bound \(bound) ms")
        }
    }
    return out
}

extension GwTests {
    @Suite struct Conformance {
        @Test(.enabled(if: ProcessInfo.processInfo.environment["GW_CONFORMANCE_DIR"] != nil))
        func corpus() async throws {
            try await runCorpus("swift", transport: .builtIn)
        }

        /// The same cases through the URLSession transport (FoundationNetworking here), as the
        /// language `swift-urlsession`: its own TSV, line and skip.json key.
        @Test(.enabled(if: ProcessInfo.processInfo.environment["GW_CONFORMANCE_DIR"] != nil))
        func urlSessionCorpus() async throws {
            try await runCorpus("swift-urlsession", transport: .urlSession())
        }

        func runCorpus(_ language: String, transport: GwTransport) async throws {
            let env = ProcessInfo.processInfo.environment
            let outDir = env["GW_CONFORMANCE_OUT"].map { URL(fileURLWithPath: $0) }
                ?? Corpus.dir.deletingLastPathComponent().appendingPathComponent("build/conformance")
            let skips = try Corpus.skips(language)
            var tsv = ""
            var (passed, failed, skipped) = (0, 0, 0)
            for c in try Corpus.cases() {
                var word = "skip"
                var why = skips[c.name] ?? ""
                if skips[c.name] != nil {
                    skipped += 1
                } else {
                    do {
                        why = problems(c.spec, try await Corpus.run(c, transport: transport)).joined(separator: "; ")
                    } catch {
                        why = "\(error)"
                    }
                    word = why.isEmpty ? "pass" : "fail"
                    if why.isEmpty { passed += 1 } else { failed += 1 }
                    if !why.isEmpty { print("conformance \(language) FAIL \(c.name): \(why)") }
                }
                let clean = why.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
                tsv += "\(c.name)\t\(word)\t\(clean)\n"
            }
            try FileManager.default.createDirectory(at: outDir, withIntermediateDirectories: true)
            try Data(tsv.utf8).write(to: outDir.appendingPathComponent("\(language).tsv"))
            print("conformance \(language): \(passed) passed, \(failed) failed, \(skipped) skipped")
            #expect(failed == 0)
        }
    }
}
