package dev.gw

import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.serializer

/** A JSON answer as a model class, e.g. `gw.videoStatus(...).decodeAs<VideoTask>()`. */
inline fun <reified T> JsonObject.decodeAs(): T = decodeAs(serializer<T>())

/** [decodeAs] with an explicit serializer; a mismatch is a [GwException.Decode]. */
fun <T> JsonObject.decodeAs(serializer: kotlinx.serialization.KSerializer<T>): T =
    dev.gw.internal.decodeAnswer(serializer, this)
