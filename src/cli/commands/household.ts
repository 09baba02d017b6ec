import { PanicPairError } from '../../errors.js';
import type { HouseholdEntry } from '../../pairing/customer-gates.js';
import { askDaemon, type ClientOptions } from '../daemon.js';
import { printJson, table } from '../render.js';

// `panic-pair household`: the customers this hub may link buttons to,
// each with whether it is entitled now, so the installer knows what to give `pair --customer`.

const ROLE_TEXT: Record<HouseholdEntry['role'], string> = {
  hub: "hub (the hub's customer)",
  holder: 'holder of a shared subscription',
  dependant: 'dependant',
};

function entitledText(entitled: boolean | null): string {
  if (entitled === true) return 'yes';
  if (entitled === false) return 'NO: no active subscription';
  return 'unknown (the API did not answer)';
}

export function householdTable(entries: readonly HouseholdEntry[]): string {
  return table(
    ['CUSTOMER', 'ROLE', 'ENTITLED'],
    entries.map((entry) => [String(entry.customerId), ROLE_TEXT[entry.role] ?? entry.role, entitledText(entry.entitled)]),
  );
}

export async function householdCommand(options: ClientOptions & { json?: boolean }): Promise<void> {
  // The daemon may ask the API about each member; its own time-out bounds each request.
  const entries = await askDaemon<HouseholdEntry[]>(options, { type: 'household' }, { timeoutMs: 60_000 });
  if (!Array.isArray(entries)) throw new PanicPairError('failure', 'the daemon sent a household this client cannot read (is it the same version?)');
  if (options.json) {
    printJson(entries);
    return;
  }
  process.stdout.write(householdTable(entries));
  if (entries.length === 1) {
    process.stdout.write(`Buttons on this hub are linked to customer ${entries[0]?.customerId}; no active subscription of it names other customers.\n`);
  } else {
    process.stdout.write('Link a button to one of them with `panic-pair pair <deviceId> --customer <id>`.\n');
  }
}
