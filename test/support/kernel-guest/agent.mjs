// The guest's agent (PID 1's only child, see guest-init.sh): reads one JSON request a line from the
// virtio port named `agent` and answers on it. Every line a command prints comes back stamped with
// the guest's monotonic clock (ms), so the host times what happens in the guest without counting
// the trip through qemu.
//
//   host -> guest  {"id": 1, "run": "shell script"}      runs `sh -c`, in a process group of its own
//                  {"id": 1, "signal": "SIGTERM"}         signals that command's process group
//                  {"id": 2, "listen": 8080}              listens on the guest's 127.0.0.1:8080 for
//                                                         the host (exits 0 once listening)
//                  {"conn": 1, "data": "base64"}          bytes for that connection ("end": true)
//   guest -> host  {"ready": true, "t": ms}               once, when the agent starts
//                  {"id": 1, "out": "line", "t": ms}      a line on stdout ("err" for stderr)
//                  {"id": 1, "exit": 0, "signal": null, "t": ms}
//                  {"conn": 1, "port": 8080}              a connection accepted on a listened port
//                  {"conn": 1, "data": "base64"}          bytes it sent ("end": true once it ended)
//
// A listened port is the host's service brought onto the guest's loopback (the API simulator,
// which runs on the host: a Node started under TCG takes seconds of the guest's CPU).
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, openSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
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

const connections = new Map();
let nextConnection = 1;

function listen(id, guestPort) {
  const server = net.createServer((socket) => {
    const conn = nextConnection++;
    connections.set(conn, socket);
    send({ conn, port: guestPort });
    let ended = false;
    const tellEnded = () => {
      if (!ended) send({ conn, end: true });
      ended = true;
    };
    socket.on('data', (chunk) => send({ conn, data: chunk.toString('base64') }));
    socket.on('end', tellEnded);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      tellEnded();
      connections.delete(conn);
    });
  });
  server.once('error', (error) => {
    send({ id, err: error.message, t: now() });
    send({ id, exit: 1, signal: null, t: now() });
  });
  server.listen(guestPort, '127.0.0.1', () => send({ id, exit: 0, signal: null, t: now() }));
}

function relay(request) {
  const socket = connections.get(request.conn);
  if (socket === undefined) return;
  if (typeof request.data === 'string') socket.write(Buffer.from(request.data, 'base64'));
  if (request.end === true) socket.end();
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
  else if (typeof request.listen === 'number') listen(request.id, request.listen);
  else if (typeof request.conn === 'number') relay(request);
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
