import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCRUBBED_USER_DATA } from '../../src/provision/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { assertBuilt, ROOT, runBinary } from '../support/binary.js';
import { startBroker, type TestBroker } from '../support/broker.js';
import { checkoutPackage } from '../support/checkout-package.js';
import { pairInside, unitProperties } from '../support/container-service.js';
import { bootOrReason, type Container } from '../support/container.js';
import { PROVISION_RECIPE } from '../support/test-roots.js';
import { freePort } from '../support/loopback.mjs';
import { signIn } from '../support/web-page.js';

// A headless hub provisioned from its boot partition, with real cloud-init:
// Debian 13 (trixie) booted under systemd by systemd-nspawn, with cloud-init and the panic-pair
// package installed and `cloud-init clean` run, as a golden image is shipped. NoCloud reads its
// seed from /boot/firmware, as on Raspberry Pi OS; the seed's user-data is one of three files
// `panic-pair provision --csv` wrote for a batch (hub-b, the second row: one hub of the three is
// booted, to keep the suite short). Nobody runs a command on the hub: the test only reads what the
// boot did, then boots it again. A second container starts from an image without the package and
// gets the .deb from the boot partition (`provision --deb-on-boot`). The API simulator and
// mosquitto run on the host's loopback, which the containers share. Skips, saying why, where
// containers cannot run.

const RECIPE = PROVISION_RECIPE;
const TOKEN = 'prov-token-8c41e0b7a2';
const CODE = 'prov-label-5528';
const CUSTOMER_ID = 42;
const BOOTED_HUB = 'hub-b';
const UNIT = 'panic-pair.service';
const STEP_MS = 120_000;
const SECRET_FILES = ['/etc/panic-pair/api-token', '/etc/panic-pair/installer-code'];
/** Where a non-root user must not find the token: the seed, logs, cloud-init's data, settings, run time. */
const SEARCHED = ['/boot/firmware', '/var/log', '/var/lib/cloud', '/etc', '/run', '/var/lib/panic-pair', '/tmp', '/var/tmp', '/home', '/root'];
/**
 * Besides its owner-only file, a secret may be only in cloud-init's root-only copies (seen with
 * cloud-init 25.1: the instance's user-data.txt, user-data.txt.i, cloud-config.txt and obj.pkl,
 * and /run/cloud-init/combined-cloud-config.json) and systemd's private credential for the unit.
 */
const ROOT_ONLY_COPIES = /^\/(var\/lib\/cloud\/|run\/cloud-init\/|run\/credentials\/panic-pair\.service\/)/;
const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

// The package's HCI module is compiled with this Node's Node-API headers.
const headers = path.join(path.dirname(process.execPath), '..', 'include', 'node', 'node_version.h');
const booted = existsSync(headers) ? await bootOrReason(RECIPE) : `no Node headers at ${headers} to build the package with`;
const skipReason = typeof booted === 'string' ? booted : undefined;
if (skipReason !== undefined) process.stderr.write(`skipping the cloud-init provisioning suite: ${skipReason}\n`);

/**
 * cloud-init's verdict once it is done. A container lacks what some modules want (ip, ssh-keygen):
 * those are recoverable warnings of the test's image (exit 2, "degraded done"); errors, and
 * warnings about the user-data or what it asked for, are not.
 */
async function cloudInitDone(box: Container): Promise<string> {
  const status = await box.run(['cloud-init', 'status', '--wait', '--long']);
  const text = status.stdout + status.stderr;
  expect(text).toMatch(/^status: done$/m);
  expect(text).toMatch(/^errors: \[\]$/m);
  expect(text).not.toMatch(/write.files|runcmd|scripts|user.?data|cloud config|panic-pair/i);
  expect([0, 2], text).toContain(status.code);
  return text;
}

/**
 * The image as shipped: NoCloud told where the boot partition's seed is (Raspberry Pi OS:
 * /boot/firmware), the package installed with apt when `deb` is given (a golden image), and
 * cloud-init cleaned so that the next boot is a first boot.
 */
