// A throwaway PostgreSQL cluster for the storage tests: initdb in a temporary folder, a server on
// a Unix socket there (no TCP), one fresh database per test; stopped and removed at exit.
// Debian's postgresql package puts the server programs under /usr/lib/postgresql/<major>/bin;
// without them, or as root without a `postgres` user to run initdb as, `ok` is false and `why`
// says why (the tests skip with it).
#pragma once

#include <netinet/in.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace graphcost::study {

class PostgresServer {
 public:
  bool ok = false;
  std::string why;

  PostgresServer() {
    namespace fs = std::filesystem;
    std::string bin;
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ignored))
      if (fs::exists(entry.path() / "bin" / "initdb")) bin = (entry.path() / "bin").string();
    if (bin.empty()) {
      why =
          "no PostgreSQL server programs under /usr/lib/postgresql/*/bin (Debian: apt-get "
          "install postgresql)";
      return;
    }
    std::string pattern = (fs::temp_directory_path() / "graphcost_pg_XXXXXX").string();
    if (!::mkdtemp(pattern.data())) {
      why = "mkdtemp failed";
      return;
    }
    dir_ = pattern;
    // initdb refuses to run as root: run the server programs as the postgres user, which then
    // needs to own the folder.
    std::string as_user;
    if (::getuid() == 0) {
      struct passwd* user = ::getpwnam("postgres");
      if (user == nullptr) {
        why = "running as root and there is no postgres user to run initdb as";
        return;
      }
      if (::chown(dir_.c_str(), user->pw_uid, user->pw_gid) != 0) {
        why = "cannot chown " + dir_ + " to postgres";
        return;
      }
      as_user = "runuser -u postgres -- ";
    }
    port_ = free_port();
    const std::string data = dir_ + "/data";
    if (!run(as_user + bin + "/initdb -D " + data + " -U postgres --auth=trust -E UTF8 > " + dir_ +
             "/initdb.log 2>&1")) {
      why = "initdb failed (see " + dir_ + "/initdb.log)";
      return;
    }
    stop_command_ = as_user + bin + "/pg_ctl -D " + data + " -m immediate -w stop > /dev/null 2>&1";
    if (!run(as_user + bin + "/pg_ctl -D " + data + " -l " + dir_ + "/server.log -w -o \"-p " +
             std::to_string(port_) + " -k " + dir_ +
             " -c listen_addresses=''\" start > /dev/null "
             "2>&1")) {
      why = "pg_ctl start failed (see " + dir_ + "/server.log)";
      stop_command_.clear();
      return;
    }
    createdb_ = bin + "/createdb -h " + dir_ + " -p " + std::to_string(port_) + " -U postgres ";
    ok = true;
  }

  ~PostgresServer() {
    if (!stop_command_.empty()) run(stop_command_);
    if (!dir_.empty() && ok) {
      std::error_code ignored;
      std::filesystem::remove_all(dir_, ignored);
    }
  }

  // A new empty database's URL.
  std::string fresh_database_url() {
    const std::string name = "graphcost_test_" + std::to_string(++databases_);
    if (!run(createdb_ + name + " > /dev/null 2>&1")) return "";
    return "postgresql://postgres@/" + name + "?host=" + dir_ + "&port=" + std::to_string(port_);
  }

 private:
  static bool run(const std::string& command) { return std::system(command.c_str()) == 0; }
  // A port no one listens on now (the socket file's name; the server opens no TCP port).
  static int free_port() {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 54329;
    if (::bind(s, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(s, reinterpret_cast<sockaddr*>(&address), &length) == 0)
      port = ntohs(address.sin_port);
    ::close(s);
    return port;
  }
  std::string dir_;
  int port_ = 0;
  std::string stop_command_;
  std::string createdb_;
  int databases_ = 0;
};

}  // namespace graphcost::study
