import Foundation
import Gw
import Testing

extension GwTests {
    /// Images: generation, JSON edits and multipart uploads.
    @Suite struct Images {
        let png = Data([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0xff])

        @Test func imageGenerationJSONAndTyped() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let raw = try await gw.imageGenerate(["model": "img-test", "prompt": "a red fox", "seed": 42] as JSONValue)
            #expect(raw["data"]?[0]?["url"]?.stringValue?.hasPrefix("https://") == true)
            let typed = try await gw.imageGenerate(ImageRequest(model: "img-test", prompt: "a red fox", size: "512x512", guidanceScale: 3))
            #expect(typed.data.count == 1)
            #expect(typed.data[0].url?.hasSuffix(".png") == true)
            let e = await #expect(throws: GwError.self) {
                try await gw.imageGenerate(ImageRequest(model: "m", prompt: "p", guidanceScale: 11))
            }
            #expect(e?.param == "guidance_scale")
            let seed = await #expect(throws: GwError.self) {
                try await gw.imageGenerate(ImageRequest(model: "m", prompt: "p", seed: -2))
            }
            #expect(seed?.param == "seed")
        }

        @Test func imageEditWithURLs() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let result = try await gw.imageEdit(
                ImageEditRequest(model: "edit-test", prompt: "make it blue", image: "https://img.example/a.png", n: 2))
            #expect(result.data.count == 2)
            #expect(result.data[0].revisedPrompt == "Edited: make it blue")
        }

        @Test func uploadWithAMask() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let result = try await gw.imageEditUpload(
                ImageEditRequest(model: "edit-test", prompt: "remove the sky", n: 1),
                image: GwFile(data: png, filename: "photo.png", contentType: "image/png"),
                mask: GwFile(data: Data([1, 2, 3, 4, 5]), filename: "mask.png", contentType: "image/png"))
            #expect(result.data.first?.revisedPrompt == "Edited: remove the sky")
            let parts = try #require(try await Mock.requests(to: "/v1/images/edits").first?["multipart"]?.arrayValue)
            let image = try #require(parts.first { $0["name"]?.stringValue == "image" })
            #expect(image["filename"]?.stringValue == "photo.png")
            #expect(image["content_type"]?.stringValue == "image/png")
            #expect(image["bytes_b64"]?.stringValue == png.base64EncodedString())
            let mask = try #require(parts.first { $0["name"]?.stringValue == "mask" })
            #expect(mask["size"]?.intValue == 5)
            #expect(parts.first { $0["name"]?.stringValue == "prompt" }?["text"]?.stringValue == "remove the sky")
        }

        @Test func uploadWithoutAMaskFromBytes() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let answer = try await gw.imageEditUpload(
                Data(#"{"model":"edit-test","prompt":"sharpen"}"#.utf8), image: GwFile(data: png))
            #expect(try JSONValue(data: answer)["data"]?.arrayValue?.count == 1)
            let parts = try await Mock.requests(to: "/v1/images/edits").first?["multipart"]?.arrayValue ?? []
            #expect(!parts.contains { $0["name"]?.stringValue == "mask" })
            #expect(parts.first { $0["name"]?.stringValue == "image" }?["filename"]?.stringValue == "image.png")
        }

        @Test func anEmptyImageIsRefusedBeforeSending() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let e = await #expect(throws: GwError.self) {
                try await gw.imageEditUpload(ImageEditRequest(model: "edit-test", prompt: "p"), image: GwFile(data: Data()))
            }
            #expect(e?.kind == .invalidArgument)
            #expect(e?.message.contains("image") == true)
            #expect(try await Mock.requests().isEmpty)
        }
    }

    /// Video in every family: create, status, wait (closure and AsyncSequence), vendor ops.
    @Suite struct Video {
        let fast = Duration.milliseconds(20)

        @Test func unifiedCreateStatusAndWaitWithProgress() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let task = try await gw.videoCreate(VideoRequest(model: "video-test", prompt: "a cat surfing", duration: 5))
            #expect(task.status == "processing")
            let id = try #require(task.pollId)
            #expect(try await gw.videoStatus(.unified, taskId: id).status == "processing")
            let seen = LineBox()
            let done = try await gw.videoWait(.unified, taskId: id, interval: fast) { seen.add($0.status ?? "?") }
            #expect(done.status == "succeeded")
            #expect(seen.all().last == "succeeded")
            #expect(seen.all().count >= 2)
            #expect(done.videoURL?.hasSuffix(".mp4") == true)
        }

        @Test func videoUpdatesGiveEveryPollTheTerminalRecordLast() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let id = try #require(try await gw.videoGenerate(VideoRequest(model: "video-test", prompt: "waves")).pollId)
            var records: [VideoTask] = []
            for try await r in gw.videoUpdates(.unified, taskId: id, interval: fast) { records.append(r) }
            #expect(records.last?.status == "succeeded")
            #expect(records.dropLast().allSatisfy { $0.status == "processing" })
        }

        @Test func leavingVideoUpdatesEarlyStopsThePolling() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let id = try #require(try await gw.videoCreate(VideoRequest(model: "video-test", prompt: "slow")).pollId)
            for try await record in gw.videoUpdates(.unified, taskId: id, interval: .milliseconds(100)) {
                #expect(record.status == "processing")
                break
            }
            try await Task.sleep(for: .milliseconds(100))
            let polls = try await Mock.requests().filter { $0["method"]?.stringValue == "GET" }.count
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await Mock.requests().filter { $0["method"]?.stringValue == "GET" }.count == polls, "no polls after the loop ended")
        }

        @Test func aFailedTaskIsAVendorErrorCarryingItsRecord() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let id = try #require(try await gw.videoCreate(["model": "video-test", "prompt": "please fail"])["task_id"]?.stringValue)
            let e = await #expect(throws: GwError.self) { try await gw.videoWait(.unified, taskId: id, interval: fast) }
            #expect(e?.kind == .vendor)
            #expect(e?.body?["status"]?.stringValue == "failed")
        }

        @Test func aThrowingProgressClosureEndsTheWaitWithItsOwnError() async throws {
            struct Stop: Error {}
            try await Mock.reset()
            let gw = try Mock.client()
            let id = try #require(try await gw.videoCreate(VideoRequest(model: "video-test", prompt: "slow")).pollId)
            await #expect(throws: Stop.self) {
                try await gw.videoWait(.unified, taskId: id, interval: fast) { _ in throw Stop() }
            }
        }

        @Test func pastItsTimeoutAWaitIsATimeout() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let id = try #require(try await gw.videoCreate(VideoRequest(model: "video-test", prompt: "slow")).pollId)
            let e = await #expect(throws: GwError.self) {
                try await gw.videoWait(.unified, taskId: id, interval: .seconds(1), timeout: .milliseconds(300))
            }
            #expect(e?.kind == .timeout)
        }

        @Test func characterVideoRemixAndItsStatus() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let task = try await gw.videoCharacter(VideoRequest(model: "char-model", prompt: "a dance", characterId: "ch_7"))
            #expect(task.status == "queued")
            let remix = try await gw.videoRemix(videoId: try #require(task.id), VideoRemixRequest(prompt: "faster", size: "720x1280"))
            let record = try await gw.videoWait(.character, taskId: try #require(remix.id), interval: fast)
            #expect(record.status == "completed")
            let sent = try await Mock.requests(to: "/v1/videos").first?["json"]
            #expect(sent?["character_id"]?.stringValue == "ch_7")
        }

        @Test func vendorKTasksPollToSuccess() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let created = try await gw.vendorKText2Video(["model": "k-model", "prompt": "a river"])
            let id = try #require(created["data"]?["task_id"]?.stringValue)
            let done = try await gw.videoWait(.vendorK, taskId: id, interval: fast)
            #expect(done.extra["data"]?["task_status"]?.stringValue == "succeed")
            #expect(try await gw.vendorKImage2Video(["model": "k", "image": "https://i.example/a.png", "prompt": "p"])["code"]?.intValue == 0)
            #expect(
                try await gw.vendorKMultiImage2Video(
                    ["model": "k", "image_list": [["image": "https://i.example/a.png"]], "prompt": "p"])["code"]?.intValue == 0)
            #expect(try await gw.vendorKEffects(["video": "https://v.example/a.mp4", "effect": "zoom"])["code"]?.intValue == 0)
            #expect(try await gw.vendorKExtend(["video_id": .string(id)])["code"]?.intValue == 0)
        }

        @Test func vendorRStatusById() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let done = try await gw.videoWait(.vendorR, taskId: "r-task-1", interval: fast)
            #expect(done.status == "SUCCEEDED")
            let record = try JSONValue(data: try await gw.videoStatusData(.vendorR, taskId: "r-task-2"))
            #expect(record["status"]?.stringValue == "PENDING")
        }

        @Test func vendorIAndFImageOperations() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            #expect(try await gw.vendorIDescribe(["image": "https://i.example/cat.png"])["descriptions"]?.arrayValue?.count == 4)
            let a = try await gw.vendorIGenerate(["prompt": "a tree", "aspect_ratio": "16:9"])["data"]?[0]?["seed"]
            let b = try await gw.vendorIGenerate(["prompt": "a tree"])["data"]?[0]?["seed"]
            #expect(a == b, "same prompt, same seed")
            #expect(try await gw.vendorITextToImage(["prompt": "a tree"])["data"]?[0]?["url"] != nil)
            let f = try await gw.vendorFEdit(modelSlug: "flux/kontext", ["image": "https://i.example/a.png", "prompt": "blue"])
            #expect(f.objectValue?.isEmpty == false)
            #expect(try await Mock.requests().contains { $0["path"]?.stringValue == "/vendorF/flux/kontext/edit" })
        }

        @Test func vendorOperationsTakeDataToo() async throws {
            try await Mock.reset()
            let gw = try Mock.client()
            let out = try await gw.vendorIDescribe(Data(#"{"image":"https://i.example/cat.png"}"#.utf8))
            #expect(try JSONValue(data: out)["descriptions"] != nil)
        }
    }
}
