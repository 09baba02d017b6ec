import type { GuestProcess, KernelGuest } from './kernel-guest.js';
import { readyScript } from './kernel-hub.js';

// Controllers on a UART in the kernel guest, as a Raspberry Pi's onboard one is: bound to the
// kernel's hci_uart by btattach (hciuart.service does it at boot, often after the daemon started).
// btvirt's server (`btvirt -s -L`) serves one emulated LE controller to each connection on
// /tmp/bt-server-le; socat makes a connection a tty (/dev/ttyBTn); `btattach -B tty -P h4` binds
// it. The server needs AF_ALG, which only the guest's kernel is sure to allow: it runs there.

const SERVER_SOCKET = '/tmp/bt-server-le';

export interface Uart {
  readonly tty: string;
  /** socat, the UART's other end, while it is connected. */
  link: GuestProcess | undefined;
  /** btattach while the UART is attached. */
  btattach: GuestProcess | undefined;
}

/** btvirt's controller server, once it listens. */
export async function startControllerServer(guest: KernelGuest): Promise<GuestProcess> {
  const server = guest.start('exec btvirt -s -L');
  await guest.check(`until [ -S ${SERVER_SOCKET} ]; do sleep 0.1; done`);
  return server;
}

/** A UART named `tty`, not yet connected to a controller nor attached. */
export function uart(tty: string): Uart {
  return { tty, link: undefined, btattach: undefined };
}

/** How long a controller on the UART is given to come out of its setup before it is attached again. */
const SETUP_SECONDS = 20;
const ATTACH_ATTEMPTS = 3;

/**
 * Connects the UART to a controller of btvirt's (when it is not) and binds it to hci_uart as
 * hciuart.service does; resolves once the kernel lists `hci<index>` as set up (not only registered:
 * an emulated controller's setup can fail and leave it unusable, see startBtvirt), with the guest time
 * the btattach that made it started.
 */
export async function attachUart(guest: KernelGuest, port: Uart, index: number): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    if (port.link === undefined) {
      port.link = guest.start(`exec socat pty,link=${port.tty},raw,echo=0 unix-connect:${SERVER_SOCKET}`);
      await guest.check(`until [ -e ${port.tty} ]; do sleep 0.1; done`);
    }
    const btattach = guest.start(`echo attaching; exec btattach -B ${port.tty} -P h4`);
    port.btattach = btattach;
    const started = await btattach.waitForLine((line) => line.text === 'attaching', { what: 'btattach to start' });
    await guest.check(`until [ -e /sys/class/bluetooth/hci${index} ]; do sleep 0.05; done`);
    const ready = await guest.run(readyScript([index], SETUP_SECONDS * guest.architecture.slowness));
    if (ready.code === 0) return started.t;
    await detachUart(guest, port, index);
    if (attempt >= ATTACH_ATTEMPTS) throw new Error(`hci${index} on ${port.tty} never came out of its setup in ${attempt} tries`);
    process.stderr.write(`hci${index} on ${port.tty} was not set up within ${SETUP_SECONDS} s; attaching it again\n`);
  }
}

/**
 * Kills btattach, and socat with it: the pty's other end stays open while socat runs, which keeps
 * the line discipline and the controller (on a Pi nothing else holds the UART: btattach's exit
 * alone removes it). Resolves once the kernel has removed `hci<index>`.
 */
export async function detachUart(guest: KernelGuest, port: Uart, index: number): Promise<void> {
  for (const process of [port.btattach, port.link]) {
    process?.signal('SIGTERM');
    await process?.exited;
  }
  port.btattach = undefined;
  port.link = undefined;
  await guest.check(`while [ -e /sys/class/bluetooth/hci${index} ]; do sleep 0.05; done`);
}
