// The CLI reference (docs/reference/cli.md) names exactly the commands and flags the built
// `panic-pair` shows in its --help, each flag under its own command, and every exit code the CLI
// can end with. The help is the truth: it is what the user sees, and what `man panic-pair` is
// made of. `npm test` builds first; run `npm run build` before vitest alone.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../src/cli/exit-codes.js';
import { assertBuilt, ROOT, runBinary } from '../support/binary.js';

const PAGE = readFileSync(path.join(ROOT, 'docs', 'reference', 'cli.md'), 'utf8');
/** The section that gives the options every command asking the daemon takes, once for all of them. */
const SHARED_SECTION = 'Reaching the daemon';
const COMMAND_HEADING = /^[a-z][a-z-]*$/;

interface Help {
  flags: string[];
  arguments: string[];
}

async function helpOf(args: string[]): Promise<string> {
  const result = await runBinary([...args, '--help'], { PATH: process.env.PATH, NO_COLOR: '1' }, { timeoutMs: 20_000 });
  if (result.code !== 0) throw new Error(`panic-pair ${args.join(' ')} --help exited ${result.code}: ${result.stderr}`);
  return result.stdout;
}

/** The lines of one `Name:` block of a commander help. */
function block(help: string, name: string): string {
  return help.split(new RegExp(`^${name}:$`, 'm'))[1]?.split(/^\S.*:$/m)[0] ?? '';
}

/** Each option's long name, from the start of its line: descriptions that name other flags do not count. */
function parseHelp(help: string): Help {
  return {
    flags: [...block(help, 'Options').matchAll(/^ {2}(?:-[A-Za-z], )?(--[a-z][a-z0-9-]*)/gm)].map((match) => match[1]!),
    arguments: [...block(help, 'Arguments').matchAll(/^ {2}([A-Za-z][A-Za-z0-9]*)\b/gm)].map((match) => match[1]!),
  };
}

/** The page's `## ` sections, by heading. */
function sections(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const part of text.split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    result.set(part.slice(0, newline).trim(), part.slice(newline + 1));
  }
  return result;
}

/**
 * Every flag a section names, with the command it is named for: the command written just before it
 * in the same code span (`pair --customer`), else the section's own command, else none.
 */
function flagMentions(text: string, own: string | undefined, commands: ReadonlySet<string>): { flag: string; command: string | undefined }[] {
  const mentions: { flag: string; command: string | undefined }[] = [];
  for (const match of text.matchAll(/(?:`(?:panic-pair )?([a-z][a-z-]*) )?(?<![\w-])(--[a-z][a-z0-9-]*)/g)) {
    const named = match[1] !== undefined && commands.has(match[1]) ? match[1] : undefined;
    mentions.push({ flag: match[2]!, command: named ?? own });
  }
  return mentions;
}

/** Exit codes the CLI's code sets as numbers of its own, beside the table of kinds. */
function literalExitCodes(): number[] {
  const codes: number[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (file.endsWith('.ts')) {
        const text = readFileSync(file, 'utf8');
        for (const match of text.matchAll(/process\.exit(?:\(|Code\s*=\s*)(\d+)/g)) codes.push(Number(match[1]));
      }
    }
  };
  walk(path.join(ROOT, 'src', 'cli'));
  return codes;
}

describe('the CLI reference', () => {
  let top: string;
  let commands: string[];
  const helps = new Map<string, Help>();
  const bySection = sections(PAGE);

  beforeAll(async () => {
    assertBuilt();
    top = await helpOf([]);
    // The man page lists the commands of the top-level help the same way.
    const manPage = '../../packaging/deb/man-page.mjs';
    const { commandNames } = (await import(manPage)) as { commandNames: (help: string) => string[] };
    commands = commandNames(top);
    const texts = await Promise.all(commands.map((command) => helpOf([command])));
    commands.forEach((command, index) => helps.set(command, parseHelp(texts[index]!)));
  });

  it('has a section for every command --help lists, and none for a command it does not', () => {
    expect(commands.length).toBeGreaterThan(5);
    const documented = [...bySection.keys()].filter((heading) => COMMAND_HEADING.test(heading));
    expect(documented.sort()).toEqual([...commands].sort());
  });

  it("names each command's flags and arguments in its section", () => {
    const shared = bySection.get(SHARED_SECTION) ?? '';
    const missing: string[] = [];
    for (const command of commands) {
      const text = bySection.get(command) ?? '';
      const sharedHere = shared.includes(`\`${command}\``) ? shared : '';
      for (const flag of helps.get(command)!.flags) {
        if (flag === '--help') continue; // every command's; the page says so once
        const named = (where: string): boolean => new RegExp(`(?<![\\w-])${flag}(?![\\w-])`).test(where);
        if (!named(text) && !named(sharedHere)) missing.push(`${command} ${flag}`);
      }
      for (const argument of helps.get(command)!.arguments) {
        if (!text.includes(`<${argument}>`)) missing.push(`${command} <${argument}>`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names no flag that --help does not give, nor a flag under a command that does not take it', () => {
    const known = new Set(commands);
    const topFlags = parseHelp(top).flags;
    const all = new Set([...topFlags, ...[...helps.values()].flatMap((help) => help.flags)]);
    const wrong: string[] = [];
    for (const [heading, text] of bySection) {
      const own = known.has(heading) ? heading : undefined;
      for (const { flag, command } of flagMentions(text, own, known)) {
        const flags = command === undefined ? all : new Set([...helps.get(command)!.flags, ...topFlags]);
        if (!flags.has(flag)) wrong.push(`## ${heading}: ${command === undefined ? '' : `${command} `}${flag}`);
      }
    }
    for (const flag of topFlags) if (!PAGE.includes(`\`${flag}\``)) wrong.push(`the top-level ${flag} is not named`);
    expect(wrong).toEqual([]);
  });

  it('lists every exit code the CLI defines, and no other', () => {
    const table = bySection.get('Exit codes') ?? '';
    const listed = [...table.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    const defined = new Set([...Object.values(EXIT), ...literalExitCodes()]);
    expect(listed.length, 'a code listed twice').toBe(new Set(listed).size);
    expect([...listed].sort((a, b) => a - b)).toEqual([...defined].sort((a, b) => a - b));
    // --help ends with the same codes, and `man panic-pair` sets that part as its EXIT STATUS.
    const helped = [...(top.split(/^Exit codes:$/m)[1] ?? '').matchAll(/^ {2}(\d+)\s/gm)].map((match) => Number(match[1]));
    expect([...helped].sort((a, b) => a - b)).toEqual([...defined].sort((a, b) => a - b));
  });
});
