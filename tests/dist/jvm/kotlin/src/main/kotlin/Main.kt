// test-dist: a Kotlin program of a user: one chat against gw-mock (GW_BASE_URL, GW_API_KEY),
// with gw's native library from the gw-kotlin jar alone.
import dev.gw.Gw
import dev.gw.GwClient
import dev.gw.chat
import dev.gw.model.ChatMessage
import dev.gw.model.ChatRequest
import kotlinx.coroutines.runBlocking

fun main() = runBlocking {
    GwClient().use { gw ->
        val answer = gw.chat(ChatRequest("m", listOf(ChatMessage.user("from Kotlin"))))
        check(answer.text == "Echo: from Kotlin") { "chat answered ${answer.text}" }
    }
    println("kotlin consumer: gw ${Gw.version}, chat ok")
}
