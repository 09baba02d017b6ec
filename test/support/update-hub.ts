import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { aptRepo, throwawayKey, type SigningKey } from './apt-repo.js';
import { startBroker, type TestBroker } from './broker.js';
import { unitProperties } from './container-service.js';
import type { Container } from './container.js';
import { whilePressed } from './pressed-button.js';
import { waitFor } from './wait.js';

// A hub that takes its updates from a signed file: repository with unattended-upgrades, as the
// update suites drive it (test/systemd/update-*.test.ts): publish a set of packages, let the hub
// take what it takes, read what the judge of the update decided and what runs now.

export const UNIT = 'panic-pair.service';
export const WATCH_UNIT = 'panic-pair-probation.service';
const REPO = '/srv/panic-pair-apt';
/** The probation the suites give each update (the shortest the setting takes). */
export const PROBATION_SECONDS = 60;
/** A failed version is back on the version before within this (5 minutes from the failure). */
export const BACK_WITHIN_S = 300;

export interface Outcome {
  state: 'probation' | 'kept' | 'rolled-back';
  version: string;
  previous: string;
  reason: string | null;
  at: string;
  rolledBack?: Omit<Outcome, 'rolledBack'>;
}

export interface Row {
  deviceId: string;
  state: string;
  customerId: number;
  linkId?: number;
  linkedAt?: string;
}

export class UpdateHub {
  readonly #published = new Map<string, string>();

  constructor(
    readonly box: Container,
    readonly work: string,
    readonly key: SigningKey,
  ) {}

  inside(file: string): string {
    return path.join(this.box.root, file);
  }

  /** apt on the hub sees this repository alone (holding `debs`), signed by `key`, and unattended-upgrades takes its origin. */
  async configureApt(debs: readonly string[]): Promise<void> {
    rmSync(this.inside('/etc/apt/sources.list'), { force: true });
    rmSync(this.inside('/etc/apt/sources.list.d'), { recursive: true, force: true });
    mkdirSync(this.inside('/etc/apt/sources.list.d'));
    mkdirSync(this.inside('/etc/apt/keyrings'), { recursive: true });
    await this.publish(debs);
    copyFileSync(this.inside(`${REPO}/panic-pair-archive-keyring.gpg`), this.inside('/etc/apt/keyrings/panic-pair-archive-keyring.gpg'));
    copyFileSync(this.inside(`${REPO}/panic-pair.sources`), this.inside('/etc/apt/sources.list.d/panic-pair.sources'));
    writeFileSync(this.inside('/etc/apt/apt.conf.d/51panic-pair-upgrades'), 'Unattended-Upgrade::Origins-Pattern { "origin=panic-pair"; };\n');
  }

  /** The repository holds these packages (and every one published before), signed again. */
  async publish(debs: readonly string[]): Promise<void> {
    for (const deb of debs) this.#published.set(path.basename(deb), deb);
    const folder = path.join(this.work, `repo-${this.#published.size}`);
    mkdirSync(folder, { recursive: true });
    for (const [name, deb] of this.#published) copyFileSync(deb, path.join(folder, name));
    const result = await aptRepo(['--key-id', this.key.id, '--debs', folder, '--out', this.inside(REPO), '--url', `file:${REPO}`], this.key);
    if (result.code !== 0) throw new Error(`npm run apt-repo exited ${result.code}: ${result.stderr}`);
  }

  apt(...args: string[]) {
    return this.box.run(['apt-get', '-y', '-q', '--no-install-recommends', ...args], { env: { DEBIAN_FRONTEND: 'noninteractive' } });
  }

  /** What a hub does each day: apt update, then one unattended-upgrade run; resolves with its output. */
  async takeUpdates(): Promise<string> {
    const update = await this.apt('update');
    if (update.code !== 0) throw new Error(`apt-get update exited ${update.code}: ${update.stdout}${update.stderr}`);
    const run = await this.box.run(['unattended-upgrade', '-v']);
    if (run.code !== 0) throw new Error(`unattended-upgrade exited ${run.code}: ${run.stdout}${run.stderr}`);
    return run.stdout;
  }

  async configure(settings: Record<string, unknown>, token: string): Promise<void> {
    writeFileSync(this.inside('/etc/panic-pair/config.json'), `${JSON.stringify({ updateProbation: PROBATION_SECONDS, ...settings }, null, 2)}\n`);
    writeFileSync(this.inside('/etc/panic-pair/api-token'), `${token}\n`, { mode: 0o600 });
    await this.box.check(['systemctl', 'restart', UNIT]);
  }

  async installed(): Promise<{ version: string; status: string }> {
    const [version = '', status = ''] = (await this.box.check(['dpkg-query', '-W', '-f', '${Version}\t${db:Status-Abbrev}', 'panic-pair'])).split('\t');
    return { version, status: status.trim() };
  }

  async audit(): Promise<string> {
    return (await this.box.run(['dpkg', '--audit'])).stdout.trim();
  }

  unit(...properties: string[]): Promise<Record<string, string>> {
    return unitProperties(this.box, UNIT, ...properties);
  }

  /** update.json as the judge wrote it, or undefined. */
  outcome(): Outcome | undefined {
    const file = this.inside('/var/lib/panic-pair/update.json');
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Outcome) : undefined;
  }

  /** The judge's own record of the probation under way (root's, in its folder), or undefined. */
  probation(): { phase: string } | undefined {
    const file = this.inside('/var/lib/panic-pair-update/probation.json');
    try {
      return JSON.parse(readFileSync(file, 'utf8')) as { phase: string };
    } catch {
      return undefined;
    }
  }

