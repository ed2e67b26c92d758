// AtomicFile: the target changes only at commit(), and a commit removes the temp files of writers
// that died (killed, or zombies nobody reaped) but never those of writers still running. It
// replaces the final target of symbolic links and keeps its mode; output targets are resolved by
// kind, and an output that is also an input is caught by device and inode.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "bloomtool/error.h"
#include "format/atomic_file.h"
#include "format/filter_file.h"
#include "format/output_target.h"
#include "temp_files.h"

using namespace bloomtool;
namespace fs = std::filesystem;

namespace {

size_t temp_files(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    n += e.path().filename().string().rfind(".out.tmp.", 0) == 0;
  return n;
}

bool temp_of(const fs::path& dir, pid_t pid) {
  return fs::exists(dir) && [&] {
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().rfind(".out.tmp." + std::to_string(pid) + ".", 0) == 0)
        return true;
    return false;
  }();
}

// Forks a writer that creates its temp file, reports through a pipe, then either waits to be
// killed or kills itself.
pid_t fork_writer(const std::string& target, bool die) {
  int ready[2];
  REQUIRE(pipe(ready) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(ready[0]);
    AtomicFile f(target);
    const uint8_t bytes[3] = {1, 2, 3};
    f.write(bytes);
    (void)!::write(ready[1], "x", 1);
    if (die) raise(SIGKILL);
    for (;;) pause();
  }
  close(ready[1]);
  char c;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  close(ready[0]);
  return pid;
}

}  // namespace

TEST_CASE("commit replaces the target and sweeps temp files of dead writers only", "[atomic]") {
  char tmpl[] = "/tmp/bloomtool-atomic-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const fs::path dir(tmpl);
  const std::string target = (dir / "out").string();
  std::ofstream(target) << "old";

  const pid_t alive = fork_writer(target, false);
  const pid_t zombie = fork_writer(target, true);
  siginfo_t info{};
  REQUIRE(waitid(P_PID, static_cast<id_t>(zombie), &info, WEXITED | WNOWAIT) == 0);  // not reaped
  REQUIRE(temp_of(dir, alive));
  REQUIRE(temp_of(dir, zombie));
  {
    AtomicFile abandoned(target);
    const uint8_t bytes[1] = {9};
    abandoned.write(bytes);
  }  // destroyed without commit: its temp file goes, the target stays
  CHECK(temp_files(dir) == 2);
  {
    std::ifstream in(target);
    std::string s;
    in >> s;
    CHECK(s == "old");
  }

  AtomicFile f(target);
  const uint8_t bytes[3] = {'n', 'e', 'w'};
  f.write(bytes);
  f.commit();
  CHECK(fs::file_size(target) == 3);
  CHECK(temp_of(dir, alive));
  CHECK_FALSE(temp_of(dir, zombie));

  kill(alive, SIGKILL);
  waitpid(alive, nullptr, 0);
  waitpid(zombie, nullptr, 0);
  AtomicFile g(target);
  g.write(bytes);
  g.commit();
  CHECK(temp_files(dir) == 0);
  fs::remove_all(dir);
}

