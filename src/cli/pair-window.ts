import { errorKindOf, messageOf, PanicPairError } from '../errors.js';
import type { LinkOutcome, WindowReport } from '../pairing/types.js';
import { askDaemon, checkWait, type ClientOptions } from './daemon.js';
import { exitCodeOf } from './exit-codes.js';
import { cancelOnInterrupt, createStepReporter, type StepReporter } from './progress.js';
import { printJson, printLine, rssiText, toCustomer } from './render.js';
import { KEEPS_TRYING, waitText } from '../pairing/outage.js';

// `panic-pair pair --window S`: every matching button not yet linked that is seen in the next
// S seconds is linked. Outcomes are printed as they happen; exit 0 whatever was linked,
// since the summary and --json say what was and was not, except exit 8 when a
// button's link still failed for a passing reason at the close: the hub keeps at it.

/** Links under way when the window closes still settle (API time-out and retries) before the report. */
const CLIENT_GUARD_MS = 120_000;

interface Heard {
  source?: string;
  rssi?: number;
}

function outcomeLine(outcome: LinkOutcome, heard: Map<string, Heard>, customer: number | undefined): string {
  if (!outcome.ok) return `✘ ${outcome.deviceId}: ${outcome.message}`;
  const { record } = outcome;
  const where = heard.get(record.deviceId);
  const source = where?.source ?? record.source;
  const detail = where?.rssi === undefined ? source : `${source}, ${rssiText(where.rssi)}`;
  if (outcome.alreadyLinked) return `✔ ${record.deviceId} was already linked (link ${record.linkId ?? 'unknown'})`;
  return `✔ Linked ${record.deviceId}${toCustomer(customer)} (${detail})`;
}

function summary(report: WindowReport, seconds: number): string {
  const linked = report.outcomes.filter((outcome) => outcome.ok);
  const failed = report.outcomes.filter((outcome) => !outcome.ok);
  if (report.outcomes.length === 0) return `Pairing window closed after ${seconds} s: no button was linked.`;
  const ids = (list: LinkOutcome[]): string =>
    list.map((outcome) => (outcome.ok ? outcome.record.deviceId : outcome.deviceId)).join(', ');
  const parts = [`${linked.length} linked${linked.length ? ` (${ids(linked)})` : ''}`];
  if (failed.length) parts.push(`${failed.length} failed (${ids(failed)})`);
  return `Pairing window closed after ${seconds} s: ${parts.join(', ')}.`;
}

function windowDocument(report: WindowReport): unknown {
  return {
    window: { openedAt: report.openedAt, closedAt: report.closedAt },
    linked: report.outcomes.flatMap((outcome) => (outcome.ok ? [outcome.record] : [])),
    failed: report.outcomes.flatMap((outcome) =>
      outcome.ok ? [] : [{ deviceId: outcome.deviceId, kind: outcome.kind, message: outcome.message }],
    ),
  };
}

/**
 * Buttons heard in the window whose link still failed for a passing reason when it closed: exit 8,
 * since the hub is still trying them in the background.
 */
function stillTried(report: WindowReport): PanicPairError | undefined {
  const ids = report.outcomes.flatMap((outcome) => (!outcome.ok && outcome.kind === 'transient' ? [outcome.deviceId] : []));
  if (ids.length === 0) return undefined;
  return new PanicPairError('timeout', `${ids.join(', ')} not linked while the window was open (the API failed for a passing reason); ${KEEPS_TRYING}`);
}

export async function pairWindow(seconds: number, options: ClientOptions & { json?: boolean; customer?: number }): Promise<void> {
  const json = options.json === true;
  const heard = new Map<string, Heard>();
  let reporter: StepReporter | undefined;
  let disarm = (): void => {};
  let printed = false;
  try {
    checkWait('--window', seconds);
    const report = await askDaemon<WindowReport>(
      options,
      { type: 'window', seconds, ...(options.customer === undefined ? {} : { customerId: options.customer }) },
      {
        timeoutMs: seconds * 1000 + CLIENT_GUARD_MS,
        onConnect() {
          if (json) return;
          reporter = createStepReporter(process.stdout, { live: process.stdout.isTTY === true });
          disarm = cancelOnInterrupt(reporter, 'cancelled; the pairing window is closed (see `panic-pair devices`)');
        },
        // Announced only once the daemon says it is open: a refused window (another customer's is
        // open, the customer is not entitled) must never have told the installer to press buttons.
        onOpened() {
          reporter?.step(`Pairing window open for ${seconds} s — press each button to link it${toCustomer(options.customer)}`);
        },
        onProgress(progress) {
          if (progress.step === 'retrying' && progress.wait) reporter?.note(`… ${progress.deviceId}: ${waitText(progress.wait)}`);
          const known = heard.get(progress.deviceId) ?? {};
          heard.set(progress.deviceId, { source: progress.source ?? known.source, rssi: progress.rssi ?? known.rssi });
        },
        onOutcome(outcome) {
          reporter?.note(outcomeLine(outcome, heard, options.customer));
        },
      },
    );
    if (!report || !Array.isArray(report.outcomes)) {
      throw new PanicPairError('failure', 'the daemon did not report what the window linked; see `panic-pair devices`');
    }
    const pending = stillTried(report);
    if (json) {
      printJson(pending === undefined ? windowDocument(report) : { ...(windowDocument(report) as object), keepsTrying: true, watch: 'panic-pair devices', exitCode: exitCodeOf('timeout') });
    } else {
      reporter?.stop();
      printLine(summary(report, seconds));
    }
    if (pending !== undefined) {
      printed = json;
      throw pending;
    }
  } catch (error) {
    if (json && !printed) {
      const kind = errorKindOf(error);
      printJson({ ok: false, kind, message: messageOf(error), exitCode: exitCodeOf(kind) });
    } else {
      reporter?.stop();
    }
    throw error;
  } finally {
    disarm();
  }
}
