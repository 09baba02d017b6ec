// The flags of `panic-pair provision`, each as an installer or a vendor's script
// might pass it: each value is taken or refused with a usage error naming the flag, an address's
// password is never echoed, and a hub made of taken values renders as #cloud-config user-data.
import fc from 'fast-check';
import { Secret } from '../../../dist/config/secret.js';
import { ProvisionInputError } from '../../../dist/provision/errors.js';
import { apiUrlOf, customerIdOf, hubIdOf, mqttUrlOf, webListenOf } from '../../../dist/provision/hub.js';
import { userDataFor } from '../../../dist/provision/user-data.js';

const typed = (...examples) => fc.oneof(fc.constantFrom(...examples), fc.string(), fc.string({ unit: 'binary', maxLength: 40 }));
export const arbitraries = [
  fc.record({
    hubId: typed('hub-1', 'HUB.7_x', '-x', 'a/b', 'x'.repeat(64)),
    customer: typed('42', '0', '-1', '4.2', '9007199254740993', ' 7 '),
    apiUrl: typed('https://api.example.com', 'http://127.0.0.1:8080', 'https://user:pa/ss@api.example.com', 'ftp://x', 'api.example.com'),
    mqttUrl: typed('mqtt://127.0.0.1:1883', 'mqtts://broker.lan', 'user:s3cret@broker.lan', 'mqtt://[::1'),
    webListen: typed('0.0.0.0:8080', '[::]:8443', '127.0.0.1:80', 'localhost:99999'),
  }),
];

const ADDRESSES = ['--api-url', '--mqtt-url'];

export function predicate(flags) {
  const take = (field, check, value) => {
    try {
      return check(value, { field });
    } catch (error) {
      if (!(error instanceof ProvisionInputError) || error.field !== field) throw error;
      // The user-info of an address (everything before its last @), never echoed.
      const rest = value.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '');
      const userInfo = rest.slice(0, Math.max(0, rest.lastIndexOf('@')));
      if (ADDRESSES.includes(field) && userInfo.length >= 4 && error.message.includes(`${userInfo}@`)) throw new Error(`a password echoed: ${error.message}`);
      return undefined;
    }
  };
  const hub = {
    hubId: take('--hub-id', hubIdOf, flags.hubId),
    customerId: take('--customer', customerIdOf, flags.customer),
    apiUrl: take('--api-url', apiUrlOf, flags.apiUrl),
    mqttUrl: take('--mqtt-url', mqttUrlOf, flags.mqttUrl),
    web: undefined,
    token: new Secret('tok-never-in-user-data-errors'),
    debOnBoot: undefined,
  };
  const listen = take('--web-listen', webListenOf, flags.webListen);
  if (listen !== undefined) hub.web = { code: new Secret('installer-code-1234'), listen };
  if (hub.hubId !== undefined && hub.customerId !== undefined && hub.apiUrl !== undefined) {
    const text = userDataFor(hub);
    if (!text.startsWith('#cloud-config\n')) throw new Error('user-data without its #cloud-config line');
  }
  return true;
}