  /** Waits until the judge has decided on `version` (its watch unit gone) and the daemon is active. */
  async decided(version: string, state: Outcome['state'], timeoutMs: number): Promise<Outcome> {
    return waitFor(
      async () => {
        const outcome = this.outcome();
        if (outcome?.version !== version || outcome.state !== state) return undefined;
        if (existsSync(this.inside(`/etc/systemd/system/${WATCH_UNIT}`))) return undefined;
        const { ActiveState } = await this.unit('ActiveState');
        return ActiveState === 'active' ? outcome : undefined;
      },
      { timeoutMs, intervalMs: 500, what: `the judge to decide ${version} ${state}` },
    );
  }

  /**
   * Waits (up to `timeoutMs`) for `version` to be rolled back, then checks the hub is on `previous`,
   * whole (`dpkg --audit` empty), and was ready within BACK_WITHIN_S of the failure; that time is
   * added to `measured`.
   */
  async backOn(version: string, previous: string, timeoutMs: number, measured: string[]): Promise<Outcome> {
    const outcome = await this.decided(version, 'rolled-back', timeoutMs);
    expect(await this.installed()).toEqual({ version: previous, status: 'ii' });
    expect(await this.audit()).toBe('');
    const seconds = rollbackSeconds(await this.judgeLog(), version);
    measured.push(`${version}: ${seconds.toFixed(1)} s`);
    expect(seconds).toBeLessThan(BACK_WITHIN_S);
    return outcome;
  }

  /** `status --json` (exit 0 healthy, 1 degraded: both are reports). */
  async status(): Promise<{ version: string; update: Outcome | null; problems: string[]; healthy?: boolean }> {
    const result = await this.box.run(['panic-pair', 'status', '--json']);
    if (result.code !== 0 && result.code !== 1) throw new Error(`status exited ${result.code}: ${result.stderr}`);
    return { ...(JSON.parse(result.stdout) as { version: string; update: Outcome | null; problems: string[] }), healthy: result.code === 0 };
  }

  async devices(): Promise<Row[]> {
    const rows = JSON.parse(await this.box.check(['panic-pair', 'devices', '--json'])) as Row[];
    return rows.map(({ deviceId, state, customerId, linkId, linkedAt }) => ({ deviceId, state, customerId, linkId, linkedAt })).sort((a, b) => a.deviceId.localeCompare(b.deviceId));
  }

  async pair(brokerUrl: string, deviceId: string, seconds = 30) {
    return whilePressed(brokerUrl, deviceId, () => this.box.run(['panic-pair', 'pair', deviceId, '--timeout', String(seconds)]));
  }

  /** The judge's lines in the journal, in order, with the journal's own stamps (ms since the epoch). */
  async judgeLog(): Promise<JudgeLine[]> {
    const text = await this.box.check(['journalctl', '--no-pager', '-o', 'json', '-u', WATCH_UNIT]);
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { MESSAGE?: unknown; __REALTIME_TIMESTAMP: string })
      .filter((entry) => typeof entry.MESSAGE === 'string' && entry.MESSAGE.startsWith('panic-pair update:'))
      .map((entry) => ({ at: Number(entry.__REALTIME_TIMESTAMP) / 1000, message: entry.MESSAGE as string }));
  }

  /** Files under /etc/apt/preferences.d the judge wrote, by name. */
  pins(): string[] {
    const folder = this.inside('/etc/apt/preferences.d');
    return existsSync(folder) ? readdirSync(folder).filter((name) => name.startsWith('panic-pair-failed-')).sort() : [];
  }

  /** A process of this container (its mount namespace) whose command line holds `text`, read from the host's /proc. */
  running(text: string): boolean {
    const ours = readlinkSync(`/proc/${this.box.leader}/ns/mnt`);
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      try {
        if (readlinkSync(`/proc/${pid}/ns/mnt`) !== ours) continue;
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').includes(text)) return true;
      } catch {
        // gone, or not ours to read
      }
    }
    return false;
  }
}

export interface JudgeLine {
  at: number;
  message: string;
}

/** Seconds from the judge's "failed" line for `version` to its "rolled back" line, by the journal's own stamps. */
export function rollbackSeconds(lines: readonly JudgeLine[], version: string): number {
  const stamp = (text: string): number => {
    const line = lines.find((each) => each.message.includes(text));
    if (line === undefined) throw new Error(`no judge line says "${text}":\n${lines.map((each) => each.message).join('\n')}`);
    return line.at;
  };
  return (stamp(`; ${version} failed: `) - stamp(`judged: ${version} failed its probation: `)) / 1000;
}

/** What an update suite runs its hub with: the API simulator, a broker, a signing key, and what it measured. */
export interface UpdateWorld {
  hub: UpdateHub;
  simulator: Simulator;
  broker: TestBroker;
  measured: string[];
  /** Says what was measured, and stops everything. */
  stop(): Promise<void>;
}

export async function startUpdateWorld(box: Container, token: string, name: string): Promise<UpdateWorld> {
  const work = mkdtempSync(path.join(tmpdir(), `panic-pair-${name}-`));
  const simulator = await startSimulator({ token });
  const broker = await startBroker();
  const key = await throwawayKey(path.join(work, 'gnupg'), name);
  const measured: string[] = [];
  return {
    hub: new UpdateHub(box, work, key),
    simulator,
    broker,
    measured,
    async stop() {
      if (measured.length > 0) process.stderr.write(`${name}, failure to ready on the version before: ${measured.join('; ')}\n`);
      await box.stop();
      await broker.stop();
      await simulator.close();
      await key.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}
