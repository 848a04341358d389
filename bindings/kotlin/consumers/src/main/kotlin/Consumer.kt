// A program of an app on an older Kotlin (1.9 or 2.0) using gw-kotlin: it must compile
// against the published jar with that compiler and run against gw-mock (GW_BASE_URL,
// GW_API_KEY). scripts/test-kotlin.sh builds it once per Kotlin version (kotlin-1.9/,
// kotlin-2.0/); each check fails the run with a message naming what went wrong.
import dev.gw.GwClient
import dev.gw.GwEvent
import dev.gw.GwException
import dev.gw.GwOptions
import dev.gw.chat
import dev.gw.chatStream
import dev.gw.embeddings
import dev.gw.model.ChatMessage
import dev.gw.model.ChatRequest
import dev.gw.model.EmbeddingRequest
import dev.gw.textDeltas
import kotlinx.coroutines.flow.filterIsInstance
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject

fun main() = runBlocking {
    val kotlin = KotlinVersion.CURRENT
    GwClient(GwOptions(maxRetries = 0, maxThreads = 4)).use { gw ->
        val request = ChatRequest(
            "consumer-model",
            listOf(ChatMessage.user("from Kotlin $kotlin")),
            extra = buildJsonObject { put("user", JsonPrimitive("consumer")) },
        )
        val answer = gw.chat(request)
        check(answer.text == "Echo: from Kotlin $kotlin") { "chat answered ${answer.text}" }

        val text = gw.chatStream(request).textDeltas().toList().joinToString("")
        check(text == "Echo: from Kotlin $kotlin") { "the stream said $text" }
        val done = gw.chatStream(request).filterIsInstance<GwEvent.Done>().toList().single()
        check(done.result["object"] == JsonPrimitive("chat.completion")) { "stream result ${done.result}" }

        val vectors = gw.embeddings(EmbeddingRequest("embed-model", listOf("a", "b"), "base64"))
        check(vectors.data.size == 2 && vectors.data[0].vector.isNotEmpty()) { "embeddings: $vectors" }

        val blocking = gw.blocking().chat(ChatRequest.builder("consumer-model").user("blocking").build())
        check(blocking.text == "Echo: blocking") { "blocking() answered ${blocking.text}" }
    }
    val refused = try {
        GwClient(GwOptions(apiKey = "sk-wrong", maxRetries = 0)).use { it.chat(ChatRequest("m", listOf(ChatMessage.user("x")))) }
        null
    } catch (e: GwException) {
        e
    }
    check(refused is GwException.Unauthorized) { "a wrong key gave $refused" }
    println("consumer: Kotlin $kotlin compiled against gw-kotlin and ran: chat, stream, embeddings, blocking(), errors")
}
