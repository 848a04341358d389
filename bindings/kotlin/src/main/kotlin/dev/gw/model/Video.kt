@file:OptIn(ExperimentalSerializationApi::class)

package dev.gw.model

import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.KeepGeneratedSerializer
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.json.JsonObject

// Video: the create requests of the unified and character families, and the task record
// the status and wait calls return.

/** POST /v1/video/create and /v1/video/generations; [characterId] for POST /v1/videos. */
@KeepGeneratedSerializer
@Serializable(with = VideoRequest.Serializer::class)
data class VideoRequest(
    val model: String,
    val prompt: String,
    /** Seconds. */
    val duration: Int? = null,
    @SerialName("character_id") val characterId: String? = null,
    val size: String? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<VideoRequest>(generatedSerializer())

    /** The Java way: `VideoRequest.builder("model", "waves").duration(5).build()`. */
    class Builder internal constructor(model: String, prompt: String) {
        private var r = VideoRequest(model, prompt)

        fun duration(seconds: Int?) = apply { r = r.copy(duration = seconds) }
        fun characterId(id: String?) = apply { r = r.copy(characterId = id) }
        fun size(size: String?) = apply { r = r.copy(size = size) }
        fun extra(extra: JsonObject) = apply { r = r.copy(extra = JsonObject(r.extra + extra)) }
        fun build(): VideoRequest = r
    }

    companion object {
        @JvmStatic
        fun builder(model: String, prompt: String): Builder = Builder(model, prompt)
    }
}

/**
 * A video task as the unified and character families report it (`id` / `task_id`,
 * `status`, `progress`, `video_url`, `error`). Vendor families nest theirs differently:
 * their fields stay in [extra] (e.g. vendor K's `data.task_status`).
 */
@KeepGeneratedSerializer
@Serializable(with = VideoTask.Serializer::class)
data class VideoTask(
    val id: String? = null,
    @SerialName("task_id") val taskId: String? = null,
    val status: String? = null,
    val progress: Double? = null,
    @SerialName("video_url") val videoUrl: String? = null,
    val error: JsonObject? = null,
    val model: String? = null,
    val extra: JsonObject = NoExtra,
) {
    /** The id to poll with: `task_id` when present, else `id`. */
    val pollId: String? get() = taskId ?: id

    internal object Serializer : WithExtraSerializer<VideoTask>(generatedSerializer())
}
