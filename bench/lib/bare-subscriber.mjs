// The reference of the ingest benchmark: a bare mqtt.js subscriber in its own process that only
// counts. Argument: broker URL and topic. Commands on stdin: `expect <n>` resets the count and
// answers `done <n>` on stdout once n messages arrived.
import readline from 'node:readline';
import { connectAsync } from 'mqtt';

const [url, topic] = process.argv.slice(2);
const client = await connectAsync(url, { clientId: `bench-bare-${process.pid}`, reconnectPeriod: 0 });
await client.subscribeAsync(topic, { qos: 0 });
let count = 0;
let target = Infinity;
client.on('message', () => {
  count += 1;
  if (count === target) process.stdout.write(`done ${count}\n`);
});
process.stdout.write('ready\n');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, n] = line.trim().split(' ');
  if (command === 'expect') {
    count = 0;
    target = Number(n);
  } else if (command === 'quit') {
    void client.endAsync().then(() => process.exit(0));
  }
});
