import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';

// Where an installer's phone finds the page, as `status` (from the running daemon) and `check`
// (from the settings) both say it. Nothing here reads a setting: `status` stays light.

/** `status --json`'s `page`: null when the page is off. */
export interface PageAddress {
  /** What to open on the phone, e.g. http://hub-0001.local:8080. */
  url: string;
  /** The same page at each of the hub's IPv4 addresses, for a phone that cannot find .local names; empty when the page listens on one address. */
  ipUrls: string[];
}

/** The hub as a phone on its network sees it. */
export interface HubOnNetwork {
  name: string;
  ipv4: string[];
}

/**
 * The hub's host name and its IPv4 addresses other than loopback, read now: a DHCP lease may have
 * changed them. Under the unit, whose sandbox allows no netlink socket, the addresses cannot be
 * read (node throws EAFNOSUPPORT): then there are none, and `status`, which runs outside the
 * sandbox, reads them itself (`withAddressesHere`). A status must never fail for them.
 */
export function hubOnNetwork(interfaces: typeof networkInterfaces = networkInterfaces): HubOnNetwork {
  let ipv4: string[] = [];
  try {
    ipv4 = Object.values(interfaces())
      .flatMap((addresses) => addresses ?? [])
      .filter((address) => address.family === 'IPv4' && !address.internal)
      .map((address) => address.address);
  } catch {
    // No addresses to offer; the name still is.
  }
  return { name: hostname(), ipv4 };
}

const EVERY_ADDRESS = new Set(['0.0.0.0', '::']);

/**
 * A page that listens on every address (0.0.0.0 or ::) is opened by the hub's name as
 * `<name>.local`: avahi-daemon, on by default on Raspberry Pi OS, answers it over mDNS, and phones
 * ask for .local names that way, where a plain host name needs the router's DNS to know the hub.
 * A name that holds a dot is a DNS name already. A page that listens on one address is opened there.
 */
export function pageAddress(listen: { host: string; port: number; https: boolean }, hub: HubOnNetwork): PageAddress {
  const at = (host: string): string => `${listen.https ? 'https' : 'http'}://${isIP(host) === 6 ? `[${host}]` : host}:${listen.port}`;
  if (!EVERY_ADDRESS.has(listen.host)) return { url: at(listen.host), ipUrls: [] };
  const ipUrls = hub.ipv4.map(at);
  const name = hub.name.trim().toLowerCase();
  if (name === '' || name === 'localhost') return { url: ipUrls[0] ?? at('localhost'), ipUrls: ipUrls.slice(1) };
  return { url: at(name.includes('.') ? name : `${name}.local`), ipUrls };
}

/** A page the daemon reported by the hub's name without its addresses, given this machine's: the `status` command runs on the hub. */
export function withAddressesHere(page: PageAddress, hub: HubOnNetwork): PageAddress {
  const url = new URL(page.url);
  if (page.ipUrls.length > 0 || !url.hostname.endsWith('.local')) return page;
  return { url: page.url, ipUrls: hub.ipv4.map((address) => `${url.protocol}//${address}:${url.port}`) };
}

const LOOPBACK = /^https?:\/\/(?:localhost|127\.[\d.]+|\[::1\]):/;

/** `open http://hub.local:8080 on a phone on the hub's network (or http://192.168.1.23:8080)`; an address only the hub itself can open says so. */
export function pageAddressText(page: PageAddress): string {
  if (LOOPBACK.test(page.url)) return `${page.url}, this hub only: no phone can open it (webListen 0.0.0.0:8080 serves the network)`;
  const byIp = page.ipUrls.length === 0 ? '' : ` (or ${page.ipUrls.join(', ')})`;
  return `open ${page.url} on a phone on the hub's network${byIp}`;
}

/** What turns the page on, said where it is off. */
export const PAGE_OFF = 'off: webListen (PANIC_PAIR_WEB_LISTEN), e.g. 0.0.0.0:8080, and an installer code turn it on';
