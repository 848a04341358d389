package dev.gw

import dev.gw.internal.GwNative
import dev.gw.internal.cString
import kotlinx.serialization.json.JsonObject

// Vendor operations, each a POST with a JSON body passed through as is. Vendor-style bodies
// that report failure (vendor H `code` != 0, vendor M `code` != 1) are GwException.Vendor.

/** POST /vendorK/v1/videos/text2video; poll with [VideoFamily.VENDOR_K]. */
suspend fun GwClient.vendorKText2Video(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_k_text2video)

/** POST /vendorK/v1/videos/image2video; poll with [VideoFamily.VENDOR_K]. */
suspend fun GwClient.vendorKImage2Video(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_k_image2video)

/** POST /vendorK/v1/videos/multi-image2video; poll with [VideoFamily.VENDOR_K]. */
suspend fun GwClient.vendorKMultiImage2Video(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_k_multi_image2video)

/** POST /vendorK/video/effects: `{"video": URL, "effect"}`. */
suspend fun GwClient.vendorKEffects(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_k_effects)

/** POST /vendorK/video/extend: `{"video_id"}`. */
suspend fun GwClient.vendorKExtend(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_k_extend)

/** POST /vendorH/image-to-video: `{"image_url","prompt","model","duration","aspect_ratio"}`. */
suspend fun GwClient.vendorHImageToVideo(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_h_image_to_video)

/** POST /vendorM/submit/imagine: `{"prompt","botType","base64Array","notifyHook","state"}`. */
suspend fun GwClient.vendorMImagine(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_m_imagine)

/** POST /vendorI/describe: `{"image": URL}` -> `{"descriptions": [...]}`. */
suspend fun GwClient.vendorIDescribe(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_i_describe)

/** POST /vendorI/generate: `{"prompt","aspect_ratio"}`. */
suspend fun GwClient.vendorIGenerate(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_i_generate)

/** POST /vendorI/text-to-image: `{"prompt"}`. */
suspend fun GwClient.vendorITextToImage(request: JsonObject, options: CallOptions = CallOptions.NONE) =
    postJson(request, options, GwNative::gw_vendor_i_text_to_image)

/** POST /vendorF/{modelSlug}/edit: `{"image": URL, "prompt"}`. */
suspend fun GwClient.vendorFEdit(
    modelSlug: String,
    request: JsonObject,
    options: CallOptions = CallOptions.NONE,
): JsonObject {
    val slug = cString(modelSlug, "modelSlug")
    val body = cString(request.toString(), "request")
    return callObject(options) { h, out -> GwNative.gw_vendor_f_edit(h, slug, body, out) }
}
