import { describe, expect, it } from 'vitest';
import { buildStatus, type StatusInputs } from '../../src/daemon/status.js';
import { healthyStatusInputs } from '../support/status-inputs.js';

// A refused token's fix, said for where the token comes from: a reload (SIGHUP) reads a token file
// again, but systemd hands the daemon its credential copy only at a start, and the environment is
// read only then too. Under the default install (LoadCredential) the fix is a restart.

function refused(tokenSource?: StatusInputs['tokenSource']): string[] {
  return buildStatus(healthyStatusInputs({ token: 'refused', ...(tokenSource === undefined ? {} : { tokenSource }) })).problems;
}

describe("a refused token's fix", () => {
  it("is a restart when the token is systemd's credential, as the package and install.sh hand it", () => {
    expect(refused('credential')).toEqual(['the API refused the token (401): write a valid token to /etc/panic-pair/api-token, then restart (systemctl restart panic-pair)']);
  });
  it('is a reload when the token is a file the daemon reads itself', () => {
    expect(refused('file')).toEqual(['the API refused the token (401): write a valid token to the token file, then reload (systemctl reload panic-pair)']);
  });
  it('is a restart when the token is in the environment', () => {
    expect(refused('env')).toEqual(['the API refused the token (401): set a valid PANIC_PAIR_API_TOKEN, then restart (systemctl restart panic-pair)']);
  });
});
