// How long one kept input takes its target, the best of three calls in a fresh process: libFuzzer
// calls any input that ran past the time limit a timeout, and on a busy machine a stall of the
// whole process (other work on the cores, a GC) looks the same. Prints one JSON line: {"ms": N}.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [name, file] = process.argv.slice(2);
const target = await import(join(resolve(fileURLToPath(import.meta.url), '..', '..', '..'), 'test', 'fuzz', 'targets', `${name}.mjs`));
const data = readFileSync(file);
let best = Infinity;
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  await target.fuzz(data);
  best = Math.min(best, performance.now() - started);
}
process.stdout.write(`${JSON.stringify({ ms: best })}\n`);
process.exit(0);
