// `npm run bench`: runs the benchmark scripts one after another (never two at once: each would
// skew the other's figures) and prints one table, figure by figure: the measured ratio, its
// target, and whether it is met. Benchmarks inform, they do not gate: this exits 0
// whatever the figures, and says plainly which miss. Each script starts and stops its own broker,
// simulator and daemon on loopback; the whole run takes a few minutes.
//
// A script reports by printing lines `BENCH_RESULT {json}` (see report() in lib/harness.mjs).
// Results are also written to bench/out/results.json.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, RESULT_MARK } from './lib/harness.mjs';

/** In this order; a script not (yet) in bench/ is skipped with a note. */
const SCRIPTS = ['ingest', 'bulk-pairing', 'latency', 'memory', 'cli', 'ble-flood', 'store', 'web-page', 'fleet-load', 'fleet-read', 'fleet-cluster', 'supervision', 'authentication', 'site'];
// A Debian kernel under qemu (about 5 minutes, root, qemu and mmdebstrap): only when asked for.
if (process.env.BENCH_KERNEL === '1') SCRIPTS.push('ble-kernel');
/** The target of a script that reports none of its own. */
const ISSUE_TARGETS = { 'ble-flood': { op: '<=', value: 1.3 } };
const SCRIPT_TIMEOUT_MS = 6 * 60_000;
/**
 * Scripts whose window is longer: fleet-load watches a hub at rest for five health refreshes;
 * fleet-cluster seeds 300,000 retained messages into a NATS cluster, each stored replicated; site
 * runs two daemons through three rounds of 10 s phases each (about five minutes).
 */
const SCRIPT_TIMEOUTS_MS = { 'fleet-load': 10 * 60_000, 'fleet-cluster': 30 * 60_000, site: 12 * 60_000 };

function runScript(name) {
  const file = path.join(ROOT, 'bench', `${name}.mjs`);
  if (!existsSync(file)) return Promise.resolve({ name, skipped: true, results: [] });
  process.stderr.write(`\n== ${name}\n`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const results = [];
    let buffer = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.startsWith(RESULT_MARK)) results.push(JSON.parse(line.slice(RESULT_MARK.length)));
        else if (line.trim() !== '') process.stderr.write(`${line}\n`);
      }
    });
    const timer = setTimeout(() => child.kill('SIGTERM'), SCRIPT_TIMEOUTS_MS[name] ?? SCRIPT_TIMEOUT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (buffer.startsWith(RESULT_MARK)) results.push(JSON.parse(buffer.slice(RESULT_MARK.length)));
      resolve({ name, code, signal, seconds: (Date.now() - started) / 1000, results });
    });
  });
}

function withIssueTarget(name, result) {
  if (result.target !== undefined || ISSUE_TARGETS[name] === undefined) return result;
  const target = ISSUE_TARGETS[name];
  const meets = target.op === '<=' ? result.ratio <= target.value : result.ratio >= target.value;
  return { ...result, target, pass: meets && result.failedChecks.length === 0 };
}

function format(value) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2);
}

/** Lets the machine settle between scripts: the page cache one left dirty is flushed first. */
async function settle() {
  spawnSync('sync', { stdio: 'ignore' });
  await new Promise((resolve) => setTimeout(resolve, 2_000));
}

const runs = [];
for (const name of SCRIPTS) {
  if (runs.length > 0) await settle();
  runs.push(await runScript(name));
}

const rows = [];
const misses = [];
for (const run of runs) {
  if (run.skipped) {
    rows.push([run.name, '-', '-', 'not run (no bench script)']);
    continue;
  }
  if (run.results.length === 0) {
    rows.push([run.name, '-', '-', `NO RESULT (exit ${run.signal ?? run.code})`]);
    misses.push(`${run.name}: the script ended without a figure (exit ${run.signal ?? run.code}); see its output above`);
  }
  for (const raw of run.results) {
    const result = withIssueTarget(run.name, raw);
    const target = result.target === undefined ? 'none (informs)' : `${result.target.op} ${result.target.value}`;
    const verdict = result.pass === true ? 'pass' : result.pass === false ? 'MISS' : 'info';
    rows.push([result.figure, format(result.ratio), target, verdict]);
    if (result.pass === false) {
      const why = result.failedChecks.length > 0 ? `failed: ${result.failedChecks.join(', ')}` : `${format(result.ratio)} against ${target}`;
      misses.push(`${result.figure}: ${why} (${typeof result.detail === 'string' ? result.detail : JSON.stringify(result.detail)})`);
    }
  }
}

const headers = ['figure', 'measured', 'target', 'result'];
const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => row[i].length)));
const line = (cells) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ');
const cpus = os.cpus();
process.stdout.write(`\npanic-pair benchmarks, ${new Date().toISOString()}, node ${process.version}, ${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, load ${os.loadavg().map((n) => n.toFixed(1)).join(' ')}\n\n`);
process.stdout.write(`${line(headers)}\n${line(widths.map((w) => '-'.repeat(w)))}\n${rows.map(line).join('\n')}\n`);
process.stdout.write('\ndetails:\n');
const text = (detail) => (typeof detail === 'string' ? detail : JSON.stringify(detail));
for (const run of runs) for (const result of run.results) process.stdout.write(`  ${result.figure}: ${text(result.detail)}\n`);
if (misses.length === 0) process.stdout.write('\nevery figure with a target meets it.\n');
else process.stdout.write(`\n${misses.length} miss${misses.length === 1 ? '' : 'es'}:\n${misses.map((miss) => `  - ${miss}`).join('\n')}\n`);

mkdirSync(path.join(ROOT, 'bench', 'out'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench', 'out', 'results.json'), `${JSON.stringify({ at: new Date().toISOString(), node: process.version, cpus: cpus.length, runs }, null, 2)}\n`);
process.exitCode = 0;
