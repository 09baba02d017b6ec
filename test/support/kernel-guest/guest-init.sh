#!/bin/sh
# PID 1 of the kernel test's guest (test/support/kernel-guest.ts): no init system, only what the
# daemon and BlueZ's tools need, then the agent that runs the host's commands.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs tmpfs /tmp
hostname panic-hub
ip link set lo up
# The Bluetooth core and the controllers' drivers, as on a hub (bluetooth.ko; hci_vhci.ko, which
# only amd64's kernel has; hci_uart.ko, which a Raspberry Pi's onboard controller is bound by): no
# controller exists until btvirt opens /dev/vhci or btattach binds a UART. No udev here: the agent's
# virtio port's driver is loaded by name.
modprobe virtio_console 2>/dev/null
modprobe bluetooth
modprobe hci_vhci 2>/dev/null
modprobe hci_uart
# The kernel crypto that BlueZ's emulated controllers (btvirt) ask for through AF_ALG, and the
# ECDH of the Bluetooth core's SMP: loaded now, not on first use. Loaded on first use, it held up
# the first controller's answer to the kernel's HCI_Reset past the kernel's 2 s, under TCG: the
# setup failed ("Opcode 0x0c03 failed: -110") and that controller stayed unusable.
modprobe -a af_alg algif_hash algif_skcipher cmac ecdh_generic 2>/dev/null
node /usr/local/lib/panic-pair-test/agent.mjs
echo "the agent exited $?"
# No init system to power off with: the kernel does it.
echo o > /proc/sysrq-trigger
