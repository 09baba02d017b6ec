// The life of a benchmark script: children that die with it, temporary files and cleanups run
// however it ends, an overall time bound, and the small readings (/proc, medians) the scripts share.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = path.join(ROOT, 'bin', 'panic-pair.js');

const children = new Set();
const cleanups = [];

/** Runs `step` when the script ends (last registered, first run). */
export function onCleanup(step) {
  cleanups.push(step);
}

/** Imports a compiled module of the project (npm run bench builds first). */
export function dist(modulePath) {
  return import(pathToFileURL(path.join(ROOT, 'dist', modulePath)).href);
}

export function tempDir(name) {
  const dir = mkdtempSync(path.join(tmpdir(), `panic-pair-bench-${name}-`));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Polls `check` until it returns something other than undefined/false, or throws at the bound. */
export async function until(what, check, { timeoutMs = 30_000, everyMs = 10 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Starts a child that is killed when this script ends, however it ends. */
export function startChild(command, args, options = {}) {
  const child = spawn(command, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

export function stopChild(child, { signal = 'SIGTERM', timeoutMs = 15_000 } = {}) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(force);
      resolve(code);
    });
    child.kill(signal);
  });
}

/** Resident set size of a process, from /proc (Linux). */
export function rssOf(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)\s+kB/.exec(text)?.[1]);
  return kb * 1024;
}

/** User plus system CPU time of a process so far, in milliseconds, from /proc (Linux). */
export function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime are fields 14 and 15 of stat(5), 12 and 13 here after the command name.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

export async function cleanup() {
  while (cleanups.length > 0) {
    const step = cleanups.pop();
    await Promise.resolve()
      .then(step)
      .catch(() => undefined);
  }
  await Promise.all([...children].map((child) => stopChild(child, { timeoutMs: 5_000 })));
}

/** Runs a benchmark body with cleanup, an overall bound, and a non-zero exit on failure. */
export async function runBench(name, body, { timeoutMs = 240_000 } = {}) {
  const bound = setTimeout(() => {
    process.stderr.write(`${name}: gave up after ${timeoutMs / 1000} s\n`);
    void cleanup().finally(() => process.exit(1));
  }, timeoutMs);
  bound.unref();
  process.once('exit', () => {
    for (const child of children) child.kill('SIGKILL');
  });
  try {
    await body();
  } catch (error) {
    process.stderr.write(`${name}: ${error?.stack ?? error}\n`);
    process.exitCode = 1;
  } finally {
    clearTimeout(bound);
    await cleanup();
  }
}

export function mb(bytes) {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** Talks to a helper child over lines: `send(line)`, and `next(word)` for its next answer starting with that word. */
export function lineChannel(child) {
  const waiting = [];
  const seen = [];
  let buffer = '';
  let exited;
  child.once('exit', (code) => {
    exited = `a helper exited (${code})`;
    for (const w of waiting.splice(0)) w.reject(new Error(`${exited} before "${w.word}"`));
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      const index = waiting.findIndex((w) => line.startsWith(w.word));
      if (index === -1) seen.push(line);
      else waiting.splice(index, 1)[0].resolve(line);
    }
  });
  return {
    send: (line) => child.stdin.write(`${line}\n`),
    next(word, timeoutMs = 120_000) {
      const index = seen.findIndex((line) => line.startsWith(word));
      if (index !== -1) return Promise.resolve(seen.splice(index, 1)[0]);
      if (exited !== undefined) return Promise.reject(new Error(`${exited} before "${word}"`));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${word}" from a helper within ${timeoutMs} ms`)), timeoutMs);
        waiting.push({ word, resolve: (line) => (clearTimeout(timer), resolve(line)), reject: (error) => (clearTimeout(timer), reject(error)) });
      });
    },
  };
}

/** A node process that only imports the daemon's heavy dependencies and idles: what the RSS figures compare with. */
const DEPENDENCY_FLOOR = "await Promise.all(['mqtt', 'got', 'pino', 'zod', 'env-var'].map((name) => import(name))); setInterval(() => {}, 60_000);";

/**
 * Three such processes, started now; `rss()` is the median of their RSS at the moment it is
 * called (read beside the daemon's, so both see the same machine).
 */
export function startDependencyFloor() {
  const floors = [0, 1, 2].map(() => startChild(process.execPath, ['--input-type=module', '-e', DEPENDENCY_FLOOR], { cwd: ROOT, stdio: 'ignore' }));
  return { rss: () => median(floors.map((child) => rssOf(child.pid))) };
}
