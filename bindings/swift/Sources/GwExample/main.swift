// The Swift example `make demo` runs (scripts/demo-swift.sh): chat, a stream, an image and a
// video task waited for, against GW_BASE_URL with GW_API_KEY (the demo script starts gw-mock
// when GW_BASE_URL is not set). Models: GW_CHAT_MODEL, GW_IMAGE_MODEL, GW_VIDEO_MODEL.
import Foundation
import Gw

let env = ProcessInfo.processInfo.environment
let chatModel = env["GW_CHAT_MODEL"] ?? "gpt-test"
let client = try GwClient()  // GW_BASE_URL and GW_API_KEY from the environment

do {
    // 1. Chat.
    let answer = try await client.chat(
        ChatRequest(model: chatModel, messages: [.system("Be brief."), .user("Say hello to Swift.")]))
    print("chat:   \(answer.text ?? "")")

    // 2. A stream, printed as it comes; the assembled answer after the loop.
    let stream = client.chatStream(ChatRequest(model: chatModel, messages: [.user("Count to five, slowly.")]))
    print("stream: ", terminator: "")
    for try await event in stream {
        print(event.textDelta ?? "", terminator: "")
        fflush(stdout)
    }
    let completion = try await stream.result()
    print("\n        (\(completion.usage?.totalTokens ?? 0) tokens, finish: \(completion.choices.first?.finishReason ?? "?"))")

    // 3. An image.
    let image = try await client.imageGenerate(
        ImageRequest(model: env["GW_IMAGE_MODEL"] ?? "img-test", prompt: "a lighthouse at dawn", size: "1024x1024"))
    print("image:  \(image.data.first?.url ?? "(no url)")")

    // 4. A video task, waited for with progress.
    let task = try await client.videoCreate(
        VideoRequest(model: env["GW_VIDEO_MODEL"] ?? "video-test", prompt: "waves on a beach", duration: 5))
    let id = task.pollId ?? ""
    print("video:  task \(id) \(task.status ?? "")")
    let done = try await client.videoWait(.unified, taskId: id, interval: .milliseconds(200)) { record in
        print("        ... \(record.status ?? "?")\(record.progress.map { " \(Int($0))%" } ?? "")")
    }
    print("video:  \(done.status ?? "") \(done.videoURL ?? "")")
} catch let error as GwError {
    print("gw error: \(error.localizedDescription)")
    exit(1)
}
