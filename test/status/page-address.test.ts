import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPage } from '../../src/check/page-check.js';
import { statusLines } from '../../src/cli/commands/status.js';
import { loadConfig } from '../../src/config/index.js';
import { buildStatus } from '../../src/daemon/status.js';
import { hubOnNetwork, pageAddress, pageAddressText, withAddressesHere } from '../../src/status/page-address.js';
import { healthyStatusInputs } from '../support/status-inputs.js';

// The installer, on site with a phone, learns from `status` and `check` which address to open:
// the hub's .local name (avahi answers it on Raspberry Pi OS), its IPv4 addresses for a phone that
// cannot find .local names, http or https, and the port. A page that is off names what turns it on.

const HUB = { name: 'Hub-0001', ipv4: ['192.168.1.23'] };
const pageLine = (text: string): string | undefined => text.split('\n').find((line) => line.startsWith('page '));

describe("the page's address", () => {
  it('listening on every IPv4 address: the hub\'s .local name, and its IPv4 addresses beside it', () => {
    expect(pageAddress({ host: '0.0.0.0', port: 8080, https: false }, HUB)).toEqual({ url: 'http://hub-0001.local:8080', ipUrls: ['http://192.168.1.23:8080'] });
  });

  it('listening on every address (::) over HTTPS: the same, with https', () => {
    expect(pageAddress({ host: '::', port: 8443, https: true }, { name: 'hub', ipv4: ['10.0.0.5', '192.168.1.23'] })).toEqual({
      url: 'https://hub.local:8443',
      ipUrls: ['https://10.0.0.5:8443', 'https://192.168.1.23:8443'],
    });
  });

  it('a host name with a dot is a DNS name already: no .local added', () => {
    expect(pageAddress({ host: '0.0.0.0', port: 8080, https: false }, { name: 'hub.example.net', ipv4: [] }).url).toBe('http://hub.example.net:8080');
  });

  it('a hub without a usable name is opened by its first address', () => {
    expect(pageAddress({ host: '0.0.0.0', port: 8080, https: false }, { name: 'localhost', ipv4: ['192.168.1.23', '10.0.0.5'] })).toEqual({
      url: 'http://192.168.1.23:8080',
      ipUrls: ['http://10.0.0.5:8080'],
    });
  });

  it('listening on one address: that address, IPv6 in brackets, and no other', () => {
    expect(pageAddress({ host: '192.168.1.23', port: 8080, https: false }, HUB)).toEqual({ url: 'http://192.168.1.23:8080', ipUrls: [] });
    expect(pageAddress({ host: 'fd00::17', port: 8443, https: true }, HUB)).toEqual({ url: 'https://[fd00::17]:8443', ipUrls: [] });
  });

  it('in words: what to open, and that an address only the hub can open is no use to a phone', () => {
    expect(pageAddressText({ url: 'http://hub.local:8080', ipUrls: ['http://192.168.1.23:8080'] })).toBe(
      "open http://hub.local:8080 on a phone on the hub's network (or http://192.168.1.23:8080)",
    );
    expect(pageAddressText({ url: 'http://192.168.1.23:8080', ipUrls: [] })).toBe("open http://192.168.1.23:8080 on a phone on the hub's network");
    expect(pageAddressText({ url: 'http://127.0.0.1:8080', ipUrls: [] })).toMatch(/^http:\/\/127\.0\.0\.1:8080, this hub only: no phone can open it \(webListen 0\.0\.0\.0:8080/);
    expect(pageAddressText({ url: 'https://[::1]:8443', ipUrls: [] })).toMatch(/this hub only/);
  });
});

describe('panic-pair status', () => {
  const page = pageAddress({ host: '0.0.0.0', port: 8080, https: false }, HUB);

  it('--json holds page: the address when the page is on, null when it is off', () => {
    expect(buildStatus(healthyStatusInputs({ page })).page).toEqual(page);
    expect(buildStatus(healthyStatusInputs()).page).toBeNull();
  });

  it('prints the address to open, or what turns the page on', () => {
    expect(pageLine(statusLines(buildStatus(healthyStatusInputs({ page })), Date.now()))).toMatch(
      /^page +open http:\/\/hub-0001\.local:8080 on a phone on the hub's network \(or http:\/\/192\.168\.1\.23:8080\)$/,
    );
    expect(pageLine(statusLines(buildStatus(healthyStatusInputs()), Date.now()))).toMatch(
      /^page +off: webListen \(PANIC_PAIR_WEB_LISTEN\), e\.g\. 0\.0\.0\.0:8080, and an installer code turn it on$/,
    );
  });

  it('prints no page line for an older daemon, which sends none', () => {
    const { page: _none, ...older } = buildStatus(healthyStatusInputs());
    expect(pageLine(statusLines(older, Date.now()))).toBeUndefined();
  });
});

describe('panic-pair check', () => {
  const CODE = 'label-code-5h2k9q';
  let dir: string;
  let codeFile: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'panic-pair-page-address-'));
    codeFile = join(dir, 'installer-code');
    await writeFile(codeFile, `${CODE}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const configOf = (env: Record<string, string>) => loadConfig({ env, defaultConfigFile: join(dir, 'absent.json') });

  it("names the address a phone opens, from the settings alone, and never the code", () => {
    const result = checkPage(configOf({ PANIC_PAIR_WEB_LISTEN: '0.0.0.0:8080', PANIC_PAIR_WEB_CODE_FILE: codeFile }), HUB);
    expect(result).toEqual({
      name: 'page',
      ok: true,
      detail: `HTTP on 0.0.0.0:8080: open http://hub-0001.local:8080 on a phone on the hub's network (or http://192.168.1.23:8080); installer code in ${codeFile}, readable by its owner only`,
    });
    expect(JSON.stringify(result)).not.toContain(CODE);
  });

  it('with port 0, sends the installer to status for the port chosen at start', () => {
    expect(checkPage(configOf({ PANIC_PAIR_WEB_LISTEN: '0.0.0.0:0', PANIC_PAIR_WEB_CODE_FILE: codeFile }), HUB).detail).toContain('panic-pair status shows the address');
  });

  it('off: says which setting turns the page on', () => {
    expect(checkPage(configOf({}), HUB)).toEqual({ name: 'page', ok: true, skipped: true, detail: 'off: webListen (PANIC_PAIR_WEB_LISTEN), e.g. 0.0.0.0:8080, and an installer code turn it on' });
  });
});