async function makeImage(box: Container, deb: string | undefined): Promise<void> {
  if (deb !== undefined) {
    const name = path.basename(deb);
    await copyFile(deb, path.join(box.root, 'root', name));
    await box.check(['apt-get', 'install', '-y', '-q', '--no-install-recommends', `/root/${name}`], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
    await box.check(['rm', `/root/${name}`]);
  }
  writeFileSync(
    path.join(box.root, 'etc/cloud/cloud.cfg.d/90-boot-partition.cfg'),
    [
      '# NoCloud from the boot partition, as on Raspberry Pi OS.',
      'datasource_list: [ NoCloud, None ]',
      'datasource:',
      '  NoCloud:',
      '    seedfrom: file:///boot/firmware/',
      '# The container shares the host network: nothing for cloud-init to configure there.',
      'network: {config: disabled}',
      '',
    ].join('\n'),
  );
  await box.check(['cloud-init', 'clean', '--logs']);
}

/** The card: the user-data (and any file beside it) on the boot partition, meta-data naming the instance; then the first boot. */
async function flashAndBoot(box: Container, userData: string, instanceId: string, beside: readonly string[] = []): Promise<void> {
  const boot = path.join(box.root, 'boot', 'firmware');
  await mkdir(boot, { recursive: true });
  await copyFile(userData, path.join(boot, 'user-data'));
  for (const file of beside) await copyFile(file, path.join(boot, path.basename(file)));
  writeFileSync(path.join(boot, 'meta-data'), `instance-id: ${instanceId}\n`);
  await box.reboot();
}

describe.skipIf(skipReason !== undefined)(`a hub provisioned by cloud-init from its boot partition${skipReason ? ` (skipped: ${skipReason})` : ''}`, () => {
  const work = mkdtempSync(path.join(tmpdir(), 'panic-pair-provision-'));
  const tokenFile = path.join(work, 'token');
  let deb: string;
  let simulator: Simulator;
  let broker: TestBroker;

  beforeAll(async () => {
    assertBuilt();
    simulator = await startSimulator({ token: TOKEN });
    broker = await startBroker();
    deb = await checkoutPackage('amd64');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  }, 3 * STEP_MS);

  afterAll(async () => {
    await broker?.stop();
    await simulator?.close();
    rmSync(work, { recursive: true, force: true });
  }, STEP_MS);

  describe('a golden image with the package, from one of a batch of three', () => {
    const box = booted as Container;
    const batchDir = path.join(work, 'batch');
    let webPort: number;

    const inside = (file: string): string => path.join(box.root, file);
    const show = (unit: string, ...properties: string[]) => unitProperties(box, unit, ...properties);
    /** What a second boot must leave as it was: content, mode, owner and modification time. */
    const fingerprint = () => box.check(['stat', '-c', '%n %a %U:%G %.9Y %s', ...SECRET_FILES, '/etc/panic-pair/config.json', '/boot/firmware/user-data']);

    beforeAll(async () => {
      webPort = await freePort();
      await makeImage(box, deb);
      // The vendor's desk: a batch of three hubs from one CSV, one token file for all, a code each.
      for (const id of ['a', 'b', 'c']) writeFileSync(path.join(work, `code-${id}`), `${CODE}-${id}\n`, { mode: 0o600 });
      writeFileSync(path.join(work, 'hubs.csv'), ['hubId,customerId,webCodeFile', 'hub-a,41,code-a', `${BOOTED_HUB},${CUSTOMER_ID},code-b`, 'hub-c,43,code-c', ''].join('\n'));
      const made = await runBinary(
        ['provision', '--api-url', simulator.url, '--mqtt-url', broker.url, '--web-listen', `127.0.0.1:${webPort}`, '--token-file', tokenFile, '--csv', path.join(work, 'hubs.csv'), '--out-dir', batchDir],
        {},
      );
      if (made.code !== 0) throw new Error(`provision exited ${made.code}: ${made.stderr}`);
      await flashAndBoot(box, path.join(batchDir, `${BOOTED_HUB}.user-data`), `${BOOTED_HUB}-first-flash`);
    }, 3 * STEP_MS);

    afterAll(async () => {
      await box?.stop();
    }, STEP_MS);

    it('a batch of three gives three files with distinct hub ids (hub-b is the one booted)', () => {
      const ids = ['hub-a', BOOTED_HUB, 'hub-c'].map((id) => readFileSync(path.join(batchDir, `${id}.user-data`), 'utf8'));
      ids.forEach((text, i) => {
        expect(text.startsWith('#cloud-config\n')).toBe(true);
        expect(text).toContain(`"${['hub-a', BOOTED_HUB, 'hub-c'][i]}\\n"`);
        expect(text).toContain(`"customerId": ${41 + i}`);
      });
    });

    it('first boot: cloud-init applied the user-data, and the daemon started after it, without an ordering cycle', async () => {
      expect(await cloudInitDone(box)).toContain('DataSourceNoCloud [seed=ds_config_seedfrom,file:///boot/firmware/]');
      expect(await show(UNIT, 'ActiveState', 'SubState', 'UnitFileState')).toEqual({ ActiveState: 'active', SubState: 'running', UnitFileState: 'enabled' });
      // Started by the restart at the end of cloud-init's work, with every setting in place.
      const daemon = Number((await show(UNIT, 'ExecMainStartTimestampMonotonic')).ExecMainStartTimestampMonotonic);
      const configured = Number((await show('cloud-config.service', 'ActiveEnterTimestampMonotonic')).ActiveEnterTimestampMonotonic);
      expect(configured).toBeGreaterThan(0);
      expect(daemon).toBeGreaterThan(configured);
      const journal = await box.check(['journalctl', '--no-pager', '-b', '-o', 'cat']);
      expect(journal).not.toMatch(/ordering cycle/i);
      expect((await box.run(['systemd-analyze', 'verify', UNIT])).stderr).not.toMatch(/cycle/i);
    });

    it('`panic-pair check` passes against the simulator, and a button pairs', async () => {
      const check = await box.run(['panic-pair', 'check']);
      expect(check.code, check.stdout).toBe(0);
      expect(check.stdout.trim().split('\n').at(-1)).toBe('ready: every enabled check passed');
      const result = await pairInside(box, broker.url, 'PROV-1');
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(simulator.stats().postsByDevice).toEqual({ 'PROV-1': 1 });
      expect(simulator.stats().customersByDevice).toEqual({ 'PROV-1': [CUSTOMER_ID] });
    });

    it("the installer's page is served with the provisioned code", async () => {
      expect(await signIn({ code: `${CODE}-b`, port: webPort, origin: `http://127.0.0.1:${webPort}`, env: {} })).toMatch(/=/);
    });

    it('the secrets are in owner-only files, and the boot partition holds none', async () => {
      const files = (await box.check(['stat', '-c', '%n %a %U:%G', ...SECRET_FILES, '/etc/panic-pair/config.json', '/etc/panic-pair/hub-id'])).trim().split('\n');
      expect(files).toEqual([
        '/etc/panic-pair/api-token 600 root:root',
        '/etc/panic-pair/installer-code 600 root:root',
        '/etc/panic-pair/config.json 644 root:root',
        '/etc/panic-pair/hub-id 644 root:root',
      ]);
      expect(readFileSync(inside('/etc/panic-pair/api-token'), 'utf8')).toBe(`${TOKEN}\n`);
      expect(readFileSync(inside('/etc/panic-pair/installer-code'), 'utf8')).toBe(`${CODE}-b\n`);
      expect(readFileSync(inside('/etc/panic-pair/hub-id'), 'utf8')).toBe(`${BOOTED_HUB}\n`);
      expect(readFileSync(inside('/boot/firmware/user-data'), 'utf8')).toBe(SCRUBBED_USER_DATA);
    });

    /** Where each secret can be read: never by `nobody`, and by root only in its file and root-only copies; never in the journal. */
    const expectSecretsHidden = async (): Promise<void> => {
      // The search runs as a user who reads what is public: it finds the hub id, a file of mode 0644.
      const control = await box.run(['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', 'grep', '-rlsxF', BOOTED_HUB, ...SEARCHED]);
      expect(control.stdout.trim().split('\n')).toContain('/etc/panic-pair/hub-id');
      const journal = await box.check(['journalctl', '--no-pager', '-o', 'cat']);
      for (const secret of [TOKEN, `${CODE}-b`]) {
        const asNobody = await box.run(['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', 'grep', '-rlsF', secret, ...SEARCHED]);
        expect(asNobody.stdout, `readable by nobody: ${asNobody.stdout}`).toBe('');
        expect(asNobody.code).not.toBe(0);
        const asRoot = (await box.run(['grep', '-rlsF', secret, ...SEARCHED])).stdout.trim().split('\n');
        const elsewhere = asRoot.filter((file) => !SECRET_FILES.includes(file) && !ROOT_ONLY_COPIES.test(file));
        expect(elsewhere, asRoot.join('\n')).toEqual([]);
        expect(journal.includes(secret)).toBe(false);
      }
      // cloud-init's own copies are root's alone, whatever the directories above them allow.
      const copies = await box.run(['sh', '-c', 'find /var/lib/cloud/ /run/cloud-init/ -type f -perm /o+r -exec grep -lsF "$0" {} +', TOKEN]);
      expect(copies.stdout).toBe('');
    };

    it('no user but root can read the token or the code anywhere, and the journal and logs hold neither', async () => {
      await expectSecretsHidden();
    });

    it('a second boot changes nothing and posts nothing', async () => {
      const before = await fingerprint();
      const links = simulator.stats().postsByDevice;
      await box.reboot();
      await cloudInitDone(box);
      expect(await fingerprint()).toBe(before);
      expect((await show(UNIT, 'ActiveState')).ActiveState).toBe('active');
      expect((await box.run(['panic-pair', 'check'])).code).toBe(0);
      expect(simulator.stats().postsByDevice).toEqual(links);
      const devices = JSON.parse(await box.check(['panic-pair', 'devices', '--json'])) as Array<{ deviceId: string; state: string }>;
      expect(devices.map(({ deviceId, state }) => ({ deviceId, state }))).toEqual([{ deviceId: 'PROV-1', state: 'linked' }]);
      await expectSecretsHidden();
    }, 2 * STEP_MS);

    it("runcmd run again by hand changes no setting, secret or seed, and posts nothing", async () => {
      const before = await fingerprint();
      const links = simulator.stats().postsByDevice;
      const { MainPID } = await show(UNIT, 'MainPID');
      await box.check(['cloud-init', 'single', '--name', 'scripts_user', '--frequency', 'always']);
      expect(await fingerprint()).toBe(before);
      // It ran: the daemon was restarted.
      const now = await show(UNIT, 'ActiveState', 'MainPID');
      expect(now.ActiveState).toBe('active');
      expect(now.MainPID).not.toBe(MainPID);
      expect(simulator.stats().postsByDevice).toEqual(links);
    });
  });

  describe('an image without the package: the .deb on the boot partition (--deb-on-boot)', () => {
    let box: Container;

    beforeAll(async () => {
      const fresh = await bootOrReason(RECIPE);
      if (typeof fresh === 'string') throw new Error(fresh);
      box = fresh;
      await makeImage(box, undefined);
      const userData = path.join(work, 'deb-on-boot.user-data');
      const made = await runBinary(['provision', '--api-url', simulator.url, '--mqtt-url', broker.url, '--customer', String(CUSTOMER_ID), '--token-file', tokenFile, '--deb-on-boot', deb], {});
      if (made.code !== 0) throw new Error(`provision exited ${made.code}: ${made.stderr}`);
      writeFileSync(userData, made.stdout, { mode: 0o600 });
      await flashAndBoot(box, userData, 'deb-on-boot-first-flash', [deb]);
    }, 3 * STEP_MS);

    afterAll(async () => {
      await box?.stop();
    }, STEP_MS);

    it('installs the package, keeps the settings cloud-init wrote, starts it, and scrubs the seed', async () => {
      await cloudInitDone(box);
      expect((await box.check(['dpkg-query', '-W', '-f', '${Status} ${Version}', 'panic-pair'])).trim()).toBe(`install ok installed ${version}`);
      expect((await unitProperties(box, UNIT, 'ActiveState')).ActiveState).toBe('active');
      expect((await box.run(['panic-pair', 'check'])).code).toBe(0);
      expect(JSON.parse(readFileSync(path.join(box.root, 'etc/panic-pair/config.json'), 'utf8'))).toEqual({ apiUrl: simulator.url, customerId: CUSTOMER_ID, mqttUrl: broker.url });
      expect((await box.check(['stat', '-c', '%a %U', '/etc/panic-pair/api-token'])).trim()).toBe('600 root');
      expect(readFileSync(path.join(box.root, 'boot/firmware/user-data'), 'utf8')).toBe(SCRUBBED_USER_DATA);
    });
  });
});
