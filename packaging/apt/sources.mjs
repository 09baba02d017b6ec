// What a hub is given to follow the repository: the public keyring and a deb822 .sources file
// whose Signed-By names that keyring alone, so no other key in the system can sign for it.
import { COMPONENT } from './archive.mjs';

export const KEYRING_NAME = 'panic-pair-archive-keyring.gpg';
/** Where an administrator's own keyrings go on Debian 12 and later (sources.list(5)); not a package's /usr/share/keyrings. */
export const KEYRING_PATH = `/etc/apt/keyrings/${KEYRING_NAME}`;
/** Said in the .sources until --url gives the repository's address; .invalid never resolves. */
export const PLACEHOLDER_URL = 'https://apt.panic-pair.invalid/panic-pair';
export const DEFAULT_SUITE = 'stable';

/** build/apt/panic-pair.sources for the default suite, panic-pair-<suite>.sources for another. */
export function sourcesName(suite) {
  return suite === DEFAULT_SUITE ? 'panic-pair.sources' : `panic-pair-${suite}.sources`;
}

export function sourcesFile({ url, suite }) {
  return `${[
    `# panic-pair's repository, suite ${suite}: /etc/apt/sources.list.d/panic-pair.sources on a hub,`,
    `# with ${KEYRING_NAME} in /etc/apt/keyrings/ (panic-pair's docs/operator/install.md).`,
    'Types: deb',
    `URIs: ${url}`,
    `Suites: ${suite}`,
    `Components: ${COMPONENT}`,
    `Signed-By: ${KEYRING_PATH}`,
  ].join('\n')}\n`;
}

/** A URL apt can fetch a repository from, or a message naming --url. */
export function urlProblem(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return `--url ${url}: not a URL (e.g. https://apt.example.com/panic-pair or file:/srv/panic-pair)`;
  }
  if (!['http:', 'https:', 'file:'].includes(parsed.protocol)) return `--url ${url}: apt fetches this repository over https:, http: or file:, not ${parsed.protocol}`;
  return undefined;
}
