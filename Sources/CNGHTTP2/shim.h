// libnghttp2 from the system (Debian: libnghttp2-dev, 1.52.0 with Debian's security fixes), never a vendored copy.
#pragma once
#include <nghttp2/nghttp2.h>
