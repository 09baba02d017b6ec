import { describeUartHub, uartGuestOrReason } from '../support/uart-hub-suite.js';

// The amd64 package on Debian's amd64 kernel, its controllers on a UART (hci_uart): attached late,
// a button heard and linked, detached and attached again (test/support/uart-hub-suite.ts).
describeUartHub('amd64', await uartGuestOrReason('amd64'));
