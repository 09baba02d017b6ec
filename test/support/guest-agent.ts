import { appendFileSync } from 'node:fs';
import net from 'node:net';
import readline from 'node:readline';
import type { GuestExit, GuestLine, GuestProcess } from './kernel-guest.js';

// The host's end of the guest's agent (kernel-guest/agent.mjs), over qemu's socket for the virtio
// port: commands out, their lines and exits back, stamped with the guest's clock.

/**
 * A connection to qemu's agent socket once qemu answers on it. qemu makes the socket's file when
 * it binds and listens only later: on a busy machine a connect in between is refused, so it is
 * tried again until qemu listens, `gone()` says qemu has exited, or `timeoutMs` passes.
 */
export async function connectAgent(socketPath: string, gone: () => boolean, timeoutMs: number): Promise<net.Socket> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const attempt = await new Promise<net.Socket | Error>((resolve) => {
      const socket = net.connect(socketPath);
      const refused = (error: Error): void => {
        socket.destroy();
        resolve(error);
      };
      socket.once('error', refused);
      socket.once('connect', () => {
        socket.off('error', refused);
        resolve(socket);
      });
    });
    if (!(attempt instanceof Error)) return attempt;
    if (gone()) throw new Error(`qemu exited before its agent socket answered (${attempt.message})`);
    if (performance.now() > deadline) throw new Error(`qemu's agent socket did not answer in ${timeoutMs / 1000} s: ${attempt.message}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface AgentMessage {
  id?: number;
  /** A connection to a listened port (`port` when it is accepted), and its bytes or its end. */
  conn?: number;
  port?: number;
  data?: string;
  end?: boolean;
  ready?: boolean;
  out?: string;
  err?: string;
  exit?: number | null;
  signal?: string | null;
  lost?: boolean;
  t: number;
}

/**
 * PANIC_PAIR_TEST_GUEST_TRACE=FILE: every guest command, each line it prints and its exit are
 * appended there, stamped with the guest's clock (for a fault seen only in the guest).
 */
const TRACE_FILE = process.env.PANIC_PAIR_TEST_GUEST_TRACE;
const trace = (id: number, text: string): void => {
  if (TRACE_FILE !== undefined && TRACE_FILE !== '') appendFileSync(TRACE_FILE, `#${id} ${text}\n`);
};

export class Agent {
  readonly ready: Promise<number>;
  #next = 1;
  #commands = new Map<number, (message: AgentMessage) => void>();
  #socket: net.Socket;
  #lost: Error | undefined;
  /** The host's port for each guest port listened on, and the host's end of each connection. */
  #forwards = new Map<number, number>();
  #connections = new Map<number, net.Socket>();

