// Failure reporting for harness code that runs both inside GoogleTest fixtures and in the ndp-rtl
// runner: inside a running test a failure is a GoogleTest failure (ADD_FAILURE); outside one it
// is printed to stderr and counted, so the runner can report "status": "mismatch"/"error".
#pragma once

#include <cstdint>
#include <string>

namespace ndp::tb {

void fail(const std::string& msg);
// Failures reported through fail() since the start of the process.
uint64_t failure_count();

}  // namespace ndp::tb
