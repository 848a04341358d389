package dev.gw

// The JVM runners' reading of the conformance corpus (conformance/): case files, the skip
// list, gw-mock's control endpoints, the checks of `expect` (conformance/README.md), the TSV
// and the printed line. Knows nothing of gw's API: ConformanceTest.kt (Kotlin API) and
// ConformanceJavaTest.java (Java API) make the calls and fill a [ConformanceSeen].

import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonNull
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.contentOrNull
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.longOrNull
import java.io.File
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Duration

/** One file under conformance/cases, as the README describes it. */
class ConformanceCase(
    /** The path under cases/ without .json. */
    val name: String,
    json: JsonObject,
) {
    val operation: String = json.text("operation") ?: error("$name: no operation")

    /** The request as written (any JSON value), or null when the case has none. */
    val request: JsonElement? = json["request"]

    /** The body as unparsed text, instead of [request]. */
    val requestText: String? = json.text("request_text")
    val args: JsonObject = json["args"] as? JsonObject ?: JsonObject(emptyMap())
    val options: JsonObject = json["options"] as? JsonObject ?: JsonObject(emptyMap())
    val faults: List<JsonElement> = (json["faults"] as? JsonArray) ?: emptyList()
    private val setup = json["setup"] as? JsonObject
    val setupOperation: String? = setup?.text("operation")
    val setupRequest: JsonElement? = setup?.get("request")
    val setupIdPath: String = setup?.text("id_path") ?: "id"
    private val cancel = json["cancel"] as? JsonObject

    /** ms after the call starts to cancel it; null: no cancel. */
    val cancelAfterMs: Long? = (cancel?.get("after_ms") as? JsonPrimitive)?.longOrNull
    val cancelBoundMs: Long = (cancel?.get("bound_ms") as? JsonPrimitive)?.longOrNull ?: 0
    val expect: JsonObject = json["expect"] as? JsonObject ?: JsonObject(emptyMap())

    /** A string argument (`id`, `model`, `method`, `path`, `family`), or null. */
    fun arg(name: String): String? = args.text(name)
}

/** One stream event as the binding gave it. */
class ConformanceEvent(val name: String, val textDelta: String?, val choice: Int)

/** What a runner saw of one case's call and of the mock's recording. */
class ConformanceSeen {
    var status: Int = 0

    /** The answer (the assembled object for a stream). */
    var out: JsonElement? = null

    /** status, type, code, param, message of the error; null when the call succeeded. */
    var errorFields: Map<String, JsonElement>? = null
    val events: MutableList<ConformanceEvent> = mutableListOf()

    /** -1: the binding gave no metadata. */
    var attempts: Int = -1
    var requestId: Boolean = false

    /** The metadata as the binding prints it. */
    var metaText: String = ""

    /** From the cancel to the call's return (negative: it returned first); null: never cancelled. */
    var cancelToReturn: Duration? = null
    var sent: Int = 0
    var lastBody: JsonElement? = null
    var lastHeaders: List<Pair<String, String>> = emptyList()
    var lastQuery: String? = null

    fun event(name: String, textDelta: String?, choice: Int) {
        events += ConformanceEvent(name, textDelta, choice)
    }

    /** The call failed with gw's [status] and these members of its error. */
    fun error(status: Int, type: String?, code: String?, param: String?, message: String?) {
        this.status = status
        errorFields = buildMap {
            put("status", JsonPrimitive(status))
            put("type", JsonPrimitive(type))
            put("code", JsonPrimitive(code))
            put("param", JsonPrimitive(param))
            put("message", JsonPrimitive(message))
        }
    }

    /** The metadata of the call: [attempts] 0 counts as none, as the other runners read it. */
    fun meta(attempts: Int, requestId: String?, text: String) {
        if (attempts <= 0) return
        this.attempts = attempts
        this.requestId = !requestId.isNullOrEmpty()
        metaText = text
    }
}

/** A case the binding's API cannot write: skip.json must list it for the language. Unchecked, for Java. */
class NotExpressible(language: String, what: String) :
    RuntimeException("the ${language.replaceFirstChar { it.uppercase() }} API cannot express this case (list it in skip.json under \"$language\"): $what")

/** gw-mock's /__mock endpoints over java.net.http (no auth, never recorded). */
class MockControl(base: String) {
    private val base = base.trimEnd('/')
    private val http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()

