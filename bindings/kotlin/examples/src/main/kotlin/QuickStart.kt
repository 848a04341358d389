// The Kotlin quick start: chat, a streamed chat, embeddings, an image and a video task, with
// errors handled the Kotlin way. Base URL and key come from GW_BASE_URL / GW_API_KEY; models
// from GW_CHAT_MODEL, GW_EMBED_MODEL, GW_IMAGE_MODEL, GW_VIDEO_MODEL (defaults below).
import dev.gw.GwClient
import dev.gw.GwEvent
import dev.gw.GwException
import dev.gw.GwOptions
import dev.gw.VideoFamily
import dev.gw.chat
import dev.gw.chatStream
import dev.gw.embeddings
import dev.gw.imageGenerate
import dev.gw.model.ChatMessage
import dev.gw.model.ChatRequest
import dev.gw.model.EmbeddingRequest
import dev.gw.model.ImageGenerationRequest
import dev.gw.model.VideoRequest
import dev.gw.videoCreate
import dev.gw.videoWaitFlow
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.flow.onEach
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.minutes

private fun env(name: String, default: String) = System.getenv(name)?.takeIf { it.isNotEmpty() } ?: default

fun main() = runBlocking {
    val chatModel = env("GW_CHAT_MODEL", "gpt-4o-mini")
    val pollEvery = env("GW_POLL_MS", "2000").toLong().milliseconds

    // GwOptions() takes the base URL and key from the environment.
    GwClient(GwOptions(maxRetries = 2)).use { gw ->
        val answer = gw.chat(ChatRequest(chatModel, listOf(ChatMessage.user("Say hello from Kotlin"))))
        println("chat: ${answer.text}")

        print("stream: ")
        gw.chatStream(ChatRequest(chatModel, listOf(ChatMessage.user("Count to five, please")))).collect { event ->
            when (event) {
                is GwEvent.Chunk -> event.textDelta?.let { print(it); System.out.flush() }
                is GwEvent.Done -> println("\n  (assembled: ${event.result["id"]}, ${event.response?.attempts} attempt(s))")
            }
        }

        val vectors = gw.embeddings(
            EmbeddingRequest(env("GW_EMBED_MODEL", "text-embedding-3-small"), listOf("kotlin", "rust"), "base64"),
        )
        println("embeddings: ${vectors.data.size} vectors of ${vectors.data[0].vector.size} floats (base64 decoded)")

        val image = gw.imageGenerate(ImageGenerationRequest(env("GW_IMAGE_MODEL", "image-model"), "a lighthouse at dawn"))
        println("image: ${image.data.firstOrNull()?.url}")

        val task = gw.videoCreate(VideoRequest(env("GW_VIDEO_MODEL", "video-model"), "waves on a beach", duration = 5))
        println("video task ${task.pollId}: ${task.status}")
        withTimeout(10.minutes) {
            gw.videoWaitFlow(VideoFamily.UNIFIED, task.pollId!!, interval = pollEvery)
                .onEach { println("  poll: ${it["status"]} ${it["progress"] ?: ""}") }
                .collect()
        }

        // Errors are a sealed hierarchy: catch the ones you handle.
        try {
            gw.chat(ChatRequest(chatModel, listOf(ChatMessage.user("hi")), temperature = 5.0))
        } catch (e: GwException.InvalidArgument) {
            println("refused before sending: ${e.param} (${e.errorMessage})")
        } catch (e: GwException.RateLimited) {
            println("rate limited, retry after ${e.retryAfter}")
        }
    }
    println("kotlin example: done")
}
