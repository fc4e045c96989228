// graphcost serve: load trained runs once and rank configurations over HTTP (src/serve,
// docs/serve.md). Flags and start-up only.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <thread>

#include "cli/commands.h"
#include "core/error.h"
#include "core/progress.h"
#include "cli/option_flags.h"
#include "infer/threads.h"
#include "serve/http_server.h"

namespace graphcost::cli {

namespace {

struct ServeCliOptions {
  std::vector<std::string> models;  // NAME=RUN_DIR
  std::string token_file;
  std::string precision = "fp32";
  serve::ServerOptions server;
};

// SIGTERM and SIGINT write a byte here; a thread reads it and stops the server (a signal
// handler may do no more than write).
int stop_pipe[2] = {-1, -1};

void on_stop_signal(int) {
  const char byte = 1;
  [[maybe_unused]] const ssize_t written = ::write(stop_pipe[1], &byte, 1);
}

std::vector<std::pair<std::string, std::string>> parse_models(const std::vector<std::string>& specs) {
  std::vector<std::pair<std::string, std::string>> models;
  for (const std::string& spec : specs) {
    const size_t equals = spec.find('=');
    check_data(equals != std::string::npos && equals > 0 && equals + 1 < spec.size(), "--model",
               spec, "expected NAME=RUN_DIR");
    models.emplace_back(spec.substr(0, equals), spec.substr(equals + 1));
  }
  return models;
}

void run_serve(const ServeCliOptions& o) {
  // As predict does: among others OpenBLAS to one thread, whose own pool would otherwise change
  // how matrix products are split, and so the last bits of the scores.
  infer::set_threads(0);
  infer::set_precision(o.precision);
  serve::RankService service(parse_models(o.models));
  const serve::BearerAuth auth =
      o.token_file.empty() ? serve::BearerAuth() : serve::BearerAuth::from_token_file(o.token_file);
  show_progress_lines(false);  // a line per request is the request log's job
  serve::RankServer server(service, o.server, auth);
  const int port = server.bind();

  check_data(::pipe(stop_pipe) == 0, "serve", "", "cannot create a pipe");
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
  std::thread stopper([&server] {
    char byte = 0;
    while (::read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    std::fprintf(stderr, "serve: stopping: finishing requests in flight\n");
    server.stop();
  });

  std::string names;
  for (const std::string& name : service.names()) names += (names.empty() ? "" : ", ") + name;
  std::printf("graphcost serve: listening on http://%s:%d (models: %s; %d workers%s)\n",
              o.server.transport.host.c_str(), port, names.c_str(), o.server.threads,
              auth.enabled() ? "; bearer token required" : "");
  std::fflush(stdout);
  server.listen();
  on_stop_signal(0);  // listen can only end by stop(); this wakes the stopper if it did not
  stopper.join();
  std::fprintf(stderr, "serve: stopped\n");
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeCliOptions>();
  serve::ServerOptions& s = o->server;
  CLI::App* cmd = app.add_subcommand("serve", "Rank configurations over HTTP with trained runs");
  cmd->add_option("--model", o->models, "NAME=RUN_DIR: serve this run as NAME; repeat for more")
      ->required()
      ->take_all();
  cmd->add_option("--host", s.transport.host, "address to bind (another than 127.0.0.1 exposes the service)")
      ->capture_default_str();
  cmd->add_option("--port", s.transport.port, "port (0: any free port, printed at start)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  add_precision_option(cmd, o->precision);
  cmd->add_option("--threads", s.threads, "scoring workers, one intra-op thread each (as predict scores a collection's graphs)")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_option("--max-queue", s.max_queue,
                  "requests that may wait for a worker; more are refused with 503")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  cmd->add_option("--max-body-mb", s.max_body_mb,
                  "largest request body in MiB, as sent and once decompressed (413 above)")
      ->check(CLI::Range(int64_t{1}, int64_t{4096}))
      ->capture_default_str();
  cmd->add_option("--max-configs", s.limits.max_configs,
                  "most configurations in one request (413 above)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40))
      ->capture_default_str();
  cmd->add_option("--max-nodes", s.limits.max_nodes, "most nodes in a request's graph (413 above)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 31))
      ->capture_default_str();
  cmd->add_option("--max-edges", s.limits.max_edges, "most edges in a request's graph (413 above)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 31))
      ->capture_default_str();
  cmd->add_option("--request-timeout-s", s.transport.request_timeout_s,
                  "seconds for a request's headers and body from its first byte, and for writing "
                  "its answer; the connection is closed past it")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  cmd->add_option("--idle-timeout-s", s.transport.idle_timeout_s,
                  "seconds a keep-alive connection may wait for its next request")
      ->check(CLI::Range(0.1, 3600.0))
      ->capture_default_str();
  cmd->add_option("--max-connections", s.transport.max_connections,
                  "open connections in all; more are closed on accept")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--max-connections-per-client", s.transport.max_connections_per_client,
                  "open connections from one client address; more are closed on accept")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--max-mc-samples", s.limits.max_mc_samples,
                  "most MC-dropout passes a request may ask for")
      ->check(CLI::Range(int64_t{0}, int64_t{4096}))
      ->capture_default_str();
  cmd->add_option("--token-file", o->token_file,
                  "require 'Authorization: Bearer <token>' (token read from this file) on every "
                  "endpoint but /healthz");
  cmd->add_flag("!--no-request-log", s.log_requests, "no stderr line per request");
  cmd->callback([o] {
    // An .npz body decompresses to at most 16x the body limit (DEFLATE of numeric arrays rarely
    // gains more); beyond, it is refused before anything is decompressed.
    o->server.limits.max_array_bytes = static_cast<uint64_t>(o->server.max_body_mb) << 24;
    run_serve(*o);
  });
}

}  // namespace graphcost::cli
