package dev.gw

import dev.gw.model.ChatMessage
import dev.gw.model.ChatRequest
import dev.gw.model.ContentPart
import dev.gw.model.EmbeddingRequest
import dev.gw.model.Reasoning
import dev.gw.model.ResponsesRequest
import dev.gw.model.Tool
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonArray
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/** Chat, Responses, embeddings, the native format and raw requests, JSON and typed. */
class TextApiTest : GwTestBase() {
    @Test
    fun `chat with JSON passes unknown fields through and answers the echo`() = withClient { gw ->
        val answer = gw.chat(json("""{"model":"gpt-test","messages":[{"role":"user","content":"ping pong"}],"x_custom":7}"""))
        assertEquals("chat.completion", answer.str("object"))
        assertEquals("Echo: ping pong", answer.path("choices", 0, "message", "content")!!.jsonPrimitive.content)
        val sent = MockGateway.requestsTo("/v1/chat/completions").single()
        assertEquals("7", sent.path("json", "x_custom")!!.jsonPrimitive.content)
        assertEquals("Bearer ${MockGateway.API_KEY}", sent.header("authorization"))
    }

    @Test
    fun `typed chat with parts, tools and extra fields both ways`() = withClient { gw ->
        val request = ChatRequest(
            model = "gpt-test",
            messages = listOf(
                ChatMessage.system("be brief"),
                ChatMessage.user(ContentPart.text("what is this"), ContentPart.imageUrl("https://img.example/a.png")),
            ),
            maxTokens = 50,
            reasoningEffort = "low",
            tools = listOf(Tool.function("lookup", "finds things", json("""{"type":"object"}"""))),
            extra = json("""{"user":"u-1"}"""),
        )
        val completion = gw.chat(request)
        assertTrue(completion.text!!.startsWith("Echo: what is this"), completion.text)
        assertEquals("stop", completion.choices.single().finishReason)
        assertEquals("Thinking at low effort.", completion.choices.single().message!!.reasoningContent)
        assertNotNull(completion.usage!!.completionTokensDetails!!.reasoningTokens)
        val sent = MockGateway.requestsTo("/v1/chat/completions").single()
        assertEquals("u-1", sent.path("json", "user")!!.jsonPrimitive.content)
        assertEquals("image_url", sent.path("json", "messages", 1, "content", 1, "type")!!.jsonPrimitive.content)
        assertEquals("lookup", sent.path("json", "tools", 0, "function", "name")!!.jsonPrimitive.content)
        assertEquals(null, sent.path("json", "temperature"), "null fields must not be sent")
    }

    @Test
    fun `unknown answer fields land in extra and survive a round trip`() {
        val text = """{"id":"c1","object":"chat.completion","choices":[],"system_fingerprint":"fp_9","new_block":{"a":1}}"""
        val decoded = json(text).decodeAs<dev.gw.model.ChatCompletion>()
        assertEquals("fp_9", decoded.extra.str("system_fingerprint"))
        val again = GwJson.encodeToJsonElement(dev.gw.model.ChatCompletion.serializer(), decoded).jsonObject
        assertEquals(json(text)["new_block"], again["new_block"])
        assertEquals("c1", again.str("id"))
    }

    @Test
    fun `a broken documented limit is refused before sending, naming the field`() = withClient { gw ->
        val e = assertThrows<GwException.InvalidArgument> {
            gw.chat(json("""{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":3}"""))
        }
        assertEquals("temperature", e.param)
        assertTrue(e.message!!.contains("temperature"), e.message)
        assertEquals(0, MockGateway.requests().size)
    }

    @Test
    fun `validate false in the call options lets the gateway judge`() = withClient { gw ->
        val e = assertThrows<GwException.BadRequest> {
            gw.chat(
                json("""{"model":"m","messages":[{"role":"user","content":"x"}],"temperature":3}"""),
                CallOptions(validate = false),
            )
        }
        assertEquals(400, e.status)
        assertEquals(1, MockGateway.requests().size)
    }

    @Test
    fun `responses JSON and typed`() = withClient { gw ->
        val raw = gw.responses(json("""{"model":"resp-test","input":"tell me more"}"""))
        assertEquals("response", raw.str("object"))
        val typed = gw.responses(ResponsesRequest("resp-test", "tell me more", reasoning = Reasoning("minimal")))
        assertEquals("completed", typed.status)
        assertTrue(typed.outputText.contains("tell me more"), typed.outputText)
        assertNotNull(typed.usage!!.totalTokens)
    }

    @Test
    fun `embeddings as floats and as base64 decode to the same FloatArrays`() = withClient { gw ->
        val floats = gw.embeddings(EmbeddingRequest("emb-test", listOf("alpha", "beta"), dimensions = 8))
        val b64 = gw.embeddings(EmbeddingRequest("emb-test", listOf("alpha", "beta"), "base64", dimensions = 8))
        assertEquals(2, floats.data.size)
        assertEquals(8, floats.data[0].vector.size)
        assertEquals(floats.data, b64.data)
        // gw's own decoder agrees with the Kotlin one.
        val raw = gw.embeddings(json("""{"model":"emb-test","input":"alpha","encoding_format":"base64","dimensions":8}"""))
        val text = raw.path("data", 0, "embedding")!!.jsonPrimitive.content
        assertArrayEquals(floats.data[0].vector, Gw.decodeEmbedding(text))
        assertThrows<GwException.InvalidArgument> { Gw.decodeEmbedding("abc") }
    }

    @Test
    fun `generateContent puts the key in the query, never a header`() = withClient { gw ->
        val answer = gw.generateContent(
            "native-model",
            json("""{"contents":[{"role":"user","parts":[{"text":"hi native"}]}]}"""),
        )
        assertNotNull(answer["candidates"]?.jsonArray?.firstOrNull())
        val sent = MockGateway.requests().single()
        assertTrue(sent.str("path")!!.startsWith("/v1beta/models/native-model"), sent.str("path"))
        assertTrue(sent.str("query")!!.contains("key=${MockGateway.API_KEY}"))
        assertEquals(null, sent.header("authorization"))
    }

    @Test
    fun `raw request GET and POST`() = withClient { gw ->
        val created = gw.request("POST", "/v1/video/create", json("""{"model":"v","prompt":"a cat","duration":5}"""))
        val id = created.jsonObject.str("task_id")!!
        val status = gw.request("GET", "/v1/video/generations/$id")
        assertEquals(id, (status as JsonObject).str("id"))
        val e = assertThrows<GwException.InvalidArgument> { gw.request("PUT", "/v1/x") }
        assertTrue(e.message!!.contains("PUT") || e.message!!.contains("method"), e.message)
    }

    @Test
    fun `a NUL inside a string argument is refused by name`() = withClient { gw ->
        val e = assertThrows<GwException.InvalidArgument> { gw.generateContent("bad\u0000model", json("{}")) }
        assertTrue(e.message!!.startsWith("GW_INVALID_ARGUMENT: model:"), e.message)
    }
}
