// The page's files, read once at start (a few kilobytes): served from memory, never from a path
// a request names.
import { readFileSync } from 'node:fs';

export interface Asset {
  type: string;
  body: Buffer;
}

const FILES: Record<string, { file: string; type: string }> = {
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/icon.svg': { file: 'icon.svg', type: 'image/svg+xml' },
  '/favicon.ico': { file: 'icon.svg', type: 'image/svg+xml' },
};

export interface PageAssets {
  /** The static files any visitor may fetch: they hold no state. */
  files: ReadonlyMap<string, Asset>;
  app: Asset;
  signIn(message?: string): Asset;
}

export function loadAssets(): PageAssets {
  const dir = new URL('./assets/', import.meta.url);
  const read = (file: string): Buffer => readFileSync(new URL(file, dir));
  const files = new Map<string, Asset>();
  for (const [route, { file, type }] of Object.entries(FILES)) files.set(route, { type, body: read(file) });
  const html = 'text/html; charset=utf-8';
  const signInTemplate = read('sign-in.html').toString('utf8');
  return {
    files,
    app: { type: html, body: read('index.html') },
    signIn: (message) => ({
      type: html,
      body: Buffer.from(signInTemplate.replace('<!--message-->', message === undefined ? '' : `<p class="problem" role="alert">${escapeHtml(message)}</p>`)),
    }),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
