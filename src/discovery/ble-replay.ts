import type { Capture } from './btsnoop.js';
import type { VirtualHciSocket } from './virtual-hci-socket.js';

// Replays a capture's advertising reports into the VirtualHciSocket at the pace they were
// recorded, and again from the start when it ends, so that a field problem can be reproduced on
// any machine and the BLE path tested without a radio. noble parses every report itself.

/** The pause between the end of a capture and its next run. */
export const DEFAULT_LOOP_PAUSE_MS = 1_000;

export interface ReplayOptions {
  capture: Capture;
  socket: VirtualHciSocket;
  loopPauseMs?: number;
  /** Milliseconds, monotonic. */
  now?: () => number;
}

export interface Replay {
  /** Completed runs through the capture. */
  readonly loops: number;
  /** Reports the socket took (scanning was on). */
  readonly delivered: number;
  stop(): void;
}

export function startReplay(options: ReplayOptions): Replay {
  const { records } = options.capture;
  const socket = options.socket;
  const now = options.now ?? (() => performance.now());
  const pauseMs = options.loopPauseMs ?? DEFAULT_LOOP_PAUSE_MS;
  let runStart = now();
  let next = 0;
  let loops = 0;
  let delivered = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  // One timer for the next due report, and every report due by then delivered in one go: a
  // capture of a busy room holds thousands a second.
  const play = (): void => {
    timer = undefined;
    if (stopped) return;
    const elapsedUs = (now() - runStart) * 1000;
    while (next < records.length && records[next]!.offsetUs <= elapsedUs) {
      if (socket.deliver(records[next]!.packet)) delivered += 1;
      next += 1;
    }
    if (next === records.length) {
      loops += 1;
      next = 0;
      runStart = now() + pauseMs;
      timer = setTimeout(play, pauseMs);
      return;
    }
    timer = setTimeout(play, Math.max(0, records[next]!.offsetUs / 1000 - (now() - runStart)));
  };
  timer = setTimeout(play, 0);

  return {
    get loops() {
      return loops;
    },
    get delivered() {
      return delivered;
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}
