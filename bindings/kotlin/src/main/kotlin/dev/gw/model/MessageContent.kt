package dev.gw.model

import kotlinx.serialization.KSerializer
import kotlinx.serialization.Serializable
import kotlinx.serialization.SerializationException
import kotlinx.serialization.builtins.ListSerializer
import kotlinx.serialization.descriptors.SerialDescriptor
import kotlinx.serialization.descriptors.buildClassSerialDescriptor
import kotlinx.serialization.encoding.Decoder
import kotlinx.serialization.encoding.Encoder
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonDecoder
import kotlinx.serialization.json.JsonEncoder
import kotlinx.serialization.json.JsonPrimitive

/** A message's `content`: a plain string, or an array of parts (multimodal input). */
@Serializable(with = MessageContent.Serializer::class)
sealed interface MessageContent {
    /** The text: the string itself, or the text parts joined. */
    val text: String

    data class Text(override val text: String) : MessageContent

    data class Parts(val parts: List<ContentPart>) : MessageContent {
        override val text: String get() = parts.mapNotNull { it.text }.joinToString("")
    }

    /** String <-> Text, array <-> Parts; anything else is an error naming what came. */
    object Serializer : KSerializer<MessageContent> {
        private val parts = ListSerializer(ContentPart.serializer())
        override val descriptor: SerialDescriptor = buildClassSerialDescriptor("dev.gw.model.MessageContent")

        override fun deserialize(decoder: Decoder): MessageContent {
            val json = decoder as? JsonDecoder ?: throw SerializationException("MessageContent is JSON only")
            val e = json.decodeJsonElement()
            return when {
                e is JsonPrimitive && e.isString -> Text(e.content)
                e is JsonArray -> Parts(json.json.decodeFromJsonElement(parts, e))
                else -> throw SerializationException("content: must be a string or an array of parts, got $e")
            }
        }

        override fun serialize(encoder: Encoder, value: MessageContent) {
            val json = encoder as? JsonEncoder ?: throw SerializationException("MessageContent is JSON only")
            when (value) {
                is Text -> json.encodeJsonElement(JsonPrimitive(value.text))
                is Parts -> json.encodeJsonElement(json.json.encodeToJsonElement(parts, value.parts))
            }
        }
    }
}
