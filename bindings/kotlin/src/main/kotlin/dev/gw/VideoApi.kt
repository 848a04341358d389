package dev.gw

import com.sun.jna.Pointer
import dev.gw.internal.GwNative
import dev.gw.internal.cString
import dev.gw.internal.decodeAnswer
import dev.gw.internal.requestJson
import dev.gw.model.VideoRequest
import dev.gw.model.VideoTask
import dev.gw.internal.Failure
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.buffer
import kotlinx.coroutines.flow.channelFlow
import kotlinx.coroutines.flow.flow
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.put
import java.util.Collections
import java.util.IdentityHashMap
import kotlin.time.Duration
import kotlin.time.Duration.Companion.minutes
import kotlin.time.Duration.Companion.seconds

// Video operations: the create calls of each family, status queries and waiting for a task
// to finish (a suspend function with a progress lambda, or a Flow of the polled records).

/** Which status endpoint a task id belongs to (gw's GW_VIDEO_* families). */
enum class VideoFamily(val native: Int) {
    /** /v1/video/create and /v1/video/generations: GET /v1/video/generations/{id}. */
    UNIFIED(0),

    /** /v1/videos (character) and remix: GET /v1/videos/{id}. */
    CHARACTER(1),

    /** vendor K: GET /vendorK/v1/videos/{id}. */
    VENDOR_K(2),

    /** vendor R: GET /vendorR/task/{taskId}. */
    VENDOR_R(3),
}

/** POST /v1/video/create: `{"task_id","status"}`; poll with [VideoFamily.UNIFIED]. */
suspend fun GwClient.videoCreate(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
    postJson(request, options, GwNative::gw_video_create)

suspend fun GwClient.videoCreate(request: VideoRequest, options: CallOptions = CallOptions.NONE): VideoTask =
    typed(videoCreate(requestJson(VideoRequest.serializer(), request), options))

/** POST /v1/video/generations (unified format); poll with [VideoFamily.UNIFIED]. */
suspend fun GwClient.videoGenerate(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
    postJson(request, options, GwNative::gw_video_generate)

suspend fun GwClient.videoGenerate(request: VideoRequest, options: CallOptions = CallOptions.NONE): VideoTask =
    typed(videoGenerate(requestJson(VideoRequest.serializer(), request), options))

/** POST /v1/videos (a video with a character): `{"id","status"}`; poll with [VideoFamily.CHARACTER]. */
suspend fun GwClient.videoCharacter(request: JsonObject, options: CallOptions = CallOptions.NONE): JsonObject =
    postJson(request, options, GwNative::gw_video_character)

suspend fun GwClient.videoCharacter(request: VideoRequest, options: CallOptions = CallOptions.NONE): VideoTask =
    typed(videoCharacter(requestJson(VideoRequest.serializer(), request), options))

/** POST /v1/videos/{videoId}/remix: `{"prompt","size"}`. */
suspend fun GwClient.videoRemix(
    videoId: String,
    request: JsonObject,
    options: CallOptions = CallOptions.NONE,
): JsonObject {
    val id = cString(videoId, "videoId")
    val body = cString(request.toString(), "request")
    return callObject(options) { h, out -> GwNative.gw_video_remix(h, id, body, out) }
}

/** Queries a task once; the record as the gateway sent it (`decodeAs<VideoTask>()` for the common fields). */
suspend fun GwClient.videoStatus(
    family: VideoFamily,
    taskId: String,
    options: CallOptions = CallOptions.NONE,
): JsonObject {
    val id = cString(taskId, "taskId")
    return callObject(options) { h, out -> GwNative.gw_video_status(h, family.native, id, out) }
}

/**
 * Polls a task every [interval] until its status is terminal and returns the final record.
 * [onProgress] sees every polled record (on the gw thread doing the wait: keep it short;
 * what it throws ends the wait and is rethrown). A task that ended failed is a
 * [GwException.Vendor] whose `error` is its record; past [timeout] a [GwException.Timeout].
 * Cancelling the coroutine stops the wait at once, mid-sleep included.
 */
suspend fun GwClient.videoWait(
    family: VideoFamily,
    taskId: String,
    interval: Duration = 2.seconds,
    timeout: Duration = 10.minutes,
    options: CallOptions = CallOptions.NONE,
    onProgress: ((JsonObject) -> Unit)? = null,
): JsonObject {
    val id = cString(taskId, "taskId")
    val waitOptions = cString(
        buildJsonObject {
            put("interval_ms", interval.inWholeMilliseconds)
            put("timeout_ms", timeout.inWholeMilliseconds)
        }.toString(),
        "wait options",
    )
    var failure: Throwable? = null
    val progress = onProgress?.let { report ->
        GwNative.ProgressCallback { _, taskJson, _ ->
            try {
                report(GwJson.parseToJsonElement(taskJson?.getString(0, "UTF-8") ?: "{}").jsonObject)
                0
            } catch (t: Throwable) {
                failure = t
                1 // stop polling; the throwable is rethrown below
            }
        }
    }
    // gw holds the callback's native stub during the call: keep the object reachable.
    progress?.let { synchronized(liveCallbacks) { liveCallbacks.add(it) } }
    try {
        return callObject(options) { h, out ->
            GwNative.gw_video_wait(h, family.native, id, waitOptions, progress, null as Pointer?, out)
        }
    } catch (e: GwException.Cancelled) {
        throw failure ?: e
    } finally {
        progress?.let { synchronized(liveCallbacks) { liveCallbacks.remove(it) } }
    }
}

/**
 * [videoWait] as a Flow: every polled record, the terminal one last; ends with the
 * [GwException] of a failed task or poll. Cancelling the collector stops the wait.
 */
fun GwClient.videoWaitFlow(
    family: VideoFamily,
    taskId: String,
    interval: Duration = 2.seconds,
    timeout: Duration = 10.minutes,
    options: CallOptions = CallOptions.NONE,
): Flow<JsonObject> {
    // Records are few and small: an unlimited buffer lets the gw thread hand them over
    // without suspending. A failure is sent as an item so the records before it arrive first.
    val produced = channelFlow<Any> {
        try {
            videoWait(family, taskId, interval, timeout, options) { record -> trySend(record) }
        } catch (e: CancellationException) {
            throw e
        } catch (e: Throwable) {
            send(Failure(e))
        }
    }.buffer(Channel.UNLIMITED)
    return flow { produced.collect { if (it is Failure) throw it.error else emit(it as JsonObject) } }
}

private val liveCallbacks: MutableSet<Any> = Collections.newSetFromMap(IdentityHashMap())

private fun typed(answer: JsonObject): VideoTask = decodeAnswer(VideoTask.serializer(), answer)
