package dev.gw

import dev.gw.internal.GwNative
import dev.gw.internal.cString
import dev.gw.internal.decodeAnswer
import dev.gw.internal.pullStream
import dev.gw.internal.requestJson
import dev.gw.model.ChatCompletion
import dev.gw.model.ChatRequest
import dev.gw.model.EmbeddingList
import dev.gw.model.EmbeddingRequest
import dev.gw.model.ModelResponse
import dev.gw.model.ResponsesRequest
import kotlinx.coroutines.flow.Flow
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject

// Text operations: chat, Responses, embeddings, the native format and raw requests. Each
// takes the request as JSON (passed through: fields gw does not know reach the gateway) or
// as a model class, and [CallOptions] for this call only.

/** POST /v1/chat/completions; `"stream": true` is refused here, use [chatStream]. */
suspend fun GwClient.chat(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
    postJson(request, options, GwNative::gw_chat)

suspend fun GwClient.chat(request: ChatRequest, options: CallOptions = CallOptions.NONE): ChatCompletion =
    decodeAnswer(ChatCompletion.serializer(), chat(requestJson(ChatRequest.serializer(), request), options))

/**
 * A streamed chat completion: the chunks as [GwEvent.Chunk]s, then [GwEvent.Done] with the
 * `chat.completion` gw assembled. Cold: each collection sends its own request.
 */
fun GwClient.chatStream(request: JsonObject, options: CallOptions = CallOptions.NONE): Flow<GwEvent> {
    val body = cString(request.toString(), "request")
    return pullStream(this, options) { h, stream, out -> GwNative.gw_chat_stream_open(h, body, stream, out) }
}

fun GwClient.chatStream(request: ChatRequest, options: CallOptions = CallOptions.NONE): Flow<GwEvent> =
    chatStream(requestJson(ChatRequest.serializer(), request), options)

/** POST /v1/responses (the Responses format). */
suspend fun GwClient.responses(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
    postJson(request, options, GwNative::gw_responses)

suspend fun GwClient.responses(request: ResponsesRequest, options: CallOptions = CallOptions.NONE): ModelResponse =
    decodeAnswer(ModelResponse.serializer(), responses(requestJson(ResponsesRequest.serializer(), request), options))

/** A streamed Responses call: its events, then [GwEvent.Done] with the `response` object. */
fun GwClient.responsesStream(request: JsonObject, options: CallOptions = CallOptions.NONE): Flow<GwEvent> {
    val body = cString(request.toString(), "request")
    return pullStream(this, options) { h, stream, out -> GwNative.gw_responses_stream_open(h, body, stream, out) }
}

fun GwClient.responsesStream(request: ResponsesRequest, options: CallOptions = CallOptions.NONE): Flow<GwEvent> =
    responsesStream(requestJson(ResponsesRequest.serializer(), request), options)

/** POST /v1/embeddings. */
suspend fun GwClient.embeddings(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
    postJson(request, options, GwNative::gw_embeddings)

/** Embeddings with every vector a FloatArray, `float` and `base64` encodings alike. */
suspend fun GwClient.embeddings(request: EmbeddingRequest, options: CallOptions = CallOptions.NONE): EmbeddingList =
    decodeAnswer(EmbeddingList.serializer(), embeddings(requestJson(EmbeddingRequest.serializer(), request), options))

/** POST /v1beta/models/{model}:generateContent (the native format; the key goes in `?key=`). */
suspend fun GwClient.generateContent(
    model: String,
    request: JsonObject,
    options: CallOptions = CallOptions.NONE,
): JsonObject {
    val m = cString(model, "model")
    val body = cString(request.toString(), "request")
    return callObject(options) { h, out -> GwNative.gw_generate_content(h, m, body, out) }
}

/**
 * Any documented operation by method and path ("GET" or "POST", e.g. "/vendorR/task/abc"),
 * with gw's auth placement, limit checks and answer rules for that path. [body] is for POST.
 */
suspend fun GwClient.request(
    method: String,
    path: String,
    body: JsonObject? = null,
    options: CallOptions = CallOptions.NONE,
): JsonElement {
    val m = cString(method, "method")
    val p = cString(path, "path")
    val b = body?.let { cString(it.toString(), "body") }
    return parseAnswer(callText(options) { h, out -> GwNative.gw_request(h, m, p, b, out) })
}
