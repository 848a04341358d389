//! The documented limits, one table per endpoint (the API document's
//! endpoint tables and its Limits section). docs/endpoints.md lists them too.
//!
//! What is refused is what is certainly wrong: wrong types, documented numeric
//! ranges, missing required fields, sizes over caps. An enum value outside the
//! document's list is refused only when OpenAI's current API does not define it
//! either, since real gateways pass those on (issue 9).
//!
//! Each string set is either open or closed (issue 39). An open set is one the
//! upstream extends over time (`Known`): gw cannot know today what it will
//! define tomorrow, so a string gw does not know is sent and noted at debug
//! level (a number where the string belongs is still refused). A closed set
//! (`OneOf`) is one the documents fix, where a value outside the list is a
//! mistake, not news: it is refused before sending. Each set says which below.
//! Sets gw does not check at all (voice, quality, style, background,
//! output_format, verbosity, service_tier, ...) pass whatever is given.

use crate::api::validate::{rule, Check::*, Rule};

/// Open: the document's efforts plus OpenAI's `none`, `minimal` (chat) and
/// `xhigh`. OpenAI's `ReasoningEffort` grows with its models (`minimal` in
/// 2025, `none` and `xhigh` later, `max` in 2026-07), so a new effort is sent.
const EFFORTS: &[&str] = &["none", "minimal", "low", "medium", "high", "xhigh", "max"];
/// Closed: the document's roles plus OpenAI's `developer` and (deprecated)
/// `function`. A role is the discriminator of the message union: it picks the
/// message's schema (`tool` needs `tool_call_id`), so a role neither document
/// defines is a message no schema describes, and a new role only comes with a
/// new message shape gw must learn anyway. The usual stranger is a typo.
const ROLES_CHAT: &[&str] = &[
    "system",
    "user",
    "assistant",
    "tool",
    "developer",
    "function",
];
/// Closed: the document's part types plus OpenAI's `input_audio`, `file` and
/// `refusal`. The type is the discriminator of the content-part union: it names
/// the member that carries the part (the `RequiredWhen` rules below), so an
/// unknown type is a part whose content gw cannot tell is there.
const PART_TYPES: &[&str] = &[
    "text",
    "image_url",
    "video_url",
    "input_audio",
    "file",
    "refusal",
];
/// "at most 50 MB": read as MiB, the larger reading, so gw never refuses a
/// video the gateway would take.
const VIDEO_MAX_BYTES: usize = 50 * 1024 * 1024;
const INT_MAX: i64 = i64::MAX;

pub const CHAT: &[Rule] = &[
    rule("model", Required),
    rule("model", String),
    rule("messages", Required),
    rule("messages", MinItems(1)),
    rule("messages[].role", Required),
    rule("messages[].role", OneOf(ROLES_CHAT)),
    rule("messages[].content", StringOrArray),
    rule("messages[].content[].type", Required),
    rule("messages[].content[].type", OneOf(PART_TYPES)),
    rule(
        "messages[].content[].text",
        RequiredWhen {
            field: "type",
            equals: "text",
        },
    ),
    rule(
        "messages[].content[].image_url",
        RequiredWhen {
            field: "type",
            equals: "image_url",
        },
    ),
    rule(
        "messages[].content[].video_url",
        RequiredWhen {
            field: "type",
            equals: "video_url",
        },
    ),
    rule(
        "messages[].content[].input_audio",
        RequiredWhen {
            field: "type",
            equals: "input_audio",
        },
    ),
    rule(
        "messages[].content[].file",
        RequiredWhen {
            field: "type",
            equals: "file",
        },
    ),
    rule(
        "messages[].content[].refusal",
        RequiredWhen {
            field: "type",
            equals: "refusal",
        },
    ),
    rule("messages[].content[].image_url.url", Required),
    rule("messages[].content[].video_url.url", Required),
    rule(
        "messages[].content[].video_url.url",
        VideoDataUri {
            max_bytes: VIDEO_MAX_BYTES,
        },
    ),
    rule("messages[].content[].video_url.fps", Range(0.2, 5.0)),
    rule("max_tokens", IntRange(1, INT_MAX)),
    rule("temperature", Range(0.0, 2.0)),
    rule("top_p", Range(0.0, 1.0)),
    rule("stream", Bool),
    rule("stop", MaxItems(4)),
    rule("stop[]", String),
    rule("frequency_penalty", Range(-2.0, 2.0)),
    rule("presence_penalty", Range(-2.0, 2.0)),
    rule("reasoning_effort", Known(EFFORTS)),
];

pub const RESPONSES: &[Rule] = &[
    rule("model", Required),
    rule("model", String),
    rule("input", Required),
    rule("input", StringOrArray),
    rule("stream", Bool),
    rule("tools", Array),
    rule("tools[].type", Required),
    rule("reasoning", Object),
    rule("reasoning.effort", Known(EFFORTS)),
];

pub const EMBEDDINGS: &[Rule] = &[
    rule("model", Required),
    rule("input", Required),
    rule("input", StringOrArray),
    rule("input", MaxTokensPerInput(8192)),
    // Closed: it fixes the shape of each answer's `embedding` (an array of
    // floats or a base64 string) that gw_embedding_decode and the bindings read;
    // a format gw does not know is an answer gw cannot decode.
    rule("encoding_format", OneOf(&["float", "base64"])),
    rule("dimensions", IntRange(1, INT_MAX)),
];

