import { statSync } from 'node:fs';
import { join } from 'node:path';
import { monotonicNow, type MonotonicClock } from '../clock.js';
import { readUpdateRecord, UPDATE_FILE, type UpdateRecord, type UpdateWarnings } from '../update/record.js';

// The judge rewrites update.json while the daemon runs: a probation becomes kept or rolled-back
// with no restart. A person's `status` reads the file afresh each time; what samples the status
// every second (the health, systemd's status line, the installer's page) sees it as last read,
// looked at again at most every UPDATE_LOOK_MS with a stat, and read only when the stat changed.
// Nothing here runs per button report.

/**
 * How often the sampled view looks at the file. The judge decides over minutes (a probation is
 * at least 60 s); a fleet told 30 s later loses nothing, and a stat every 30 s costs nothing.
 */
export const UPDATE_LOOK_MS = 30_000;

export class UpdateWatch {
  readonly #stateDir: string;
  readonly #file: string;
  readonly #monotonic: MonotonicClock;
  readonly #logger: UpdateWarnings;
  #record: UpdateRecord | null = null;
  /** The file's identity, size and time when last read; undefined before the first read. */
  #signature: string | undefined;
  #lookedAt = -Infinity;
  /** The warning given for the file as it is: not repeated at each read while nothing changes. */
  #warned: string | undefined;

  constructor(options: { stateDir: string; logger: UpdateWarnings; monotonic?: MonotonicClock }) {
    this.#stateDir = options.stateDir;
    this.#file = join(options.stateDir, UPDATE_FILE);
    this.#monotonic = options.monotonic ?? monotonicNow;
    this.#logger = options.logger;
  }

  /** Reads the file now: what a person's `status` says. */
  read(): UpdateRecord | null {
    this.#lookedAt = this.#monotonic();
    // The stat before the read: a rewrite between the two is seen as a change at the next look.
    this.#signature = this.#stat();
    let warning: string | undefined;
    this.#record = readUpdateRecord(this.#stateDir, {
      warn: (fields, message) => {
        warning = JSON.stringify([fields, message]);
        if (warning !== this.#warned) this.#logger.warn(fields, message);
      },
    });
    this.#warned = warning;
    return this.#record;
  }

  /** The record as last read; read again once UPDATE_LOOK_MS have passed and the file changed. */
  latest(): UpdateRecord | null {
    const now = this.#monotonic();
    if (now - this.#lookedAt < UPDATE_LOOK_MS) return this.#record;
    if (this.#signature !== undefined && this.#stat() === this.#signature) {
      this.#lookedAt = now;
      return this.#record;
    }
    return this.read();
  }

  /** The judge renames a new file into place: a new inode, and with it any change of size or time. */
  #stat(): string {
    try {
      const stat = statSync(this.#file, { bigint: true, throwIfNoEntry: false });
      return stat === undefined ? 'absent' : `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;
    } catch (error) {
      return `unreadable: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
}
