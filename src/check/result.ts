// What `panic-pair check` reports: one result a check, pass or fail, each failure with its fix.

export type CheckName = 'configuration' | 'clock' | 'token' | 'api' | 'entitlement' | 'mqtt' | 'ble' | 'page';

export interface CheckResult {
  name: CheckName;
  ok: boolean;
  /**
   * Not run. With ok true: turned off by configuration (MQTT unset, BLE off, BLE auto without
   * an adapter, or no page). With ok false: it needs a check that failed (no API call without a token).
   */
  skipped?: true;
  /** What was found, for the installer; never a secret. */
  detail: string;
  /** The command or change that fixes a failure. */
  fix?: string;
  /** What failed is read by the daemon only as it starts (a secret file): a restart applies the fix. */
  readAtStart?: true;
}

export interface CheckReport {
  /** Every enabled check passed: `check` exits 0. */
  ok: boolean;
  checks: CheckResult[];
}

export const pass = (name: CheckName, detail: string): CheckResult => ({ name, ok: true, detail });

export const fail = (name: CheckName, detail: string, fix: string): CheckResult => ({ name, ok: false, detail, fix });

/** Turned off by configuration: passes, says so. */
export const off = (name: CheckName, detail: string): CheckResult => ({ name, ok: true, skipped: true, detail });

/** Could not be run because `prerequisite` failed. */
export const blocked = (name: CheckName, prerequisite: CheckName): CheckResult => ({
  name,
  ok: false,
  skipped: true,
  detail: `not checked: the ${prerequisite} check failed`,
});

export function reportOf(checks: CheckResult[]): CheckReport {
  return { ok: checks.every((check) => check.ok), checks };
}
