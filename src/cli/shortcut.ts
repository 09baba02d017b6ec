import type { ClientOptions } from './daemon.js';

// `status` and `devices` are what monitoring scripts call, often every few seconds on a Raspberry
// Pi; parsing their three flags here spares them loading commander and building the whole command
// table. Only plain, valid invocations take this path: anything else (--help, an unknown flag, a
// missing value) goes to commander, which answers it as it always has.

export type ShortcutOptions = ClientOptions & { json?: boolean };

const VALUE_FLAGS: Record<string, keyof ClientOptions> = { '--runtime-dir': 'runtimeDir', '--config': 'config' };

/** The action for `status` or `devices` with only --json, --runtime-dir and --config; else undefined. */
export function shortcutFor(args: readonly string[]): (() => Promise<void>) | undefined {
  const shortcut = parseShortcut(args);
  if (shortcut === undefined) return undefined;
  const { options } = shortcut;
  return shortcut.command === 'status'
    ? async () => (await import('./commands/status.js')).statusCommand(options)
    : async () => (await import('./commands/devices.js')).devicesCommand(options);
}

/** The command and its options when the arguments qualify for the shortcut. */
export function parseShortcut(args: readonly string[]): { command: 'status' | 'devices'; options: ShortcutOptions } | undefined {
  const [command, ...rest] = args;
  if (command !== 'status' && command !== 'devices') return undefined;
  const options = parseFlags(rest);
  return options === undefined ? undefined : { command, options };
}

function parseFlags(args: readonly string[]): ShortcutOptions | undefined {
  const options: ShortcutOptions = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--json') {
      options.json = true;
      continue;
    }
    const equals = arg.indexOf('=');
    const flag = equals === -1 ? arg : arg.slice(0, equals);
    const key = VALUE_FLAGS[flag];
    if (key === undefined) return undefined;
    const value = equals === -1 ? args[++i] : arg.slice(equals + 1);
    // An empty or dash-led value is commander's to judge.
    if (value === undefined || value === '' || value.startsWith('-')) return undefined;
    options[key] = value;
  }
  return options;
}
