// gw-kotlin against openai-java on the same loopback gw-mock. Prints a Markdown table;
// asserts nothing. Usage: Compare <mock-url> [calls].
//
// - chat call: one sequential non-streamed /v1/chat/completions round trip;
// - stream of N words: one whole streamed answer of N + 3 chunks, collected to the end;
// - per chunk: the slope between the 1200- and 2400-word streams, so fixed costs (request,
//   headers, end of body, and any one-off stall on the way) cancel out;
// - 1,000 concurrent streams of 300 words: gw with its default 64 threads (GwOptions.
//   maxThreads) against openai-java on a fixed pool of 64 threads; wall time, the JVM's peak
//   live threads and the heap in use after a GC once they all ended.
import com.openai.client.okhttp.OpenAIOkHttpClient
import com.openai.models.chat.completions.ChatCompletionCreateParams
import dev.gw.GwClient
import dev.gw.GwEvent
import dev.gw.GwOptions
import dev.gw.chat
import dev.gw.chatStream
import dev.gw.model.ChatMessage
import dev.gw.model.ChatRequest
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.runBlocking
import java.lang.management.ManagementFactory
import java.util.concurrent.Callable
import java.util.concurrent.Executors
import kotlin.time.Duration
import kotlin.time.measureTime

private const val MODEL = "gpt-test"
private val SIZES = listOf(1, 300, 1200, 2400)

private fun words(n: Int) = (1..n).joinToString(" ") { "w$it" }

fun main(args: Array<String>) = runBlocking {
    val url = args.getOrNull(0) ?: error("usage: Compare <mock-url> [calls]")
    val calls = args.getOrNull(1)?.toInt() ?: 2000
    val streams = maxOf(10, calls / 100)

    val gw = GwClient(GwOptions(baseUrl = url, apiKey = "sk-test", maxRetries = 0))
    val oa = OpenAIOkHttpClient.builder().baseUrl("$url/v1").apiKey("sk-test").maxRetries(0).build()

    val gwChat = ChatRequest(MODEL, listOf(ChatMessage.user("hello there")))
    val oaChat = ChatCompletionCreateParams.builder().model(MODEL).addUserMessage("hello there").build()
    suspend fun gwCall() = check(gw.chat(gwChat).text!!.startsWith("Echo"))
    fun oaCall() = check(oa.chat().completions().create(oaChat).choices()[0].message().content().get().startsWith("Echo"))

    suspend fun gwStream(req: ChatRequest): Int {
        var n = 0
        gw.chatStream(req).collect { if (it is GwEvent.Chunk) n++ }
        return n
    }
    fun oaStream(req: ChatCompletionCreateParams): Int {
        var n = 0
        oa.chat().completions().createStreaming(req).use { s -> s.stream().forEach { n++ } }
        return n
    }
    val gwReqs = SIZES.associateWith { ChatRequest(MODEL, listOf(ChatMessage.user(words(it)))) }
    val oaReqs = SIZES.associateWith { ChatCompletionCreateParams.builder().model(MODEL).addUserMessage(words(it)).build() }

    // Warm-up: JIT, connection pools.
    repeat(calls / 4) { gwCall(); oaCall() }
    for (size in SIZES) repeat(streams / 2) { gwStream(gwReqs.getValue(size)); oaStream(oaReqs.getValue(size)) }

    val rows = mutableListOf<Triple<String, Duration, Duration>>()
    repeat(2) { round ->
        val r = " (round ${round + 1})"
        rows += Triple("chat call$r", measureTime { repeat(calls) { gwCall() } } / calls, measureTime { repeat(calls) { oaCall() } } / calls)
        val g = HashMap<Int, Duration>()
        val o = HashMap<Int, Duration>()
        val chunks = HashMap<Int, Int>()
        for (size in SIZES) {
            var n = 0
            g[size] = measureTime { repeat(streams) { n = gwStream(gwReqs.getValue(size)) } } / streams
            var m = 0
            o[size] = measureTime { repeat(streams) { m = oaStream(oaReqs.getValue(size)) } } / streams
            check(n == m) { "chunk counts differ: $n / $m" }
            chunks[size] = n
            rows += Triple("stream of $size words, $n chunks$r", g.getValue(size), o.getValue(size))
        }
        val dn = chunks.getValue(2400) - chunks.getValue(1200)
        rows += Triple("per chunk (slope 1200 -> 2400 words)$r", (g.getValue(2400) - g.getValue(1200)) / dn, (o.getValue(2400) - o.getValue(1200)) / dn)
    }
    // 1,000 streams at once, threads bounded at 64 on both sides.
    val threads = ManagementFactory.getThreadMXBean()
    fun heapMb(): Long {
        System.gc()
        val rt = Runtime.getRuntime()
        return (rt.totalMemory() - rt.freeMemory()) / (1024 * 1024)
    }
    val many = 1000
    val manyReq = gwReqs.getValue(300)
    threads.resetPeakThreadCount()
    val gwMany = measureTime {
        val counts = (1..many).map { async(Dispatchers.Default) { gwStream(manyReq) } }.awaitAll()
        check(counts.all { it == counts[0] })
    }
    val gwPeak = threads.peakThreadCount
    val gwHeap = heapMb()
    val pool = Executors.newFixedThreadPool(64)
    threads.resetPeakThreadCount()
    val oaMany = measureTime {
        val counts = pool.invokeAll((1..many).map { Callable { oaStream(oaReqs.getValue(300)) } }).map { it.get() }
        check(counts.all { it == counts[0] })
    }
    val oaPeak = threads.peakThreadCount
    val oaHeap = heapMb()
    pool.shutdown()
    println("| $many concurrent streams of 300 words: wall time | $gwMany | $oaMany |")
    println("| ... peak JVM threads | $gwPeak | $oaPeak |")
    println("| ... heap in use after, MB | $gwHeap | $oaHeap |")
    println()
    println("| measure | gw-kotlin | openai-java |")
    println("|---|---|---|")
    for ((what, gt, ot) in rows) println("| $what | $gt | $ot |")
    gw.close()
    oa.close()
}
