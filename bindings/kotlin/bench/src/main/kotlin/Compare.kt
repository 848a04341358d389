// gw-kotlin against openai-java on the same loopback gw-mock: time per chat call (sequential)
// and per streamed chunk. Prints a table; asserts nothing. Usage: Compare <mock-url> [calls].
import com.openai.client.okhttp.OpenAIOkHttpClient
import com.openai.models.chat.completions.ChatCompletionCreateParams
import dev.gw.GwClient
import dev.gw.GwEvent
import dev.gw.GwOptions
import dev.gw.chat
import dev.gw.chatStream
import dev.gw.model.ChatMessage
import dev.gw.model.ChatRequest
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.runBlocking
import kotlin.time.Duration
import kotlin.time.measureTime

private const val MODEL = "gpt-test"
private val SHORT = "hello there"
private val LONG = (1..300).joinToString(" ") { "w$it" } // ~300 stream chunks

fun main(args: Array<String>) = runBlocking {
    val url = args.getOrNull(0) ?: error("usage: Compare <mock-url> [calls]")
    val calls = args.getOrNull(1)?.toInt() ?: 2000
    val streams = maxOf(20, calls / 40)

    val gw = GwClient(GwOptions(baseUrl = url, apiKey = "sk-test", maxRetries = 0))
    val oa = OpenAIOkHttpClient.builder().baseUrl("$url/v1").apiKey("sk-test").maxRetries(0).build()

    val gwReq = ChatRequest(MODEL, listOf(ChatMessage.user(SHORT)))
    val gwStreamReq = ChatRequest(MODEL, listOf(ChatMessage.user(LONG)))
    val oaReq = ChatCompletionCreateParams.builder().model(MODEL).addUserMessage(SHORT).build()
    val oaStreamReq = ChatCompletionCreateParams.builder().model(MODEL).addUserMessage(LONG).build()

    suspend fun gwCall() = check(gw.chat(gwReq).text!!.startsWith("Echo"))
    fun oaCall() = check(oa.chat().completions().create(oaReq).choices()[0].message().content().get().startsWith("Echo"))
    suspend fun gwStream(): Int {
        var n = 0
        gw.chatStream(gwStreamReq).collect { if (it is GwEvent.Chunk) n++ }
        return n
    }
    fun oaStream(): Int {
        var n = 0
        oa.chat().completions().createStreaming(oaStreamReq).use { s -> s.stream().forEach { n++ } }
        return n
    }

    // Warm-up: JIT, connection pools.
    repeat(calls / 4) { gwCall(); oaCall() }
    repeat(streams / 4) { gwStream(); oaStream() }

    val rows = mutableListOf<Triple<String, Duration, Duration>>()
    repeat(2) { round ->
        val g = measureTime { repeat(calls) { gwCall() } } / calls
        val o = measureTime { repeat(calls) { oaCall() } } / calls
        var gEvents = 0
        var oEvents = 0
        val gs = measureTime { repeat(streams) { gEvents += gwStream() } }
        val os = measureTime { repeat(streams) { oEvents += oaStream() } }
        rows += Triple("chat call, round ${round + 1}", g, o)
        rows += Triple("stream event ($gEvents / $oEvents events), round ${round + 1}", gs / gEvents, os / oEvents)
        rows += Triple("whole 300-word stream, round ${round + 1}", gs / streams, os / streams)
    }
    println("| measure | gw-kotlin | openai-java |")
    println("|---|---|---|")
    for ((what, g, o) in rows) println("| $what | $g | $o |")
    gw.close()
    oa.close()
}
