import { isValidDeviceId } from '../../device-id.js';
import { PanicPairError } from '../../errors.js';
import { askDaemon, type ClientOptions } from '../daemon.js';
import { printLine } from '../render.js';

// `panic-pair forget <deviceId>`: removes the device from the local store only; the API has no
// unlink, so the link itself stays with the customer.

export async function forgetCommand(deviceId: string, options: ClientOptions): Promise<void> {
  if (!isValidDeviceId(deviceId)) {
    throw new PanicPairError('usage', `invalid deviceId ${JSON.stringify(deviceId)}: use 1 to 64 characters of A-Z a-z 0-9 . _ : -`);
  }
  const answer = await askDaemon<{ removed: boolean }>(options, { type: 'forget', deviceId }, { timeoutMs: 15_000 });
  if (typeof answer?.removed !== 'boolean') {
    throw new PanicPairError('failure', 'the daemon sent an answer to forget this client cannot read');
  }
  // Exit 0 either way: the device is not in the store
  // afterwards, which is what was asked; the note tells an installer who mistyped the id.
  printLine(answer.removed ? `forgot ${deviceId}` : `${deviceId} was not in the store`);
}
