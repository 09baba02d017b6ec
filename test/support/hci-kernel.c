// A kernel's Bluetooth HCI socket, for a machine without Bluetooth: loaded with LD_PRELOAD into a
// process whose HCI module (a real native build: the package's Node-API one or a source install's)
// opens `socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)`. That call gets one end of a SOCK_SEQPACKET
// pair, so each read is one HCI packet as from the kernel, and a thread relays the other end to the
// test's controller over the Unix stream socket named by PANIC_PAIR_TEST_HCI, each packet prefixed
// with its length (2 bytes, little-endian). bind, the HCI filter and the device ioctls answer as
// the kernel does for one adapter, hci0, powered on unless a file named like that socket with
// `.down` added exists (the test powers the adapter off so). The listing of /sys/class/bluetooth is
// taken from a directory named like that socket with `.sys` added (see the end of this file).
// Everything else is the C library's.
//
// Test support only: compiled by test/support/hci-kernel.ts with the machine's C compiler.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define AF_BLUETOOTH_ 31
#define BTPROTO_HCI_ 1
#define SOL_HCI_ 0
#define HCIGETDEVLIST_ 0x800448d2UL
#define HCIGETDEVINFO_ 0x800448d3UL
#define HCI_UP_FLAG (1u << 0)
#define MAX_FAKE 16

static int fake_fds[MAX_FAKE];
static int fake_count = 0;
static pthread_mutex_t fake_lock = PTHREAD_MUTEX_INITIALIZER;

// The adapter's HCI_UP flag: up unless <PANIC_PAIR_TEST_HCI>.down exists.
static uint32_t up_flag(void) {
  const char *path = getenv("PANIC_PAIR_TEST_HCI");
  char down[512];
  if (path == NULL || snprintf(down, sizeof(down), "%s.down", path) >= (int)sizeof(down)) return HCI_UP_FLAG;
  return access(down, F_OK) == 0 ? 0 : HCI_UP_FLAG;
}

static int is_fake(int fd) {
  pthread_mutex_lock(&fake_lock);
  int found = 0;
  for (int i = 0; i < fake_count; i++) found |= fake_fds[i] == fd;
  pthread_mutex_unlock(&fake_lock);
  return found;
}

static int write_all(int fd, const uint8_t *data, size_t length) {
  while (length > 0) {
    ssize_t written = write(fd, data, length);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return -1;
    data += written;
    length -= (size_t)written;
  }
  return 0;
}

struct relay {
  int packets; // our end of the SEQPACKET pair
  int stream;  // connected to the test's controller
};

// Packets from the module go out framed; framed bytes from the test come back as packets.
static void *relay_main(void *argument) {
  struct relay relay = *(struct relay *)argument;
  free(argument);
  uint8_t packet[1100];
  uint8_t pending[4096];
  size_t held = 0;
  struct pollfd fds[2] = {{relay.packets, POLLIN, 0}, {relay.stream, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t length = read(relay.packets, packet + 2, sizeof(packet) - 2);
      if (length <= 0) break;
      packet[0] = (uint8_t)(length & 0xff);
      packet[1] = (uint8_t)(length >> 8);
      if (write_all(relay.stream, packet, (size_t)length + 2) < 0) break;
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t length = read(relay.stream, pending + held, sizeof(pending) - held);
      if (length <= 0) break;
      held += (size_t)length;
      while (held >= 2) {
        size_t size = (size_t)pending[0] | ((size_t)pending[1] << 8);
        if (held < size + 2) break;
        if (write(relay.packets, pending + 2, size) < 0) break;
        memmove(pending, pending + size + 2, held - size - 2);
        held -= size + 2;
      }
    }
  }
  // The C library's close: these two were never the module's.
  static int (*real_close)(int);
  if (!real_close) real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
  real_close(relay.packets);
  real_close(relay.stream);
  return NULL;
}

int socket(int domain, int type, int protocol) {
  static int (*real_socket)(int, int, int);
  if (!real_socket) real_socket = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
  const char *path = getenv("PANIC_PAIR_TEST_HCI");
  if (domain != AF_BLUETOOTH_ || protocol != BTPROTO_HCI_ || path == NULL) return real_socket(domain, type, protocol);

  int pair[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | (type & SOCK_CLOEXEC), 0, pair) < 0) return -1;
  int stream = real_socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  strncpy(address.sun_path, path, sizeof(address.sun_path) - 1);
  if (stream < 0 || connect(stream, (struct sockaddr *)&address, sizeof(address)) < 0) {
    close(pair[0]);
    close(pair[1]);
    if (stream >= 0) close(stream);
    errno = ENODEV;
    return -1;
  }
  struct relay *relay = malloc(sizeof(*relay));
  relay->packets = pair[1];
  relay->stream = stream;
  pthread_t thread;
  pthread_create(&thread, NULL, relay_main, relay);
  pthread_detach(thread);
  pthread_mutex_lock(&fake_lock);
  if (fake_count < MAX_FAKE) fake_fds[fake_count++] = pair[0];
  pthread_mutex_unlock(&fake_lock);
  return pair[0];
}

