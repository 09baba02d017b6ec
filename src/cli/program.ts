import { Command, InvalidArgumentError } from 'commander';
import { SETTING_KEYS, SETTINGS, type Setting } from '../config/settings.js';
import { packageVersion } from '../version.js';
import { exitCodesHelp } from './exit-codes.js';

// The command table, loaded only when the arguments are not a shortcut (shortcut.ts): commander
// and the settings table cost `panic-pair status` more than its own work on a Raspberry Pi. Each
// action imports its command module only when it runs.

function withClientOptions(command: Command): Command {
  return command
    .option('--runtime-dir <dir>', `where the daemon's control socket lives (${SETTINGS.runtimeDir.env})`)
    .option('--config <file>', `JSON config file (${SETTINGS.config.env})`);
}

export function buildProgram(): Command {
  const seconds = (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of seconds');
    return n;
  };
  const customer = (value: string): number => {
    const n = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) {
      throw new InvalidArgumentError('expected a customer id, an integer (see `panic-pair household`)');
    }
    return n;
  };
  const program = new Command('panic-pair')
    .description('Pairs panic buttons found over BLE or MQTT with the hub\'s customer through panic-api v2')
    .version(packageVersion(), '-V, --version', 'print the version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText('after', exitCodesHelp())
    .exitOverride();

  const run = program
    .command('run')
    .description('run the pairing daemon in the foreground (what systemd runs); JSON logs on stdout');
  // Every setting that has a flag, from the one settings table, so flags and variables never drift.
  for (const key of SETTING_KEYS) {
    const setting: Setting = SETTINGS[key];
    if (setting.flag === null) continue;
    const value = typeof setting.default === 'boolean' ? '[true|false]' : '<value>';
    run.option(`${setting.flag} ${value}`, `${setting.form} (${setting.env})`);
  }
  run.action(async (options) => (await import('./commands/run.js')).runCommand(options));

  withClientOptions(
    program
      .command('pair')
      .description('link a button as soon as it is seen, or open a pairing window with --window')
      .argument('[deviceId]', 'the button to link, as `scan` shows it')
      .option('--window <seconds>', 'link every matching button seen in the next S seconds', seconds)
      .option('--timeout <seconds>', 'give up when the button is not linked within S seconds (default 120)', seconds)
      .option('--customer <id>', "link to this customer of the household (`panic-pair household`); default the hub's customer", customer)
      .option('--key-file <file>', "the button's key, 32 hex digits, from this file (chmod 600) or from standard input with -; it is linked only once a report verifies with it")
      .option('--json', 'print one JSON document on stdout'),
  ).action(async (deviceId, options) => (await import('./commands/pair.js')).pairCommand(deviceId, options));

  withClientOptions(
    program
      .command('household')
      .description("the customers this hub may link buttons to (the hub's customer and those on its active subscriptions)")
      .option('--json', 'print JSON'),
  ).action(async (options) => (await import('./commands/household.js')).householdCommand(options));

  withClientOptions(
    program.command('status').description('is the daemon healthy? exit 0 healthy, 1 degraded').option('--json', 'print JSON'),
  ).action(async (options) => (await import('./commands/status.js')).statusCommand(options));

  withClientOptions(
    program.command('devices').description('the pairing store, one row a device').option('--json', 'print JSON'),
  ).action(async (options) => (await import('./commands/devices.js')).devicesCommand(options));

  withClientOptions(
    program
      .command('scan')
      .description('buttons heard now, with source and RSSI, so you can tell which is which')
      .option('--seconds <seconds>', 'listen this long before listing (default 5)', seconds)
      .option('--json', 'print JSON'),
  ).action(async (options) => (await import('./commands/scan.js')).scanCommand(options));

  withClientOptions(
    program
      .command('forget')
      .description('remove a device from the local store (the API has no unlink)')
      .argument('<deviceId>', 'the device to forget'),
  ).action(async (deviceId, options) => (await import('./commands/forget.js')).forgetCommand(deviceId, options));

  program
    .command('check')
    .description('pre-flight for installers: configuration, token, API, entitlement, MQTT, BLE')
    .option('--config <file>', `JSON config file (${SETTINGS.config.env})`)
    .option('--json', 'print JSON')
    .action(async (options) => (await import('./commands/check.js')).checkCommand(options));

  program
    .command('bridge-config')
    .description("print a mosquitto bridge (for /etc/mosquitto/conf.d/) carrying this hub's topics to a central broker under hubs/<hub-id>/")
    .requiredOption('--central <urls>', "the central broker, mqtt://host:port or mqtts://host:port; a cluster's nodes as URL,URL,...")
    .option('--central-protocol <version>', 'the MQTT version the central side takes: mqttv311 (a cluster that takes only 3.1.1, as NATS Server) or mqttv5')
    .requiredOption('--hub-id <id>', "this hub's name in the fleet: 1 to 64 of A-Z a-z 0-9 . _ -")
    .option('--cafile <file>', "PEM CA of the central broker's certificate (default: the system CAs)")
    .option('--certfile <file>', "PEM certificate of this hub, when the central broker asks for one (with --keyfile)")
    .option('--keyfile <file>', 'PEM key of that certificate')
    .option(`${SETTINGS.mqttPrefix.flag} <prefix>`, `the hub's topic prefix (${SETTINGS.mqttPrefix.env}; default ${SETTINGS.mqttPrefix.defaultText})`)
    .option('--config <file>', `JSON config file (${SETTINGS.config.env})`)
    .action(async (options) => (await import('./commands/bridge-config.js')).bridgeConfigCommand(options));

  program
    .command('fleet')
    .description('every hub on the central broker, one row a hub, worst first: offline, stale, unreadable, rolled back, unhealthy, healthy; exit 0 when all are healthy')
    .requiredOption('--central <urls>', "the central broker, mqtt://host:port or mqtts://host:port; a cluster's nodes as URL,URL,... (the first that answers is read)")
    .option('--central-protocol <version>', 'only this MQTT version: mqttv311 or mqttv5 (default: 5, then 3.1.1 where 5 is refused)')
    .option('--cafile <file>', "PEM CA of the central broker's certificate (default: the system CAs)")
    .option('--certfile <file>', 'PEM certificate of this reader, when the central broker asks for one (with --keyfile)')
    .option('--keyfile <file>', 'PEM key of that certificate (not readable by others)')
    .option('--json', 'print the rows as a JSON array (with --watch: one JSON row a line)')
    .option('--prometheus', "print the Prometheus text format, for node_exporter's textfile collector or a scrape")
    .option('--watch', "keep reading, and print a hub's row each time it changes")
    .action(async (options) => (await import('./commands/fleet.js')).fleetCommand(options));

  program
    .command('demo')
    .description('the whole job on embedded defaults: simulator, MQTT broker, daemon and a simulated button')
    .action(async () => (await import('./commands/demo.js')).demoCommand());

  program
    .command('simulator')
    .description('the panic-api v2 simulator alone, for development and tests')
    .option('--port <port>', 'TCP port; 0 picks a free one (the first line printed is the base address)', '0')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--token <token>', `the bearer token to accept (${SETTINGS.apiToken.env})`)
    .option('--seed <file>', 'customers to serve, JSON')
    .action(async (options) => (await import('./commands/simulator.js')).runSimulatorCommand(options));

  // A hub set up from its SD card's boot partition, with cloud-init.
  program
    .command('provision')
    .description("print a hub's #cloud-config user-data (the boot partition's user-data): settings, token and installer code, written owner-only at first boot, then removed from the boot partition")
    .option('--api-url <url>', 'the panic-api address (https; http only for loopback)')
    .option('--customer <id>', "the hub's customer id, a positive integer")
    .option('--token-file <file>', 'the file holding the API token (with --csv: for rows without tokenFile)')
    .option('--web-code-file <file>', "the file holding the installer code: the installer's page is on at first boot (with --csv: for rows without webCodeFile)")
    .option('--web-listen <host:port>', "where the installer's page listens (default 0.0.0.0:8080)")
    .option('--mqtt-url <url>', 'the MQTT broker the hub listens to (mqtt:// or mqtts://)')
    .option('--deb-on-boot <file>', "install this panic-pair .deb at first boot from the boot partition (copy it there beside user-data); its dependencies come from the image's apt sources")
    .option('--hub-id <id>', 'names the hub (letters, digits, -, _, .): written to /etc/panic-pair/hub-id')
    .option('--csv <file>', 'a batch: columns hubId,customerId and optionally tokenFile,webCodeFile; every row is checked before anything is written')
    .option('--out-dir <dir>', 'with --csv: writes one file a hub, <dir>/<hubId>.user-data (mode 0600)')
    .action(async (options) => (await import('./commands/provision.js')).provisionCommand(options));

  return program;
}