pub const IMAGE_GENERATE: &[Rule] = &[
    rule("model", Required),
    rule("prompt", Required),
    rule("prompt", String),
    // Closed: it names the member of `data[]` that holds each image (`url` or
    // `b64_json`), the two members the image result has in both documents.
    rule("response_format", OneOf(&["url", "b64_json"])),
    // Open: `<width>x<height>`, or a keyword: `auto` today; OpenAI's sizes grow
    // with its image models, so a keyword gw does not know is sent.
    rule("size", SizeOrAuto),
    rule("seed", IntRange(-1, 2_147_483_647)),
    rule("guidance_scale", Range(1.0, 10.0)),
    rule("watermark", Bool),
    rule("n", IntRange(1, INT_MAX)),
];

/// Both JSON forms: the document's `image` URL string, or OpenAI's
/// `images: [{"image_url": ..} | {"file_id": ..}]` (at least one, each naming
/// its image) with `mask` an object. gw-mock takes the same.
pub const IMAGE_EDIT: &[Rule] = &[
    rule("model", Required),
    rule("prompt", Required),
    rule("prompt", String),
    rule("image", RequiredUnless("images")),
    rule("image", String),
    rule("images", Array),
    rule("images", MinItems(1)),
    rule("images[]", Object),
    rule("images[].image_url", RequiredUnless("file_id")),
    rule("images[].image_url", String),
    rule("images[].file_id", String),
    rule("mask", StringOrObject),
    rule("n", IntRange(1, INT_MAX)),
    rule("size", SizeOrAuto),
];

/// The multipart form: files count as fields here (see `Form::fields_json`).
pub const IMAGE_EDIT_UPLOAD: &[Rule] = &[
    rule("image", Required),
    rule("model", Required),
    rule("prompt", Required),
    rule("prompt", String),
    rule("n", IntRange(1, INT_MAX)),
    rule("size", SizeOrAuto),
];

pub const VIDEO_CREATE: &[Rule] = &[
    rule("model", Required),
    rule("prompt", Required),
    rule("prompt", String),
    rule("duration", IntRange(1, INT_MAX)),
];

/// The document shows no body for `/v1/video/generations`: only the model is
/// checked; everything else (a `duration` in whatever form) passes through.
pub const VIDEO_GENERATE: &[Rule] = &[rule("model", Required)];

pub const VIDEO_CHARACTER: &[Rule] = &[
    rule("model", Required),
    rule("prompt", Required),
    rule("character_id", Required),
    rule("character_id", String),
];

/// Remix `size` is a format the document fixes (`<width>x<height>`), not a
/// list of values, and OpenAI defines no remix size: checked as it is.
pub const VIDEO_REMIX: &[Rule] = &[
    rule("prompt", Required),
    rule("prompt", String),
    rule("size", Size),
];

/// The document shows no bodies for the vendor K submit operations, so their
/// fields pass through unchecked (vendor K takes `duration` as a string, "5").
pub const VENDOR_K_TEXT2VIDEO: &[Rule] = &[rule("prompt", Required)];
pub const VENDOR_K_IMAGE2VIDEO: &[Rule] = &[];
pub const VENDOR_K_MULTI_IMAGE2VIDEO: &[Rule] = &[];

pub const VENDOR_K_EFFECTS: &[Rule] = &[
    rule("video", Required),
    rule("video", String),
    rule("effect", Required),
    rule("effect", String),
];

pub const VENDOR_K_EXTEND: &[Rule] = &[rule("video_id", Required), rule("video_id", String)];

pub const VENDOR_H_IMAGE_TO_VIDEO: &[Rule] = &[
    rule("image_url", Required),
    rule("image_url", String),
    rule("prompt", Required),
    rule("prompt", String),
    rule("duration", IntRange(1, INT_MAX)),
    // Open: the ratios are the vendor's models' current ones; new models add
    // ratios (21:9, 3:2, ...) and the gateway passes them on.
    rule("aspect_ratio", Known(&["16:9", "9:16", "1:1"])),
];

pub const VENDOR_M_IMAGINE: &[Rule] = &[
    rule("prompt", Required),
    rule("prompt", String),
    rule("botType", Required),
    rule("botType", String),
    rule("base64Array", Array),
    rule("base64Array[]", String),
    rule("notifyHook", String),
    rule("state", String),
];

pub const VENDOR_I_DESCRIBE: &[Rule] = &[rule("image", Required), rule("image", String)];

pub const VENDOR_I_GENERATE: &[Rule] = &[
    rule("prompt", Required),
    // Open, as vendor H's.
    rule(
        "aspect_ratio",
        Known(&["1:1", "16:9", "9:16", "4:3", "3:4"]),
    ),
];

pub const VENDOR_I_TEXT_TO_IMAGE: &[Rule] = &[rule("prompt", Required)];

pub const VENDOR_F_EDIT: &[Rule] = &[
    rule("image", Required),
    rule("image", String),
    rule("prompt", Required),
    rule("prompt", String),
];

pub const GENERATE_CONTENT: &[Rule] = &[
    rule("contents", Required),
    rule("contents", MinItems(1)),
    // Closed: the native format's turns are the user's or the model's; a role
    // says whose turn it is (a `system` turn belongs in `systemInstruction`).
    // `function` is not in the document's list but carries function results back
    // in the native format's function-calling round trip, so it is let through.
    rule("contents[].role", OneOf(&["user", "model", "function"])),
    rule("contents[].parts", Required),
    rule("contents[].parts", Array),
    rule("tools", Array),
    rule("generationConfig", Object),
    rule("generationConfig.temperature", Range(0.0, 2.0)),
    rule("generationConfig.topP", Range(0.0, 1.0)),
];
