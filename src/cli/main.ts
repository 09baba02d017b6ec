import { errorKindOf, messageOf } from '../errors.js';
import { exitCodeOf, EXIT } from './exit-codes.js';
import { shortcutFor } from './shortcut.js';

// The entry point: a shortcut (shortcut.ts) when the arguments allow one, else the command table
// (program.ts) with commander. Either way, errors become exit codes here alone.

async function main(argv: string[]): Promise<void> {
  try {
    const shortcut = shortcutFor(argv.slice(2));
    if (shortcut !== undefined) return await shortcut();
    const { buildProgram } = await import('./program.js');
    await buildProgram().parseAsync(argv);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('commander.')) {
      // commander printed its own message; --help and --version are not errors.
      const helpish = code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help';
      process.exitCode = helpish ? EXIT.ok : EXIT.usage;
      return;
    }
    process.stderr.write(`panic-pair: ${messageOf(error)}\n`);
    process.exitCode = exitCodeOf(errorKindOf(error));
  }
}

await main(process.argv);
