@file:OptIn(ExperimentalSerializationApi::class)

package dev.gw.model

import kotlinx.serialization.ExperimentalSerializationApi
import kotlinx.serialization.KSerializer
import kotlinx.serialization.KeepGeneratedSerializer
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable
import kotlinx.serialization.SerializationException
import kotlinx.serialization.descriptors.SerialDescriptor
import kotlinx.serialization.descriptors.buildClassSerialDescriptor
import kotlinx.serialization.encoding.Decoder
import kotlinx.serialization.encoding.Encoder
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonDecoder
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonEncoder
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.floatOrNull
import java.nio.ByteBuffer
import java.nio.ByteOrder
import java.util.Base64

// Embeddings (POST /v1/embeddings). The vectors are FloatArrays whichever encoding the
// gateway used: a JSON array of numbers, or base64 little-endian float32s.

@KeepGeneratedSerializer
@Serializable(with = EmbeddingRequest.Serializer::class)
data class EmbeddingRequest(
    val model: String,
    /** A string, an array of strings, or an array of token arrays. */
    val input: JsonElement,
    /** `float` (default) or `base64`: either way [Embedding.vector] is a FloatArray. */
    @SerialName("encoding_format") val encodingFormat: String? = null,
    val dimensions: Int? = null,
    val extra: JsonObject = NoExtra,
) {
    constructor(model: String, inputs: List<String>, encodingFormat: String? = null, dimensions: Int? = null) :
        this(model, JsonArray(inputs.map(::JsonPrimitive)), encodingFormat, dimensions)

    internal object Serializer : WithExtraSerializer<EmbeddingRequest>(generatedSerializer())

    /** The Java way: `EmbeddingRequest.builder("model").input("a", "b").build()`. */
    class Builder internal constructor(model: String) {
        private var r = EmbeddingRequest(model, JsonArray(emptyList()))

        fun input(vararg inputs: String) = apply { r = r.copy(input = JsonArray(inputs.map(::JsonPrimitive))) }
        fun inputs(inputs: List<String>) = apply { r = r.copy(input = JsonArray(inputs.map(::JsonPrimitive))) }
        /** Any input JSON (e.g. arrays of token ids). */
        fun input(input: JsonElement) = apply { r = r.copy(input = input) }
        /** `float` (default) or `base64`: either way the vectors are float arrays. */
        fun encodingFormat(format: String?) = apply { r = r.copy(encodingFormat = format) }
        fun dimensions(dimensions: Int?) = apply { r = r.copy(dimensions = dimensions) }
        fun extra(extra: JsonObject) = apply { r = r.copy(extra = JsonObject(r.extra + extra)) }
        fun build(): EmbeddingRequest = r
    }

    companion object {
        @JvmStatic
        fun builder(model: String): Builder = Builder(model)
    }
}

@KeepGeneratedSerializer
@Serializable(with = EmbeddingList.Serializer::class)
data class EmbeddingList(
    @SerialName("object") val objectType: String? = null,
    val data: List<Embedding> = emptyList(),
    val model: String? = null,
    val usage: Usage? = null,
    val extra: JsonObject = NoExtra,
) {
    internal object Serializer : WithExtraSerializer<EmbeddingList>(generatedSerializer())
}

/** One vector. Not a data class: equality compares the vector's contents. */
@KeepGeneratedSerializer
@Serializable(with = Embedding.Serializer::class)
class Embedding(
    val index: Int = 0,
    @SerialName("embedding") @Serializable(with = EmbeddingVector::class) val vector: FloatArray,
    @SerialName("object") val objectType: String? = "embedding",
    val extra: JsonObject = NoExtra,
) {
    override fun equals(other: Any?) = other is Embedding && index == other.index &&
        vector.contentEquals(other.vector) && objectType == other.objectType && extra == other.extra

    override fun hashCode() = 31 * index + vector.contentHashCode()

    override fun toString() = "Embedding(index=$index, ${vector.size} floats)"

    internal object Serializer : WithExtraSerializer<Embedding>(generatedSerializer())
}

/** Reads an embedding from a number array or a base64 string; writes a number array. */
object EmbeddingVector : KSerializer<FloatArray> {
    override val descriptor: SerialDescriptor = buildClassSerialDescriptor("dev.gw.model.EmbeddingVector")

    override fun deserialize(decoder: Decoder): FloatArray {
        val json = decoder as? JsonDecoder ?: throw SerializationException("EmbeddingVector is JSON only")
        return when (val e = json.decodeJsonElement()) {
            is JsonArray -> FloatArray(e.size) { i -> (e[i] as? JsonPrimitive)?.floatOrNull ?: notNumber(e[i]) }
            is JsonPrimitive -> if (e.isString) decodeBase64(e.content) else notNumber(e)
            else -> notNumber(e)
        }
    }

    override fun serialize(encoder: Encoder, value: FloatArray) {
        val json = encoder as? JsonEncoder ?: throw SerializationException("EmbeddingVector is JSON only")
        json.encodeJsonElement(JsonArray(value.map { JsonPrimitive(it) }))
    }

    /** Base64 of little-endian float32s, as the gateway sends with `encoding_format: base64`. */
    fun decodeBase64(text: String): FloatArray {
        val bytes = try {
            Base64.getDecoder().decode(text)
        } catch (e: IllegalArgumentException) {
            throw SerializationException("embedding: invalid base64 (${e.message})")
        }
        if (bytes.size % 4 != 0) {
            throw SerializationException("embedding: ${bytes.size} bytes is not a whole number of float32s")
        }
        val floats = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer()
        return FloatArray(floats.remaining()).also { floats.get(it) }
    }

    private fun notNumber(e: JsonElement): Nothing =
        throw SerializationException("embedding: must be an array of numbers or a base64 string, got $e")
}
