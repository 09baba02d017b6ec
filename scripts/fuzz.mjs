#!/usr/bin/env node
// `npm run fuzz [-- --target NAME] [--seconds N] [--runs N] [--json FILE]`: each
// target in turn, Jazzer.js for the parsers of bytes and fast-check for the properties, then one
// line a target: inputs tried, inputs per second, failures. An input that fails is written to
// test/fuzz/<target>/ (Jazzer's crash file, or fast-check's counterexample as JSON) to be fixed
// and then kept, replayed by `npm test`. A timeout that replays well under the limit in a fresh
// process is counted as a stall of the machine and the run goes on. Exit 1 when any target failed
// or could not start.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { TARGETS, targetNamed } from './fuzz/targets.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    target: { type: 'string', multiple: true },
    seconds: { type: 'string', default: '60' },
    runs: { type: 'string' },
    json: { type: 'string' },
  },
});
const seconds = Number(values.seconds);
const runs = values.runs === undefined ? undefined : Number(values.runs);
const chosen = values.target === undefined ? TARGETS : values.target.map(targetNamed);

/** Runs a child to its end; its output is kept for the figures. */
function run(command, args, options = {}) {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let output = '';
    let ended = false;
    // A target may hold the event loop (noble polls its adapter): once libFuzzer has printed its
    // final figures the run is over, whatever the process still holds.
    const collect = (chunk) => {
      output += chunk;
      if (!ended && output.includes('stat::peak_rss_mb')) {
        ended = true;
        setTimeout(() => child.kill('SIGKILL'), 2_000).unref();
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('close', (code, signal) => done({ code: ended && signal === 'SIGKILL' ? 0 : code, signal, output }));
  });
}

async function fuzzBytes(target) {
  const kept = join(root, 'test', 'fuzz', target.name);
  mkdirSync(kept, { recursive: true });
  const corpus = mkdtempSync(join(tmpdir(), `panic-pair-fuzz-${target.name}-`));
  const seeded = await run(process.execPath, [join(root, 'scripts', 'fuzz', 'write-seeds.mjs'), target.name, corpus]);
  if (seeded.code !== 0) return { tried: 0, seconds: 0, failures: 1, problem: `seeds could not be written: ${seeded.output.trim().split('\n').at(-1)}` };
  const started = performance.now();
  let tried = 0;
  let stalls = 0;
  let peakRssMb = 0;
  for (;;) {
    const spent = (performance.now() - started) / 1000;
    const result = await runJazzer(target, corpus, kept, Math.max(1, Math.round(seconds - spent)), runs === undefined ? undefined : runs - tried);
    tried += result.tried;
    peakRssMb = Math.max(peakRssMb, result.peakRssMb);
    // A timeout that takes its target well under the limit in a fresh process was a stall of the
    // machine, not of the input: counted, dropped, and the run goes on where it was.
    const timeouts = result.written.filter((file) => file.includes('timeout-'));
    if (result.written.length > 0 && timeouts.length === result.written.length && (await allQuick(target, timeouts))) {
      for (const file of timeouts) rmSync(join(root, file));
      stalls += timeouts.length;
      const left = seconds - (performance.now() - started) / 1000;
      if (left >= 2 && (runs === undefined || tried < runs)) continue;
      result.failed = false;
    }
    rmSync(corpus, { recursive: true, force: true });
    const entry = { tried, seconds: (performance.now() - started) / 1000, failures: result.failed ? Math.max(1, result.written.length) : 0, kept: result.failed ? result.written : [], stalls, peakRssMb };
    if (result.failed) entry.problem = lastLines(result.output);
    return entry;
  }
}

