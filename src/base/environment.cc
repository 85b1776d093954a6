#include "base/environment.h"

#include <sys/auxv.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace iobench {
namespace {

// Set once, before anything else runs, and only read after.
std::vector<std::string>* g_strings = nullptr;
std::vector<char*>* g_pointers = nullptr;

/// Where the kernel put the environment's strings at exec ([start, end) in our own memory:
/// fields 50 and 51 of /proc/self/stat). A secure-mode process is not dumpable, and its
/// /proc/self/environ is root's to open; its stat is anyone's, and the strings are ours.
bool environment_bounds(std::uintptr_t& start, std::uintptr_t& end) {
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t paren = stat.rfind(')');  // the comm before it may hold anything
  if (paren == std::string::npos) return false;
  std::istringstream fields(stat.substr(paren + 1));
  std::string field;
  for (int i = 3; i <= 51 && fields >> field; ++i) {
    if (i == 50) start = std::stoull(field);
    if (i == 51) end = std::stoull(field);
  }
  return start != 0 && start < end && end - start < (std::uintptr_t{1} << 24);
}

}  // namespace

void keep_user_environment() {
  if (::getauxval(AT_SECURE) == 0 || g_pointers != nullptr) return;
  std::uintptr_t start = 0, end = 0;
  try {
    // Unreadable: environ, stripped, is all there is.
    if (!environment_bounds(start, end)) return;
  } catch (const std::exception&) {  // a field that is not a number
    return;
  }
  // glibc's loader drops the unsafe variables from environ, not their strings from the stack.
  // An address the kernel gave, in our own stack: no pointer to derive it from.
  const std::string all(reinterpret_cast<const char*>(start),  // NOLINT(performance-no-int-to-ptr)
                        end - start);
  auto* strings = new std::vector<std::string>();
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t stop = all.find('\0', at);
    if (stop != at)
      strings->push_back(all.substr(at, stop == std::string::npos ? stop : stop - at));
    if (stop == std::string::npos) break;
    at = stop + 1;
  }
  auto* pointers = new std::vector<char*>();
  for (std::string& str : *strings) pointers->push_back(str.data());
  pointers->push_back(nullptr);
  g_strings = strings;
  g_pointers = pointers;
}

char* const* user_environment() noexcept {
  return g_pointers != nullptr ? g_pointers->data() : environ;
}

const char* user_getenv(const char* name) noexcept {
  const std::size_t n = std::strlen(name);
  for (char* const* e = user_environment(); *e != nullptr; ++e)
    if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') return *e + n + 1;
  return nullptr;
}

}  // namespace iobench
