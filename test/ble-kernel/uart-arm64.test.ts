import { describeUartHub, uartGuestOrReason } from '../support/uart-hub-suite.js';

// The arm64 package on Debian's arm64 kernel, its controllers on a UART (hci_uart): attached late,
// a button heard and linked, detached and attached again (test/support/uart-hub-suite.ts).
describeUartHub('arm64', await uartGuestOrReason('arm64'));
