// Preloaded into a daemon by the hostile bench (`node --import <this> ...`), never by the daemon
// itself: every half second, one line of process.memoryUsage() (RSS, V8's heap, external memory,
// array buffers) appended to BENCH_MEMORY_PROBE_FILE. Off unless preloaded; a line costs a few
// microseconds.
import { appendFileSync } from 'node:fs';

const file = process.env.BENCH_MEMORY_PROBE_FILE;
if (file !== undefined && file !== '') {
  const timer = setInterval(() => {
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
    appendFileSync(file, `${JSON.stringify({ t: Date.now(), rss, heapTotal, heapUsed, external, arrayBuffers })}\n`);
  }, 500);
  timer.unref();
}
