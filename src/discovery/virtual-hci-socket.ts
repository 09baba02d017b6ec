import { EventEmitter } from 'node:events';
import { isAdvertisingReport } from './advertising-report.js';

// A stand-in for the Bluetooth controller behind noble's HCI socket: noble writes its commands
// here and this answers each with the Command Complete event a controller sends, so noble powers
// on and starts scanning as it does on real hardware. Advertising reports delivered here then go
// through noble's own HCI and GAP parsing, exactly as the radio's would. Capture replay runs on it
// (PANIC_PAIR_BLE_REPLAY), and tests drive adapter states through it.
//
// The methods are the ones noble calls on @abandonware/bluetooth-hci-socket.

const HCI_COMMAND_PKT = 0x01;
const HCI_EVENT_PKT = 0x04;
const EVT_CMD_COMPLETE = 0x0e;

const READ_LOCAL_VERSION = 0x1001;
const READ_SUPPORTED_COMMANDS = 0x1002;
const READ_BUFFER_SIZE = 0x1005;
const READ_BD_ADDR = 0x1009;
const READ_LE_HOST_SUPPORTED = 0x0c6c;
const LE_READ_BUFFER_SIZE = 0x2002;
const LE_SET_SCAN_ENABLE = 0x200c;
const HCI_RESET = 0x0c03;

/** Remembered commands, for tests and diagnostics; older ones are dropped. */
const COMMAND_HISTORY = 64;

export interface WrittenCommand {
  opcode: number;
  parameters: Buffer;
}

export class VirtualHciSocket extends EventEmitter {
  #up = true;
  #scanning = false;
  #filterDuplicates = true;
  #stalled = false;
  #gone = false;
  #address: Buffer;
  readonly #commands: WrittenCommand[] = [];

  readonly #refused: boolean;

  /**
   * `address` as written, e.g. `02:00:00:00:00:01`; `powered: false` starts with the adapter off;
   * `refused` refuses the socket once started, as the kernel does without the capabilities.
   */
  constructor(options: { address?: string; powered?: boolean; refused?: boolean } = {}) {
    super();
    this.#address = Buffer.from((options.address ?? '02:00:00:00:00:01').split(':').reverse().join(''), 'hex');
    this.#up = options.powered ?? true;
    this.#refused = options.refused ?? false;
  }

  bindRaw(deviceId?: number): number {
    return deviceId ?? 0;
  }

  bindUser(deviceId?: number): number {
    return deviceId ?? 0;
  }

