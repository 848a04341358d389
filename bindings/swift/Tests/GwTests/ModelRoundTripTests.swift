import Foundation
import Gw
import Testing

/// Where two JSON values differ, as `path: a != b` lines (numbers compared by value; `null`
/// and absent alike, as a model's nil field is either).
func differences(_ a: JSONValue?, _ b: JSONValue?, _ path: String = "$") -> [String] {
    switch (a, b) {
    case (nil, .null?), (.null?, nil):
        return []
    case (.object(let x)?, .object(let y)?):
        return Set(x.keys).union(y.keys).sorted().flatMap { differences(x[$0], y[$0], path + "." + $0) }
    case (.array(let x)?, .array(let y)?) where x.count == y.count:
        return zip(x, y).enumerated().flatMap { differences($1.0, $1.1, path + "." + String($0)) }
    case (let x?, let y?) where x == y || (x.doubleValue != nil && x.doubleValue == y.doubleValue):
        return []
    default:
        return ["\(path): \(a.map(\.jsonString) ?? "absent") != \(b.map(\.jsonString) ?? "absent")"]
    }
}

/// Decodes `json` as `T`, encodes it again: where the result differs from `json`.
func roundTrip<T: Codable>(_ type: T.Type, _ json: JSONValue) throws -> [String] {
    let value = try JSONDecoder().decode(T.self, from: json.jsonData())
    let again = try JSONValue(data: JSONEncoder().encode(value))
    return differences(json, again).map { "\(T.self) \($0)" }
}

extension GwTests {
    /// Every answer model keeps every member through a decode/encode round trip (issue 42, D3).
    @Suite struct ModelRoundTrip {
        /// Answers with members no model names, at every level.
        static var handWritten: [(any Codable.Type, JSONValue)] { [
            (
                ChatCompletion.self,
                [
                    "id": "c1", "object": "chat.completion", "created": 1, "model": "m", "system_fingerprint": "fp",
                    "choices": [
                        [
                            "index": 0, "logprobs": nil, "x_choice": 1, "finish_reason": "stop",
                            "message": [
                                "role": "assistant", "content": "hi", "refusal": nil,
                                "annotations": [["type": "url_citation", "url_citation": ["url": "https://x", "start_index": 0]]],
                                "tool_calls": [
                                    [
                                        "id": "t1", "type": "function", "x_call": true,
                                        "function": ["name": "f", "arguments": "{}", "x_fn": 1],
                                    ]
                                ],
                            ],
                        ]
                    ],
                    "usage": [
                        "prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3, "x_usage": 1,
                        "prompt_tokens_details": ["cached_tokens": 1, "audio_tokens": 0],
                        "completion_tokens_details": ["reasoning_tokens": 1, "accepted_prediction_tokens": 0],
                    ],
                ]
            ),
            (
                ChatCompletionChunk.self,
                [
                    "id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "x_top": [1, 2],
                    "choices": [
                        [
                            "index": 0, "finish_reason": nil, "x_choice": "y",
                            "delta": [
                                "content": "hi", "x_delta": 1,
                                "tool_calls": [["index": 0, "x_call": 1, "function": ["arguments": "{", "x_fn": 2]]],
                            ],
                        ]
                    ],
                    "usage": ["prompt_tokens": 1, "prompt_tokens_details": ["cached_tokens": 1]],
                ]
            ),
            (
                ModelResponse.self,
                [
                    "id": "r1", "object": "response", "created_at": 1, "status": "completed", "model": "m", "x_top": 1,
                    "output": [
                        [
                            "type": "web_search_call", "id": "ws1", "status": "completed",
                            "action": ["type": "search", "query": "q"],
                        ],
                        [
                            "type": "message", "id": "m1", "status": "completed", "role": "assistant",
                            "content": [
                                [
                                    "type": "output_text", "text": "hi", "logprobs": [],
                                    "annotations": [
                                        [
                                            "type": "url_citation", "url": "https://x", "title": "X", "start_index": 0,
                                            "end_index": 2,
                                        ]
                                    ],
                                ]
                            ],
                        ],
                    ],
                    "usage": [
                        "input_tokens": 1, "output_tokens": 2, "total_tokens": 3,
                        "input_tokens_details": ["cached_tokens": 0], "output_tokens_details": ["reasoning_tokens": 1],
                    ],
                ]
            ),
            (
                EmbeddingList.self,
                [
                    "object": "list", "model": "m", "x_top": 1, "usage": ["prompt_tokens": 1, "total_tokens": 1, "x": 1],
                    "data": [["object": "embedding", "index": 0, "embedding": [0.5, 0.25], "x_item": 1]],
                ]
            ),
            (
                EmbeddingList.self,
                // [0.5, 0.25] as base64 little-endian float32s: stays base64.
                ["object": "list", "data": [["object": "embedding", "index": 0, "embedding": "AAAAPwAAgD4="]]]
            ),
            (
                ImageResult.self,
                [
                    "created": 1, "model": "m", "x": 1, "usage": ["generated_images": 1],
                    "data": [["url": "https://x/1.png", "revised_prompt": "p", "seed": 3, "x_img": ["a": 1]]],
                ]
            ),
            (VideoTask.self, ["task_id": "t", "status": "processing", "progress": 10, "x": ["y": 1]]),
            (
                ChatCompletion.self,
                [
                    "choices": [
                        [
                            "index": 0,
                            "message": [
                                "role": "assistant",
                                "content": [
                                    ["type": "text", "text": "a", "annotations": [["type": "url_citation"]]],
                                    ["type": "image_url", "image_url": ["url": "https://x/1.png", "detail": "low", "x": 1]],
                                    ["type": "video_url", "video_url": ["url": "https://x/1.mp4", "fps": 1]],
                                    ["type": "audio", "audio": ["id": "a1"]],
                                ],
                            ],
                        ]
                    ]
                ]
            ),
            (
                ResponseStreamEvent.self,
                [
                    "type": "response.output_text.delta", "delta": "hi", "item_id": "m1", "output_index": 0,
                    "content_index": 0, "sequence_number": 3, "logprobs": [], "x": 1,
                ]
            ),
            (
                ResponseStreamEvent.self,
                [
                    "type": "response.output_item.done", "output_index": 1,
                    "item": [
                        "type": "message", "id": "m1", "role": "assistant", "x_item": 1,
                        "content": [["type": "output_text", "text": "hi", "annotations": [], "x_part": 2]],
                    ],
                ]
            ),
            (
                GenerateContentResponse.self,
                [
                    "modelVersion": "v", "usageMetadata": ["promptTokenCount": 1],
                    "candidates": [
                        [
                            "finishReason": "STOP", "index": 0, "safetyRatings": [],
                            "content": [
                                "role": "model", "x_content": 1,
                                "parts": [
                                    ["text": "hi", "thoughtSignature": "abc"],
                                    ["functionCall": ["name": "f", "args": ["a": 1], "id": "x"]],
                                    ["inlineData": ["mimeType": "image/png", "data": "AA=="]],
                                ],
                            ],
                        ]
                    ],
                ]
            ),
        ] }

