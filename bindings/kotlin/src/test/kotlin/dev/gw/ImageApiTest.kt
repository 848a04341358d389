package dev.gw

import dev.gw.model.ImageEditRequest
import dev.gw.model.ImageGenerationRequest
import kotlinx.serialization.json.JsonArray
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import org.junit.jupiter.api.io.TempDir
import java.nio.file.Files
import java.nio.file.Path
import java.util.Base64

/** Image generation, JSON edits and multipart uploads from bytes, File and Path. */
class ImageApiTest : GwTestBase() {
    private val png = byteArrayOf(0x89.toByte(), 'P'.code.toByte(), 'N'.code.toByte(), 'G'.code.toByte(), 0, 1, 2, 3, 0xff.toByte())

    @Test
    fun `image generation JSON and typed`() = withClient { gw ->
        val raw = gw.imageGenerate(json("""{"model":"img-test","prompt":"a red fox","seed":42}"""))
        assertTrue(raw.path("data", 0, "url")!!.jsonPrimitive.content.startsWith("https://"))
        val typed = gw.imageGenerate(ImageGenerationRequest("img-test", "a red fox", size = "512x512", guidanceScale = 3.0))
        assertEquals(1, typed.data.size)
        assertTrue(typed.data[0].url!!.endsWith(".png"))
        val e = assertThrows<GwException.InvalidArgument> { gw.imageGenerate(ImageGenerationRequest("m", "p", guidanceScale = 11.0)) }
        assertEquals("guidance_scale", e.param)
    }

    @Test
    fun `image edit with URLs`() = withClient { gw ->
        val result = gw.imageEdit(ImageEditRequest("edit-test", "make it blue", image = "https://img.example/a.png", n = 2))
        assertEquals(2, result.data.size)
        assertEquals("Edited: make it blue", result.data[0].revisedPrompt)
    }

    @Test
    fun `upload from bytes with a mask from a Path`(@TempDir dir: Path) = withClient { gw ->
        val maskPath = dir.resolve("mask.png")
        Files.write(maskPath, byteArrayOf(1, 2, 3, 4, 5))
        val result = gw.imageEditUpload(
            ImageEditRequest("edit-test", "remove the sky", n = 1),
            GwFile(png, "photo.png", "image/png"),
            GwFile.of(maskPath),
        )
        assertEquals("Edited: remove the sky", result.data.single().revisedPrompt)
        val parts = multipartOf(MockGateway.requestsTo("/v1/images/edits").single())
        val image = parts.single { it.str("name") == "image" }
        assertEquals("photo.png", image.str("filename"))
        assertEquals("image/png", image.str("content_type"))
        assertEquals(Base64.getEncoder().encodeToString(png), image.str("bytes_b64"))
        val mask = parts.single { it.str("name") == "mask" }
        assertEquals("mask.png", mask.str("filename"))
        assertEquals("image/png", mask.str("content_type"), "type guessed from the extension")
        assertEquals("5", mask.str("size"))
        assertEquals("remove the sky", parts.single { it.str("name") == "prompt" }.str("text"))
    }

    @Test
    fun `upload from a java io File without a mask, JSON request`(@TempDir dir: Path) = withClient { gw ->
        val file = dir.resolve("pic.jpg").toFile().apply { writeBytes(png) }
        val answer = gw.imageEditUpload(json("""{"model":"edit-test","prompt":"sharpen"}"""), GwFile.of(file))
        assertEquals(1, (answer["data"] as JsonArray).size)
        val parts = multipartOf(MockGateway.requestsTo("/v1/images/edits").single())
        assertEquals(null, parts.firstOrNull { it.str("name") == "mask" })
        assertEquals("image/jpeg", parts.single { it.str("name") == "image" }.str("content_type"))
    }

    @Test
    fun `an empty image is refused by name before sending`() = withClient { gw ->
        val e = assertThrows<GwException.InvalidArgument> {
            gw.imageEditUpload(json("""{"model":"edit-test","prompt":"p"}"""), GwFile(ByteArray(0), "empty.png"))
        }
        assertTrue(e.message!!.contains("image"), e.message)
        assertEquals(0, MockGateway.requests().size)
    }

    @Test
    fun `a missing file is an InvalidArgument naming it`(@TempDir dir: Path) {
        val missing = dir.resolve("nope.png")
        val e = assertThrows<GwException.InvalidArgument> { GwFile.of(missing) }
        assertTrue(e.message!!.contains("nope.png"), e.message)
    }

    private fun multipartOf(request: JsonObject): List<JsonObject> =
        (request["multipart"] as JsonArray).map { it.jsonObject }
}
