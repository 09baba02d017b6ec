// Many virtual buttons at once, for bench/ble-kernel.mjs: `node adv-flood.cjs RATE INDEX...` makes
// each controller INDEX (powered on, from btvirt) advertise a new button name RATE times a second
// in all, by raw HCI commands: LE Set Advertising Data, then advertising off and on. A virtual
// controller sends one advertising report to every scanning controller each time advertising
// starts, so RATE is the reports a second the hub's adapter receives (when the guest keeps up).
// Prints `sent N` on SIGUSR1.
'use strict';
const { createRequire } = require('node:module');

// The package's HCI module, found as noble finds it (beside noble, or in noble's own node_modules).
const BluetoothHciSocket = createRequire(createRequire('/usr/lib/panic-pair/package.json').resolve('@abandonware/noble/package.json'))('@abandonware/bluetooth-hci-socket');

const [rate, ...indexes] = process.argv.slice(2).map(Number);
const BUTTONS_PER_CONTROLLER = 50;
const command = (opcode, parameters) => Buffer.concat([Buffer.from([0x01, opcode & 0xff, opcode >> 8, parameters.length]), parameters]);
const SET_PARAMETERS = 0x2006;
const SET_DATA = 0x2008;
const SET_ENABLE = 0x200a;

function advertisingData(name) {
  const text = Buffer.from(name);
  const data = Buffer.alloc(32);
  data[0] = text.length + 2;
  data[1] = text.length + 1;
  data[2] = 0x09;
  text.copy(data, 3);
  return data;
}

const sockets = indexes.map((index) => {
  const socket = new BluetoothHciSocket();
  socket.on('data', () => undefined);
  socket.on('error', (error) => process.stderr.write(`hci${index}: ${error.message}\n`));
  socket.bindRaw(index);
  socket.start();
  // Non-connectable, not scannable, 100 ms: one report per start, no scan requests.
  socket.write(command(SET_PARAMETERS, Buffer.from([0xa0, 0x00, 0xa0, 0x00, 0x03, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x00])));
  return { index, socket, next: 0 };
});

let sent = 0;
const TICK_MS = 20;
let owed = 0;
setInterval(() => {
  owed += (rate * TICK_MS) / 1000;
  while (owed >= 1) {
    owed -= 1;
    const controller = sockets[sent % sockets.length];
    const id = `F${controller.index}${String(controller.next++ % BUTTONS_PER_CONTROLLER).padStart(3, '0')}`;
    controller.socket.write(command(SET_DATA, advertisingData(`PANIC-${id}`)));
    controller.socket.write(command(SET_ENABLE, Buffer.from([0x00])));
    controller.socket.write(command(SET_ENABLE, Buffer.from([0x01])));
    sent += 1;
  }
}, TICK_MS);
process.on('SIGUSR1', () => process.stdout.write(`sent ${sent}\n`));
process.stdout.write('flooding\n');
