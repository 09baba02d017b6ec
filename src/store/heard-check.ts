// The heard section is saved whole at each change of a button's supervision (a new link is one),
// yet between two saves most buttons' entries are the same. Checked whole against the schema each
// time, a burst of links cost the square of the store's size. Each entry is checked
// once and encoded once while it stays the same: what is compared and kept is the entry's JSON,
// which is exactly what goes to disk, so a file the next start would refuse is still never written.
// Keys of a newer minor version read with an entry go back to disk with it while it is saved.
import { z } from 'zod';
import { DEVICE_ID_PATTERN } from '../device-id.js';
import { NOTHING_KEPT, withKept, type KeptKeys, type StoreKept } from './kept-keys.js';
import { encodeHeardEntries } from './pairings-file.js';
import { heardButtonSchema, type HeardSection } from './schema.js';

export type HeardCheck = { ok: true; section: HeardSection; json: string } | { ok: false; problem: string };

const savedAtSchema = z.iso.datetime({ offset: true });

export class HeardChecker {
  /** deviceId -> the JSON of its entry as last found valid. */
  #valid = new Map<string, string>();
  /** deviceId -> the unknown keys read with its entry, until a section is saved without it. */
  #kept: ReadonlyMap<string, KeptKeys>;
  /** The section's own unknown keys, kept while there is a section. */
  readonly #sectionKept: KeptKeys | undefined;

  constructor(kept: Pick<StoreKept, 'heard' | 'heardDevices'> = NOTHING_KEPT) {
    this.#kept = kept.heardDevices;
    this.#sectionKept = kept.heard;
  }

  check(section: HeardSection): HeardCheck {
    if (typeof section !== 'object' || section === null || typeof section.devices !== 'object' || section.devices === null) {
      return { ok: false, problem: 'the heard section needs savedAt and devices' };
    }
    const extra = Object.keys(section).filter((key) => key !== 'savedAt' && key !== 'devices');
    if (extra.length > 0) return { ok: false, problem: `unrecognized key ${JSON.stringify(extra[0])}` };
    if (!savedAtSchema.safeParse(section.savedAt).success) return { ok: false, problem: 'savedAt: Invalid ISO datetime' };
    const next = new Map<string, string>();
    for (const deviceId of Object.keys(section.devices).sort()) {
      const entry = section.devices[deviceId]!;
      const json = JSON.stringify(entry);
      if (this.#valid.get(deviceId) !== json) {
        if (!DEVICE_ID_PATTERN.test(deviceId)) return { ok: false, problem: `devices: a deviceId is 1 to 64 characters of A-Z a-z 0-9 . _ : -, not ${JSON.stringify(deviceId)}` };
        const parsed = heardButtonSchema.safeParse(entry);
        if (!parsed.success) {
          const issue = parsed.error.issues[0]!;
          return { ok: false, problem: `devices.${deviceId}${issue.path.map((part) => `.${String(part)}`).join('')}: ${issue.message}` };
        }
      }
      next.set(deviceId, json);
    }
    this.#valid = next;
    const entries = this.#kept.size === 0 ? next : this.#withKept(next);
    // The caller's devices as they are: copied key by key, a button named `__proto__` would be lost.
    return { ok: true, section: { savedAt: section.savedAt, devices: section.devices }, json: encodeHeardEntries(section.savedAt, entries, this.#sectionKept) };
  }

  /** The entries with their kept keys; those of an entry no longer saved are let go. */
  #withKept(entries: ReadonlyMap<string, string>): (readonly [string, string])[] {
    const kept = new Map<string, KeptKeys>();
    const encoded = Array.from(entries, ([deviceId, json]) => {
      const keys = this.#kept.get(deviceId);
      if (keys !== undefined) kept.set(deviceId, keys);
      return [deviceId, withKept(json, keys)] as const;
    });
    this.#kept = kept;
    return encoded;
  }
}
