/* libamdkit.c: amdkit as a shared library, for programs that load it through an FFI (Python ctypes, Lua, Julia,
 * ...) rather than compile the header in: the implementation in one translation unit, every public ak_ function
 * exported (AKAPI), nothing else. `make install` builds and installs it as libamdkit.so with amdkit-shared.pc;
 * examples/ctypes_softmax.py uses it. A C program that links it includes amdkit.h without AMDKIT_IMPLEMENTATION. */
#define AMDKIT_IMPLEMENTATION
#include "amdkit.h"
