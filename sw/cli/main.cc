// `ndp`: analyse, pack, read and verify CXL-NDP device images (and, via registered subcommands,
// KV traces and the placement runtime).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>

#include "command.h"
#include "ndp/status.h"

namespace ndp::cli {

std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> r;
  return r;
}

int fail(const Args& a, const std::string& msg) {
  std::fprintf(stderr, "ndp %s: %s\n", a.command.c_str(), one_line(msg).c_str());
  return 1;
}

Result<int64_t> Args::int_opt(const std::string& k, int64_t def, int64_t lo, int64_t hi) const {
  auto it = opt.find(k);
  if (it == opt.end()) return def;
  const std::string& s = it->second;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(s.c_str(), &end, 0);
  if (s.empty() || *end != '\0') return Status::Error("option " + k + " expects an integer, got '" + s + "'");
  // Range first, on the full 64-bit value (ERANGE: beyond int64): no caller narrows an unchecked value.
  if (errno == ERANGE || v < lo || v > hi)
    return Status::Error("option " + k + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got '" +
                         s + "'");
  return int64_t{v};
}

std::optional<int64_t> Args::get_int(const std::string& k, int64_t def, int64_t lo, int64_t hi) const {
  auto v = int_opt(k, def, lo, hi);
  if (v.ok()) return v.value();
  fail(*this, v.status().message());
  return std::nullopt;
}

static void usage(FILE* f) {
  std::fprintf(f, "usage: ndp COMMAND [args]\n\ncommands:\n");
  for (auto& [name, c] : registry()) std::fprintf(f, "  %s\n", c.usage.c_str());
}

}  // namespace ndp::cli

namespace {

using namespace ndp::cli;

bool is_help(const std::string& s) { return s == "--help" || s == "-h"; }

// Usage lines of the commands whose name starts with `prefix` ("place" lists "place topo", ...).
bool group_usage(const std::string& prefix, FILE* f) {
  bool any = false;
  for (auto& [name, c] : registry())
    if (name.rfind(prefix + " ", 0) == 0) {
      std::fprintf(f, "%s  %s\n", any ? "" : "usage:\n", c.usage.c_str());
      any = true;
    }
  return any;
}

int run(int argc, char** argv, std::string& cmd) {
  if (argc < 2 || is_help(argv[1])) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  Args a;
  a.command = cmd = argv[1];
  // Two-word commands ("place plan") are registered with a space.
  if (argc > 2 && registry().count(a.command + " " + argv[2])) a.command += std::string(" ") + argv[2];
  cmd = a.command;
  auto it = registry().find(a.command);
  if (it == registry().end()) {
    if (argc > 2 && is_help(argv[2]) && group_usage(a.command, stdout)) return 0;
    std::fprintf(stderr, "ndp: unknown command '%s' (ndp --help lists them)\n", a.command.c_str());
    return 2;
  }
  const auto& flags = it->second.flags;
  const auto& lists = it->second.lists;
  auto set_opt = [&](const std::string& k, const std::string& v) {
    auto o = a.opt.find(k);
    if (o != a.opt.end() && std::find(lists.begin(), lists.end(), k) != lists.end()) o->second += "," + v;
    else a.opt[k] = v;
  };
  int first = a.command.find(' ') == std::string::npos ? 2 : 3;
  for (int i = first; i < argc; ++i)
    if (is_help(argv[i])) {
      std::printf("usage: ndp %s\n", it->second.usage.c_str());
      return 0;
    }
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.size() > 2 && s.rfind("--", 0) == 0) {
      auto eq = s.find('=');
      if (eq != std::string::npos) {
        set_opt(s.substr(0, eq), s.substr(eq + 1));
      } else if (std::find(flags.begin(), flags.end(), s) != flags.end()) {
        a.opt[s] = "";
      } else if (i + 1 < argc) {
        set_opt(s, argv[++i]);
      } else {
        return fail(a, "option " + s + " needs a value");
      }
    } else if (s == "-o" && i + 1 < argc) {
      a.opt["-o"] = argv[++i];
    } else {
      a.pos.push_back(s);
    }
  }
  return it->second.fn(a);
}

// One line on stderr for an exception that escaped a command (newlines in what() folded).
int report_exception(const std::string& cmd, const std::string& what) {
  std::fprintf(stderr, "ndp%s%s: %s\n", cmd.empty() ? "" : " ", cmd.c_str(), ndp::one_line(what).c_str());
  return 1;
}

}  // namespace

// Every failure is one line on stderr and exit status 1 (2 for a usage error before any command
// ran): Status errors through cli::fail, and any exception (out of memory, filesystem) here.
int main(int argc, char** argv) {
  std::string cmd;
  try {
    return run(argc, argv, cmd);
  } catch (const std::bad_alloc&) {
    return report_exception(cmd, "out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    return report_exception(cmd, std::string("unexpected error: ") + e.what());
  } catch (...) {
    return report_exception(cmd, "unexpected error (unknown exception)");
  }
}
