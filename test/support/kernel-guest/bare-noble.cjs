// noble alone, scanning the hub's adapter (NOBLE_HCI_DEVICE_ID) with duplicates as the daemon does,
// counting reports and nothing else: the baseline of bench/ble-kernel.mjs. The package's own noble
// and HCI module. Prints `scanning <pid>` once, and `heard N` on SIGUSR1.
'use strict';
const { createRequire } = require('node:module');

// The package ships noble's HCI bindings and core only (not its index, which looks for others).
const fromPackage = createRequire('/usr/lib/panic-pair/package.json');
const Bindings = fromPackage('@abandonware/noble/lib/hci-socket/bindings.js');
const Noble = fromPackage('@abandonware/noble/lib/noble.js');
const noble = new Noble(new Bindings({ deviceId: Number(process.env.NOBLE_HCI_DEVICE_ID ?? 0) }));
let heard = 0;
noble.on('discover', () => {
  heard += 1;
});
noble.on('scanStart', () => process.stdout.write(`scanning ${process.pid}\n`));
noble.on('stateChange', (state) => {
  if (state === 'poweredOn') noble.startScanning([], true);
});
process.on('SIGUSR1', () => process.stdout.write(`heard ${heard}\n`));
