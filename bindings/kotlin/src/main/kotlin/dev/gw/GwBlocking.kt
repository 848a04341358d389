package dev.gw

// One method per Kotlin operation (TextApi.kt, ImageApi.kt, VideoApi.kt, VendorApi.kt), in
// GwBlocking.kt and GwAsync.kt alike: an operation added there is added here too
// (JavaApiMirrorTest fails when a Kotlin operation lacks either mirror).

import com.sun.jna.Pointer
import dev.gw.internal.GwNative
import dev.gw.internal.cString
import dev.gw.model.ChatCompletion
import dev.gw.model.ChatRequest
import dev.gw.model.EmbeddingList
import dev.gw.model.EmbeddingRequest
import dev.gw.model.ImageEditRequest
import dev.gw.model.ImageGenerationRequest
import dev.gw.model.ImageResult
import dev.gw.model.ModelResponse
import dev.gw.model.ResponsesRequest
import dev.gw.model.VideoRequest
import dev.gw.model.VideoTask
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import java.util.function.Consumer

/**
 * The operations of a [GwClient] as plain blocking methods, for Java and for Kotlin outside
 * coroutines: `gw.blocking().chat(request)`. The same verbs, arguments and answers as the
 * suspend functions; errors are the same [GwException]s (unchecked).
 *
 * The call runs on the client's own threads while the calling thread waits; interrupting
 * the waiting thread cancels the native call (the method then throws InterruptedException).
 * Streams are [GwStream]s pulled on the calling thread.
 */
class GwBlocking internal constructor(private val client: GwClient) {
    private fun <T> wait(call: suspend () -> T): T = kotlinx.coroutines.runBlocking { call() }

    /** A [GwStream] over one of gw's stream openers, `int open(client, request, stream**, out**)`. */
    private fun <T> openStream(
        opener: (Pointer, ByteArray?, Pointer, Pointer) -> Int,
        request: JsonObject,
        options: CallOptions,
        decode: (JsonObject) -> T,
    ): GwStream<T> {
        val body = cString(request.toString(), "request")
        return GwStream(client, options, decode) { h, stream, out -> opener(h, body, stream, out) }
    }

    /** POST /v1/chat/completions. */
    @JvmOverloads
    fun chat(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.chat(request, options = options) }

    @JvmOverloads
    fun chat(request: ChatRequest, options: CallOptions = CallOptions.NONE): ChatCompletion =
        wait { client.chat(request, options = options) }

    /** POST /v1/responses. */
    @JvmOverloads
    fun responses(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.responses(request, options = options) }

    @JvmOverloads
    fun responses(request: ResponsesRequest, options: CallOptions = CallOptions.NONE): ModelResponse =
        wait { client.responses(request, options = options) }

    /** POST /v1/embeddings. */
    @JvmOverloads
    fun embeddings(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.embeddings(request, options = options) }

    @JvmOverloads
    fun embeddings(request: EmbeddingRequest, options: CallOptions = CallOptions.NONE): EmbeddingList =
        wait { client.embeddings(request, options = options) }

    /** POST /v1beta/models/{model}:generateContent. */
    @JvmOverloads
    fun generateContent(model: String, request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.generateContent(model, request, options = options) }

    /** any documented path; [body] for POST (null for GET). */
    @JvmOverloads
    fun request(method: String, path: String, body: JsonObject?, options: CallOptions = CallOptions.NONE): JsonElement =
        wait { client.request(method, path, body, options = options) }

    /** POST /v1/images/generations. */
    @JvmOverloads
    fun imageGenerate(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.imageGenerate(request, options = options) }

    @JvmOverloads
    fun imageGenerate(request: ImageGenerationRequest, options: CallOptions = CallOptions.NONE): ImageResult =
        wait { client.imageGenerate(request, options = options) }

    /** POST /v1/images/edits (JSON, URLs). */
    @JvmOverloads
    fun imageEdit(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.imageEdit(request, options = options) }

    @JvmOverloads
    fun imageEdit(request: ImageEditRequest, options: CallOptions = CallOptions.NONE): ImageResult =
        wait { client.imageEdit(request, options = options) }

    /** POST /v1/images/edits (multipart; [mask] may be null). */
    @JvmOverloads
    fun imageEditUpload(request: JsonObject, image: GwFile, mask: GwFile?, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.imageEditUpload(request, image, mask, options = options) }

    @JvmOverloads
    fun imageEditUpload(request: ImageEditRequest, image: GwFile, mask: GwFile?, options: CallOptions = CallOptions.NONE): ImageResult =
        wait { client.imageEditUpload(request, image, mask, options = options) }

    /** POST /v1/video/create. */
    @JvmOverloads
    fun videoCreate(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.videoCreate(request, options = options) }

    @JvmOverloads
    fun videoCreate(request: VideoRequest, options: CallOptions = CallOptions.NONE): VideoTask =
        wait { client.videoCreate(request, options = options) }