  lost(error: Error): void {
    this.#lost = error;
    for (const handler of this.#commands.values()) handler({ lost: true, t: 0 });
    for (const socket of this.#connections.values()) socket.destroy();
  }

  constructor(socket: net.Socket) {
    this.#socket = socket;
    let markReady: (t: number) => void = () => undefined;
    this.ready = new Promise((resolve) => (markReady = resolve));
    // A connection that breaks fails every command still waiting (the guest's exit says more, when
    // it comes). readline repeats its input's errors: both have a handler.
    socket.on('error', (error) => this.lost(new Error(`the agent's connection broke: ${error.message}`)));
    const lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
    lines.on('error', () => undefined);
    lines.on('line', (line) => {
      let message: AgentMessage;
      try {
        message = JSON.parse(line) as AgentMessage;
      } catch {
        return;
      }
      if (message.ready === true) markReady(message.t);
      else if (message.id !== undefined) this.#commands.get(message.id)?.(message);
      else if (message.conn !== undefined) this.#relay(message.conn, message);
    });
  }

  /**
   * Brings the host's service on 127.0.0.1:`hostPort` onto the guest's 127.0.0.1:`guestPort`:
   * the agent listens there and carries each connection's bytes both ways. Resolves once it listens.
   */
  async forward(guestPort: number, hostPort: number): Promise<void> {
    this.#forwards.set(guestPort, hostPort);
    const id = this.#next++;
    const exit = await new Promise<AgentMessage>((resolve, reject) => {
      this.#commands.set(id, (message) => {
        if (message.lost === true) reject(this.#lost ?? new Error('the guest is gone'));
        else if (message.exit !== undefined) resolve(message);
        else if (message.err !== undefined) trace(id, `err ${message.err}`);
      });
      this.#socket.write(`${JSON.stringify({ id, listen: guestPort })}\n`);
    }).finally(() => this.#commands.delete(id));
    if (exit.exit !== 0) throw new Error(`the guest's agent could not listen on 127.0.0.1:${guestPort}`);
  }

  #relay(conn: number, message: AgentMessage): void {
    const tell = (reply: { data?: string; end?: boolean }): void => void this.#socket.write(`${JSON.stringify({ conn, ...reply })}\n`);
    if (message.port !== undefined) {
      const hostPort = this.#forwards.get(message.port);
      if (hostPort === undefined) return tell({ end: true });
      const socket = net.connect(hostPort, '127.0.0.1');
      this.#connections.set(conn, socket);
      let ended = false;
      const tellEnded = (): void => {
        if (!ended) tell({ end: true });
        ended = true;
      };
      socket.on('data', (chunk: Buffer) => tell({ data: chunk.toString('base64') }));
      socket.on('end', tellEnded);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        tellEnded();
        this.#connections.delete(conn);
      });
      return;
    }
    const socket = this.#connections.get(conn);
    if (socket === undefined) return;
    if (message.data !== undefined) socket.write(Buffer.from(message.data, 'base64'));
    if (message.end === true) socket.end();
  }

  start(script: string): GuestProcess & { finished(timeoutMs: number, what: string): Promise<GuestExit> } {
    const id = this.#next++;
    const lines: GuestLine[] = [];
    const waiters = new Set<(line: GuestLine) => void>();
    let markExited: (exit: GuestExit) => void = () => undefined;
    let markLost: (error: Error) => void = () => undefined;
    const exited = new Promise<GuestExit>((resolve, reject) => {
      markExited = resolve;
      markLost = reject;
    });
    exited.catch(() => undefined);
    trace(id, `run ${script}`);
    this.#commands.set(id, (message) => {
      if (message.lost === true) {
        this.#commands.delete(id);
        markLost(this.#lost ?? new Error('the guest is gone'));
        return;
      }
      if (message.exit !== undefined) {
        trace(id, `${message.t.toFixed(1)} exit ${message.exit ?? message.signal}`);
        this.#commands.delete(id);
        const text = (stream: 'out' | 'err'): string => lines.filter((line) => line.stream === stream).map((line) => `${line.text}\n`).join('');
        markExited({ code: message.exit, signal: message.signal ?? null, t: message.t, stdout: text('out'), stderr: text('err') });
        return;
      }
      const line: GuestLine = message.out !== undefined ? { stream: 'out', text: message.out, t: message.t } : { stream: 'err', text: message.err ?? '', t: message.t };
      lines.push(line);
      trace(id, `${line.t.toFixed(1)} ${line.stream} ${line.text}`);
      for (const waiter of waiters) waiter(line);
    });
    if (this.#lost !== undefined) markLost(this.#lost);
    else this.#socket.write(`${JSON.stringify({ id, run: script })}\n`);
    const waitForLine: GuestProcess['waitForLine'] = (match, options = {}) => {
      const accepts = (line: GuestLine): boolean => line.t >= (options.after ?? 0) && match(line);
      const found = lines.find(accepts);
      if (found !== undefined) return Promise.resolve(found);
      const timeoutMs = options.timeoutMs ?? 60_000;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`timed out after ${timeoutMs} ms waiting in the guest for ${options.what ?? 'a line'}; last lines:\n${lines.slice(-10).map((line) => line.text).join('\n')}`));
        }, timeoutMs);
        const waiter = (line: GuestLine): void => {
          if (!accepts(line)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(line);
        };
        waiters.add(waiter);
        const settle = (): void => {
          if (!waiters.has(waiter)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          reject(new Error(`the guest command exited before ${options.what ?? 'the line'} came; last lines:\n${lines.slice(-10).map((line) => line.text).join('\n')}`));
        };
        exited.then(settle, settle);
      });
    };
    return {
      lines,
      waitForLine,
      exited,
      signal: (name) => {
        trace(id, `signal ${name}`);
        this.#socket.write(`${JSON.stringify({ id, signal: name })}\n`);
      },
      finished: (timeoutMs, what) =>
        Promise.race([
          exited,
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`\`${what}\` did not finish in the guest within ${timeoutMs} ms`)), timeoutMs).unref()),
        ]),
    };
  }
}
