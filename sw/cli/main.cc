// `ndp`: analyse, pack, read and verify CXL-NDP device images (and, via registered subcommands,
// KV traces and the placement runtime).
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "command.h"

namespace ndp::cli {

std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> r;
  return r;
}

int fail(const Args& a, const std::string& msg) {
  std::fprintf(stderr, "ndp %s: %s\n", a.command.c_str(), msg.c_str());
  return 1;
}

std::optional<int64_t> Args::get_int(const std::string& k, int64_t def) const {
  auto it = opt.find(k);
  if (it == opt.end()) return def;
  char* end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 0);
  if (it->second.empty() || *end != '\0') {
    std::fprintf(stderr, "ndp %s: option %s expects an integer, got '%s'\n", command.c_str(), k.c_str(),
                 it->second.c_str());
    return std::nullopt;
  }
  return v;
}

static void usage(FILE* f) {
  std::fprintf(f, "usage: ndp COMMAND [args]\n\ncommands:\n");
  for (auto& [name, c] : registry()) std::fprintf(f, "  %s\n", c.usage.c_str());
}

}  // namespace ndp::cli

int main(int argc, char** argv) {
  using namespace ndp::cli;
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  Args a;
  a.command = argv[1];
  // Two-word commands ("place plan") are registered with a space.
  if (argc > 2 && registry().count(a.command + " " + argv[2])) a.command += std::string(" ") + argv[2];
  auto it = registry().find(a.command);
  if (it == registry().end()) {
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
