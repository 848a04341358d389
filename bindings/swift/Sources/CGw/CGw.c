/* SwiftPM needs one source file in a C target; the code is in libgw (see Package.swift). */
#include "CGw.h"