    /** POST /v1/video/generations. */
    @JvmOverloads
    fun videoGenerate(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.videoGenerate(request, options = options) }

    @JvmOverloads
    fun videoGenerate(request: VideoRequest, options: CallOptions = CallOptions.NONE): VideoTask =
        wait { client.videoGenerate(request, options = options) }

    /** POST /v1/videos. */
    @JvmOverloads
    fun videoCharacter(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.videoCharacter(request, options = options) }

    @JvmOverloads
    fun videoCharacter(request: VideoRequest, options: CallOptions = CallOptions.NONE): VideoTask =
        wait { client.videoCharacter(request, options = options) }

    /** POST /v1/videos/{videoId}/remix. */
    @JvmOverloads
    fun videoRemix(videoId: String, request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.videoRemix(videoId, request, options = options) }

    /** one status query of a task. */
    @JvmOverloads
    fun videoStatus(family: VideoFamily, taskId: String, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.videoStatus(family, taskId, options = options) }

    /** POST /vendorK/v1/videos/text2video. */
    @JvmOverloads
    fun vendorKText2Video(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorKText2Video(request, options = options) }

    /** POST /vendorK/v1/videos/image2video. */
    @JvmOverloads
    fun vendorKImage2Video(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorKImage2Video(request, options = options) }

    /** POST /vendorK/v1/videos/multi-image2video. */
    @JvmOverloads
    fun vendorKMultiImage2Video(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorKMultiImage2Video(request, options = options) }

    /** POST /vendorK/video/effects. */
    @JvmOverloads
    fun vendorKEffects(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorKEffects(request, options = options) }

    /** POST /vendorK/video/extend. */
    @JvmOverloads
    fun vendorKExtend(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorKExtend(request, options = options) }

    /** POST /vendorH/image-to-video. */
    @JvmOverloads
    fun vendorHImageToVideo(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorHImageToVideo(request, options = options) }

    /** POST /vendorM/submit/imagine. */
    @JvmOverloads
    fun vendorMImagine(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorMImagine(request, options = options) }

    /** POST /vendorI/describe. */
    @JvmOverloads
    fun vendorIDescribe(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorIDescribe(request, options = options) }

    /** POST /vendorI/generate. */
    @JvmOverloads
    fun vendorIGenerate(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorIGenerate(request, options = options) }

    /** POST /vendorI/text-to-image. */
    @JvmOverloads
    fun vendorITextToImage(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorITextToImage(request, options = options) }

    /** POST /vendorF/{modelSlug}/edit. */
    @JvmOverloads
    fun vendorFEdit(modelSlug: String, request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
        wait { client.vendorFEdit(modelSlug, request, options = options) }
    /** A streamed chat completion: iterate its chunks, then [GwStream.result]. */
    @JvmOverloads
    fun chatStream(request: ChatRequest, options: CallOptions = CallOptions.NONE): GwStream<ChatCompletion> =
        openStream(GwNative::gw_chat_stream_open, dev.gw.internal.requestJson(ChatRequest.serializer(), request), options) {
            dev.gw.internal.decodeAnswer(ChatCompletion.serializer(), it)
        }

    @JvmOverloads
    fun chatStream(request: JsonObject, options: CallOptions = CallOptions.NONE): GwStream<JsonObject> =
        openStream(GwNative::gw_chat_stream_open, request, options) { it }

    /** A streamed Responses call: iterate its events, then [GwStream.result] (the `response`). */
    @JvmOverloads
    fun responsesStream(request: ResponsesRequest, options: CallOptions = CallOptions.NONE): GwStream<ModelResponse> =
        openStream(GwNative::gw_responses_stream_open, dev.gw.internal.requestJson(ResponsesRequest.serializer(), request), options) {
            dev.gw.internal.decodeAnswer(ModelResponse.serializer(), it)
        }

    @JvmOverloads
    fun responsesStream(request: JsonObject, options: CallOptions = CallOptions.NONE): GwStream<JsonObject> =
        openStream(GwNative::gw_responses_stream_open, request, options) { it }

    /**
     * Polls a task every [interval] until it ends; [onProgress] sees every polled record (on
     * a gw thread). See the suspend videoWait for failures and timeouts.
     */
    @JvmOverloads
    fun videoWait(
        family: VideoFamily,
        taskId: String,
        interval: java.time.Duration = java.time.Duration.ofSeconds(2),
        timeout: java.time.Duration = java.time.Duration.ofMinutes(10),
        options: CallOptions = CallOptions.NONE,
        onProgress: Consumer<JsonObject>? = null,
    ): JsonObject = wait {
        client.videoWait(family, taskId, interval.toKotlin(), timeout.toKotlin(), options, onProgress?.let { c -> { c.accept(it) } })
    }
}
