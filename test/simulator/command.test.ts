import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runSimulatorCommand, type SimulatorCommandIo } from '../../src/cli/commands/simulator.js';
import { PanicPairError } from '../../src/errors.js';

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-simcmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class Capture {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/** Resolves once `check` holds, polling; fails after a bound instead of hanging. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function io(env: NodeJS.ProcessEnv = {}) {
  const stop = new AbortController();
  const stdout = new Capture();
  const stderr = new Capture();
  const value: SimulatorCommandIo = { stdout, stderr, env, stop: stop.signal };
  return { io: value, stdout, stderr, stop: () => stop.abort() };
}

describe('runSimulatorCommand', () => {
  it('prints the base address first, serves with the given token, logs requests, stops', async () => {
    const run = io();
    const done = runSimulatorCommand({ port: '0', token: 'cli-token-77' }, run.io);
    await until(() => run.stdout.text.includes('\n'), 'the first line');
    const [first, second] = run.stdout.text.split('\n');
    expect(first).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(second).toMatch(/1 customer\(s\) \(42\) from the built-in seed; token from --token/);
    expect(run.stdout.text).not.toContain('cli-token-77');

    const answer = await fetch(`${first}/panic-api/v2/customers/42/subscriptions`, { headers: { authorization: 'Bearer cli-token-77' } });
    expect(answer.status).toBe(200);
    await until(() => run.stderr.text.includes('GET /panic-api/v2/customers/42/subscriptions 200'), 'the request log');
    expect(run.stderr.text).not.toContain('cli-token-77');

    run.stop();
    await done;
    await expect(fetch(first ?? '')).rejects.toThrow();
  });

  it('takes the token from PANIC_PAIR_API_TOKEN and loads a seed', async () => {
    const seed = path.join(dir, 'seed.json');
    writeFileSync(seed, JSON.stringify({ customers: [{ id: 5, subscriptions: [] }, { id: 6, subscriptions: [] }] }));
    const run = io({ PANIC_PAIR_API_TOKEN: 'env-token' });
    const done = runSimulatorCommand({ port: '0', seed }, run.io);
    await until(() => run.stdout.text.split('\n').length > 2, 'two lines');
    const [url, about] = run.stdout.text.split('\n');
    expect(about).toContain(`2 customer(s) (5, 6) from ${seed}; token from PANIC_PAIR_API_TOKEN`);
    const answer = await fetch(`${url}/panic-api/v2/customers/5/subscriptions`, { headers: { authorization: 'Bearer env-token' } });
    expect(await answer.json()).toEqual([]);
    run.stop();
    await done;
  });

  it('without a token, generates one and shows it on stderr only', async () => {
    const run = io();
    const done = runSimulatorCommand({ port: '0' }, run.io);
    await until(() => run.stdout.text.split('\n').length > 2, 'two lines');
    const token = /simulator token: (\S+)/.exec(run.stderr.text)?.[1] ?? '';
    expect(token.length).toBeGreaterThanOrEqual(20);
    expect(run.stdout.text).not.toContain(token);
    const url = run.stdout.text.split('\n')[0];
    expect((await fetch(`${url}/panic-api/v2/customers/42/subscriptions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    run.stop();
    await done;
  });

  it.each(['-1', '65536', 'abc', '80.5', ''])('--port %j is a usage error', async (port) => {
    const error = await runSimulatorCommand({ port, token: 't' }, io().io).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PanicPairError);
    expect((error as PanicPairError).kind).toBe('usage');
    expect((error as PanicPairError).message).toMatch(/--port must be an integer from 0 to 65535/);
  });

  it('a bad seed is a config error naming the file', async () => {
    const seed = path.join(dir, 'bad.json');
    writeFileSync(seed, '{"customers": 3}');
    const error = await runSimulatorCommand({ port: '0', token: 't', seed }, io().io).catch((caught: unknown) => caught);
    expect((error as PanicPairError).kind).toBe('config');
    expect((error as PanicPairError).message).toContain(seed);
  });

  it('an empty --token is a usage error', async () => {
    const error = await runSimulatorCommand({ port: '0', token: ' ' }, io().io).catch((caught: unknown) => caught);
    expect((error as PanicPairError).kind).toBe('usage');
  });

  it('a port in use is a usage error', async () => {
    const first = io();
    const done = runSimulatorCommand({ port: '0', token: 't' }, first.io);
    await until(() => first.stdout.text.includes('\n'), 'the first line');
    const port = new URL(first.stdout.text.split('\n')[0] ?? '').port;
    const error = await runSimulatorCommand({ port, token: 't' }, io().io).catch((caught: unknown) => caught);
    expect((error as PanicPairError).kind).toBe('usage');
    expect((error as PanicPairError).message).toMatch(/already in use/);
    first.stop();
    await done;
  });
});

// The built command in a real process: SIGTERM and SIGINT stop it with exit 0. Needs `npm run build`
// (which `npm test` runs first).
const built = path.resolve('dist/cli/commands/simulator.js');
describe.skipIf(!existsSync(built))('the built command in its own process', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s: exit 0', async (signal) => {
    const script = `import(${JSON.stringify(built)}).then((m) => m.runSimulatorCommand({ port: '0', token: 'T' }))`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await until(() => out.includes('\n') || child.exitCode !== null, 'the first line');
    expect(out.split('\n')[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    child.kill(signal);
    expect(await exited).toBe(0);
  });
});
