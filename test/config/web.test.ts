import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readWebSecrets, UNIT_CODE_FILE, UNIT_CODE_PLACEHOLDER } from '../../src/config/web.js';
import { configError, Scratch } from './fixture.js';

const scratch = new Scratch();
afterAll(() => scratch.remove());

const CODE = 'label-code-8812';

describe("the installer's page settings", () => {
  it('is off unless PANIC_PAIR_WEB_LISTEN is set', () => {
    expect(scratch.load().web).toBeUndefined();
  });

  it('reads host:port, [v6]:port and the code file', () => {
    const codeFile = scratch.file('code-ok', `${CODE}\n`, 0o600);
    const v4 = scratch.load({ env: { PANIC_PAIR_WEB_LISTEN: '0.0.0.0:8080', PANIC_PAIR_WEB_CODE_FILE: codeFile } }).web;
    expect(v4).toEqual({ host: '0.0.0.0', port: 8080, codeFile });
    const v6 = scratch.load({ flags: { webListen: '[::]:8443', webCodeFile: codeFile } }).web;
    expect(v6).toMatchObject({ host: '::', port: 8443 });
    expect(readWebSecrets(v4 ?? { host: '', port: 0, codeFile }).code.reveal()).toBe(CODE);
  });

  it('refuses a malformed address and a port that would need privilege, naming the setting', () => {
    const codeFile = scratch.file('code-ok2', CODE, 0o600);
    for (const listen of ['8080', 'hub:80', '0.0.0.0:99999', '[zz]:8080', 'a b:8080']) {
      const error = configError(() => scratch.load({ env: { PANIC_PAIR_WEB_LISTEN: listen, PANIC_PAIR_WEB_CODE_FILE: codeFile } }));
      expect(error.message, listen).toMatch(/^PANIC_PAIR_WEB_LISTEN .*must be host:port/);
    }
  });

  it('needs the code file with the page, and both or neither of the certificate and key', () => {
    expect(configError(() => scratch.load({ env: { PANIC_PAIR_WEB_LISTEN: '127.0.0.1:8080' } })).message).toMatch(
      /^PANIC_PAIR_WEB_CODE_FILE is required when PANIC_PAIR_WEB_LISTEN is set/,
    );
    const codeFile = scratch.file('code-ok3', CODE, 0o600);
    const certOnly = { PANIC_PAIR_WEB_LISTEN: '127.0.0.1:8080', PANIC_PAIR_WEB_CODE_FILE: codeFile, PANIC_PAIR_WEB_CERT_FILE: '/x/cert.pem' };
    expect(configError(() => scratch.load({ env: certOnly })).message).toMatch(/^PANIC_PAIR_WEB_KEY_FILE is required with PANIC_PAIR_WEB_CERT_FILE/);
  });

  it('refuses a code file group or others can read, without quoting it', () => {
    const loose = scratch.file('code-644', CODE, 0o644);
    const error = configError(() => readWebSecrets({ host: '0.0.0.0', port: 8080, codeFile: loose }));
    expect(error.message).toBe(`PANIC_PAIR_WEB_CODE_FILE ${loose} is readable by group or others (mode 0644): chmod 600 ${loose}`);
    expect(error.message).not.toContain(CODE);
    const missing = join(scratch.dir, 'no-code');
    expect(configError(() => readWebSecrets({ host: '0.0.0.0', port: 8080, codeFile: missing })).message).toBe(
      `PANIC_PAIR_WEB_CODE_FILE ${missing} does not exist`,
    );
    const short = scratch.file('code-short', 'abc', 0o600);
    expect(configError(() => readWebSecrets({ host: '0.0.0.0', port: 8080, codeFile: short })).message).toMatch(/at least 6 characters/);
  });

  it("refuses the Debian unit's placeholder, saying where the code goes", async () => {
    const placeholder = scratch.file('code-placeholder', `${UNIT_CODE_PLACEHOLDER}\n`, 0o600);
    const error = configError(() => readWebSecrets({ host: '0.0.0.0', port: 8080, codeFile: placeholder }));
    expect(error.message).toBe(
      `PANIC_PAIR_WEB_CODE_FILE: the installer's page is on (PANIC_PAIR_WEB_LISTEN) but has no installer code: write it, one line of at least 6 characters, to ${UNIT_CODE_FILE} (chmod 600), then restart: sudo systemctl restart panic-pair`,
    );
    // The package's unit hands over this very text while the code file does not exist.
    const metadata = '../../packaging/deb/metadata.mjs';
    const { UNIT_CODE_PLACEHOLDER: packaged } = (await import(metadata)) as { UNIT_CODE_PLACEHOLDER: string };
    expect(packaged).toBe(UNIT_CODE_PLACEHOLDER);
  });
});
