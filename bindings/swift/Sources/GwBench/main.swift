// The Swift binding's overhead over the C ABI, against gw-mock (scripts/bench-swift.sh):
// per-call wall and CPU time of a chat call, and CPU per stream event, through the Swift
// layer (Data and typed) and through gw.h directly from the same process. CPU is the
// process's user+system time (getrusage), all threads; gw-mock runs in its own process.
//
//   GW_BASE_URL   the mock (required);  GW_BENCH_CALLS (2000);  GW_BENCH_STREAMS (40);
//   GW_BENCH_WORDS words per streamed answer, about one event each (400);
//   GW_BENCH_BIG_KIB the big image chat's body (5120);  GW_BENCH_BIG_CALLS its rounds (20)
import CGw
import Foundation
import Gw

#if canImport(Glibc)
    import Glibc
#endif

let env = ProcessInfo.processInfo.environment
guard let base = env["GW_BASE_URL"] else {
    print("GW_BASE_URL is not set (scripts/bench-swift.sh starts gw-mock)")
    exit(2)
}
let calls = Int(env["GW_BENCH_CALLS"] ?? "") ?? 2000
let streams = Int(env["GW_BENCH_STREAMS"] ?? "") ?? 40
let words = Int(env["GW_BENCH_WORDS"] ?? "") ?? 400
let bigKiB = Int(env["GW_BENCH_BIG_KIB"] ?? "") ?? 5120
let bigCalls = max(1, Int(env["GW_BENCH_BIG_CALLS"] ?? "") ?? 20)

func cpuSeconds() -> Double {
    var u = rusage()
    #if os(Linux)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
    #else
        getrusage(RUSAGE_SELF, &u)
    #endif
    return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec)
        + Double(u.ru_stime.tv_usec) / 1e6
}

struct Figure {
    let wall: Double
    let cpu: Double
}

func measure(_ body: () async throws -> Void) async rethrows -> Figure {
    let c0 = cpuSeconds()
    let t0 = ContinuousClock.now
    try await body()
    let d = ContinuousClock.now - t0
    return Figure(
        wall: Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18, cpu: cpuSeconds() - c0)
}

let chatBody = #"{"model":"gpt-test","messages":[{"role":"user","content":"bench"}]}"#
let streamText = (0..<words).map { "w\($0)" }.joined(separator: " ")
let streamBody = #"{"model":"gpt-test","messages":[{"role":"user","content":""# + streamText + #""}]}"#
let options = #"{"base_url":"\#(base)","api_key":"sk-test","max_retries":0}"#

// The C side: one gw_client, calls on this thread.
var cClientOut: OpaquePointer?
guard gw_client_create(options, &cClientOut, nil) == 0, let cClient = cClientOut else {
    print("gw_client_create failed")
    exit(1)
}

func cChat(derive: Bool) {
    var handle = cClient
    if derive {
        var h: OpaquePointer?
        _ = gw_client_create_derived(cClient, nil, &h, nil)
        handle = h!
    }
    var out: UnsafeMutablePointer<CChar>?
    let status = gw_chat(handle, chatBody, &out)
    precondition(status == 0)
    gw_free(out)
    if derive { gw_client_free(handle) }
}

func cStream() -> Int {
    var stream: OpaquePointer?
    precondition(gw_chat_stream_open(cClient, streamBody, &stream, nil) == 0)
    var n = 0
    var event: UnsafePointer<gw_event>?
    while gw_stream_next(stream!, &event) == 0 {
        // Copy what the Swift layer copies, so the two sides do the same work.
        n += Int(event!.pointee.data_len) > 0 ? 1 : 0
    }
    var out: UnsafeMutablePointer<CChar>?
    precondition(gw_stream_finish(stream!, &out) == 0)
    gw_free(out)
    gw_stream_free(stream)
    return n
}

let client = try GwClient(optionsJSON: try JSONValue(json: options))
// The same calls through the URLSession transport (FoundationNetworking here).
let sessionClient = try GwClient(optionsJSON: try JSONValue(json: options), transport: .urlSession())
let chatData = Data(chatBody.utf8)
let typedRequest = ChatRequest(model: "gpt-test", messages: [.user("bench")])
let streamData = Data(streamBody.utf8)

// Warm up both sides (connections, threads, code paths).
for _ in 0..<100 {
    cChat(derive: false)
    _ = try await client.chat(chatData)
}
_ = cStream()
for try await _ in client.chatStream(streamData) {}
for _ in 0..<100 { _ = try await sessionClient.chat(chatData) }
for try await _ in sessionClient.chatStream(streamData) {}

var rows: [(String, Figure, Int)] = []
rows.append(("C ABI: gw_chat", await measure { for _ in 0..<calls { cChat(derive: false) } }, calls))
rows.append(("C ABI: derive + gw_chat + free", await measure { for _ in 0..<calls { cChat(derive: true) } }, calls))
rows.append(("Swift: chat(Data) -> Data", try await measure { for _ in 0..<calls { _ = try await client.chat(chatData) } }, calls))
rows.append(("Swift: chat(ChatRequest) typed", try await measure { for _ in 0..<calls { _ = try await client.chat(typedRequest) } }, calls))
// The same from a task off the main actor (top-level code runs on it): no hop to the main queue.
rows.append((
    "Swift: chat(Data), detached task",
    try await Task.detached { try await measure { for _ in 0..<calls { _ = try await client.chat(chatData) } } }.value, calls
))
rows.append((
    "Swift URLSession: chat(Data), det.",
    try await Task.detached { try await measure { for _ in 0..<calls { _ = try await sessionClient.chat(chatData) } } }.value,
    calls
))

