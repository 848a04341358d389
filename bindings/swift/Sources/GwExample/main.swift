// The Swift example `make demo` runs (scripts/demo-swift.sh): chat, a stream, an image and a
// video task waited for, against GW_BASE_URL with GW_API_KEY (the demo script starts gw-mock
// when GW_BASE_URL is not set). Models: GW_CHAT_MODEL, GW_IMAGE_MODEL, GW_VIDEO_MODEL.
// GW_TRANSPORT=urlsession sends everything through URLSession instead of gw's own stack.
import Foundation
import Gw

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Writes at once (unbuffered), so streamed text shows as it comes.
func say(_ text: String, _ end: String = "\n") { FileHandle.standardOutput.write(Data((text + end).utf8)) }

let env = ProcessInfo.processInfo.environment
let chatModel = env["GW_CHAT_MODEL"] ?? "gpt-test"
// GW_BASE_URL and GW_API_KEY from the environment. An app that must follow the system's
// network policy (cellular, VPN, proxies, Low Data Mode) opts in to URLSession per client.
let transport: GwTransport
if env["GW_TRANSPORT"] == "urlsession" {
    let configuration = URLSessionConfiguration.default
    configuration.allowsCellularAccess = true  // and on Apple: allowsConstrainedNetworkAccess, waitsForConnectivity
    transport = .urlSession(configuration)
} else {
    transport = .builtIn
}
let client = try GwClient(GwOptions(transport: transport))
say("transport: \(transport)")

do {
    // 1. Chat.
    let answer = try await client.chat(
        ChatRequest(model: chatModel, messages: [.system("Be brief."), .user("Say hello to Swift.")]))
    say("chat:   \(answer.text ?? "")")

    // 2. A stream, printed as it comes; the assembled answer after the loop.
    let stream = client.chatStream(
        ChatRequest(
            model: chatModel, messages: [.user("Count to five, slowly.")], streamOptions: StreamOptions(includeUsage: true)))
    say("stream: ", "")
    for try await event in stream {
        say(event.textDelta ?? "", "")
    }
    let completion = try await stream.result()
    let tokens = completion.usage?.totalTokens.map { "\($0) tokens, " } ?? ""
    say("\n        (\(tokens)finish: \(completion.choices.first?.finishReason ?? "?"))")

    // 3. An image.
    let image = try await client.imageGenerate(
        ImageRequest(model: env["GW_IMAGE_MODEL"] ?? "img-test", prompt: "a lighthouse at dawn", size: "1024x1024"))
    say("image:  \(image.data.first?.url ?? "(no url)")")

    // 4. A video task, waited for with progress.
    let task = try await client.videoCreate(
        VideoRequest(model: env["GW_VIDEO_MODEL"] ?? "video-test", prompt: "waves on a beach", duration: 5))
    let id = task.pollId ?? ""
    say("video:  task \(id) \(task.status ?? "")")
    let done = try await client.videoWait(.unified, taskId: id, interval: .milliseconds(200)) { record in
        say("        ... \(record.status ?? "?")\(record.progress.map { " \(Int($0))%" } ?? "")")
    }
    say("video:  \(done.status ?? "") \(done.videoURL ?? "")")
} catch let error as GwError {
    say("gw error: \(error.localizedDescription)")
    exit(1)
}
