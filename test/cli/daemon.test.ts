import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { askDaemon } from '../../src/cli/daemon.js';
import { startControlServer, type ControlServer } from '../../src/control/server.js';
import { PanicPairError } from '../../src/errors.js';
import { silentLogger } from '../../src/log/logger.js';
import { fakeHandlers, sampleStatus } from '../control/fake-daemon.js';

// Every way a client command finds the daemon's socket: a named runtime dir is the whole answer
// (the config file is not even read); otherwise the config file decides, as it does for the daemon.

let dir: string;
let server: ControlServer;
const saved = { ...process.env };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'panic-pair-ask-'));
  server = await startControlServer({
    socketPath: join(dir, 'run', 'panic-pair.sock'),
    handlers: fakeHandlers({ status: () => sampleStatus(true) }),
    logger: silentLogger(),
  });
});

afterEach(() => {
  process.env = { ...saved };
});

afterAll(async () => {
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

function environment(values: NodeJS.ProcessEnv): void {
  process.env = { PATH: saved.PATH, ...values };
}

let files = 0;
async function configFile(values: unknown): Promise<string> {
  const path = join(dir, `config-${++files}.json`);
  await writeFile(path, JSON.stringify(values));
  await chmod(path, 0o644);
  return path;
}

const askStatus = (options: { runtimeDir?: string; config?: string }) =>
  askDaemon<{ healthy: boolean }>(options, { type: 'status' }, { timeoutMs: 5000 });

describe('askDaemon', () => {
  it('reaches the daemon in the runtime dir the flag names, over the variable', async () => {
    environment({ PANIC_PAIR_RUNTIME_DIR: join(dir, 'elsewhere') });
    await expect(askStatus({ runtimeDir: join(dir, 'run') })).resolves.toMatchObject({ healthy: true });
  });

  it('reaches the daemon in the runtime dir the variable names, without reading a broken config file', async () => {
    environment({ PANIC_PAIR_RUNTIME_DIR: join(dir, 'run') });
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{');
    await expect(askStatus({ config: broken })).resolves.toMatchObject({ healthy: true });
  });

  it('reaches the daemon in the runtime dir the config file names, when nothing else does', async () => {
    environment({});
    await expect(askStatus({ config: await configFile({ runtimeDir: join(dir, 'run') }) })).resolves.toMatchObject({ healthy: true });
  });

  it('reports a broken config file when it is what decides, as the daemon would', async () => {
    const broken = join(dir, 'broken-decides.json');
    await writeFile(broken, '{');
    await chmod(broken, 0o644);
    environment({ PANIC_PAIR_CONFIG: broken });
    await expect(askStatus({})).rejects.toMatchObject({ kind: 'config', message: expect.stringMatching(/is not valid JSON/) });
  });

  it('names only the named socket when no daemon listens there', async () => {
    environment({});
    const empty = join(dir, 'empty');
    const call = askStatus({ runtimeDir: empty });
    await expect(call).rejects.toBeInstanceOf(PanicPairError);
    await expect(call).rejects.toMatchObject({
      kind: 'daemon-unreachable',
      message: expect.stringContaining(`(no control socket at ${join(empty, 'panic-pair.sock')}). Start it`),
    });
  });
});