// A closed descriptor's number is soon another socket's: it stops being ours.
int close(int fd) {
  static int (*real_close)(int);
  if (!real_close) real_close = (int (*)(int))dlsym(RTLD_NEXT, "close");
  pthread_mutex_lock(&fake_lock);
  for (int i = 0; i < fake_count; i++) {
    if (fake_fds[i] == fd) fake_fds[i--] = fake_fds[--fake_count];
  }
  pthread_mutex_unlock(&fake_lock);
  return real_close(fd);
}

int bind(int fd, const struct sockaddr *address, socklen_t length) {
  static int (*real_bind)(int, const struct sockaddr *, socklen_t);
  if (!real_bind) real_bind = (int (*)(int, const struct sockaddr *, socklen_t))dlsym(RTLD_NEXT, "bind");
  return is_fake(fd) ? 0 : real_bind(fd, address, length);
}

int setsockopt(int fd, int level, int name, const void *value, socklen_t length) {
  static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
  if (!real_setsockopt) real_setsockopt = (int (*)(int, int, int, const void *, socklen_t))dlsym(RTLD_NEXT, "setsockopt");
  if (is_fake(fd) && level == SOL_HCI_) return 0;
  return real_setsockopt(fd, level, name, value, length);
}

// struct hci_dev_list_req { uint16_t dev_num; struct hci_dev_req { uint16_t dev_id; uint32_t dev_opt; } dev_req[]; }
// struct hci_dev_info { uint16_t dev_id; char name[8]; uint8_t bdaddr[6]; uint32_t flags; ... }
int ioctl(int fd, unsigned long request, ...) {
  static int (*real_ioctl)(int, unsigned long, void *);
  if (!real_ioctl) real_ioctl = (int (*)(int, unsigned long, void *))dlsym(RTLD_NEXT, "ioctl");
  va_list arguments;
  va_start(arguments, request);
  void *argument = va_arg(arguments, void *);
  va_end(arguments);
  if (!is_fake(fd)) return real_ioctl(fd, request, argument);
  if (request == HCIGETDEVLIST_) {
    uint8_t *list = argument;
    uint16_t one = 1;
    uint32_t up = up_flag();
    memcpy(list, &one, 2);
    memset(list + 4, 0, 8); // dev_req[0] starts at offset 4 (alignment of its uint32_t)
    memcpy(list + 8, &up, 4);
    return 0;
  }
  if (request == HCIGETDEVINFO_) {
    uint8_t *info = argument;
    static const uint8_t address[6] = {0x01, 0x00, 0x00, 0x00, 0x00, 0x02};
    uint32_t up = up_flag();
    memcpy(info + 2, "hci0", 5);
    memcpy(info + 10, address, 6);
    memcpy(info + 16, &up, 4);
    return 0;
  }
  return real_ioctl(fd, request, argument);
}

// sysfs as the kernel shows this one adapter. A directory named like the socket with `.sys` added
// stands in for /sys/class/bluetooth's listing (hci-kernel.ts lays out class/bluetooth/hci0 there
// and removes it when hci0 goes away), so that a look at which adapters exist sees this one and
// not the machine's (which may list none, or its own). Node lists a directory with scandir64.
#include <dirent.h>
int scandir64(const char *path, struct dirent64 ***list, int (*filter)(const struct dirent64 *),
              int (*compare)(const struct dirent64 **, const struct dirent64 **)) {
  static int (*real_scandir64)(const char *, struct dirent64 ***, int (*)(const struct dirent64 *),
                               int (*)(const struct dirent64 **, const struct dirent64 **));
  if (!real_scandir64) real_scandir64 = dlsym(RTLD_NEXT, "scandir64");
  const char *hci = getenv("PANIC_PAIR_TEST_HCI");
  static const char prefix[] = "/sys/class/bluetooth";
  char stand_in[600];
  if (hci != NULL && strncmp(path, prefix, sizeof(prefix) - 1) == 0 &&
      snprintf(stand_in, sizeof(stand_in), "%s.sys%s", hci, path + 4) < (int)sizeof(stand_in)) {
    return real_scandir64(stand_in, list, filter, compare);
  }
  return real_scandir64(path, list, filter, compare);
}
