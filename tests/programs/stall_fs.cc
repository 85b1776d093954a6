// A FUSE filesystem of two files, spoken over /dev/fuse directly (no libfuse), for the
// baseline reader's tests: what a stalled network mount or a file that never ends does.
//   endless.json  size 0, and every read returns a full buffer of spaces: it never ends.
//   stall.json    a read is never answered (READY_FILE is created when one arrives) until
//                 the reader is interrupted by a signal; then it fails with EINTR.
// Usage: stall_fs MOUNTPOINT READY_FILE. Exits 77 when it cannot mount (not root, no
// /dev/fuse), 0 once unmounted.
#include <fcntl.h>
#include <linux/fuse.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr std::uint64_t kRoot = FUSE_ROOT_ID, kEndless = 2, kStall = 3;
int g_fuse = -1;

void reply(std::uint64_t unique, int error, const void* body = nullptr, std::size_t size = 0) {
  std::vector<char> out(sizeof(fuse_out_header) + size);
  fuse_out_header h{static_cast<std::uint32_t>(out.size()), error, unique};
  std::memcpy(out.data(), &h, sizeof h);
  if (size > 0) std::memcpy(out.data() + sizeof h, body, size);
  // A reply to a request the kernel has dropped fails with ENOENT: nothing to do.
  (void)!::write(g_fuse, out.data(), out.size());
}

fuse_attr attr_of(std::uint64_t node) {
  fuse_attr a{};
  a.ino = node;
  a.mode = node == kRoot ? S_IFDIR | 0755 : S_IFREG | 0444;
  a.nlink = node == kRoot ? 2 : 1;
  a.blksize = 4096;
  return a;  // size 0: the files are read with direct I/O, so the size is never consulted
}

void on_lookup(const fuse_in_header& h, const char* name) {
  const std::uint64_t node = std::strcmp(name, "endless.json") == 0 ? kEndless
                             : std::strcmp(name, "stall.json") == 0 ? kStall
                                                                    : 0;
  if (h.nodeid != kRoot || node == 0) return reply(h.unique, -ENOENT);
  fuse_entry_out e{};
  e.nodeid = node;
  e.attr = attr_of(node);
  reply(h.unique, 0, &e, sizeof e);
}

void on_read(const fuse_in_header& h, const fuse_read_in& in, const char* ready_file,
             std::uint64_t& stalled) {
  if (h.nodeid == kEndless) {
    const std::string spaces(in.size, ' ');
    return reply(h.unique, 0, spaces.data(), spaces.size());
  }
  stalled = h.unique;  // answered only when interrupted
  ::close(::open(ready_file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
}

/// One request; false once the filesystem is unmounted.
bool serve_one(std::vector<char>& buf, const char* ready_file, std::uint64_t& stalled) {
  const ssize_t n = ::read(g_fuse, buf.data(), buf.size());
  if (n < 0) return errno == EINTR || errno == ENOENT;  // ENODEV: unmounted
  fuse_in_header h{};
  std::memcpy(&h, buf.data(), sizeof h);
  const char* body = buf.data() + sizeof h;
  switch (h.opcode) {
    case FUSE_INIT: {
      fuse_init_in in{};
      std::memcpy(&in, body, sizeof in);
      fuse_init_out out{};
      out.major = FUSE_KERNEL_VERSION;
      out.minor = std::min<std::uint32_t>(in.minor, FUSE_KERNEL_MINOR_VERSION);
      out.max_readahead = in.max_readahead;
      out.max_write = 4096;
      reply(h.unique, 0, &out, sizeof out);
      break;
    }
    case FUSE_LOOKUP:
      on_lookup(h, body);
      break;
    case FUSE_GETATTR: {
      fuse_attr_out out{};
      out.attr = attr_of(h.nodeid);
      reply(h.unique, 0, &out, sizeof out);
      break;
    }
    case FUSE_OPEN: {
      fuse_open_out out{};
      out.open_flags = FOPEN_DIRECT_IO;  // every read() comes here, none from the page cache
      reply(h.unique, 0, &out, sizeof out);
      break;
    }
    case FUSE_READ: {
      fuse_read_in in{};
      std::memcpy(&in, body, sizeof in);
      on_read(h, in, ready_file, stalled);
      break;
    }
    case FUSE_INTERRUPT: {
      fuse_interrupt_in in{};
      std::memcpy(&in, body, sizeof in);
      if (in.unique == stalled) reply(stalled, -EINTR);
      break;  // an interrupt itself gets no reply
    }
    case FUSE_FORGET:
    case FUSE_BATCH_FORGET:
      break;  // no reply, by the protocol
    case FUSE_FLUSH:
    case FUSE_RELEASE:
      reply(h.unique, 0);
      break;
    default:
      reply(h.unique, -ENOSYS);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the test that started us
  g_fuse = ::open("/dev/fuse", O_RDWR | O_CLOEXEC);
  if (g_fuse < 0) return 77;
  const std::string options = "fd=" + std::to_string(g_fuse) +
                              ",rootmode=40000,user_id=" + std::to_string(::getuid()) +
                              ",group_id=" + std::to_string(::getgid());
  if (::mount("stall_fs", argv[1], "fuse.stall_fs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
    std::perror("stall_fs: mount");
    return 77;
  }
  std::vector<char> buf(FUSE_MIN_READ_BUFFER + 128 * 1024);
  std::uint64_t stalled = 0;
  while (serve_one(buf, argv[2], stalled)) {
  }
  return 0;
}
