// The guest's agent (PID 1's only child, see guest-init.sh): reads one JSON request a line from the
// virtio port named `agent` and answers on it. Every line a command prints comes back stamped with
// the guest's monotonic clock (ms), so the host times what happens in the guest without counting
// the trip through qemu.
//
//   host -> guest  {"id": 1, "run": "shell script"}      runs `sh -c`, in a process group of its own
//                  {"id": 1, "signal": "SIGTERM"}         signals that command's process group
//   guest -> host  {"ready": true, "t": ms}               once, when the agent starts
//                  {"id": 1, "out": "line", "t": ms}      a line on stdout ("err" for stderr)
//                  {"id": 1, "exit": 0, "signal": null, "t": ms}
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, openSync, readdirSync, readFileSync } from 'node:fs';
import readline from 'node:readline';

const now = () => Number(process.hrtime.bigint() / 1000n) / 1000;

function portNamed(name) {
  for (const entry of readdirSync('/sys/class/virtio-ports')) {
    if (readFileSync(`/sys/class/virtio-ports/${entry}/name`, 'utf8').trim() === name) return `/dev/${entry}`;
  }
  throw new Error(`no virtio port named ${name}`);
}

// A virtio port opens once (a second open is EBUSY): one descriptor, read and written.
const port = openSync(portNamed('agent'), 'r+');
const output = createWriteStream(null, { fd: port, autoClose: false });
const send = (message) => output.write(`${JSON.stringify(message)}\n`);
const running = new Map();

function run(id, script) {
  const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  running.set(id, child);
  const streams = [
    ['out', child.stdout],
    ['err', child.stderr],
  ].map(([name, stream]) => {
    const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
    lines.on('line', (line) => send({ id, [name]: line, t: now() }));
    return new Promise((resolve) => lines.once('close', resolve));
  });
  child.once('error', (error) => {
    running.delete(id);
    send({ id, err: error.message, t: now() });
    send({ id, exit: 127, signal: null, t: now() });
  });
  child.once('exit', async (code, signal) => {
    const t = now();
    await Promise.all(streams);
    running.delete(id);
    send({ id, exit: code, signal, t });
  });
}

const requests = readline.createInterface({ input: createReadStream(null, { fd: port, autoClose: false }), crlfDelay: Infinity });
requests.on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof request.run === 'string') run(request.id, request.run);
  else if (typeof request.signal === 'string') {
    const child = running.get(request.id);
    if (child !== undefined) {
      try {
        process.kill(-child.pid, request.signal);
      } catch {
        // already gone
      }
    }
  }
});
send({ ready: true, t: now() });
