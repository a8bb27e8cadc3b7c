// Subcommand registry for the `ndp` CLI. A subcommand file defines
//   static int cmd_foo(const ndp::cli::Args& a);
//   NDP_COMMAND("foo", "one-line usage", cmd_foo);
// Errors: print one line "ndp foo: <message>" on stderr (use cli::fail) and return non-zero; main
// turns an escaping exception into one such line and exit 1. `ndp foo --help` prints the usage.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ndp/status.h"

namespace ndp::cli {

// Parsed command line: positional arguments and --key value / --flag options.
struct Args {
  std::string command;
  std::vector<std::string> pos;
  std::map<std::string, std::string> opt;  // "--json" -> "" for flags
  bool has(const std::string& k) const { return opt.count(k) != 0; }
  std::string get(const std::string& k, const std::string& def = "") const {
    auto it = opt.find(k);
    return it == opt.end() ? def : it->second;
  }
  // Integer option in [lo, hi] (decimal, 0x hex or 0 octal), `def` when absent; nullopt (and one
  // error line printed) when malformed or out of range. The range is checked on the full value, so
  // callers may narrow the result to any type that holds [lo, hi].
  std::optional<int64_t> get_int(const std::string& k, int64_t def, int64_t lo, int64_t hi) const;
  // The same check as an error value (nothing printed).
  Result<int64_t> int_opt(const std::string& k, int64_t def, int64_t lo, int64_t hi) const;
};

using CommandFn = std::function<int(const Args&)>;
struct Command {
  std::string usage;
  CommandFn fn;
  std::vector<std::string> flags;  // options that take no value
  std::vector<std::string> lists;  // options that may repeat: their values are joined with ','
};
std::map<std::string, Command>& registry();

struct Registrar {
  Registrar(const char* name, const char* usage, CommandFn fn, std::vector<std::string> flags = {},
            std::vector<std::string> lists = {}) {
    registry()[name] = Command{usage, std::move(fn), std::move(flags), std::move(lists)};
  }
};

// Print "ndp <cmd>: <msg>" to stderr and return exit code 1.
int fail(const Args& a, const std::string& msg);

}  // namespace ndp::cli

#define NDP_CONCAT2(a, b) a##b
#define NDP_CONCAT(a, b) NDP_CONCAT2(a, b)
// NDP_COMMAND(name, usage, fn [, {"--flag1", "--flag2"} [, {"--list1"}]]) : flags listed take no value;
// list options may be given several times (`--mode a --mode b` reads as `--mode a,b`).
#define NDP_COMMAND(name, usage, ...) \
  static ::ndp::cli::Registrar NDP_CONCAT(ndp_cmd_reg_, __LINE__)(name, usage, __VA_ARGS__)
