// Internal helpers of ndp_serving.
#pragma once

#include <string>

namespace ndp::serve {

// "%.6g".
std::string fmt_num(double v);

}  // namespace ndp::serve
