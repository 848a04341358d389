package dev.gw

import dev.gw.internal.GwNative
import dev.gw.internal.NativeFile
import dev.gw.internal.cString
import dev.gw.internal.decodeAnswer
import dev.gw.internal.requestJson
import dev.gw.model.ImageEditRequest
import dev.gw.model.ImageGenerationRequest
import dev.gw.model.ImageResult
import kotlinx.serialization.json.JsonObject

// Image operations: generation, edits with URLs (JSON) and edits with uploaded files.

/** POST /v1/images/generations. */
suspend fun GwClient.imageGenerate(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
    postJson(request, options, GwNative::gw_image_generate)

suspend fun GwClient.imageGenerate(request: ImageGenerationRequest, options: CallOptions = CallOptions.NONE): ImageResult =
    decodeAnswer(ImageResult.serializer(), imageGenerate(requestJson(ImageGenerationRequest.serializer(), request), options))

/** POST /v1/images/edits, JSON form: `image` (and `mask`) are URLs. */
suspend fun GwClient.imageEdit(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
    postJson(request, options, GwNative::gw_image_edit)

suspend fun GwClient.imageEdit(request: ImageEditRequest, options: CallOptions = CallOptions.NONE): ImageResult =
    decodeAnswer(ImageResult.serializer(), imageEdit(requestJson(ImageEditRequest.serializer(), request), options))

/**
 * POST /v1/images/edits as multipart/form-data: [request]'s fields as text parts, then
 * [image] and, when given, [mask] as files (e.g. `GwFile.of(Path.of("photo.png"))`).
 */
suspend fun GwClient.imageEditUpload(
    request: JsonObject,
    image: GwFile,
    mask: GwFile? = null,
    options: CallOptions = CallOptions.NONE,
): JsonObject {
    val body = cString(request.toString(), "request")
    return NativeFile(image, "image").use { img ->
        val msk = mask?.let { NativeFile(it, "mask") }
        try {
            callObject(options) { h, out -> GwNative.gw_image_edit_upload(h, body, img.pointer, msk?.pointer, out) }
        } finally {
            msk?.close()
        }
    }
}

suspend fun GwClient.imageEditUpload(
    request: ImageEditRequest,
    image: GwFile,
    mask: GwFile? = null,
    options: CallOptions = CallOptions.NONE,
): ImageResult = decodeAnswer(
    ImageResult.serializer(),
    imageEditUpload(requestJson(ImageEditRequest.serializer(), request), image, mask, options),
)
