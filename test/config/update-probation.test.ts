import { afterAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/index.js';
import { assertBuilt, runBinary } from '../support/binary.js';
import { configError, Scratch } from './fixture.js';

// PANIC_PAIR_UPDATE_PROBATION: read by the judge of each update from config.json and the unit's
// environment; the daemon only checks it like every other setting, so a wrong value stops `run`.

const scratch = new Scratch();
afterAll(() => scratch.remove());

describe('the update probation setting', () => {
  it('is 600 seconds by default, a variable, a config key and a flag of run', () => {
    expect(SETTINGS.updateProbation).toMatchObject({ env: 'PANIC_PAIR_UPDATE_PROBATION', fileKey: 'updateProbation', flag: '--update-probation', default: 600 });
  });

  it('takes whole seconds from 60 from the flag, the environment or the file, in that order', () => {
    const file = scratch.config({ updateProbation: 900 });
    expect(() => scratch.load({ flags: { config: file } })).not.toThrow();
    expect(() => scratch.load({ env: { PANIC_PAIR_UPDATE_PROBATION: ' 60 ' } })).not.toThrow();
    expect(() => scratch.load({ env: { PANIC_PAIR_UPDATE_PROBATION: '86400' }, flags: { updateProbation: '120' } })).not.toThrow();
    // The flag wins over a wrong variable, the variable over a wrong file: each source in its turn.
    const wrong = scratch.config({ updateProbation: 5 }, 'wrong.json');
    expect(() => scratch.load({ env: { PANIC_PAIR_UPDATE_PROBATION: '5' }, flags: { updateProbation: '600' } })).not.toThrow();
    expect(() => scratch.load({ env: { PANIC_PAIR_UPDATE_PROBATION: '600' }, flags: { config: wrong } })).not.toThrow();
    expect(() => scratch.load({ flags: { config: wrong } })).toThrow(/PANIC_PAIR_UPDATE_PROBATION/);
  });

  it.each(['59', '0', '-600', '600.5', '10m', 'abc'])('refuses %s, naming the setting and the form', (value) => {
    const error = configError(() => scratch.load({ env: { PANIC_PAIR_UPDATE_PROBATION: value } }));
    expect(error.message).toBe(`PANIC_PAIR_UPDATE_PROBATION must be an integer number of seconds, at least 60, that a new version is on probation after an update; got "${value}"`);
  });

  it('names the file it came from when the file holds it wrong', () => {
    const file = scratch.config({ updateProbation: 30 }, 'short.json');
    expect(configError(() => scratch.load({ flags: { config: file } })).message).toMatch(new RegExp(`^PANIC_PAIR_UPDATE_PROBATION \\(updateProbation in ${file}\\) must be an integer number of seconds, at least 60`));
  });
});

describe('`panic-pair run --update-probation`', () => {
  it('refuses a probation under a minute with exit 2, before anything starts', async () => {
    assertBuilt();
    const env = { PATH: process.env.PATH, PANIC_PAIR_CONFIG: '', PANIC_PAIR_STATE_DIR: scratch.dir, PANIC_PAIR_API_URL: 'http://127.0.0.1:9', PANIC_PAIR_CUSTOMER_ID: '42', PANIC_PAIR_API_TOKEN: 'development-token' };
    const result = await runBinary(['run', '--update-probation', '30'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/PANIC_PAIR_UPDATE_PROBATION \(--update-probation\) must be an integer number of seconds, at least 60/);
    expect(result.stdout).toBe('');
  });
});
