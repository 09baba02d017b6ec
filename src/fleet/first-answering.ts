import { PanicPairError } from '../errors.js';
import type { CentralSettings } from './central-input.js';

// `fleet` on a cluster: the nodes in the order given, the first that
// answers read. A node that refuses (a cluster without its quorum refuses every MQTT connect) is
// passed over; when none answers, that is the answer: exit 2 naming every address tried, and no
// rows, since rows from a part of a cluster could call a hub healthy or offline wrongly.

/**
 * `read` on the first node that answers; one node's failure is thrown as it is. `passed` hears
 * each node passed over while another may still answer, so an operator learns of a sick node
 * even when the fleet was read.
 */
export async function fromFirstAnswering<T>(
  nodes: readonly CentralSettings[],
  read: (node: CentralSettings) => Promise<T>,
  passed: (text: string) => void = () => undefined,
): Promise<T> {
  const failures: string[] = [];
  for (const [at, node] of nodes.entries()) {
    try {
      return await read(node);
    } catch (error) {
      if (nodes.length === 1 || !(error instanceof PanicPairError)) throw error;
      failures.push(`${node.address}: ${error.message}`);
      if (at < nodes.length - 1) passed(`${node.address} could not be read, so the next node is: ${error.message}`);
    }
  }
  const tried = nodes.map((node) => node.address).join(', ');
  throw new PanicPairError(
    'config',
    `the central cluster cannot answer: no node of ${tried} could be read, so no hub is shown (a cluster that has lost its quorum, as NATS Server with two of three nodes down, answers no reader). Each node: ${failures.join('; ')}`,
  );
}