    private fun call(method: String, path: String, body: String?): String {
        val request = HttpRequest.newBuilder(URI(base + path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .method(method, body?.let { HttpRequest.BodyPublishers.ofString(it) } ?: HttpRequest.BodyPublishers.noBody())
            .build()
        val response = http.send(request, HttpResponse.BodyHandlers.ofString())
        check(response.statusCode() == 200) { "mock $method $path: ${response.statusCode()} ${response.body()}" }
        return response.body()
    }

    fun reset() {
        call("POST", "/__mock/reset", "{}")
    }

    fun fault(fault: JsonElement) {
        call("POST", "/__mock/faults", fault.toString())
    }

    /** Every request recorded since the reset, oldest first. */
    fun requests(): List<JsonObject> = GwJson.parseToJsonElement(call("GET", "/__mock/requests", null)).jsonArray.map { it.jsonObject }

    /** Fills [seen]'s sent, last body, headers and query from the recording, less the setup's. */
    fun record(seen: ConformanceSeen, setupRequests: Int) {
        val recorded = requests()
        seen.sent = recorded.size - setupRequests
        val last = recorded.lastOrNull() ?: return
        seen.lastBody = last["json"]
        seen.lastQuery = last.text("query")
        seen.lastHeaders = (last["headers"] as? JsonArray).orEmpty().mapNotNull { h ->
            val pair = h as? JsonArray ?: return@mapNotNull null
            val name = (pair.getOrNull(0) as? JsonPrimitive)?.contentOrNull ?: return@mapNotNull null
            name to ((pair.getOrNull(1) as? JsonPrimitive)?.contentOrNull ?: "")
        }
    }
}

/** The cases and one language's skips; collects the outcomes. */
class ConformanceCorpus(val dir: File, val language: String) {
    val cases: List<ConformanceCase>
    private val skips: Map<String, String>
    private val rows = StringBuilder()
    private val failures = mutableListOf<String>()
    private var passed = 0
    private var failed = 0
    private var skipped = 0

    init {
        val casesDir = File(dir, "cases")
        cases = casesDir.walkTopDown()
            .filter { it.isFile && it.name.endsWith(".json") }
            .map { f ->
                val name = f.relativeTo(casesDir).invariantSeparatorsPath.removeSuffix(".json")
                val json = runCatching { GwJson.parseToJsonElement(f.readText()).jsonObject }
                    .getOrElse { throw IllegalStateException("conformance $language: $f: ${it.message}", it) }
                ConformanceCase(name, json)
            }
            .sortedBy { it.name }
            .toList()
        val all = GwJson.parseToJsonElement(File(dir, "skip.json").readText()).jsonObject
        skips = (all[language] as? JsonObject).orEmpty().mapValues { (_, v) -> (v as JsonPrimitive).content }
    }

    /** Why this language skips [case], or null. */
    fun skipReason(case: ConformanceCase): String? = skips[case.name]

    fun record(name: String, word: String, why: String) {
        when (word) {
            "pass" -> passed++
            "skip" -> skipped++
            else -> {
                failed++
                failures += "conformance $language FAIL $name: $why"
            }
        }
        rows.append(name).append('\t').append(word).append('\t')
            .append(why.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ')).append('\n')
    }

    /** Runs each case not skipped through [run] (which gives what it saw) and records the outcome. */
    fun runAll(run: (ConformanceCase) -> ConformanceSeen) {
        for (case in cases) {
            val skip = skipReason(case)
            if (skip != null) {
                record(case.name, "skip", skip)
                continue
            }
            val why = try {
                check(case, run(case))
            } catch (e: Exception) {
                e.message ?: e.toString()
            }
            record(case.name, if (why.isEmpty()) "pass" else "fail", why)
        }
    }

    /** Writes <language>.tsv into [outDir], prints the failures and the line; returns the failures. */
    fun finish(outDir: File): List<String> {
        outDir.mkdirs()
        File(outDir, "$language.tsv").writeText(rows.toString())
        failures.forEach(::println)
        println("conformance $language: $passed passed, $failed failed, $skipped skipped")
        return failures
    }

    companion object {
        /** The corpus directory from GW_CONFORMANCE_DIR, or null when unset. */
        @JvmStatic
        fun dirFromEnv(): File? = System.getenv("GW_CONFORMANCE_DIR")?.takeIf { it.isNotEmpty() }?.let(::File)

        /** gw-mock's address: GW_MOCK_URL, else GW_TEST_BASE_URL. */
        @JvmStatic
        fun mockUrl(): String = listOf("GW_MOCK_URL", "GW_TEST_BASE_URL").firstNotNullOfOrNull { key ->
            System.getenv(key)?.takeIf { it.isNotEmpty() }
        } ?: error("GW_MOCK_URL (or GW_TEST_BASE_URL) must name the gw-mock to run against")

        /** Where the TSV goes: GW_CONFORMANCE_OUT, else build/conformance next to the corpus. */
        @JvmStatic
        fun outDir(dir: File): File =
            System.getenv("GW_CONFORMANCE_OUT")?.takeIf { it.isNotEmpty() }?.let(::File)
                ?: File(dir, "../build/conformance")

        /** The runner's own options (README): the case's are merged over them. */
        @JvmStatic
        fun mergedOptions(case: ConformanceCase, baseUrl: String): JsonObject = JsonObject(
            mapOf(
                "base_url" to JsonPrimitive(baseUrl),
                "api_key" to JsonPrimitive("sk-test"),
                "retry_base_delay_ms" to JsonPrimitive(5),
                "retry_max_delay_ms" to JsonPrimitive(20),
            ) + case.options,
        )

        /** [doc] along a dotted path of keys and indexes (`choices.0.message.content`); "" is [doc]. */
        @JvmStatic
        fun valueAt(doc: JsonElement?, path: String): JsonElement? {
            if (path.isEmpty()) return doc
            var node = doc
            for (step in path.split('.')) {
                node = when (val here = node) {
                    is JsonObject -> here[step] ?: return null
                    is JsonArray -> step.toIntOrNull()?.let { here.getOrNull(it) } ?: return null
                    else -> return null
                }
            }
            return node
        }

        /** JSON equality with numbers compared by value (1 == 1.0). */
        fun sameJson(a: JsonElement?, b: JsonElement?): Boolean = when {
            a == null || b == null -> a == b
            a is JsonNull || b is JsonNull -> a is JsonNull && b is JsonNull
            a is JsonObject && b is JsonObject -> a.keys == b.keys && a.all { (k, v) -> sameJson(v, b[k]) }
            a is JsonArray && b is JsonArray -> a.size == b.size && a.indices.all { sameJson(a[it], b[it]) }
            a is JsonPrimitive && b is JsonPrimitive -> when {
                a.isString || b.isString -> a.isString == b.isString && a.content == b.content
                else -> {
                    val x = a.content.toBigDecimalOrNull()
                    val y = b.content.toBigDecimalOrNull()
                    if (x != null && y != null) x.compareTo(y) == 0 else a.content == b.content
                }
            }
            else -> false
        }

        private fun isNull(v: JsonElement?) = v == null || v is JsonNull

        /** A value as JSON for a message, cut at 300 characters. */
        private fun show(v: JsonElement?): String {
            val text = v?.toString() ?: "nothing"
            return if (text.length > 300) text.take(300) + "..." else text
        }

        private fun checkPairs(what: String, doc: JsonElement?, pairs: JsonElement?, problems: MutableList<String>) {
            for (p in (pairs as? JsonArray).orEmpty()) {
                val pair = p as? JsonArray
                val path = (pair?.getOrNull(0) as? JsonPrimitive)?.takeIf { it.isString }?.content
                if (pair == null || pair.size != 2 || path == null) {
                    problems += "$what: malformed pair ${show(p)}"
                    continue
                }
                val want = pair[1]
                val got = valueAt(doc, path)
                if ((isNull(want) && isNull(got)) || (got != null && sameJson(got, want))) continue
                problems += "$what $path: got ${show(got)}, expected ${show(want)}"
            }
        }

        private fun JsonObject.long(key: String): Long? = (this[key] as? JsonPrimitive)?.takeIf { !it.isString }?.content?.toBigDecimalOrNull()?.toLong()

        /** Every difference between [case]'s expect and [seen]; "" passes. */
        @JvmStatic
        fun check(case: ConformanceCase, seen: ConformanceSeen): String {
            val e = case.expect
            val problems = mutableListOf<String>()
            e.long("status")?.let { want ->
                if (want != seen.status.toLong()) {
                    problems += "status ${seen.status} (${runCatching { Gw.statusName(seen.status) }.getOrDefault("?")}), expected $want; out: ${show(seen.out)}"
                }
            }
            (e["error"] as? JsonObject)?.let { checkError(it, seen, problems) }
            e["answer"]?.let { checkPairs("answer", seen.out, it, problems) }
            for (p in (e["answer_lacks"] as? JsonArray).orEmpty()) {
                val path = (p as? JsonPrimitive)?.content ?: continue
                val v = valueAt(seen.out, path)
                if (!isNull(v)) problems += "answer $path: expected absent, got ${show(v)}"
            }
            (e["events"] as? JsonObject)?.let { checkEvents(it, seen.events, problems) }
            (e["meta"] as? JsonObject)?.let { meta ->
                meta.long("attempts")?.let { want ->
                    if (seen.attempts.toLong() != want) problems += "meta.attempts ${seen.attempts}, expected $want"
                }
                if ((meta["request_id"] as? JsonPrimitive)?.content == "true" && !seen.requestId) {
                    problems += "meta.request_id: absent"
                }
                meta.text("text_lacks")?.let { secret ->
                    if (seen.metaText.lowercase().contains(secret.lowercase())) problems += "metadata holds \"$secret\" (any case)"
                }
            }
            e.long("sent")?.let { want ->
                if (seen.sent.toLong() != want) problems += "sent ${seen.sent} requests, expected $want"
            }
            e.text("sent_query")?.let { want ->
                if (seen.lastQuery != want) problems += "sent query ${seen.lastQuery?.let { "\"$it\"" } ?: "none"}, expected \"$want\""
            }
            e["sent_body"]?.let { checkPairs("sent_body", seen.lastBody, it, problems) }
            (e["sent_header"] as? JsonObject)?.let { headers ->
                for ((name, want) in headers) {
                    val got = seen.lastHeaders.lastOrNull { it.first.equals(name, ignoreCase = true) }?.second
                    val w = (want as? JsonPrimitive)?.takeIf { it.isString }?.content
                    if ((isNull(want) && got == null) || (w != null && got == w)) continue
                    problems += "sent header $name: got ${got?.let { "\"$it\"" } ?: "none"}, expected ${show(want)}"
                }
            }
            if (case.cancelAfterMs != null) {
                val bound = Duration.ofMillis(case.cancelBoundMs)
                val d = seen.cancelToReturn
                when {
                    d == null -> problems += "cancel: never cancelled"
                    d.isNegative -> problems += "cancel: the call returned ${d.negated().toMillis()} ms before the cancel"
                    d > bound -> problems += "cancel to return: ${d.toMillis()} ms, bound ${bound.toMillis()} ms"
                }
            }
            return problems.joinToString("; ")
        }

