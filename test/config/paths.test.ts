import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { namedRuntimeDir } from '../../src/config/locations.js';
import { controlSocketCandidates, controlSocketPath } from '../../src/config/paths.js';
import { SETTINGS } from '../../src/config/settings.js';
import { configError, Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

const runtimeFile = scratch.config({ runtimeDir: '/srv/file-run', stateDir: '/srv/file-state' }, 'runtime.json');
const stateFile = scratch.config({ stateDir: 'relative-state' }, 'state.json');

const cases: Array<{ name: string; env: NodeJS.ProcessEnv; flags?: { runtimeDir?: string; stateDir?: string; config?: string }; dir: string }> = [
  { name: 'nothing set', env: {}, dir: '/var/lib/panic-pair' },
  { name: 'runtime flag', env: { PANIC_PAIR_RUNTIME_DIR: '/env-run' }, flags: { runtimeDir: '/flag-run' }, dir: '/flag-run' },
  { name: 'runtime variable', env: { PANIC_PAIR_RUNTIME_DIR: '/env-run', RUNTIME_DIRECTORY: '/run/x' }, dir: '/env-run' },
  { name: 'file runtimeDir over systemd', env: { PANIC_PAIR_CONFIG: runtimeFile, RUNTIME_DIRECTORY: '/run/x' }, dir: '/srv/file-run' },
  { name: 'RUNTIME_DIRECTORY list', env: { RUNTIME_DIRECTORY: '/run/a:/run/b', PANIC_PAIR_STATE_DIR: '/s' }, dir: '/run/a' },
  { name: 'state flag', env: { PANIC_PAIR_STATE_DIR: '/env-state' }, flags: { stateDir: '/flag-state' }, dir: '/flag-state' },
  { name: 'state variable', env: { PANIC_PAIR_STATE_DIR: '/env-state', STATE_DIRECTORY: '/var/lib/x' }, dir: '/env-state' },
  { name: 'file stateDir, relative to the file', env: {}, flags: { config: stateFile }, dir: join(scratch.dir, 'relative-state') },
  { name: 'STATE_DIRECTORY', env: { STATE_DIRECTORY: '/var/lib/a:/var/lib/b' }, dir: '/var/lib/a' },
  { name: 'empty variables are unset', env: { PANIC_PAIR_RUNTIME_DIR: '', PANIC_PAIR_STATE_DIR: '', STATE_DIRECTORY: '' }, dir: '/var/lib/panic-pair' },
];

describe('controlSocketPath', () => {
  it.each(cases)('agrees with loadConfig: $name', ({ env, flags, dir }) => {
    const options = { defaultConfigFile: scratch.absentDefault };
    const socket = controlSocketPath(env, flags, options);
    expect(socket).toBe(join(dir, 'panic-pair.sock'));
    expect(socket).toBe(join(scratch.load({ env, flags: flags ?? {} }).runtimeDir, 'panic-pair.sock'));
  });

  it('reads the default config file when it exists', () => {
    expect(controlSocketPath({}, {}, { defaultConfigFile: runtimeFile })).toBe('/srv/file-run/panic-pair.sock');
  });

  it('reports a config file that is missing or not JSON, as the daemon would', () => {
    const missing = join(scratch.dir, 'missing.json');
    expect(configError(() => controlSocketPath({ PANIC_PAIR_CONFIG: missing })).message).toBe(`PANIC_PAIR_CONFIG ${missing} does not exist`);
    const broken = scratch.file('broken.json', '{', 0o644);
    expect(configError(() => controlSocketPath({}, { config: broken })).message).toMatch(/is not valid JSON/);
  });

  it('does not read the config file when the runtime dir is named', () => {
    const missing = join(scratch.dir, 'missing.json');
    expect(controlSocketPath({ PANIC_PAIR_CONFIG: missing, PANIC_PAIR_RUNTIME_DIR: '/r' })).toBe('/r/panic-pair.sock');
  });
});

describe('controlSocketCandidates', () => {
  it('adds the systemd runtime directory when nothing names the place', () => {
    expect(controlSocketCandidates({}, {}, { defaultConfigFile: scratch.absentDefault })).toEqual([
      '/var/lib/panic-pair/panic-pair.sock',
      '/run/panic-pair/panic-pair.sock',
    ]);
  });

  it('gives only the named place otherwise', () => {
    expect(controlSocketCandidates({ PANIC_PAIR_RUNTIME_DIR: '/r' })).toEqual(['/r/panic-pair.sock']);
    expect(controlSocketCandidates({}, { stateDir: '/s' }, { defaultConfigFile: scratch.absentDefault })).toEqual(['/s/panic-pair.sock']);
  });
});

// The CLI answers from namedRuntimeDir alone, without paths.ts, whenever it gives a directory.
describe('namedRuntimeDir', () => {
  const missing = join(scratch.dir, 'missing.json');
  const named: Array<{ name: string; flag?: string; env: NodeJS.ProcessEnv; dir: string }> = [
    { name: 'the flag over the variable', flag: '/flag-run', env: { PANIC_PAIR_RUNTIME_DIR: '/env-run' }, dir: '/flag-run' },
    { name: 'the variable', env: { PANIC_PAIR_RUNTIME_DIR: '/env-run', RUNTIME_DIRECTORY: '/run/x' }, dir: '/env-run' },
    { name: 'an empty flag is unset', flag: ' ', env: { PANIC_PAIR_RUNTIME_DIR: '/env-run' }, dir: '/env-run' },
    { name: 'relative, from the working directory', flag: 'run', env: {}, dir: resolve('run') },
    { name: 'over a config file that names another', env: { PANIC_PAIR_RUNTIME_DIR: '/env-run', PANIC_PAIR_CONFIG: runtimeFile }, dir: '/env-run' },
    { name: 'over a config file that is missing', env: { PANIC_PAIR_RUNTIME_DIR: '/env-run', PANIC_PAIR_CONFIG: missing }, dir: '/env-run' },
  ];

  it.each(named)('agrees with the resolver and loadConfig: $name', ({ flag, env, dir }) => {
    expect(namedRuntimeDir(flag, env)).toBe(dir);
    expect(controlSocketCandidates(env, { runtimeDir: flag })).toEqual([join(dir, 'panic-pair.sock')]);
    if (env.PANIC_PAIR_CONFIG !== missing) {
      expect(scratch.load({ env, flags: flag === undefined ? {} : { runtimeDir: flag } }).runtimeDir).toBe(dir);
    }
  });

  it('is undefined when only the config file, systemd or the default could say', () => {
    expect(namedRuntimeDir(undefined, { PANIC_PAIR_CONFIG: runtimeFile, RUNTIME_DIRECTORY: '/run/x', PANIC_PAIR_STATE_DIR: '/s' })).toBeUndefined();
    expect(namedRuntimeDir('', { PANIC_PAIR_RUNTIME_DIR: '' })).toBeUndefined();
  });

  it('reads the variable the settings table names', () => {
    expect(namedRuntimeDir(undefined, { [SETTINGS.runtimeDir.env]: '/from-table' })).toBe('/from-table');
  });
});
