package dev.gw

import kotlinx.serialization.json.Json

/**
 * The Json configuration of the binding, also right for the app's own use with the model
 * classes: null fields and defaults are left out of requests, unknown answer fields land in
 * each class's `extra` (or are ignored by classes without one).
 */
val GwJson: Json = Json {
    ignoreUnknownKeys = true
    explicitNulls = false
    encodeDefaults = false
}
