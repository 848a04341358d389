package dev.gw.model

import kotlinx.serialization.KSerializer
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonTransformingSerializer
import kotlinx.serialization.json.jsonObject

/** The empty object every `extra` defaults to. */
val NoExtra: JsonObject = JsonObject(emptyMap())

/**
 * How the model classes carry fields this binding does not name: each has a property
 * `extra: JsonObject`. Reading, every key the class does not declare goes into `extra`;
 * writing, `extra`'s keys are written beside the declared ones. So a new gateway field
 * survives a round trip, and a request can send a field the class does not know.
 *
 * Built on the class's generated serializer (@KeepGeneratedSerializer), JSON only.
 */
open class WithExtraSerializer<T : Any>(generated: KSerializer<T>) : JsonTransformingSerializer<T>(generated) {
    private val declared: Set<String> =
        (0 until generated.descriptor.elementsCount).map { generated.descriptor.getElementName(it) }.toSet() - EXTRA

    override fun transformDeserialize(element: JsonElement): JsonElement {
        val obj = element as? JsonObject ?: return element
        val known = LinkedHashMap<String, JsonElement>()
        val unknown = LinkedHashMap<String, JsonElement>()
        for ((k, v) in obj) if (k in declared) known[k] = v else unknown[k] = v
        if (unknown.isNotEmpty()) known[EXTRA] = JsonObject(unknown)
        return JsonObject(known)
    }

    override fun transformSerialize(element: JsonElement): JsonElement {
        val obj = element.jsonObject
        val extra = obj[EXTRA] as? JsonObject ?: return if (EXTRA in obj) JsonObject(obj - EXTRA) else obj
        // Declared fields win over an `extra` key of the same name.
        return JsonObject(extra + (obj - EXTRA))
    }

    private companion object {
        const val EXTRA = "extra"
    }
}
