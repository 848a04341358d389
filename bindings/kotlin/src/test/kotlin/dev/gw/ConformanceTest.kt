package dev.gw

// The conformance corpus (conformance/) run through the Kotlin binding's public API (GwClient,
// GwOptions, the suspend verbs with JsonObject in and out, the stream Flows, coroutine
// cancellation) against gw-mock: every case file is a case here, as in every other binding's
// runner. It runs when GW_CONFORMANCE_DIR is set (scripts/conformance.sh, `make conformance`)
// and skips otherwise; it writes $GW_CONFORMANCE_OUT/kotlin.tsv and prints
// `conformance kotlin: P passed, F failed, S skipped`. A case the Kotlin API cannot express
// fails here unless conformance/skip.json lists it under "kotlin" with the reason.

import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.longOrNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assumptions.assumeTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicReference
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds

private const val LANGUAGE = "kotlin"

class ConformanceTest {
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES) // the whole corpus, not one call
    fun corpus() {
        val dir = ConformanceCorpus.dirFromEnv()
        assumeTrue(dir != null, "GW_CONFORMANCE_DIR is not set: the corpus runs from scripts/conformance.sh (make conformance)")
        val base = ConformanceCorpus.mockUrl()
        val corpus = ConformanceCorpus(dir!!, LANGUAGE)
        val mock = MockControl(base)
        corpus.runAll { case -> runCase(mock, base, case) }
        val failures = corpus.finish(ConformanceCorpus.outDir(dir))
        assertTrue(failures.isEmpty(), "${failures.size} conformance cases failed (listed above)")
    }
}

private fun notExpressible(what: String) = NotExpressible(LANGUAGE, what)

/**
 * The case's options (snake_case JSON, the README's Options table) as GwOptions, as a Kotlin
 * user would write them. Keys GwOptions has no field for go in [GwOptions.extra], which the
 * binding documents for exactly that ("options newer than this binding").
 */
private fun clientOptions(all: JsonObject): GwOptions {
    var o = GwOptions()
    val extra = mutableMapOf<String, JsonElement>()
    for ((key, v) in all.entries.sortedBy { it.key }) {
        val prim = v as? JsonPrimitive
        fun text(): String = prim?.takeIf { it.isString }?.content ?: throw notExpressible("option $key $v: GwOptions takes a String")
        fun long(): Long = prim?.takeIf { !it.isString }?.longOrNull ?: throw notExpressible("option $key $v: GwOptions takes a number")
        fun ms(): Duration = long().milliseconds
        fun flag(): Boolean = prim?.takeIf { !it.isString }?.booleanOrNull ?: throw notExpressible("option $key $v: GwOptions takes a Boolean")
        o = when (key) {
            "base_url" -> o.copy(baseUrl = text())
            "api_key" -> o.copy(apiKey = text())
            "proxy" -> o.copy(proxy = text())
            "user_agent" -> o.copy(userAgent = text())
            "headers" -> o.copy(
                headers = (v as? JsonObject)?.mapValues { (name, value) ->
                    (value as? JsonPrimitive)?.takeIf { it.isString }?.content
                        ?: throw notExpressible("header $name $value: GwOptions.headers is a Map<String, String>")
                } ?: throw notExpressible("option headers $v: GwOptions.headers is a Map<String, String>"),
            )
            "connect_timeout_ms" -> o.copy(connectTimeout = ms())
            "read_timeout_ms" -> o.copy(readTimeout = ms())
            "total_timeout_ms" -> o.copy(totalTimeout = ms())
            "retry_base_delay_ms" -> o.copy(retryBaseDelay = ms())
            "retry_max_delay_ms" -> o.copy(retryMaxDelay = ms())
            "retry_after_cap_ms" -> o.copy(retryAfterCap = ms())
            "max_retries" -> o.copy(maxRetries = long().toInt())
            "validate" -> o.copy(validate = flag())
            "allow_insecure_http" -> o.copy(allowInsecureHttp = flag())
            "max_response_bytes" -> o.copy(maxResponseBytes = long())
            "max_line_bytes" -> o.copy(maxLineBytes = long())
            else -> o.also { extra[key] = v }
        }
    }
    return o.copy(extra = JsonObject(extra))
}

private fun family(args: JsonObject): VideoFamily = when (val f = (args["family"] as? JsonPrimitive)?.contentOrNull) {
    "unified" -> VideoFamily.UNIFIED
    "character" -> VideoFamily.CHARACTER
    "vendor_k" -> VideoFamily.VENDOR_K
    "vendor_r" -> VideoFamily.VENDOR_R
    else -> throw notExpressible("video family $f")
}

/** What one call through the API gave: the answer and its metadata, or the failure. */
private class Outcome(val answer: JsonElement?, val meta: ResponseMeta?, val failure: GwException?)

private fun fromError(seen: ConformanceSeen, e: GwException) {
    val param = (e.error?.get("param") as? JsonPrimitive)?.contentOrNull
    seen.error(e.status, e.type, e.code, param, e.errorMessage)
    seen.out = e.error
}

