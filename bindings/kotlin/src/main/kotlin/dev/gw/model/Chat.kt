@file:OptIn(ExperimentalSerializationApi::class)

package dev.gw.model

import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.KeepGeneratedSerializer
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive

// Chat completions (POST /v1/chat/completions): the request, the message and its content
// parts, tools, the completion and the streamed chunk. Every class keeps unknown fields in
// `extra` (WithExtraSerializer).

/** One chat message. Build with [system], [user], [assistant], [tool]. */
@KeepGeneratedSerializer
@Serializable(with = ChatMessage.Serializer::class)
data class ChatMessage(
    val role: String,
    val content: MessageContent? = null,
    val name: String? = null,
    @SerialName("tool_calls") val toolCalls: List<ToolCall>? = null,
    @SerialName("tool_call_id") val toolCallId: String? = null,
    /** Chain-of-thought text, in answers of reasoning models. */
    @SerialName("reasoning_content") val reasoningContent: String? = null,
    val extra: JsonObject = NoExtra,
) {
    /** The text of [content]: the string, or the text parts joined. */
    val text: String? get() = content?.text

    internal object Serializer : WithExtraSerializer<ChatMessage>(generatedSerializer())

    companion object {
        @JvmStatic fun system(text: String) = ChatMessage("system", MessageContent.Text(text))
        @JvmStatic fun user(text: String) = ChatMessage("user", MessageContent.Text(text))
        @JvmStatic fun user(vararg parts: ContentPart) = ChatMessage("user", MessageContent.Parts(parts.toList()))
        @JvmStatic fun assistant(text: String) = ChatMessage("assistant", MessageContent.Text(text))
        @JvmStatic fun tool(toolCallId: String, text: String) =
            ChatMessage("tool", MessageContent.Text(text), toolCallId = toolCallId)
    }
}

/** One part of a multimodal message: `text`, `image_url` or `video_url` (see the factories). */
@KeepGeneratedSerializer
@Serializable(with = ContentPart.Serializer::class)
data class ContentPart(
    val type: String,
    val text: String? = null,
    @SerialName("image_url") val imageUrl: MediaUrl? = null,
    @SerialName("video_url") val videoUrl: MediaUrl? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ContentPart>(generatedSerializer())

    companion object {
        @JvmStatic fun text(text: String) = ContentPart("text", text = text)

        /** An image URL or a Base64 data URI. */
        @JvmStatic fun imageUrl(url: String) = ContentPart("image_url", imageUrl = MediaUrl(url))

        /** A video URL or data URI (mp4/mov, at most 50 MB); [fps] 0.2..5, default 1. */
        @JvmStatic @JvmOverloads fun videoUrl(url: String, fps: Double? = null) = ContentPart("video_url", videoUrl = MediaUrl(url, fps))
    }
}

/** `{"url", "fps"?}` of image and video parts. */
@KeepGeneratedSerializer
@Serializable(with = MediaUrl.Serializer::class)
data class MediaUrl(val url: String, val fps: Double? = null, val extra: JsonObject = NoExtra) {
    internal object Serializer : WithExtraSerializer<MediaUrl>(generatedSerializer())
}

/** A tool the model may call: `{"type":"function","function":{...}}`. */
@KeepGeneratedSerializer
@Serializable(with = Tool.Serializer::class)
data class Tool(
    val type: String = "function",
    val function: FunctionDefinition? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<Tool>(generatedSerializer())

    companion object {
        @JvmStatic @JvmOverloads
        fun function(name: String, description: String? = null, parameters: JsonObject? = null) =
            Tool("function", FunctionDefinition(name, description, parameters))
    }
}

/** A function's name, description and JSON-schema parameters. */
@KeepGeneratedSerializer
@Serializable(with = FunctionDefinition.Serializer::class)
data class FunctionDefinition(
    val name: String,
    val description: String? = null,
    val parameters: JsonObject? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<FunctionDefinition>(generatedSerializer())
}

/** A call the model asks for; [function]'s arguments are a JSON text. */
@KeepGeneratedSerializer
@Serializable(with = ToolCall.Serializer::class)
data class ToolCall(
    val id: String? = null,
    val type: String? = "function",
    val function: FunctionCall? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ToolCall>(generatedSerializer())
}

@KeepGeneratedSerializer
@Serializable(with = FunctionCall.Serializer::class)
data class FunctionCall(val name: String? = null, val arguments: String? = null, val extra: JsonObject = NoExtra) {
    internal object Serializer : WithExtraSerializer<FunctionCall>(generatedSerializer())
}

