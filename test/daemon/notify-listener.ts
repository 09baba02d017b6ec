import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { waitFor } from '../support/wait.js';

// A unix datagram socket of the test's own, standing in for systemd's NOTIFY_SOCKET. Node cannot
// open one, so a few lines of python3 bind it and print each datagram as a JSON line, with the
// sender's PID (SO_PASSCRED) and a monotonic arrival time.

const LISTENER = String.raw`
import json, os, socket, struct, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
print(json.dumps({"listening": True}), flush=True)
while True:
    data, ancillary, flags, address = s.recvmsg(4096, socket.CMSG_SPACE(12) + socket.CMSG_SPACE(4 * 8))
    pid = None
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
            pid = struct.unpack("iII", payload[:12])[0]
        elif level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            # systemd-notify's BARRIER=1 passes a pipe; closing it is the answer it waits for.
            for i in range(len(payload) // 4):
                os.close(struct.unpack_from("i", payload, i * 4)[0])
    print(json.dumps({"pid": pid, "at": time.monotonic() * 1000, "text": data.decode()}), flush=True)
`;

export interface Notification {
  pid: number | null;
  /** Arrival, in milliseconds of a monotonic clock. */
  at: number;
  /** The assignments, e.g. { READY: '1', STATUS: '...' }. */
  fields: Record<string, string>;
}

export interface NotifyListener {
  path: string;
  /** Every notification so far, BARRIER=1 left out. */
  messages: Notification[];
  /** The notifications that set this variable. */
  with(name: string): Notification[];
  close(): Promise<void>;
}

/** Why the sd_notify tests cannot run here, or undefined when they can. */
export function notifyListenerMissing(): string | undefined {
  const probe = spawnSync('python3', ['-c', 'import socket; socket.AF_UNIX'], { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) return 'python3 is not installed: it stands in for systemd\'s notify socket';
  if (spawnSync('systemd-notify', ['--help'], { stdio: 'ignore' }).error !== undefined) return 'systemd-notify is not installed';
  return undefined;
}

export async function listenForNotifications(path: string): Promise<NotifyListener> {
  const child: ChildProcess = spawn('python3', ['-c', LISTENER, path], { stdio: ['ignore', 'pipe', 'pipe'] });
  const messages: Notification[] = [];
  let listening = false;
  let buffered = '';
  let errors = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const event = JSON.parse(line) as { listening?: true; pid: number | null; at: number; text: string };
      if (event.listening) {
        listening = true;
        continue;
      }
      const fields = Object.fromEntries(event.text.split('\n').map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
      if (fields.BARRIER === undefined) messages.push({ pid: event.pid, at: event.at, fields });
    }
  });
  await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`the notify listener exited: ${errors}`);
      return listening && existsSync(path);
    },
    { what: 'the notify listener' },
  );
  return {
    path,
    messages,
    with: (name) => messages.filter((message) => message.fields[name] !== undefined),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