/** The verb as a Kotlin user would call it; stream events go into [seen]. */
private fun prepare(
    client: GwClient,
    verb: String,
    request: JsonElement?,
    requestText: String?,
    args: JsonObject,
    seen: ConformanceSeen,
): suspend () -> Outcome {
    if (requestText != null) {
        throw notExpressible("request_text: the Kotlin API takes the request as a JsonObject, not as text")
    }
    fun body(): JsonObject = request as? JsonObject
        ?: throw notExpressible("request $request: the Kotlin API takes the request as a JsonObject")
    fun arg(name: String) = (args[name] as? JsonPrimitive)?.contentOrNull ?: ""

    // Success metadata comes through CallOptions.onResponse (on a gw thread), failures' in the exception.
    fun plain(call: suspend (CallOptions) -> JsonElement): suspend () -> Outcome = {
        val meta = AtomicReference<ResponseMeta?>()
        try {
            val answer = call(CallOptions(onResponse = { meta.set(it) }))
            Outcome(answer, meta.get(), null)
        } catch (e: GwException) {
            Outcome(null, e.response, e)
        }
    }

    fun streamed(open: (JsonObject) -> kotlinx.coroutines.flow.Flow<GwEvent>): suspend () -> Outcome {
        val b = body()
        return {
            var done: GwEvent.Done? = null
            try {
                open(b).collect { ev ->
                    when (ev) {
                        is GwEvent.Chunk -> seen.event(ev.event, ev.textDelta, ev.choiceIndex)
                        is GwEvent.Done -> done = ev
                    }
                }
                val d = done ?: error("the stream Flow ended without GwEvent.Done")
                Outcome(d.result, d.response, null)
            } catch (e: GwException) {
                Outcome(null, e.response, e)
            }
        }
    }

    return when (verb) {
        "chat" -> body().let { b -> plain { client.chat(b, it) } }
        "chatStream" -> streamed { client.chatStream(it) }
        "responses" -> body().let { b -> plain { client.responses(b, it) } }
        "responsesStream" -> streamed { client.responsesStream(it) }
        "embeddings" -> body().let { b -> plain { client.embeddings(b, it) } }
        "imageGenerate" -> body().let { b -> plain { client.imageGenerate(b, it) } }
        "imageEdit" -> body().let { b -> plain { client.imageEdit(b, it) } }
        "videoCreate" -> body().let { b -> plain { client.videoCreate(b, it) } }
        "videoGenerate" -> body().let { b -> plain { client.videoGenerate(b, it) } }
        "videoCharacter" -> body().let { b -> plain { client.videoCharacter(b, it) } }
        "videoRemix" -> body().let { b -> plain { client.videoRemix(arg("id"), b, it) } }
        "generateContent" -> body().let { b -> plain { client.generateContent(arg("model"), b, it) } }
        "videoStatus" -> family(args).let { f -> plain { client.videoStatus(f, arg("id"), it) } }
        "videoWait" -> {
            val f = family(args)
            val wait = args["wait"]?.let {
                it as? JsonObject ?: throw notExpressible("wait options $it: videoWait takes interval and timeout as Durations")
            } ?: JsonObject(emptyMap())
            var interval = 2000.milliseconds // the API's defaults
            var timeout = 600_000.milliseconds
            for ((k, v) in wait) {
                val n = (v as? JsonPrimitive)?.takeIf { !it.isString }?.longOrNull
                    ?: throw notExpressible("wait option $k $v: videoWait takes a Duration")
                when (k) {
                    "interval_ms" -> interval = n.milliseconds
                    "timeout_ms" -> timeout = n.milliseconds
                    else -> throw notExpressible("wait option $k: videoWait has no such parameter")
                }
            }
            plain { client.videoWait(f, arg("id"), interval, timeout, it) }
        }
        "request" -> {
            val b = request?.let { body() } // absent: no body at all
            plain { client.request(arg("method"), arg("path"), b, it) }
        }
        else -> error("the Kotlin runner knows no verb $verb")
    }
}

private fun runCase(mock: MockControl, base: String, case: ConformanceCase): ConformanceSeen {
    mock.reset()
    val options = clientOptions(ConformanceCorpus.mergedOptions(case, base))
    val seen = ConformanceSeen()
    val client = try {
        GwClient(options)
    } catch (e: GwException) {
        fromError(seen, e)
        mock.record(seen, 0)
        return seen
    }
    var setupRequests = 0
    client.use {
        var args = case.args
        case.setupOperation?.let { op ->
            val made = runBlocking { prepare(client, op, case.setupRequest, null, JsonObject(emptyMap()), ConformanceSeen())() }
            made.failure?.let { throw IllegalStateException("setup $op failed: ${it.message}", it) }
            val id = ConformanceCorpus.valueAt(made.answer, case.setupIdPath) as? JsonPrimitive
            check(id != null && id.isString) { "setup answer has no string at ${case.setupIdPath}: ${made.answer}" }
            args = JsonObject(args + ("id" to id))
            setupRequests = mock.requests().size
        }
        case.faults.forEach(mock::fault)
        val call = prepare(client, case.operation, case.request, case.requestText, args, seen)
        val outcome = runBlocking {
            val after = case.cancelAfterMs ?: return@runBlocking call()
            // Cancel the coroutine after `after` ms: the Kotlin API's way to cancel a call. It
            // then ends with the coroutine's CancellationException, gw's GW_CANCELLED (-5).
            var result: Outcome? = null
            var returnedAt = 0L
            val job = launch(Dispatchers.Default) {
                try {
                    result = call()
                } catch (e: CancellationException) {
                    seen.error(-5, null, null, null, "the coroutine's CancellationException: ${e.message}")
                } finally {
                    returnedAt = System.nanoTime()
                }
            }
            delay(after)
            val cancelledAt = System.nanoTime()
            job.cancel()
            job.join()
            seen.cancelToReturn = java.time.Duration.ofNanos(returnedAt - cancelledAt)
            result
        }
        if (outcome != null) {
            val failure = outcome.failure
            if (failure != null) fromError(seen, failure) else seen.out = outcome.answer
            outcome.meta?.let { seen.meta(it.attempts, it.requestId, it.toString()) }
        }
    }
    mock.record(seen, setupRequests)
    return seen
}
