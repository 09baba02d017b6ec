import { PanicPairError } from '../errors.js';

export const API_PREFIX = '/panic-api/v2';

/**
 * The address every route hangs from, `<origin><path>/panic-api/v2`. Installers paste the base
 * address with or without the version prefix, so a trailing `/panic-api/v2` is taken off first
 * rather than doubled.
 */
export function apiRoot(baseUrl: string): string {
  return `${apiBase(baseUrl)}${API_PREFIX}`;
}

/** The base address as an installer would name it in a message: `<origin><path>`, no version prefix. */
export function apiBase(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    throw new PanicPairError('config', 'the API base address is not a URL (expected e.g. https://api.example.com)');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PanicPairError('config', `the API base address must start with http:// or https://, not ${url.protocol}//`);
  }
  // Credentials in the address would travel outside the Secret wrapper and show up in logs.
  if (url.username !== '' || url.password !== '') {
    throw new PanicPairError('config', 'the API base address must not hold a user name or password; the token comes from its own setting');
  }
  if (url.search !== '' || url.hash !== '') {
    throw new PanicPairError('config', 'the API base address must not hold a query (?) or fragment (#)');
  }
  let path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(API_PREFIX)) path = path.slice(0, -API_PREFIX.length).replace(/\/+$/, '');
  return `${url.origin}${path}`;
}