/** The body of POST /v1/chat/completions (`stream` is set by the stream functions). */
@KeepGeneratedSerializer
@Serializable(with = ChatRequest.Serializer::class)
data class ChatRequest(
    val model: String,
    val messages: List<ChatMessage>,
    @SerialName("max_tokens") val maxTokens: Int? = null,
    val temperature: Double? = null,
    @SerialName("top_p") val topP: Double? = null,
    val stop: List<String>? = null,
    @SerialName("frequency_penalty") val frequencyPenalty: Double? = null,
    @SerialName("presence_penalty") val presencePenalty: Double? = null,
    /** `low`, `medium` or `high`. */
    @SerialName("reasoning_effort") val reasoningEffort: String? = null,
    val tools: List<Tool>? = null,
    /** `"auto"`, `"none"`, or `{"type":"function","function":{"name":...}}`. */
    @SerialName("tool_choice") val toolChoice: JsonElement? = null,
    val n: Int? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ChatRequest>(generatedSerializer())

    /** The Java way to build a request: `ChatRequest.builder("model").user("hi").build()`. */
    class Builder internal constructor(private val model: String) {
        private val messages = mutableListOf<ChatMessage>()
        private var r = ChatRequest(model, emptyList())

        fun message(message: ChatMessage) = apply { messages += message }
        fun messages(messages: List<ChatMessage>) = apply { this.messages += messages }
        fun system(text: String) = message(ChatMessage.system(text))
        fun user(text: String) = message(ChatMessage.user(text))
        fun user(vararg parts: ContentPart) = message(ChatMessage.user(*parts))
        fun assistant(text: String) = message(ChatMessage.assistant(text))
        fun maxTokens(maxTokens: Int?) = apply { r = r.copy(maxTokens = maxTokens) }
        fun temperature(temperature: Double?) = apply { r = r.copy(temperature = temperature) }
        fun topP(topP: Double?) = apply { r = r.copy(topP = topP) }
        fun stop(stop: List<String>?) = apply { r = r.copy(stop = stop) }
        fun frequencyPenalty(penalty: Double?) = apply { r = r.copy(frequencyPenalty = penalty) }
        fun presencePenalty(penalty: Double?) = apply { r = r.copy(presencePenalty = penalty) }
        fun reasoningEffort(effort: String?) = apply { r = r.copy(reasoningEffort = effort) }
        fun tool(tool: Tool) = apply { r = r.copy(tools = r.tools.orEmpty() + tool) }
        fun tools(tools: List<Tool>?) = apply { r = r.copy(tools = tools) }
        fun toolChoice(choice: JsonElement?) = apply { r = r.copy(toolChoice = choice) }
        /** `"auto"`, `"none"` or `"required"`. */
        fun toolChoice(choice: String) = toolChoice(JsonPrimitive(choice))
        fun n(n: Int?) = apply { r = r.copy(n = n) }
        /** Fields this class does not name, sent beside the others. */
        fun extra(extra: JsonObject) = apply { r = r.copy(extra = JsonObject(r.extra + extra)) }
        fun build(): ChatRequest = r.copy(messages = messages.toList())
    }

    companion object {
        @JvmStatic
        fun builder(model: String): Builder = Builder(model)
    }
}

/** A `chat.completion`: the answer of chat, and the assembled result of a chat stream. */
@KeepGeneratedSerializer
@Serializable(with = ChatCompletion.Serializer::class)
data class ChatCompletion(
    val id: String? = null,
    @SerialName("object") val objectType: String? = null,
    val created: Long? = null,
    val model: String? = null,
    val choices: List<ChatChoice> = emptyList(),
    val usage: Usage? = null,
    val extra: JsonObject = NoExtra,
) {
    /** The first choice's text, the common case. */
    val text: String? get() = choices.firstOrNull()?.message?.text

    internal object Serializer : WithExtraSerializer<ChatCompletion>(generatedSerializer())
}

@KeepGeneratedSerializer
@Serializable(with = ChatChoice.Serializer::class)
data class ChatChoice(
    val index: Int = 0,
    val message: ChatMessage? = null,
    /** `stop`, `length` or `tool_calls`. */
    @SerialName("finish_reason") val finishReason: String? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ChatChoice>(generatedSerializer())
}

@KeepGeneratedSerializer
@Serializable(with = Usage.Serializer::class)
data class Usage(
    @SerialName("prompt_tokens") val promptTokens: Long? = null,
    @SerialName("completion_tokens") val completionTokens: Long? = null,
    @SerialName("total_tokens") val totalTokens: Long? = null,
    @SerialName("completion_tokens_details") val completionTokensDetails: CompletionTokensDetails? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<Usage>(generatedSerializer())
}

@KeepGeneratedSerializer
@Serializable(with = CompletionTokensDetails.Serializer::class)
data class CompletionTokensDetails(
    @SerialName("reasoning_tokens") val reasoningTokens: Long? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<CompletionTokensDetails>(generatedSerializer())
}

/** A `chat.completion.chunk` as a chat stream sends it (GwEvent.Chunk.decode()). */
@KeepGeneratedSerializer
@Serializable(with = ChatCompletionChunk.Serializer::class)
data class ChatCompletionChunk(
    val id: String? = null,
    @SerialName("object") val objectType: String? = null,
    val created: Long? = null,
    val model: String? = null,
    val choices: List<ChunkChoice> = emptyList(),
    val usage: Usage? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ChatCompletionChunk>(generatedSerializer())
}

@KeepGeneratedSerializer
@Serializable(with = ChunkChoice.Serializer::class)
data class ChunkChoice(
    val index: Int = 0,
    val delta: ChatDelta = ChatDelta(),
    @SerialName("finish_reason") val finishReason: String? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ChunkChoice>(generatedSerializer())
}

/** What a chunk adds to its choice; tool-call fragments stay raw JSON. */
@KeepGeneratedSerializer
@Serializable(with = ChatDelta.Serializer::class)
data class ChatDelta(
    val role: String? = null,
    val content: String? = null,
    @SerialName("reasoning_content") val reasoningContent: String? = null,
    @SerialName("tool_calls") val toolCalls: List<JsonObject>? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ChatDelta>(generatedSerializer())
}
