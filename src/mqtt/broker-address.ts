import type { IClientOptions } from 'mqtt';

// mqtt.js reads a broker address given as a string with Node's legacy url.parse(), which Node 24
// warns about on stderr at every connect (DEP0169): in `check`'s output and the daemon's journal.
// The configuration already holds the address as a WHATWG URL (mqtt: or mqtts:, no user name or
// password: src/config/addresses.ts), so its parts go to mqtt.js as options instead.

export function brokerAddress(url: URL): Pick<IClientOptions, 'protocol' | 'host' | 'hostname' | 'port'> {
  // A URL keeps an IPv6 address in brackets; a socket wants it bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const address: Pick<IClientOptions, 'protocol' | 'host' | 'hostname' | 'port'> = { protocol: url.protocol === 'mqtts:' ? 'mqtts' : 'mqtt', host, hostname: host };
  // Without one, mqtt.js takes the protocol's own port (1883, or 8883 for TLS).
  if (url.port !== '') address.port = Number(url.port);
  return address;
}