        private fun checkError(want: JsonObject, seen: ConformanceSeen, problems: MutableList<String>) {
            val fields = seen.errorFields
            if (fields == null) {
                problems += "error expected, the call succeeded: ${show(seen.out)}"
                return
            }
            val message = (fields["message"] as? JsonPrimitive)?.contentOrNull ?: ""
            for ((k, w) in want.entries.sortedBy { it.key }) {
                if (k == "message_contains" || k == "message_lacks") {
                    val needle = (w as? JsonPrimitive)?.content ?: ""
                    if (message.contains(needle) != (k == "message_contains")) {
                        problems += "error.message $k \"$needle\": \"$message\""
                    }
                    continue
                }
                val got = fields[k]
                if (got != null && sameJson(got, w)) continue
                problems += "error.$k: got ${show(got)}, expected ${show(w)}"
            }
        }

        private fun checkEvents(want: JsonObject, events: List<ConformanceEvent>, problems: MutableList<String>) {
            val n = events.size
            want.long("count")?.let { if (n.toLong() != it) problems += "events: $n, expected $it" }
            want.long("min_count")?.let { if (n < it) problems += "events: $n, expected at least $it" }
            want.text("text")?.let { w ->
                val text = events.filter { it.choice == 0 }.joinToString("") { it.textDelta ?: "" }
                if (text != w) problems += "event text \"$text\", expected \"$w\""
            }
            val names = events.map { it.name }
            (want["names"] as? JsonArray)?.let { w ->
                val expected = w.map { (it as? JsonPrimitive)?.content }
                if (names != expected) problems += "event names $names, expected $expected"
            }
            for ((key, at) in listOf("first_name" to 0, "last_name" to n - 1)) {
                val w = want.text(key) ?: continue
                if (n == 0 || names[at] != w) problems += "$key: \"${names.getOrNull(at) ?: "none"}\", expected \"$w\""
            }
        }
    }
}

private fun JsonObject.text(key: String): String? = (this[key] as? JsonPrimitive)?.takeIf { it.isString }?.content