async function runJazzer(target, corpus, kept, seconds, runs) {
  const before = new Set(readdirSync(kept));
  const includes = ['dist/', 'test/fuzz/targets/', ...(target.instrument ?? [])].flatMap((part) => ['-i', part]);
  const args = [
    '-r', join(root, 'scripts', 'fuzz', 'fuzzer-addon.cjs'),
    join(root, 'node_modules', '@jazzer.js', 'core', 'dist', 'cli.js'),
    join(root, 'test', 'fuzz', 'targets', `${target.name}.mjs`),
    ...includes,
    ...(target.instrument ? ['-e', 'nothing-excluded'] : []),
    ...(target.sync ? ['--sync'] : []),
    // The page's target connects to its own server on loopback, which Jazzer's SSRF detector flags.
    ...(target.options ?? []),
    '--timeout=1000',
    '--',
    corpus,
    kept,
    `-max_total_time=${seconds}`,
    ...(runs === undefined ? [] : [`-runs=${runs}`]),
    `-artifact_prefix=${kept}/`,
    '-print_final_stats=1',
    '-rss_limit_mb=2560',
    '-max_len=8192',
  ];
  const result = await run(process.execPath, args);
  const executed = /stat::number_of_executed_units:\s*(\d+)/.exec(result.output)?.[1] ?? /Done (\d+) runs/.exec(result.output)?.[1];
  const written = readdirSync(kept).filter((file) => !before.has(file)).map((file) => join('test', 'fuzz', target.name, file));
  const peakRssMb = Number(/stat::peak_rss_mb:\s*(\d+)/.exec(result.output)?.[1] ?? 0);
  return { tried: Number(executed ?? 0), peakRssMb, written, failed: result.code !== 0 || written.length > 0, output: result.output };
}

async function allQuick(target, files) {
  for (const file of files) {
    const timed = await run(process.execPath, [join(root, 'scripts', 'fuzz', 'time-input.mjs'), target.name, join(root, file)]);
    const ms = JSON.parse(timed.output.trim().split('\n').at(-1) || '{}').ms;
    if (!(ms < 1000)) return false;
  }
  return true;
}

async function checkProperty(target) {
  const result = await run(process.execPath, [join(root, 'scripts', 'fuzz', 'check-property.mjs'), target.name, String(seconds), String(runs ?? 1_000_000_000)]);
  const line = result.output.trim().split('\n').at(-1) ?? '';
  try {
    const report = JSON.parse(line);
    if (result.code !== 0 && report.failures === 0) report.failures = 1;
    return report;
  } catch {
    return { tried: 0, seconds: 0, failures: 1, problem: lastLines(result.output) };
  }
}

function lastLines(output) {
  return output.trim().split('\n').slice(-12).join('\n');
}

const rows = [];
for (const target of chosen) {
  process.stdout.write(`${target.name} (${target.kind === 'jazzer' ? 'Jazzer.js' : 'fast-check'}) ...\n`);
  const report = target.kind === 'jazzer' ? await fuzzBytes(target) : await checkProperty(target);
  const perSecond = report.seconds > 0 ? Math.round(report.tried / report.seconds) : 0;
  rows.push({ target: target.name, engine: target.kind === 'jazzer' ? 'jazzer' : 'fast-check', tried: report.tried, seconds: Math.round(report.seconds * 10) / 10, perSecond, failures: report.failures, stalls: report.stalls ?? 0, ...(report.peakRssMb ? { peakRssMb: report.peakRssMb } : {}), ...(report.problem ? { problem: report.problem } : {}), ...(report.kept?.length ? { kept: report.kept } : {}) });
  if (report.problem) process.stdout.write(`${report.problem}\n`);
}

const width = Math.max(...rows.map((r) => r.target.length));
process.stdout.write(`\n${'target'.padEnd(width)}  engine      inputs tried  inputs/s  failures  stalls\n`);
for (const r of rows) {
  process.stdout.write(`${r.target.padEnd(width)}  ${r.engine.padEnd(10)}  ${String(r.tried).padStart(12)}  ${String(r.perSecond).padStart(8)}  ${String(r.failures).padStart(8)}  ${String(r.stalls).padStart(6)}\n`);
}
if (values.json !== undefined) writeFileSync(values.json, `${JSON.stringify(rows, null, 2)}\n`);
process.exitCode = rows.some((r) => r.failures > 0 || r.tried === 0) ? 1 : 0;
