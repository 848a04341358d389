package dev.gw

import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.flow.last
import kotlinx.coroutines.flow.mapNotNull
import kotlinx.serialization.decodeFromString
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.decodeFromJsonElement
import kotlinx.serialization.json.jsonObject

/** What a stream Flow emits: the gateway's events as they come, then the assembled result. */
sealed interface GwEvent {
    /**
     * One server-sent event. [event] is its SSE name ("message" for chat chunks,
     * "response.output_text.delta", ... for the Responses format), [dataText] its JSON text,
     * [textDelta] the text fragment it carries (null when none), [index] its 0-based position
     * among delivered events and [choiceIndex] the chat choice the text belongs to.
     */
    class Chunk(
        val event: String,
        val dataText: String,
        val textDelta: String?,
        val index: Long,
        val choiceIndex: Int,
    ) : GwEvent {
        /** [dataText] parsed (on first use: a stream that only prints text never parses). */
        val data: JsonObject by lazy { GwJson.parseToJsonElement(dataText).jsonObject }

        /** [dataText] as a model class, e.g. `decode<ChatCompletionChunk>()`. */
        inline fun <reified T> decode(): T = GwJson.decodeFromString(dataText)

        override fun toString() = "Chunk(#$index $event, textDelta=$textDelta)"
    }

    /**
     * The last emission of a stream that ended well: the `chat.completion` gw assembled from
     * the chunks, or the Responses `response` object. [response] describes the exchange.
     */
    class Done(val result: JsonObject, val response: ResponseMeta?) : GwEvent {
        inline fun <reified T> decode(): T = GwJson.decodeFromJsonElement(result)

        override fun toString() = "Done(${result["id"]})"
    }
}

/** Only the text fragments of a stream. */
fun Flow<GwEvent>.textDeltas(): Flow<String> =
    mapNotNull { (it as? GwEvent.Chunk)?.textDelta }

/** Collects the whole stream and returns its assembled result. */
suspend fun Flow<GwEvent>.result(): JsonObject =
    filterIsInstance<GwEvent.Done>().last().result
