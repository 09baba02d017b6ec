import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The docs as a reader meets them: short enough to finish, each fact in one place, every link
// leading somewhere, and nothing that sends the reader outside the repository or into its history.

const ROOT = path.resolve(import.meta.dirname, '../..');
const tracked = (...patterns: string[]): string[] =>
  execFileSync('git', ['ls-files', '-z', '--', ...patterns], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter((file) => file !== '' && existsSync(path.join(ROOT, file)));
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');
const lines = (file: string): number => read(file).split('\n').length - (read(file).endsWith('\n') ? 1 : 0);

const DOCS = tracked('*.md').filter((file) => !file.startsWith('node_modules/'));

describe('the docs', () => {
  it('are at most 3,000 lines in all, README.md at most 150, no page over 400', () => {
    const sizes = Object.fromEntries(DOCS.map((file) => [file, lines(file)]));
    expect(sizes['README.md']).toBeLessThanOrEqual(150);
    expect(Object.entries(sizes).filter(([, count]) => count > 400)).toEqual([]);
    expect(Object.values(sizes).reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(3000);
  });

  it('say no paragraph of three lines or more twice', () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const file of DOCS) {
      for (const [index, paragraph] of paragraphs(read(file)).entries()) {
        const where = `${file} paragraph ${index + 1}`;
        const first = seen.get(paragraph);
        if (first === undefined) seen.set(paragraph, where);
        else twice.push(`${where} repeats ${first}: ${paragraph.slice(0, 80)}`);
      }
    }
    expect(twice).toEqual([]);
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of DOCS) {
      for (const target of links(read(file))) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [filePart = '', anchor] = target.split('#');
        const linked = filePart === '' ? file : path.normalize(path.join(path.dirname(file), decodeURIComponent(filePart)));
        if (!existsSync(path.join(ROOT, linked))) broken.push(`${file}: ${target} (no such file)`);
        else if (anchor !== undefined && linked.endsWith('.md') && !anchors(read(linked)).has(anchor)) broken.push(`${file}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

// Built from parts, so that this file does not find itself.
const ISSUE = new RegExp(String.raw`\b(issue|task)s? #?\d`, 'i');
const OUTSIDE = new RegExp(['CONTRACT' + String.raw`\.md`, String.raw`\.\./shared`, '/wo' + 'rk/', 'STYLE' + String.raw`\.md`].join('|'));
const SOURCES = ['src', 'test', 'bench', 'scripts', 'packaging', 'systemd', '.ci', 'bin', 'config'];

describe('the project explains itself', () => {
  it('no doc or source sends a reader to an issue number or to a file outside the repository', () => {
    const self = path.relative(ROOT, import.meta.filename);
    const files = [...DOCS, ...tracked(...SOURCES).filter((file) => file !== self && !/\.(png|gz|deb|bin|snoop)$/.test(file) && !file.endsWith('.json'))];
    const found = files.flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, index) => (ISSUE.test(line) || OUTSIDE.test(line) ? [`${file}:${index + 1}: ${line.trim().slice(0, 120)}`] : [])),
    );
    expect(found).toEqual([]);
  });
});

/** Blocks of three or more non-blank lines, whitespace made even; fenced code counts as text. */
function paragraphs(text: string): string[] {
  return text
    .split(/\n\s*\n/)
    .map((block) => block.split('\n').map((line) => line.trim()).filter((line) => line !== ''))
    .filter((block) => block.length >= 3)
    .map((block) => block.join(' ').replace(/\s+/g, ' '));
}

/** Every Markdown link's target, outside fenced code. */
function links(text: string): string[] {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? '');
}

/** The anchors a Markdown page's headings get, as GitHub makes them. */
function anchors(text: string): Set<string> {
  const prose = text.replace(/^```[\s\S]*?^```/gm, '');
  const counts = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading = ''] of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\- _]/gu, '')
      .replace(/ /g, '-');
    const count = counts.get(slug) ?? 0;
    result.add(count === 0 ? slug : `${slug}-${count}`);
    counts.set(slug, count + 1);
  }
  return result;
}

describe("the engineer's pages", () => {
  it('name only files of the repository and identifiers its code holds', () => {
    const code = tracked('src', 'test', 'bench', 'scripts', 'packaging', 'systemd').filter((file) => /\.(ts|mjs|js|sh|service)$/.test(file));
    const names = new Set(code.map((file) => path.basename(file)));
    const text = code.map(read).join('\n');
    const missing: string[] = [];
    for (const file of DOCS.filter((doc) => doc.startsWith('docs/engineer/'))) {
      const prose = read(file).replace(/^```[\s\S]*?^```/gm, '');
      for (const [, span = ''] of prose.matchAll(/`([^`\s]+)`/g)) {
        if (/^[\w./-]+\.(ts|mjs)$/.test(span)) {
          const exists = [span, `src/${span}`, `test/${span}`].some((candidate) => existsSync(path.join(ROOT, candidate))) || (!span.includes('/') && names.has(span));
          // A path that names a would-be file as an example says so (`x.ts`).
          if (!exists && !/\bx\.ts$/.test(span)) missing.push(`${file}: ${span}`);
        } else if (/^[A-Za-z_]\w*(\.\w+)?$/.test(span) && /[a-z][A-Z]|^[A-Z][a-z]+[A-Z]/.test(span)) {
          const last = span.split('.').at(-1) ?? span;
          if (!new RegExp(String.raw`\b${last}\b`).test(text)) missing.push(`${file}: ${span}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});