print("gw-swift bench against \(base): \(calls) sequential chat calls each")
print("  " + "path".padding(toLength: 34, withPad: " ", startingAt: 0) + "   wall/call    CPU/call")
for (name, f, n) in rows {
    print(
        "  " + name.padding(toLength: 34, withPad: " ", startingAt: 0)
            + String(format: "  %8.1f µs  %8.1f µs", f.wall / Double(n) * 1e6, f.cpu / Double(n) * 1e6))
}

var cEvents = 0
let cFig = await measure { for _ in 0..<streams { cEvents += cStream() } }
// typed: each event's ChatCompletionChunk too (GwEvent.chunk, decoded on first use).
func swiftStreams(typed: Bool = false, on gw: GwClient = client) async throws -> (Figure, Int) {
    var n = 0
    let f = try await measure {
        for _ in 0..<streams {
            let s = gw.chatStream(streamData)
            for try await e in s { n += (typed ? e.chunk == nil : e.data.isEmpty) ? 0 : 1 }
            _ = try await s.resultData()
        }
    }
    return (f, n)
}
let (sFig, sEvents) = try await swiftStreams()
let (dFig, dEvents) = try await Task.detached { try await swiftStreams() }.value
let (tFig, tEvents) = try await swiftStreams(typed: true)
let (uFig, uEvents) = try await Task.detached { try await swiftStreams(on: sessionClient) }.value
print("gw-swift bench: \(streams) streams of ~\(words) events each")
print("  " + "path".padding(toLength: 34, withPad: " ", startingAt: 0) + "      events   CPU/event  wall/event")
for (name, f, n) in [
    ("C ABI: gw_stream_next loop", cFig, cEvents), ("Swift: for try await in chatStream", sFig, sEvents),
    ("Swift: the same, detached task", dFig, dEvents), ("Swift: the same + event.chunk", tFig, tEvents),
    ("Swift URLSession: the same, det.", uFig, uEvents),
] {
    print(
        "  " + name.padding(toLength: 34, withPad: " ", startingAt: 0)
            + String(format: "  %10d  %7.2f µs  %7.2f µs", n, f.cpu / Double(n) * 1e6, f.wall / Double(n) * 1e6))
}

// A photo as a base64 data URI (bench/gwbench_bigbody.c's image chat): pseudo-random base64
// so no byte repeats in a pattern, the body `bigKiB` KiB. Each round times one C call and one
// Swift call, interleaved so both see the same machine load; the median CPU per call of each.
func imageChat(bytes: Int) -> Data {
    let head = #"{"model":"vision-model","messages":[{"role":"user","content":[{"type":"text","text":"What is in this photo?"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,"#
    let tail = #"","detail":"high"}}]}],"max_tokens":300}"#
    let b64 = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var body = Data(head.utf8)
    var x: UInt64 = 0x9E37_79B9_7F4A_7C15
    let n = (bytes - head.utf8.count - tail.utf8.count) / 4 * 4
    body.append(contentsOf: (0..<n).map { _ in
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
        return b64[Int(x & 63)]
    })
    body.append(contentsOf: tail.utf8)
    return body
}

func processCPU() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func median(_ v: [Double]) -> Double {
    let s = v.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

let bigBody = imageChat(bytes: bigKiB * 1024)
// gw-mock keeps every request it records: forget them between rounds (not timed).
let control = try GwClient(GwOptions(baseURL: base, apiKey: "sk-test", maxRetries: 0, validate: false))
func forgetRequests() async throws { _ = try await control.request("POST", "/__mock/reset", body: [:]) }
// gw_chat wants a C string: the body with a NUL after it, made once, outside the clock.
let bigCBody: [CChar] = bigBody.map { CChar(bitPattern: $0) } + [0]
func cBigChat() {
    var out: UnsafeMutablePointer<CChar>?
    let status = gw_chat(cClient, bigCBody, &out)
    precondition(status == 0, "gw_chat (big body) failed: \(out.map { String(cString: $0) } ?? "")")
    gw_free(out)
}
var cBig: [Double] = []
var swiftBig: [Double] = []
_ = try await client.chat(bigBody)  // warm-up
for _ in 0..<bigCalls {
    try await forgetRequests()
    let c0 = processCPU()
    cBigChat()
    cBig.append(processCPU() - c0)
    try await forgetRequests()
    let s0 = processCPU()
    _ = try await client.chat(bigBody)
    swiftBig.append(processCPU() - s0)
}
try await forgetRequests()
print(String(format: "gw-swift bench: a %.2f MiB data-URI image chat, CPU per call, median of %d", Double(bigBody.count) / 1_048_576, bigCalls))
print("  " + "path".padding(toLength: 34, withPad: " ", startingAt: 0) + "    CPU/call")
for (name, v) in [("C ABI: gw_chat", cBig), ("Swift: chat(Data) -> Data", swiftBig)] {
    print("  " + name.padding(toLength: 34, withPad: " ", startingAt: 0) + String(format: "  %7.2f ms", median(v) * 1e3))
}
gw_client_free(cClient)
