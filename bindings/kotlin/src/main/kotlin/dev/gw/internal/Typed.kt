package dev.gw.internal

import dev.gw.GwJson
import kotlinx.serialization.KSerializer
import kotlinx.serialization.SerializationException
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject

/** A model-class request as the JSON object the C functions take. */
internal fun <T> requestJson(serializer: KSerializer<T>, request: T): JsonObject =
    GwJson.encodeToJsonElement(serializer, request).jsonObject

/** An answer as a model class; a mismatch is GW_DECODE naming the class, not a bare SerializationException. */
internal fun <T> decodeAnswer(serializer: KSerializer<T>, answer: JsonObject): T =
    try {
        GwJson.decodeFromJsonElement(serializer, answer)
    } catch (e: SerializationException) {
        throw gwError(-4, "the answer does not fit ${serializer.descriptor.serialName}: ${e.message}", null)
    } catch (e: IllegalArgumentException) {
        throw gwError(-4, "the answer does not fit ${serializer.descriptor.serialName}: ${e.message}", null)
    }
