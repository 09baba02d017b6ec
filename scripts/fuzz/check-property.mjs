// One fast-check target (test/fuzz/properties/<name>.mjs) for a time or a number of runs; prints
// one JSON line: inputs tried, seconds, failures. A counterexample is kept in test/fuzz/<name>/ as
// JSON, to be fixed and then replayed by `npm test`.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';

const [name, seconds, runs] = process.argv.slice(2);
const root = resolve(fileURLToPath(import.meta.url), '..', '..', '..');
const target = await import(join(root, 'test', 'fuzz', 'properties', `${name}.mjs`));
let tried = 0;
const counted = async (...args) => {
  tried++;
  return target.predicate(...args);
};
const isAsync = target.predicate.constructor.name === 'AsyncFunction';
const property = isAsync ? fc.asyncProperty(...target.arbitraries, counted) : fc.property(...target.arbitraries, (...args) => {
  tried++;
  return target.predicate(...args);
});
const started = performance.now();
const result = await fc.check(property, { numRuns: Number(runs), interruptAfterTimeLimit: Number(seconds) * 1000, markInterruptAsFailure: false });
const elapsed = (performance.now() - started) / 1000;
const report = { tried, seconds: elapsed, failures: result.failed ? 1 : 0 };
if (result.failed) {
  const text = JSON.stringify(result.counterexample, (_key, value) => (value === undefined ? '__undefined__' : Buffer.isBuffer(value) ? { buffer: value.toString('base64') } : value));
  const dir = join(root, 'test', 'fuzz', name);
  mkdirSync(dir, { recursive: true });
  const kept = join(dir, `counterexample-${createHash('sha1').update(text).digest('hex').slice(0, 12)}.json`);
  writeFileSync(kept, `${text}\n`);
  report.kept = [kept];
  report.problem = String(result.errorInstance ?? result.error).slice(0, 2000);
}
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exit(0);
