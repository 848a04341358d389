@file:OptIn(ExperimentalSerializationApi::class)

package dev.gw.model

import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.KeepGeneratedSerializer
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive

// The Responses format (POST /v1/responses): the basics of the request and the answer.

@KeepGeneratedSerializer
@Serializable(with = ResponsesRequest.Serializer::class)
data class ResponsesRequest(
    val model: String,
    /** A string, or an array of `{role, content}` items. */
    val input: JsonElement,
    /** `{"type":"web_search_preview"}` enables web search. */
    val tools: List<JsonObject>? = null,
    val reasoning: Reasoning? = null,
    val instructions: String? = null,
    @SerialName("max_output_tokens") val maxOutputTokens: Int? = null,
    val extra: JsonObject = NoExtra,
) {
    constructor(model: String, input: String, reasoning: Reasoning? = null) :
        this(model, JsonPrimitive(input), reasoning = reasoning)

    internal object Serializer : WithExtraSerializer<ResponsesRequest>(generatedSerializer())

    /** The Java way: `ResponsesRequest.builder("model").input("text").build()`. */
    class Builder internal constructor(model: String) {
        private var r = ResponsesRequest(model, JsonPrimitive(""))

        fun input(text: String) = apply { r = r.copy(input = JsonPrimitive(text)) }
        /** An array of `{role, content}` items (or any input JSON). */
        fun input(input: JsonElement) = apply { r = r.copy(input = input) }
        fun tool(tool: JsonObject) = apply { r = r.copy(tools = r.tools.orEmpty() + tool) }
        fun reasoningEffort(effort: String?) = apply { r = r.copy(reasoning = effort?.let { Reasoning(it) }) }
        fun instructions(instructions: String?) = apply { r = r.copy(instructions = instructions) }
        fun maxOutputTokens(tokens: Int?) = apply { r = r.copy(maxOutputTokens = tokens) }
        fun extra(extra: JsonObject) = apply { r = r.copy(extra = JsonObject(r.extra + extra)) }
        fun build(): ResponsesRequest = r
    }

    companion object {
        @JvmStatic
        fun builder(model: String): Builder = Builder(model)
    }
}

/** `effort`: `minimal`, `low`, `medium` or `high`. */
@KeepGeneratedSerializer
@Serializable(with = Reasoning.Serializer::class)
data class Reasoning(val effort: String? = null, val extra: JsonObject = NoExtra) {
    internal object Serializer : WithExtraSerializer<Reasoning>(generatedSerializer())
}

/** A Responses-format `response` object (the answer, and a stream's assembled result). */
@KeepGeneratedSerializer
@Serializable(with = ModelResponse.Serializer::class)
data class ModelResponse(
    val id: String? = null,
    @SerialName("object") val objectType: String? = null,
    @SerialName("created_at") val createdAt: Long? = null,
    val status: String? = null,
    val model: String? = null,
    val output: List<OutputItem> = emptyList(),
    val usage: ResponsesUsage? = null,
    val extra: JsonObject = NoExtra,
) {
    /** The `output_text` parts of every message item, joined. */
    val outputText: String
        get() = output.filter { it.type == "message" }
            .flatMap { it.content.orEmpty() }
            .filter { it.type == "output_text" }
            .joinToString("") { it.text.orEmpty() }

    internal object Serializer : WithExtraSerializer<ModelResponse>(generatedSerializer())
}

/** An output item: `message` (role, content) or `web_search_call` (id, status), or newer kinds. */
@KeepGeneratedSerializer
@Serializable(with = OutputItem.Serializer::class)
data class OutputItem(
    val type: String,
    val id: String? = null,
    val role: String? = null,
    val status: String? = null,
    val content: List<OutputContent>? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<OutputItem>(generatedSerializer())
}

@KeepGeneratedSerializer
@Serializable(with = OutputContent.Serializer::class)
data class OutputContent(val type: String, val text: String? = null, val extra: JsonObject = NoExtra) {
    internal object Serializer : WithExtraSerializer<OutputContent>(generatedSerializer())
}

@KeepGeneratedSerializer
@Serializable(with = ResponsesUsage.Serializer::class)
data class ResponsesUsage(
    @SerialName("input_tokens") val inputTokens: Long? = null,
    @SerialName("output_tokens") val outputTokens: Long? = null,
    @SerialName("total_tokens") val totalTokens: Long? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ResponsesUsage>(generatedSerializer())
}