TEST_CASE("commit follows symbolic links and keeps the replaced file's mode", "[atomic]") {
  char tmpl[] = "/tmp/bloomtool-atomic-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const fs::path dir(tmpl);
  fs::create_directory(dir / "sub");
  std::ofstream(dir / "sub" / "out") << "old";
  REQUIRE(chmod((dir / "sub" / "out").c_str(), 0640) == 0);
  fs::create_symlink("sub/out", dir / "link");
  const uint8_t bytes[3] = {'n', 'e', 'w'};
  {
    AtomicFile f((dir / "link").string());
    CHECK(fs::path(f.temp_path()).parent_path() == dir / "sub");  // next to the final target
    f.write(bytes);
    f.commit();
  }
  CHECK(fs::is_symlink(dir / "link"));
  CHECK(fs::file_size(dir / "sub" / "out") == 3);
  struct stat st;
  REQUIRE(stat((dir / "sub" / "out").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0640);

  // A dangling link: its target is created.
  fs::create_symlink("sub/new", dir / "dangling");
  {
    AtomicFile f((dir / "dangling").string());
    f.write(bytes);
    f.commit();
  }
  CHECK(fs::is_symlink(dir / "dangling"));
  CHECK(fs::file_size(dir / "sub" / "new") == 3);

  // Not a regular file: never renamed over.
  REQUIRE(mkfifo((dir / "fifo").c_str(), 0600) == 0);
  CHECK_THROWS_AS(AtomicFile((dir / "fifo").string()), Error);
  CHECK(fs::is_fifo(dir / "fifo"));
  CHECK_THROWS_AS(AtomicFile("/dev/null"), Error);
  fs::remove_all(dir);
}

TEST_CASE("output targets: kinds, and an input that is the output", "[atomic]") {
  char tmpl[] = "/tmp/bloomtool-atomic-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const fs::path dir(tmpl);
  const std::string keys = (dir / "keys").string();
  std::ofstream(keys) << "a\nb\n";
  fs::create_symlink("keys", dir / "link");
  fs::create_hard_link(keys, dir / "hard");

  CHECK(resolve_output_target("-").kind == OutputKind::kDescriptor);
  CHECK(resolve_output_target("/dev/stdout").fd == 1);
  CHECK(resolve_output_target("/proc/self/fd/7").fd == 7);
  CHECK(resolve_output_target("/dev/null").kind == OutputKind::kStream);
  const OutputTarget link = resolve_output_target((dir / "link").string());
  CHECK(link.kind == OutputKind::kFile);
  CHECK(link.final_path == (dir / "keys").string());
  CHECK_THROWS_AS(resolve_output_target(dir.string()), Error);

  for (const std::string& spelling :
       {keys, (dir / "link").string(), (dir / "hard").string(), (dir / "." / "keys").string()}) {
    const OutputTarget t = resolve_output_target(spelling);
    CHECK_THROWS_WITH(check_output_not_input(t, {keys}),
                      keys + ": is both an input and the output; nothing written");
    CHECK_NOTHROW(check_output_not_input(t, {keys}, /*allow_in_place=*/true));
  }
  CHECK_NOTHROW(check_output_not_input(resolve_output_target((dir / "other").string()), {keys}));
  CHECK_NOTHROW(check_output_not_input(resolve_output_target("/dev/null"), {"/dev/null"}));
  fs::remove_all(dir);
}

TEST_CASE("two threads write filter files through the atomic writer at once; both land intact",
          "[atomic]") {
  char tmpl[] = "/tmp/bloomtool-atomic-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const fs::path dir(tmpl);
  // 3 MiB payloads: zstd writes them in several pieces, so the two writers' writes interleave.
  constexpr size_t kWords = size_t{3} << 17;
  std::vector<uint64_t> payload[2];
  for (uint64_t t = 0; t < 2; ++t) {
    payload[t].resize(kWords);
    uint64_t x = 0x9E3779B97F4A7C15u * (t + 1);
    for (auto& w : payload[t])
      w = (x ^= x << 13, x ^= x >> 7, x ^= x << 17) & (t == 0 ? ~0u : 0xff);
  }
  for (int round = 0; round < 4; ++round) {
    std::latch start(2);
    std::string failure[2];
    auto writer = [&](int t) {
      try {
        FilterHeader h;
        h.m = kWords * 64;
        h.k = 3;
        h.label = "writer " + std::to_string(t);
        WriteOptions options;
        options.codec = round % 2 == 0 ? PayloadCodec::kZstd : PayloadCodec::kRawChunked;
        options.threads = 2;
        start.arrive_and_wait();
        write_filter_file((dir / ("f" + std::to_string(t) + ".bf")).string(), h, payload[t],
                          kWords * 8, options);
      } catch (const std::exception& e) {
        failure[t] = e.what();
      }
    };
    std::thread a(writer, 0), b(writer, 1);
    a.join();
    b.join();
    CHECK(failure[0].empty());
    CHECK(failure[1].empty());
    for (int t = 0; t < 2; ++t) {
      const FilterFileContents got =
          read_filter_file((dir / ("f" + std::to_string(t) + ".bf")).string());
      CHECK(got.header.label == "writer " + std::to_string(t));
      CHECK(std::equal(payload[t].begin(), payload[t].end(), got.payload.span().begin(),
                       got.payload.span().end()));
    }
  }
  size_t temps = 0;
  for (const auto& e : fs::directory_iterator(dir))
    temps += e.path().filename().string().find(".tmp.") != std::string::npos;
  CHECK(temps == 0);
  fs::remove_all(dir);
}

TEST_CASE("the CLI's temp-file table lists each open writer's temp file, and only until it goes",
          "[atomic]") {
  char tmpl[] = "/tmp/bloomtool-atomic-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const fs::path dir(tmpl);
  cli::install_temp_file_table();
  const uint8_t bytes[3] = {'n', 'e', 'w'};
  {
    AtomicFile a((dir / "a").string()), b((dir / "b").string());
    CHECK(cli::temp_files_listed() == 2);
    a.write(bytes);
    a.commit();
    CHECK(cli::temp_files_listed() == 1);
    CHECK(fs::exists(b.temp_path()));
    cli::remove_temp_files();  // as the signal handler does
    CHECK_FALSE(fs::exists(b.temp_path()));
  }
  CHECK(cli::temp_files_listed() == 0);
  CHECK(fs::file_size(dir / "a") == 3);
  CHECK_FALSE(fs::exists(dir / "b"));
  set_temp_file_hooks(nullptr);
  {
    AtomicFile c((dir / "c").string());
    CHECK(cli::temp_files_listed() == 0);  // no hooks: the library lists nothing
  }
  fs::remove_all(dir);
}
