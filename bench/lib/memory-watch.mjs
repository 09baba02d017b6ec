// RSS of a process sampled every half second (the daemon's memory bound under attack is on the
// peak during it and the lowest reading within 2 minutes after it), and the split of memory-probe.mjs's
// lines (heap, external, array buffers) at the peak.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { rssOf } from './lifecycle.mjs';

export const PROBE = pathToFileURL(path.join(path.dirname(new URL(import.meta.url).pathname), 'memory-probe.mjs')).href;

/** Samples `pid`'s RSS every `everyMs` until stopped; `peak()` and `lowest()` since the last `reset()`. */
export function watchRss(pid, everyMs = 500) {
  let peak = 0;
  let lowest = Number.POSITIVE_INFINITY;
  let samples = 0;
  const sample = () => {
    const rss = rssOf(pid);
    peak = Math.max(peak, rss);
    lowest = Math.min(lowest, rss);
    samples += 1;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    peak: () => peak,
    lowest: () => lowest,
    samples: () => samples,
    reset() {
      peak = 0;
      lowest = Number.POSITIVE_INFINITY;
      samples = 0;
      sample();
    },
    stop: () => clearInterval(timer),
  };
}

/** The probe's lines between `from` and `to` (epoch ms): the last before them, the one of highest RSS, and the peaks of each part. */
export function memorySplit(file, from, to) {
  let all;
  try {
    all = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
  } catch {
    return undefined;
  }
  const lines = all.filter((line) => line.t >= from && line.t <= to);
  if (lines.length === 0) return undefined;
  const atStart = all.findLast((line) => line.t < from) ?? lines[0];
  const atPeak = lines.reduce((a, b) => (b.rss > a.rss ? b : a));
  const most = (key) => Math.max(...lines.map((line) => line[key]));
  return { atStart, atPeak, peaks: { heapTotal: most('heapTotal'), heapUsed: most('heapUsed'), external: most('external'), arrayBuffers: most('arrayBuffers') } };
}