  start(): void {
    if (this.#refused) setImmediate(() => this.refuse());
  }

  stop(): void {}

  setFilter(_filter: Buffer): void {}

  isDevUp(): boolean {
    return this.#up;
  }

  write(packet: Buffer): void {
    if (packet.length < 4 || packet[0] !== HCI_COMMAND_PKT) return;
    const opcode = packet.readUInt16LE(1);
    const parameters = packet.subarray(4, 4 + packet[3]!);
    this.#commands.push({ opcode, parameters: Buffer.from(parameters) });
    if (this.#commands.length > COMMAND_HISTORY) this.#commands.shift();
    if (this.#gone) {
      const error = Object.assign(new Error('File descriptor in bad state'), { code: 'EBADFD' });
      setImmediate(() => this.emit('error', error));
      return;
    }
    if (!this.#up) return;
    if (opcode === LE_SET_SCAN_ENABLE) {
      this.#scanning = parameters[0] === 1;
      this.#filterDuplicates = parameters[1] === 1;
      // A fresh scan start is what clears the stalled-scan failure on real controllers too.
      if (this.#scanning) this.#stalled = false;
    }
    const result = this.#resultOf(opcode);
    // A controller answers asynchronously; noble relies on its own writes finishing first.
    setImmediate(() => {
      if (this.#up) this.#emitData(commandComplete(opcode, result));
    });
  }

  /**
   * An HCI event from the controller, H4 type byte first (0x04). Advertising reports arrive only
   * while a scan is enabled and not stalled, as from a real controller. True when delivered.
   */
  deliver(packet: Buffer): boolean {
    if (!this.#up || packet[0] !== HCI_EVENT_PKT) return false;
    if (isAdvertisingReport(packet) && (!this.#scanning || this.#stalled)) return false;
    this.#emitData(packet);
    return true;
  }

  /** Powers the adapter off or on (noble polls this once a second, as with `hciconfig hci0 down`). */
  setPowered(on: boolean): void {
    this.#up = on;
    if (!on) this.#scanning = false;
  }

  /** The socket refuses us, as the kernel does without CAP_NET_RAW and CAP_NET_ADMIN. */
  refuse(): void {
    const error = Object.assign(new Error('Operation not permitted'), { code: 'EPERM' });
    this.emit('error', error);
  }

  /**
   * A command another program wrote to the adapter (the kernel shows it to every raw HCI socket),
   * with its effect: e.g. LE Set Scan Enable (0x200c) with `[0, 0]` stops our scan.
   */
  foreignCommand(opcode: number, parameters: Buffer): void {
    const packet = Buffer.alloc(4 + parameters.length);
    packet[0] = HCI_COMMAND_PKT;
    packet.writeUInt16LE(opcode, 1);
    packet[3] = parameters.length;
    parameters.copy(packet, 4);
    if (opcode === LE_SET_SCAN_ENABLE) this.#scanning = parameters[0] === 1;
    this.#emitData(packet);
  }

  /**
   * Another program resets the controller (`hciconfig hci0 reset`, bluetoothd recovering): every
   * raw socket sees the command and its Command Complete, and the scan is off afterwards.
   */
  foreignReset(): void {
    this.foreignCommand(HCI_RESET, Buffer.alloc(0));
    this.#scanning = false;
    setImmediate(() => {
      if (this.#up) this.#emitData(commandComplete(HCI_RESET, Buffer.alloc(0)));
    });
  }

  /**
   * The adapter is gone (unplugged, its controller crashed): it reports down, and each write fails
   * with EBADFD, as the kernel's raw socket does once its device unregisters. Not undone: a new
   * adapter is a new socket.
   */
  vanish(): void {
    this.#up = false;
    this.#scanning = false;
    this.#gone = true;
  }

  /** The scan stays enabled but no report arrives until the scan is started again (a known firmware failure). */
  stall(): void {
    this.#stalled = true;
  }

  get scanning(): boolean {
    return this.#scanning;
  }

  /** Duplicate filtering as the last scan enable asked for it. */
  get filterDuplicates(): boolean {
    return this.#filterDuplicates;
  }

  /** The commands written most recently, oldest first. */
  commands(): readonly WrittenCommand[] {
    return this.#commands;
  }

  #emitData(packet: Buffer): void {
    this.emit('data', packet);
  }

  #resultOf(opcode: number): Buffer {
    switch (opcode) {
      case READ_LOCAL_VERSION:
        // HCI 5.0 (0x09): noble refuses controllers older than 4.0 as unsupported.
        return Buffer.from([0x09, 0x00, 0x00, 0x09, 0xf1, 0x05, 0x00, 0x00]);
      case READ_BD_ADDR:
        return this.#address;
      case LE_READ_BUFFER_SIZE:
        return Buffer.from([0xfb, 0x00, 0x08]);
      case READ_BUFFER_SIZE:
        return Buffer.from([0xfd, 0x03, 0x40, 0x08, 0x00, 0x00, 0x00]);
      case READ_LE_HOST_SUPPORTED:
        return Buffer.from([0x01, 0x00]);
      case READ_SUPPORTED_COMMANDS:
        return Buffer.alloc(64);
      default:
        return Buffer.alloc(0);
    }
  }
}

function commandComplete(opcode: number, result: Buffer): Buffer {
  const event = Buffer.alloc(7 + result.length);
  event[0] = HCI_EVENT_PKT;
  event[1] = EVT_CMD_COMPLETE;
  event[2] = 4 + result.length;
  event[3] = 1; // the controller may take one more command
  event.writeUInt16LE(opcode, 4);
  event[6] = 0; // success
  result.copy(event, 7);
  return event;
}

// Where tests and the capture reader have long found it.
export { isAdvertisingReport };
