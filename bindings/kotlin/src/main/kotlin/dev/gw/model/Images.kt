@file:OptIn(ExperimentalSerializationApi::class)

package dev.gw.model

import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.KeepGeneratedSerializer
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.JsonObject

// Images: generation (POST /v1/images/generations), edits (POST /v1/images/edits, JSON with
// URLs or multipart uploads) and their common result.

@KeepGeneratedSerializer
@Serializable(with = ImageGenerationRequest.Serializer::class)
data class ImageGenerationRequest(
    val model: String,
    val prompt: String,
    /** `<width>x<height>`. */
    val size: String? = null,
    /** -1..2147483647; the same seed gives consistent results. */
    val seed: Long? = null,
    /** 1..10, default 2.5. */
    @SerialName("guidance_scale") val guidanceScale: Double? = null,
    /** `url` (default) or `b64_json`. */
    @SerialName("response_format") val responseFormat: String? = null,
    val watermark: Boolean? = null,
    val n: Int? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ImageGenerationRequest>(generatedSerializer())

    /** The Java way: `ImageGenerationRequest.builder("model", "a lighthouse").size("1024x1024").build()`. */
    class Builder internal constructor(model: String, prompt: String) {
        private var r = ImageGenerationRequest(model, prompt)

        fun size(size: String?) = apply { r = r.copy(size = size) }
        fun seed(seed: Long?) = apply { r = r.copy(seed = seed) }
        fun guidanceScale(scale: Double?) = apply { r = r.copy(guidanceScale = scale) }
        fun responseFormat(format: String?) = apply { r = r.copy(responseFormat = format) }
        fun watermark(watermark: Boolean?) = apply { r = r.copy(watermark = watermark) }
        fun n(n: Int?) = apply { r = r.copy(n = n) }
        fun extra(extra: JsonObject) = apply { r = r.copy(extra = JsonObject(r.extra + extra)) }
        fun build(): ImageGenerationRequest = r
    }

    companion object {
        @JvmStatic
        fun builder(model: String, prompt: String): Builder = Builder(model, prompt)
    }
}

/** An edit. [image] and [mask] are URLs for the JSON form; leave them null for uploads. */
@KeepGeneratedSerializer
@Serializable(with = ImageEditRequest.Serializer::class)
data class ImageEditRequest(
    val model: String,
    val prompt: String,
    val image: String? = null,
    val mask: String? = null,
    val n: Int? = null,
    val size: String? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ImageEditRequest>(generatedSerializer())

    /** The Java way: `ImageEditRequest.builder("model", "replace the sky").image(url).build()`. */
    class Builder internal constructor(model: String, prompt: String) {
        private var r = ImageEditRequest(model, prompt)

        fun image(url: String?) = apply { r = r.copy(image = url) }
        fun mask(url: String?) = apply { r = r.copy(mask = url) }
        fun n(n: Int?) = apply { r = r.copy(n = n) }
        fun size(size: String?) = apply { r = r.copy(size = size) }
        fun extra(extra: JsonObject) = apply { r = r.copy(extra = JsonObject(r.extra + extra)) }
        fun build(): ImageEditRequest = r
    }

    companion object {
        @JvmStatic
        fun builder(model: String, prompt: String): Builder = Builder(model, prompt)
    }
}

@KeepGeneratedSerializer
@Serializable(with = ImageResult.Serializer::class)
data class ImageResult(
    val created: Long? = null,
    val data: List<ImageData> = emptyList(),
    val model: String? = null,
    val usage: ImageUsage? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ImageResult>(generatedSerializer())
}

@KeepGeneratedSerializer
@Serializable(with = ImageData.Serializer::class)
data class ImageData(
    val url: String? = null,
    @SerialName("b64_json") val b64Json: String? = null,
    @SerialName("revised_prompt") val revisedPrompt: String? = null,
    val seed: Long? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ImageData>(generatedSerializer())
}

@KeepGeneratedSerializer
@Serializable(with = ImageUsage.Serializer::class)
data class ImageUsage(
    @SerialName("generated_images") val generatedImages: Long? = null,
    @SerialName("output_tokens") val outputTokens: Long? = null,
    @SerialName("total_tokens") val totalTokens: Long? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<ImageUsage>(generatedSerializer())
}
