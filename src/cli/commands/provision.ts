import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PanicPairError } from '../../errors.js';
import {
  apiUrlOf,
  batchFileName,
  customerIdOf,
  debOnBootOf,
  DEFAULT_WEB_LISTEN,
  hubIdOf,
  mqttUrlOf,
  parseBatchCsv,
  planBatch,
  tokenFrom,
  userDataFor,
  webCodeFrom,
  webListenOf,
  type ProvisionedHub,
} from '../../provision/index.js';

export interface ProvisionOptions {
  apiUrl?: string;
  customer?: string;
  tokenFile?: string;
  webCodeFile?: string;
  webListen?: string;
  mqttUrl?: string;
  debOnBoot?: string;
  hubId?: string;
  csv?: string;
  outDir?: string;
}

export interface ProvisionIo {
  stdout: { write(text: string): unknown };
}

/**
 * `panic-pair provision`: one hub's #cloud-config user-data on stdout, or with --csv one file a hub
 * in --out-dir. Every input is checked before anything is printed or written.
 */
export function provisionCommand(options: ProvisionOptions, io: ProvisionIo = { stdout: process.stdout }): void {
  if (options.apiUrl === undefined) throw usage('--api-url is required: the panic-api address every hub is given');
  const apiUrl = apiUrlOf(options.apiUrl, { field: '--api-url' });
  const mqttUrl = options.mqttUrl === undefined ? undefined : mqttUrlOf(options.mqttUrl, { field: '--mqtt-url' });
  const debOnBoot = options.debOnBoot === undefined ? undefined : debOnBootOf(options.debOnBoot, { field: '--deb-on-boot' });
  const webListen = options.webListen === undefined ? DEFAULT_WEB_LISTEN : webListenOf(options.webListen, { field: '--web-listen' });
  if (options.webListen !== undefined && options.webCodeFile === undefined && options.csv === undefined) {
    throw usage("--web-listen needs --web-code-file: the installer's page does not start without its code");
  }
  if (options.csv === undefined) {
    io.stdout.write(userDataFor({ ...singleHub(options, apiUrl, webListen), mqttUrl, debOnBoot }));
    return;
  }
  if (options.outDir === undefined) throw usage('--csv needs --out-dir, the folder for the files (one a hub, named <hubId>.user-data)');
  for (const flag of ['customer', 'hubId'] as const) {
    if (options[flag] !== undefined) throw usage(`--${flag === 'hubId' ? 'hub-id' : flag} does not go with --csv: each row gives its own`);
  }
  const rows = parseBatchCsv(readCsv(options.csv), options.csv);
  const hubs = planBatch(rows, options.csv, {
    apiUrl,
    tokenFile: options.tokenFile,
    webCodeFile: options.webCodeFile,
    webListen,
    mqttUrl,
    debOnBoot,
  });
  for (const file of writeBatch(hubs, options.outDir)) io.stdout.write(`${file}\n`);
}

function singleHub(options: ProvisionOptions, apiUrl: string, webListen: string): Omit<ProvisionedHub, 'mqttUrl' | 'debOnBoot'> {
  if (options.outDir !== undefined) throw usage('--out-dir goes with --csv; a single hub is printed on stdout');
  if (options.customer === undefined) throw usage("--customer is required: the hub's customer id");
  if (options.tokenFile === undefined) throw usage('--token-file is required: the file holding the API token');
  const customerId = customerIdOf(options.customer, { field: '--customer' });
  const hubId = options.hubId === undefined ? undefined : hubIdOf(options.hubId, { field: '--hub-id' });
  const token = tokenFrom(options.tokenFile, { field: '--token-file' });
  const web = options.webCodeFile === undefined ? undefined : { code: webCodeFrom(options.webCodeFile, { field: '--web-code-file' }), listen: webListen };
  return { hubId, apiUrl, customerId, token, web };
}

function readCsv(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw usage(`--csv ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`, error);
  }
}

/** Each file owner-only (it holds the token), written beside its final name and renamed into place. */
function writeBatch(hubs: readonly ProvisionedHub[], outDir: string): string[] {
  mkdirSync(outDir, { recursive: true, mode: 0o700 });
  return hubs.map((hub) => {
    const file = join(outDir, batchFileName(hub.hubId ?? 'hub'));
    writeFileSync(`${file}.new`, userDataFor(hub), { mode: 0o600 });
    renameSync(`${file}.new`, file);
    return file;
  });
}

function usage(message: string, cause?: unknown): PanicPairError {
  return new PanicPairError('usage', message, cause === undefined ? undefined : { cause });
}
