package dev.gw

import dev.gw.model.VideoRequest
import dev.gw.model.VideoTask
import kotlinx.coroutines.flow.collect
import kotlinx.coroutines.flow.toList
import kotlinx.serialization.json.jsonPrimitive
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/** Video creation in every family, status, waiting (lambda and Flow), vendor operations. */
class VideoApiTest : GwTestBase() {
    private val fast = 20.milliseconds

    @Test
    fun `unified create, status and wait with progress`() = withClient { gw ->
        val task = gw.videoCreate(VideoRequest("video-test", "a cat surfing", duration = 5))
        assertEquals("processing", task.status)
        val id = task.pollId!!
        assertEquals("processing", gw.videoStatus(VideoFamily.UNIFIED, id).str("status"))
        val seen = mutableListOf<String?>()
        val done = gw.videoWait(VideoFamily.UNIFIED, id, interval = fast) { seen += it.str("status") }
        assertEquals("succeeded", done.str("status"))
        assertEquals("succeeded", seen.last())
        assertTrue(seen.size >= 2, "progress calls: $seen")
        assertTrue(done.decodeAs<VideoTask>().videoUrl!!.endsWith(".mp4"))
    }

    @Test
    fun `wait as a Flow emits every poll, the terminal record last`() = withClient { gw ->
        val id = gw.videoGenerate(VideoRequest("video-test", "waves")).pollId!!
        val records = gw.videoWaitFlow(VideoFamily.UNIFIED, id, interval = fast).toList()
        assertEquals("succeeded", records.last().str("status"))
        assertTrue(records.dropLast(1).all { it.str("status") == "processing" }, records.toString())
    }

    @Test
    fun `a failed task is a Vendor exception carrying its record`() = withClient { gw ->
        val id = gw.videoCreate(json("""{"model":"video-test","prompt":"please fail"}""")).str("task_id")!!
        val e = assertThrows<GwException.Vendor> { gw.videoWait(VideoFamily.UNIFIED, id, interval = fast) }
        assertEquals("failed", e.error!!.str("status"))
    }

    @Test
    fun `a failed task as a Flow gives the records, then the Vendor exception`() = withClient { gw ->
        val id = gw.videoCreate(json("""{"model":"video-test","prompt":"fail please"}""")).str("task_id")!!
        val records = mutableListOf<String?>()
        val e = assertThrows<GwException.Vendor> {
            gw.videoWaitFlow(VideoFamily.UNIFIED, id, interval = fast).collect { records += it.str("status") }
        }
        assertEquals("failed", records.last(), records.toString())
        assertTrue(records.size >= 3, records.toString())
        assertEquals("failed", e.error!!.str("status"))
    }

    @Test
    fun `a throwing progress lambda ends the wait with its own exception`() = withClient { gw ->
        val id = gw.videoCreate(VideoRequest("video-test", "slow")).pollId!!
        val e = assertThrows<IllegalStateException> {
            gw.videoWait(VideoFamily.UNIFIED, id, interval = fast) { error("stop here") }
        }
        assertEquals("stop here", e.message)
    }

    @Test
    fun `past its timeout a wait is a Timeout`() = withClient { gw ->
        val id = gw.videoCreate(VideoRequest("video-test", "slow")).pollId!!
        assertThrows<GwException.Timeout> {
            gw.videoWait(VideoFamily.UNIFIED, id, interval = 1.seconds, timeout = 300.milliseconds)
        }
    }

    @Test
    fun `character video, remix and its status`() = withClient { gw ->
        val task = gw.videoCharacter(VideoRequest("char-model", "a dance", characterId = "ch_7"))
        assertEquals("queued", task.status)
        val remix = gw.videoRemix(task.id!!, json("""{"prompt":"faster","size":"720x1280"}"""))
        val record = gw.videoWait(VideoFamily.CHARACTER, remix.str("id")!!, interval = fast)
        assertEquals("completed", record.str("status"))
    }

    @Test
    fun `vendor K tasks poll to success`() = withClient { gw ->
        val created = gw.vendorKText2Video(json("""{"model":"k-model","prompt":"a river"}"""))
        val id = created.path("data", "task_id")!!.jsonPrimitive.content
        val done = gw.videoWait(VideoFamily.VENDOR_K, id, interval = fast)
        assertEquals("succeed", done.path("data", "task_status")!!.jsonPrimitive.content)
        assertEquals("0", gw.vendorKImage2Video(json("""{"model":"k","image":"https://i.example/a.png","prompt":"p"}""")).str("code"))
        assertEquals("0", gw.vendorKMultiImage2Video(json("""{"model":"k","image_list":[{"image":"https://i.example/a.png"}],"prompt":"p"}""")).str("code"))
        assertEquals("0", gw.vendorKEffects(json("""{"video":"https://v.example/a.mp4","effect":"zoom"}""")).str("code"))
        assertEquals("0", gw.vendorKExtend(json("""{"video_id":"$id"}""")).str("code"))
    }

    @Test
    fun `vendor R status by id`() = withClient { gw ->
        val done = gw.videoWait(VideoFamily.VENDOR_R, "r-task-1", interval = fast)
        assertEquals("SUCCEEDED", done.str("status"))
        val record = gw.videoStatus(VideoFamily.VENDOR_R, "r-task-2")
        assertEquals("PENDING", record.str("status"))
    }

    @Test
    fun `vendor H and M bodies that report failure are Vendor exceptions with the body`() = withClient { gw ->
        val ok = gw.vendorHImageToVideo(json("""{"image_url":"https://i.example/a.png","prompt":"move"}"""))
        assertEquals("pending", ok.path("data", "status")!!.jsonPrimitive.content)
        val h = assertThrows<GwException.Vendor> {
            gw.vendorHImageToVideo(json("""{"image_url":"https://i.example/a.png","prompt":"vendor-fail"}"""))
        }
        assertEquals("1001", h.error!!.str("code"))
        assertTrue(h.message!!.contains("insufficient quota"), h.message)
        assertEquals("1", gw.vendorMImagine(json("""{"prompt":"a castle","botType":"b1"}""")).str("code"))
        val m = assertThrows<GwException.Vendor> { gw.vendorMImagine(json("""{"prompt":"vendor-fail","botType":"b1"}""")) }
        assertEquals("4", m.code)
    }

    @Test
    fun `vendor I and F image operations`() = withClient { gw ->
        assertEquals(4, (gw.vendorIDescribe(json("""{"image":"https://i.example/cat.png"}"""))["descriptions"] as kotlinx.serialization.json.JsonArray).size)
        val a = gw.vendorIGenerate(json("""{"prompt":"a tree","aspect_ratio":"16:9"}""")).path("data", 0, "seed")
        val b = gw.vendorIGenerate(json("""{"prompt":"a tree"}""")).path("data", 0, "seed")
        assertEquals(a, b, "same prompt, same seed")
        assertTrue(gw.vendorITextToImage(json("""{"prompt":"a tree"}""")).path("data", 0, "url") != null)
        val f = gw.vendorFEdit("flux/kontext", json("""{"image":"https://i.example/a.png","prompt":"blue"}"""))
        assertTrue(f.isNotEmpty())
        assertTrue(MockGateway.requests().any { it.str("path") == "/vendorF/flux/kontext/edit" })
    }
}
