// The reference of the ingest benchmark: a bare mqtt.js subscriber in its own process that only
// counts. Arguments: broker URL and topic. It prints `ready` once subscribed, and answers each
// `count` line on stdin with `count <messages so far>`, as the daemon's `status` does.
import readline from 'node:readline';
import { connectAsync } from 'mqtt';

const [url, topic] = process.argv.slice(2);
const client = await connectAsync(url, { clientId: `bench-bare-${process.pid}`, reconnectPeriod: 0 });
await client.subscribeAsync(topic, { qos: 0 });
let count = 0;
client.on('message', () => {
  count += 1;
});
process.stdout.write('ready\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const command = line.trim();
  if (command === 'count') process.stdout.write(`count ${count}\n`);
  else if (command === 'quit') void client.endAsync().then(() => process.exit(0));
});
