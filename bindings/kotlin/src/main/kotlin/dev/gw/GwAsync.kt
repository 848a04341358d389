package dev.gw

// One method per Kotlin operation (TextApi.kt, ImageApi.kt, VideoApi.kt, VendorApi.kt), in
// GwBlocking.kt and GwAsync.kt alike: an operation added there is added here too
// (JavaApiMirrorTest fails when a Kotlin operation lacks either mirror).

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
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.future.future
import java.util.concurrent.CompletableFuture
import java.util.function.Consumer

/**
 * The operations of a [GwClient] as [CompletableFuture]s, for Java: `gw.async().chat(request)`.
 * The same verbs, arguments and answers as the suspend functions. A failed call completes the
 * future exceptionally with its [GwException]; `future.cancel(true)` cancels the native call
 * (or drops it from the queue when it is still waiting for one of the client's threads).
 */
class GwAsync internal constructor(private val client: GwClient) {
    // Each future is a coroutine with no parent (one failure never cancels the others),
    // started on the caller's thread: it then waits for a permit there, not in the pool's
    // queue, and moves to a gw thread for the blocking part only (see CallThreads).
    private val scope = CoroutineScope(SupervisorJob() + Dispatchers.Unconfined)

    private fun <T> start(call: suspend () -> T): CompletableFuture<T> = scope.future { call() }

    /** POST /v1/chat/completions. */
    @JvmOverloads
    fun chat(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.chat(request, options = options) }

    @JvmOverloads
    fun chat(request: ChatRequest, options: CallOptions = CallOptions.NONE): CompletableFuture<ChatCompletion> =
        start { client.chat(request, options = options) }

    /** POST /v1/responses. */
    @JvmOverloads
    fun responses(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.responses(request, options = options) }

    @JvmOverloads
    fun responses(request: ResponsesRequest, options: CallOptions = CallOptions.NONE): CompletableFuture<ModelResponse> =
        start { client.responses(request, options = options) }

    /** POST /v1/embeddings. */
    @JvmOverloads
    fun embeddings(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.embeddings(request, options = options) }

    @JvmOverloads
    fun embeddings(request: EmbeddingRequest, options: CallOptions = CallOptions.NONE): CompletableFuture<EmbeddingList> =
        start { client.embeddings(request, options = options) }

    /** POST /v1beta/models/{model}:generateContent. */
    @JvmOverloads
    fun generateContent(model: String, request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.generateContent(model, request, options = options) }

