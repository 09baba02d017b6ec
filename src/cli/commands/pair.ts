import { isValidDeviceId } from '../../device-id.js';
import { errorKindOf, messageOf, PanicPairError } from '../../errors.js';
import type { LinkOutcome, OutageWait, PairProgress } from '../../pairing/types.js';
import { askDaemon, checkWait, type ClientOptions } from '../daemon.js';
import { exitCodeOf } from '../exit-codes.js';
import { pairWindow } from '../pair-window.js';
import { cancelOnInterrupt, createStepReporter, type StepReporter } from '../progress.js';
import { printJson, toCustomer } from '../render.js';
import { waitText } from '../../pairing/outage.js';

// `panic-pair pair <deviceId>`: ask the daemon to link one button as soon as it is seen, showing
// each step as the daemon reports it. `pair --window S` is in ../pair-window.ts.

export interface PairOptions extends ClientOptions {
  window?: number;
  timeout?: number;
  /** A customer of the household; the hub's own when left out. */
  customer?: number;
  /** A file holding the button's key, or `-` for standard input. */
  keyFile?: string;
  json?: boolean;
}

const DEFAULT_TIMEOUT_SECONDS = 120;
/** The daemon answers by itself at the timeout; this guard is for a daemon that stalls. */
const CLIENT_GUARD_MS = 15_000;

export async function pairCommand(deviceId: string | undefined, options: PairOptions): Promise<void> {
  if (deviceId !== undefined && options.window !== undefined) {
    throw new PanicPairError('usage', 'give either a deviceId or --window S, not both');
  }
  if (options.window !== undefined) {
    if (options.keyFile !== undefined) {
      throw new PanicPairError('usage', '--key-file applies to `pair <deviceId>`; a window takes keys from PANIC_PAIR_BUTTON_KEYS_FILE');
    }
    if (options.timeout !== undefined) {
      throw new PanicPairError('usage', '--timeout applies to `pair <deviceId>`; a window closes by itself after --window S');
    }
    await pairWindow(options.window, options);
    return;
  }
  if (deviceId === undefined) {
    throw new PanicPairError(
      'usage',
      'name the button to link (`panic-pair pair <deviceId>`, as `panic-pair scan` shows it) or open a window with --window S',
    );
  }
  await pairDevice(deviceId, options);
}

/**
 * `chosen`: the --customer given, if any; then every step says whose button it is (the hub's own
 * customer is named at the checking step either way).
 */
function stepText(progress: PairProgress, chosen: number | undefined): string | undefined {
  const { customerId } = progress;
  switch (progress.step) {
    case 'waiting':
      return `Waiting for button ${progress.deviceId}${chosen === undefined ? '' : ` (customer ${chosen}'s button)`} — press it now`;
    case 'checking':
      return customerId === undefined ? 'Checking the subscription' : `Checking the subscription of customer ${customerId}`;
    case 'linking':
      return `Linking ${progress.deviceId}${toCustomer(chosen)}`;
    case 'retrying':
      return progress.wait ? waitText(progress.wait) : `Trying ${progress.deviceId} again`;
    default:
      return undefined; // 'linked': the result line says it, with the link id
  }
}

function waitsOf(waits: OutageWait[]): { waits?: OutageWait[] } {
  return waits.length === 0 ? {} : { waits };
}

function linkedOutcome(value: unknown, deviceId: string): LinkOutcome & { ok: true } {
  const outcome = value as Partial<LinkOutcome> | null;
  if (outcome?.ok === true && outcome.record && outcome.record.deviceId === deviceId) return outcome as LinkOutcome & { ok: true };
  throw new PanicPairError('failure', `the daemon's answer for ${deviceId} is not a link; see \`panic-pair devices\``);
}

async function pairDevice(deviceId: string, options: PairOptions): Promise<void> {
  const json = options.json === true;
  let reporter: StepReporter | undefined;
  let current: string | undefined;
  /** The outages waited out, for --json: the same facts the live lines show. */
  const waits: OutageWait[] = [];
  let disarm = (): void => {};
  try {
    if (!isValidDeviceId(deviceId)) {
      throw new PanicPairError('usage', `invalid deviceId ${JSON.stringify(deviceId)}: use 1 to 64 characters of A-Z a-z 0-9 . _ : -`);
    }
    // Read before anything is asked: a key that is no key is exit 2, and never shown.
    const key = options.keyFile === undefined ? undefined : await readButtonKey(options.keyFile);
    const timeout = options.timeout ?? DEFAULT_TIMEOUT_SECONDS;
    checkWait('--timeout', timeout);
    const timeoutMs = timeout * 1000;
    if (!json) {
      reporter = createStepReporter(process.stdout, { live: process.stdout.isTTY === true });
      disarm = cancelOnInterrupt(reporter, `cancelled; the daemon stops waiting for ${deviceId}`);
    }
    const answer = await askDaemon<unknown>(
      options,
      { type: 'pair', deviceId, timeoutMs, ...(options.customer === undefined ? {} : { customerId: options.customer }), ...(key === undefined ? {} : { key }) },
      {
        timeoutMs: timeoutMs + CLIENT_GUARD_MS,
        onProgress(progress) {
          if (progress.step === 'retrying' && progress.wait) waits.push(progress.wait);
          const text = stepText(progress, options.customer);
          // Each wait is news, even when it reads like the one before.
          if (!reporter || text === undefined || (text === current && progress.step !== 'retrying')) return;
          current = text;
          reporter.step(text);
        },
      },
    );
    const { record, alreadyLinked, counterAccepted } = linkedOutcome(answer, deviceId);
    const linkId = record.linkId ?? 'unknown';
    if (json) {
      printJson({
        ok: true,
        deviceId,
        state: record.state,
        customerId: record.customerId,
        linkId: record.linkId,
        linkedAt: record.linkedAt,
        alreadyLinked,
        ...(counterAccepted === undefined ? {} : { counterAccepted }),
        ...waitsOf(waits),
      });
    } else if (counterAccepted !== undefined) {
      reporter?.succeed(`${deviceId} is already linked (link ${linkId}); its reports verify with its key again, counted from ${counterAccepted} on (nothing was posted)`);
    } else if (alreadyLinked) {
      const since = record.linkedAt ? `, since ${record.linkedAt}` : '';
      reporter?.succeed(`${deviceId} is already linked${toCustomer(options.customer)} (link ${linkId}${since})`);
    } else {
      reporter?.succeed(`Linked ${deviceId}${toCustomer(options.customer)} (link ${linkId})`);
    }
  } catch (error) {
    if (json) {
      const kind = errorKindOf(error);
      const keepsTrying = kind === 'timeout' && waits.length > 0 ? { keepsTrying: true, watch: 'panic-pair devices' } : {};
      printJson({ ok: false, deviceId, kind, message: messageOf(error), exitCode: exitCodeOf(kind), ...waitsOf(waits), ...keepsTrying });
    } else if (current !== undefined) {
      reporter?.fail(current);
    } else {
      reporter?.stop();
    }
    throw error; // main prints the message on stderr and sets the exit code
  } finally {
    disarm();
  }
}

/** The key of --key-file F, or of standard input for `-`, as the 32 hex digits the daemon takes. */
async function readButtonKey(file: string): Promise<string> {
  const { parseOneKey } = await import('../../config/button-keys.js');
  if (file === '-') return parseOneKey(await readStandardInput(), '--key-file - (standard input)').toString('hex');
  const { readSecretFile } = await import('../../config/secret-file.js');
  return parseOneKey(readSecretFile(file, '--key-file', 4096), `--key-file ${file}`).toString('hex');
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
