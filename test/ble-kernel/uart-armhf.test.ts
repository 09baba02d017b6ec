import { describeUartHub, uartGuestOrReason } from '../support/uart-hub-suite.js';

// The armhf package on Debian's armhf kernel, its controllers on a UART (hci_uart): attached late,
// a button heard and linked, detached and attached again (test/support/uart-hub-suite.ts).
describeUartHub('armhf', await uartGuestOrReason('armhf'));
