import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

// How busy the run kept the machine's cores, said at its end: the figure that tells whether more
// test workers could shorten a run (idle cores) or only slow each suite down
// (docs/engineer/tests.md).

const STARTED = Symbol.for('panic-pair.test-cpu-use');

interface CpuTimes {
  busy: number;
  total: number;
}

/** The machine's CPU time since boot, in clock ticks (Linux's /proc/stat), or undefined elsewhere. */
function cpuTimes(): CpuTimes | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal: idle and iowait are the cores' idle time.
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return { busy: total - fields[3]! - fields[4]!, total };
  } catch {
    return undefined;
  }
}

export default function setup(): (() => void) | undefined {
  const shared = globalThis as { [STARTED]?: boolean };
  if (shared[STARTED] === true) return undefined;
  shared[STARTED] = true;
  const start = cpuTimes();
  const started = performance.now();
  return () => {
    const end = cpuTimes();
    if (start === undefined || end === undefined || end.total === start.total) return;
    const seconds = (performance.now() - started) / 1000;
    const share = (end.busy - start.busy) / (end.total - start.total);
    process.stderr.write(`the run kept the machine's ${availableParallelism()} cores ${(share * 100).toFixed(0)} % busy over ${seconds.toFixed(0)} s\n`);
  };
}