        /// A part whose case cannot hold all its members stays whole; its text still reads.
        @Test func partsWithUnknownMembersStayWhole() throws {
            let parts = try JSONValue(json: #"[{"type":"text","text":"a","annotations":[]},{"type":"text","text":"b"},{"type":"video_url","video_url":{"url":"u","fps":1}}]"#)
                .decode([ContentPart].self)
            #expect(parts[1] == .text("b") && parts[2] == .videoURL("u", fps: 1))
            guard case .other = parts[0] else { Issue.record("a text part with annotations became \(parts[0])"); return }
            #expect(MessageContent.parts(parts).text == "ab")
            let native = try JSONValue(json: #"[{"text":"a","thought":true},{"text":"b"}]"#).decode([NativePart].self)
            #expect(native[1] == .text("b") && native.compactMap(\.text) == ["a", "b"])
        }

        @Test func handWrittenAnswersKeepEveryMember() throws {
            for (type, json) in Self.handWritten {
                let lost = try roundTrip(type, json)
                #expect(lost.isEmpty, "\(lost.joined(separator: "\n"))")
            }
        }

        /// The model type of a verb's answer; nil for answers with none (vendor bodies).
        static func answerType(_ verb: String, _ args: JSONValue) -> (any Codable.Type)? {
            switch verb {
            case "chat", "chatStream": return ChatCompletion.self
            case "responses", "responsesStream": return ModelResponse.self
            case "embeddings": return EmbeddingList.self
            case "imageGenerate", "imageEdit": return ImageResult.self
            case "videoCreate", "videoGenerate", "videoCharacter", "videoRemix", "videoStatus", "videoWait":
                return VideoTask.self
            case "generateContent": return GenerateContentResponse.self
            case "request" where args["path"]?.stringValue == "/v1/chat/completions": return ChatCompletion.self
            default: return nil
            }
        }

        /// Every answer the corpus gets from the mock (its successful cases, shapes and
        /// faults included), and every chat chunk and Responses event of its streams.
        @Test func corpusAnswersKeepEveryMember() async throws {
            var checked = 0
            for c in try Corpus.cases() where c.spec["expect"]?["status"] == 0 && c.spec["cancel"] == nil {
                let verb = c.spec["operation"]?.stringValue ?? ""
                let seen = try await Corpus.run(c)
                guard seen.status == 0, let answer = seen.answer else { continue }
                var lost: [String] = []
                if let type = Self.answerType(verb, c.spec["args"] ?? [:]) {
                    lost += try roundTrip(type, JSONValue(data: answer))
                    checked += 1
                }
                for e in seen.events where verb == "chatStream" {
                    lost += try roundTrip(ChatCompletionChunk.self, JSONValue(data: e.data))
                }
                for e in seen.events where verb == "responsesStream" {
                    lost += try roundTrip(ResponseStreamEvent.self, JSONValue(data: e.data))
                }
                #expect(lost.isEmpty, "\(c.name): \(lost.joined(separator: "\n"))")
            }
            #expect(checked > 30)
        }

        /// D4: a chunk's delta says `role` only when the chunk carried it.
        @Test func aChunkDeltaKeepsItsRoleOrItsLackOfOne() throws {
            for delta: JSONValue in [["role": "assistant", "content": ""], ["content": "x"], [:]] {
                let chunk: JSONValue = ["object": "chat.completion.chunk", "choices": [["index": 0, "delta": delta]]]
                let lost = try roundTrip(ChatCompletionChunk.self, chunk)
                #expect(lost.isEmpty, "\(lost)")
            }
        }
    }
}
