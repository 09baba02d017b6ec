// glibc 2.38 renamed what C23 compilers call for strtol and strtoul (__isoc23_*); Jazzer.js's
// prebuilt fuzzer asks for them, and Debian 12's glibc (2.36) has only the old names. The two
// differ only in accepting a "0b" prefix with base 0 or 2, which the fuzzer never parses.
// GCC 13's libstdc++ (GLIBCXX_3.4.32) adds std::ios_base_library_init(), which makes sure the
// standard streams are set up; Debian 12's libstdc++ sets them up when it loads, so a no-op does.
// Loaded as a Node-API module (hence the empty init) with RTLD_GLOBAL, before the fuzzer.
#include <stdlib.h>

long __isoc23_strtol(const char *text, char **end, int base) { return strtol(text, end, base); }
unsigned long __isoc23_strtoul(const char *text, char **end, int base) { return strtoul(text, end, base); }
void _ZSt21ios_base_library_initv(void) {}
void *napi_register_module_v1(void *env, void *exports) { (void)env; return exports; }
