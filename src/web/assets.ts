// The page's files, read once at start (a few kilobytes): served from memory, never from a path
// a request names.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PanicPairError } from '../errors.js';

export interface Asset {
  type: string;
  body: Buffer;
}

const FILES: Record<string, { file: string; type: string }> = {
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/dom.js': { file: 'dom.js', type: 'text/javascript; charset=utf-8' },
  '/health.js': { file: 'health.js', type: 'text/javascript; charset=utf-8' },
  '/pairing.js': { file: 'pairing.js', type: 'text/javascript; charset=utf-8' },
  '/devices.js': { file: 'devices.js', type: 'text/javascript; charset=utf-8' },
  '/i18n.js': { file: 'i18n.js', type: 'text/javascript; charset=utf-8' },
  '/sign-in.js': { file: 'sign-in.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/icon.svg': { file: 'icon.svg', type: 'image/svg+xml' },
  '/favicon.ico': { file: 'icon.svg', type: 'image/svg+xml' },
};

export type SignInRefusal = 'wrong' | 'blocked';

/** The English words of a refusal, shown until the page's script words it in the phone's language. */
const REFUSAL_WORDS: Record<SignInRefusal, { key: string; text: string }> = {
  wrong: { key: 'signIn.wrong', text: 'That code is not right. Check the label on the hub.' },
  blocked: { key: 'signIn.blocked', text: 'Too many wrong codes from this phone. Wait a minute, then try again.' },
};

export interface PageAssets {
  /** The static files any visitor may fetch: they hold no state. */
  files: ReadonlyMap<string, Asset>;
  app: Asset;
  /** The sign-in page, with why the last code was refused (worded by the page in the phone's language). */
  signIn(refusal?: SignInRefusal): Asset;
}

/**
 * Beside this module (dist/web/assets, which `npm run build` copies; src/web/assets under the
 * tests), or web/assets beside a bundle's chunk (a package that bundles dist/ copies them there).
 */
function assetsDir(): URL {
  const candidates = [new URL('./assets/', import.meta.url), new URL('./web/assets/', import.meta.url)];
  const found = candidates.find((dir) => existsSync(new URL('index.html', dir)));
  if (found === undefined) {
    const where = candidates.map((dir) => fileURLToPath(dir)).join(' or ');
    throw new PanicPairError('failure', `the installer's page files are missing (looked in ${where}); reinstall panic-pair`);
  }
  return found;
}

export function loadAssets(): PageAssets {
  const dir = assetsDir();
  const read = (file: string): Buffer => readFileSync(new URL(file, dir));
  const files = new Map<string, Asset>();
  for (const [route, { file, type }] of Object.entries(FILES)) files.set(route, { type, body: read(file) });
  // One catalogue a language, fetched by the page for the language shown.
  for (const file of readdirSync(new URL('i18n/', dir)).filter((name) => name.endsWith('.json'))) {
    files.set(`/i18n/${file}`, { type: 'application/json; charset=utf-8', body: read(`i18n/${file}`) });
  }
  const html = 'text/html; charset=utf-8';
  const signInTemplate = read('sign-in.html').toString('utf8');
  return {
    files,
    app: { type: html, body: read('index.html') },
    signIn: (refusal) => {
      const words = refusal === undefined ? undefined : REFUSAL_WORDS[refusal];
      const message = words === undefined ? '' : `<p class="problem" role="alert" data-i18n="${words.key}">${words.text}</p>`;
      return { type: html, body: Buffer.from(signInTemplate.replace('<!--message-->', message)) };
    },
  };
}
