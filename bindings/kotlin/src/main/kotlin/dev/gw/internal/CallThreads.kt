package dev.gw.internal

import dev.gw.GwException
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.sync.Semaphore
import kotlinx.coroutines.sync.withPermit
import kotlinx.coroutines.withContext
import java.util.concurrent.Executor
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.ThreadFactory
import java.util.concurrent.ThreadPoolExecutor
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger

/**
 * The threads a GwClient's blocking gw calls run on: the app's executor when it gave one,
 * else a pool of the client's own. Never Dispatchers.IO or Default: a gw call holds its
 * thread for as long as the gateway takes, and the app's own IO work must not queue behind.
 *
 * At most [maxThreads] calls hold a thread at once. The others wait for a permit of a
 * coroutine Semaphore *before* moving to a thread, not in the executor's queue: a call
 * cancelled while it waits then ends at once, instead of when a thread frees up to notice.
 *
 * The pool's threads are daemons and end after [IDLE_SECONDS] without work, so a pool needs
 * no shutdown: an idle client holds no thread, and a dropped one leaves nothing behind.
 */
internal class CallThreads private constructor(val dispatcher: CoroutineDispatcher, maxThreads: Int) {
    private val permits = Semaphore(maxThreads)

    /** Runs [block] (which blocks in gw) on one of the threads, once a permit is free. */
    suspend fun <T> runCall(block: suspend CoroutineScope.() -> T): T =
        permits.withPermit { withContext(dispatcher, block) }

    /** Holds a permit while [block] runs (a stream whose producer runs on [dispatcher]). */
    suspend fun <T> holding(block: suspend () -> T): T = permits.withPermit { block() }

    companion object {
        /** GwOptions.maxThreads when left null. */
        const val DEFAULT_MAX_THREADS = 64
        private const val IDLE_SECONDS = 30L
        private val pools = AtomicInteger()

        fun of(maxThreads: Int?, executor: Executor?): CallThreads {
            val max = maxThreads ?: DEFAULT_MAX_THREADS
            if (max < 1) throw GwException.InvalidArgument("maxThreads: must be at least 1, got $max")
            if (executor != null) return CallThreads(executor.asCoroutineDispatcher(), max)
            val pool = ThreadPoolExecutor(max, max, IDLE_SECONDS, TimeUnit.SECONDS, LinkedBlockingQueue(), namedDaemons())
            pool.allowCoreThreadTimeOut(true)
            return CallThreads(pool.asCoroutineDispatcher(), max)
        }

        private fun namedDaemons(): ThreadFactory {
            val pool = pools.incrementAndGet()
            val threads = AtomicInteger()
            return ThreadFactory { task ->
                Thread(task, "gw-call-$pool-${threads.incrementAndGet()}").apply { isDaemon = true }
            }
        }
    }
}