describe('where the addresses cannot be read (the unit allows no netlink socket)', () => {
  it('the hub has its name and no addresses, and nothing throws', () => {
    const refused = (): never => {
      throw Object.assign(new Error('uv_interface_addresses returned Unknown system error 97'), { code: 'ERR_SYSTEM_ERROR' });
    };
    const hub = hubOnNetwork(refused);
    expect(hub.ipv4).toEqual([]);
    expect(hub.name).not.toBe('');
  });

  it('status, outside the sandbox, gives the daemon\'s page the addresses of the machine it runs on', () => {
    const here = { name: 'hub-0001', ipv4: ['192.168.1.23'] };
    expect(withAddressesHere({ url: 'https://hub-0001.local:8443', ipUrls: [] }, here)).toEqual({ url: 'https://hub-0001.local:8443', ipUrls: ['https://192.168.1.23:8443'] });
    // Addresses the daemon read, and a page on one address, stay as they are.
    expect(withAddressesHere({ url: 'http://hub-0001.local:8080', ipUrls: ['http://10.0.0.2:8080'] }, here).ipUrls).toEqual(['http://10.0.0.2:8080']);
    expect(withAddressesHere({ url: 'http://192.168.1.50:8080', ipUrls: [] }, here).ipUrls).toEqual([]);
    const lines = statusLines({ ...buildStatus(healthyStatusInputs()), page: { url: 'http://hub-0001.local:8080', ipUrls: [] } }, Date.now(), here);
    expect(lines).toContain('open http://hub-0001.local:8080 on a phone on the hub\'s network (or http://192.168.1.23:8080)');
  });
});
