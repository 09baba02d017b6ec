// `man panic-pair` (section 1), made at build time from the packaged command's own `--help` and each
// command's, so the page and the help cannot differ: the exit codes the help ends with are its
// EXIT STATUS. Each help is set as it prints (roff's no-fill),
// escaped for roff; the sections around them say what no --help does: the files and where the rest
// of the documentation is.
import { execFileSync } from 'node:child_process';

/** `panic-pair <args> --help` as the package's node runs it. */
function help(command, args) {
  return execFileSync(process.execPath, [command, ...args, '--help'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '78' } });
}

/** Text set verbatim: backslashes escaped, and no line taken for a roff request. */
function verbatim(text) {
  const lines = text
    .replace(/\s+$/, '')
    .split('\n')
    .map((line) => line.replaceAll('\\', '\\e').replace(/^([.'])/, '\\&$1'));
  return ['.nf', ...lines, '.fi'].join('\n');
}

/** The command names the top-level help lists under "Commands:", but `help`. */
export function commandNames(topHelp) {
  const section = topHelp.split(/^Commands:$/m)[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z][a-z-]*)\b/gm)].map((match) => match[1]).filter((name) => name !== 'help');
}

/** The whole page, for the command at `command` (the staged bin/panic-pair.js). */
export function manPage({ command, version, date }) {
  const [top = '', exitCodes = ''] = help(command, []).split(/^Exit codes:\n/m);
  if (exitCodes === '') throw new Error('the command lists no exit codes in its --help: the man page would have none');
  const names = commandNames(top);
  if (names.length === 0) throw new Error('the command lists no commands in its --help: the man page would be empty');
  return `${[
    `.TH PANIC-PAIR 1 "${date}" "panic-pair ${version}" "panic-pair"`,
    '.SH NAME',
    "panic-pair \\- links panic buttons to a home hub's customer",
    '.SH SYNOPSIS',
    '.B panic-pair',
    '.I command',
    '.RI [ options ]',
    '.SH DESCRIPTION',
    verbatim(top),
    '.PP',
    'The daemon runs as the systemd service',
    '.BR panic-pair .',
    'Start with',
    '.BR "panic-pair check" ,',
    'which names what is missing and how to fix it.',
    '.SH COMMANDS',
    ...names.flatMap((name) => [`.SS ${name}`, verbatim(help(command, [name]))]),
    '.SH EXIT STATUS',
    verbatim(exitCodes),
    '.SH FILES',
    '.TP',
    '.I /etc/panic-pair/config.json',
    'the settings (every one also has a variable; see settings.md.gz below)',
    '.TP',
    '.I /etc/panic-pair/api-token',
    "the API token, root's, mode 0600; the service gets it as a systemd credential",
    '.TP',
    '.I /var/lib/panic-pair/pairings.json',
    'the pairing store',
    '.TP',
    '.I /run/panic-pair/panic-pair.sock',
    'the control socket the commands talk to the daemon through (group panic-pair)',
    '.SH SEE ALSO',
    '.BR systemctl (1),',
    '.BR journalctl (1);',
    '.I /usr/share/doc/panic-pair/',
    '(README.md.gz, install.md.gz, settings.md.gz).',
  ].join('\n')}\n`;
}