    /** any documented path; [body] for POST (null for GET). */
    @JvmOverloads
    fun request(method: String, path: String, body: JsonObject?, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonElement> =
        start { client.request(method, path, body, options = options) }

    /** POST /v1/images/generations. */
    @JvmOverloads
    fun imageGenerate(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.imageGenerate(request, options = options) }

    @JvmOverloads
    fun imageGenerate(request: ImageGenerationRequest, options: CallOptions = CallOptions.NONE): CompletableFuture<ImageResult> =
        start { client.imageGenerate(request, options = options) }

    /** POST /v1/images/edits (JSON, URLs). */
    @JvmOverloads
    fun imageEdit(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.imageEdit(request, options = options) }

    @JvmOverloads
    fun imageEdit(request: ImageEditRequest, options: CallOptions = CallOptions.NONE): CompletableFuture<ImageResult> =
        start { client.imageEdit(request, options = options) }

    /** POST /v1/images/edits (multipart; [mask] may be null). */
    @JvmOverloads
    fun imageEditUpload(request: JsonObject, image: GwFile, mask: GwFile?, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.imageEditUpload(request, image, mask, options = options) }

    @JvmOverloads
    fun imageEditUpload(request: ImageEditRequest, image: GwFile, mask: GwFile?, options: CallOptions = CallOptions.NONE): CompletableFuture<ImageResult> =
        start { client.imageEditUpload(request, image, mask, options = options) }

    /** POST /v1/video/create. */
    @JvmOverloads
    fun videoCreate(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.videoCreate(request, options = options) }

    @JvmOverloads
    fun videoCreate(request: VideoRequest, options: CallOptions = CallOptions.NONE): CompletableFuture<VideoTask> =
        start { client.videoCreate(request, options = options) }

    /** POST /v1/video/generations. */
    @JvmOverloads
    fun videoGenerate(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.videoGenerate(request, options = options) }

    @JvmOverloads
    fun videoGenerate(request: VideoRequest, options: CallOptions = CallOptions.NONE): CompletableFuture<VideoTask> =
        start { client.videoGenerate(request, options = options) }

    /** POST /v1/videos. */
    @JvmOverloads
    fun videoCharacter(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.videoCharacter(request, options = options) }

    @JvmOverloads
    fun videoCharacter(request: VideoRequest, options: CallOptions = CallOptions.NONE): CompletableFuture<VideoTask> =
        start { client.videoCharacter(request, options = options) }

    /** POST /v1/videos/{videoId}/remix. */
    @JvmOverloads
    fun videoRemix(videoId: String, request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.videoRemix(videoId, request, options = options) }

    /** one status query of a task. */
    @JvmOverloads
    fun videoStatus(family: VideoFamily, taskId: String, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.videoStatus(family, taskId, options = options) }

    /** POST /vendorK/v1/videos/text2video. */
    @JvmOverloads
    fun vendorKText2Video(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorKText2Video(request, options = options) }

    /** POST /vendorK/v1/videos/image2video. */
    @JvmOverloads
    fun vendorKImage2Video(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorKImage2Video(request, options = options) }

    /** POST /vendorK/v1/videos/multi-image2video. */
    @JvmOverloads
    fun vendorKMultiImage2Video(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorKMultiImage2Video(request, options = options) }

    /** POST /vendorK/video/effects. */
    @JvmOverloads
    fun vendorKEffects(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorKEffects(request, options = options) }

    /** POST /vendorK/video/extend. */
    @JvmOverloads
    fun vendorKExtend(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorKExtend(request, options = options) }

    /** POST /vendorH/image-to-video. */
    @JvmOverloads
    fun vendorHImageToVideo(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorHImageToVideo(request, options = options) }

    /** POST /vendorM/submit/imagine. */
    @JvmOverloads
    fun vendorMImagine(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorMImagine(request, options = options) }

    /** POST /vendorI/describe. */
    @JvmOverloads
    fun vendorIDescribe(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorIDescribe(request, options = options) }

    /** POST /vendorI/generate. */
    @JvmOverloads
    fun vendorIGenerate(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorIGenerate(request, options = options) }

    /** POST /vendorI/text-to-image. */
    @JvmOverloads
    fun vendorITextToImage(request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorITextToImage(request, options = options) }

    /** POST /vendorF/{modelSlug}/edit. */
    @JvmOverloads
    fun vendorFEdit(modelSlug: String, request: JsonObject, options: CallOptions = CallOptions.NONE): CompletableFuture<JsonObject> =
        start { client.vendorFEdit(modelSlug, request, options = options) }
    /**
     * A streamed chat completion: [onChunk] sees each chunk as it arrives (on a gw thread);
     * the future completes with the assembled answer. Cancelling the future drops the stream.
     */
    @JvmOverloads
    fun chatStream(
        request: ChatRequest,
        onChunk: Consumer<GwEvent.Chunk>,
        options: CallOptions = CallOptions.NONE,
    ): CompletableFuture<ChatCompletion> = start {
        collect(client.chatStream(request, options), onChunk).decodeAs<ChatCompletion>()
    }

    @JvmOverloads
    fun chatStream(
        request: JsonObject,
        onChunk: Consumer<GwEvent.Chunk>,
        options: CallOptions = CallOptions.NONE,
    ): CompletableFuture<JsonObject> = start { collect(client.chatStream(request, options), onChunk) }

    /** A streamed Responses call, as [chatStream]; completes with the `response` object. */
    @JvmOverloads
    fun responsesStream(
        request: ResponsesRequest,
        onChunk: Consumer<GwEvent.Chunk>,
        options: CallOptions = CallOptions.NONE,
    ): CompletableFuture<ModelResponse> = start {
        collect(client.responsesStream(request, options), onChunk).decodeAs<ModelResponse>()
    }

    @JvmOverloads
    fun responsesStream(
        request: JsonObject,
        onChunk: Consumer<GwEvent.Chunk>,
        options: CallOptions = CallOptions.NONE,
    ): CompletableFuture<JsonObject> = start { collect(client.responsesStream(request, options), onChunk) }

    /** [GwBlocking.videoWait] as a future; cancelling it stops the wait. */
    @JvmOverloads
    fun videoWait(
        family: VideoFamily,
        taskId: String,
        interval: java.time.Duration = java.time.Duration.ofSeconds(2),
        timeout: java.time.Duration = java.time.Duration.ofMinutes(10),
        options: CallOptions = CallOptions.NONE,
        onProgress: Consumer<JsonObject>? = null,
    ): CompletableFuture<JsonObject> = start {
        client.videoWait(family, taskId, interval.toKotlin(), timeout.toKotlin(), options, onProgress?.let { c -> { c.accept(it) } })
    }

    private suspend fun collect(stream: kotlinx.coroutines.flow.Flow<GwEvent>, onChunk: Consumer<GwEvent.Chunk>): JsonObject {
        var result: JsonObject? = null
        stream.collect { event ->
            when (event) {
                is GwEvent.Chunk -> onChunk.accept(event)
                is GwEvent.Done -> result = event.result
            }
        }
        return result ?: throw dev.gw.internal.gwError(-7, "the stream ended without its result", null)
    }
}
