import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { isSystemdCredential, readSecretFile } from '../../src/config/secret-file.js';

// systemd 257 (Debian 13) hands credentials over as mode 0440, 252 (Debian 12) as 0400: either is
// the service's alone, in a directory only it sees. A secret file anywhere else keeps the rule.

const dir = mkdtempSync(path.join(tmpdir(), 'panic-pair-secret-'));
const credentials = path.join(dir, 'credentials', 'panic-pair.service');
mkdirSync(credentials, { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const saved = process.env.CREDENTIALS_DIRECTORY;
afterEach(() => {
  if (saved === undefined) delete process.env.CREDENTIALS_DIRECTORY;
  else process.env.CREDENTIALS_DIRECTORY = saved;
});

function fileAt(file: string, text: string, mode: number): string {
  writeFileSync(file, text);
  chmodSync(file, mode);
  return file;
}

describe('secret files and systemd credentials', () => {
  it("reads a credential systemd made 0440, and only inside the service's credentials directory", () => {
    process.env.CREDENTIALS_DIRECTORY = credentials;
    const credential = fileAt(path.join(credentials, 'installer-code'), 'hub-code-1234\n', 0o440);
    expect(readSecretFile(credential, 'PANIC_PAIR_WEB_CODE_FILE')).toBe('hub-code-1234\n');
    const loose = fileAt(path.join(dir, 'installer-code'), 'hub-code-1234\n', 0o440);
    expect(() => readSecretFile(loose, 'PANIC_PAIR_WEB_CODE_FILE')).toThrow(`PANIC_PAIR_WEB_CODE_FILE ${loose} is readable by group or others (mode 0440): chmod 600 ${loose}`);
  });

  it('without CREDENTIALS_DIRECTORY nothing counts as a credential, and a neighbouring folder never does', () => {
    delete process.env.CREDENTIALS_DIRECTORY;
    expect(isSystemdCredential(path.join(credentials, 'installer-code'))).toBe(false);
    const env = { CREDENTIALS_DIRECTORY: credentials };
    expect(isSystemdCredential(path.join(credentials, 'installer-code'), env)).toBe(true);
    expect(isSystemdCredential(`${credentials}-other/installer-code`, env)).toBe(false);
    expect(isSystemdCredential(path.join(credentials, '..', 'installer-code'), env)).toBe(false);
  });
});
