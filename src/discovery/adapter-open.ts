import { messageOf } from '../errors.js';
import type { FoundAdapter } from './adapter-finder.js';
import { conditionOfOpenError, startBleSource, type BleCondition, type BleSource, type BleSourceOptions } from './ble.js';
import type { NobleRadio } from './noble-loader.js';

// The open rung of the recovery ladder (adapter-recovery.ts): a fresh noble on the adapter, with a
// BLE source scanning on it, or why that cannot be, and how long to wait before the next look.

/** What the open rung needs of the ladder. */
export interface OpenRungOptions {
  openRadio(index: number): NobleRadio;
  source: Omit<BleSourceOptions, 'radio' | 'adapter' | 'onSocketError' | 'onCondition' | 'now'>;
  now: () => number;
  /** The socket failed under noble (the ladder decides whether the adapter is gone). */
  onSocketError(radio: NobleRadio, error: Error & { code?: string }): void;
  /** The source's condition changed. */
  onCondition(): void;
}

export type OpenResult =
  | { opened: true; radio: NobleRadio; source: BleSource }
  /** `absent`: the kernel has no such adapter (ENODEV), looked for again soon; otherwise tried again much later. */
  | { opened: false; absent: boolean; condition: BleCondition };

export function openAdapter(adapter: FoundAdapter, options: OpenRungOptions): OpenResult {
  let radio: NobleRadio | undefined;
  let source: BleSource | undefined;
  try {
    radio = options.openRadio(adapter.index);
    const opened: NobleRadio = radio;
    source = startBleSource({
      ...options.source,
      radio,
      adapter: adapter.name,
      now: options.now,
      onSocketError: (error) => options.onSocketError(opened, error),
      onCondition: options.onCondition,
    });
    radio.open();
    return { opened: true, radio, source };
  } catch (error) {
    if (source !== undefined) source.stop();
    else radio?.close();
    return { opened: false, absent: errorCode(error) === 'ENODEV', condition: conditionOfOpenError(error, adapter.name) };
  }
}

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  // Some HCI module builds put the errno name only in the message.
  return /\b(ENODEV|EPIPE|EBADFD|EBADF|EPERM|EACCES|EAFNOSUPPORT)\b/.exec(messageOf(error))?.[1];
}
