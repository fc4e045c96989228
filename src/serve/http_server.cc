#include "serve/http_server.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <regex>
#include <thread>

#include "core/error.h"
#include "serve/http_error.h"

namespace graphcost::serve {

namespace {

using Clock = std::chrono::steady_clock;

// httplib answers a request on one thread from routing to the log line, so the start time
// travels in a thread-local (requests refused before routing have none: 0 s).
thread_local bool request_started = false;
thread_local Clock::time_point request_start;

const char kRankRoute[] = "/v1/models/{name}/rank";

// JSON text of a body; bytes of a request echoed in it (a field name, a graph name) that are not
// UTF-8 are replaced rather than failing the answer.
std::string json_text(const nlohmann::json& body) {
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void set_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(json_text({{"error", message}, {"status", status}}), "application/json");
}

void set_json(httplib::Response& res, const nlohmann::json& body) {
  res.status = 200;
  res.set_content(json_text(body), "application/json");
}

// The route a path belongs to, as metrics label it (never the raw path: bounded cardinality).
std::string endpoint_of(const std::string& path) {
  for (const char* fixed : {"/healthz", "/readyz", "/metrics", "/v1/models"})
    if (path == fixed) return fixed;
  static const std::regex rank("/v1/models/[^/]+/rank");
  if (std::regex_match(path, rank)) return kRankRoute;
  return "other";
}

// A path as a log may show it: printable ASCII only, at most 120 bytes.
std::string printable(const std::string& text) {
  std::string out = text.substr(0, 120);
  for (char& ch : out)
    if (ch < 0x20 || ch > 0x7e) ch = '?';
  return out;
}

// Runs a handler, turning what it throws into the JSON error body.
template <typename Handler>
void answer(httplib::Response& res, const Handler& handler) {
  try {
    handler();
  } catch (const HttpError& e) {
    set_error(res, e.status(), e.what());
  } catch (const Error& e) {
    set_error(res, kBadRequest, e.what());
  } catch (const std::bad_alloc&) {
    set_error(res, kPayloadTooLarge, "request too large to hold in memory");
  } catch (const std::exception& e) {
    set_error(res, kInternalError, std::string("internal error: ") + e.what());
  }
}

}  // namespace

RankServer::RankServer(RankService& service, const ServerOptions& options, BearerAuth auth)
    : service_(service),
      options_(options),
      auth_(auth),
      pool_(options.threads, options.max_queue,
            // One intra-op thread per worker, as predict scores each graph of a collection:
            // a graph's scores depend on that count, and this keeps them bitwise predict's.
            [] { configure_scoring_thread(1); }),
      http_(std::make_unique<httplib::Server>()) {
  // Connections beyond the scoring workers wait in httplib's pool while they send or keep
  // alive; the scoring itself is bounded by pool_.
  const size_t connections = static_cast<size_t>(std::max(8, 2 * (options.threads + options.max_queue)));
  http_->new_task_queue = [connections] { return new httplib::ThreadPool(connections); };
  http_->set_payload_max_length(static_cast<size_t>(options.max_body_mb) << 20);
  http_->set_keep_alive_max_count(1000);
  http_->set_keep_alive_timeout(2);  // also bounds how long stop() waits for idle connections
  http_->set_read_timeout(10);
  http_->set_write_timeout(10);
  add_routes();
}

RankServer::~RankServer() = default;

int RankServer::bind() {
  if (options_.port == 0) {
    const int port = http_->bind_to_any_port(options_.host);
    check_data(port > 0, "serve", "--host", "cannot bind " + options_.host + " to a free port");
    return port;
  }
  check_data(http_->bind_to_port(options_.host, options_.port), "serve", "--port",
             "cannot bind " + options_.host + ":" + std::to_string(options_.port) +
                 " (in use, or not an address of this machine)");
  return options_.port;
}

void RankServer::listen() {
  if (!stopping_) http_->listen_after_bind();  // returns after stop(), its threads joined
  listen_ended_ = true;
  pool_.shutdown();
}

void RankServer::stop() {
  stopping_ = true;
  // httplib's stop() does nothing before its listen loop runs: wait for it (or for its end).
  while (!http_->is_running() && !listen_ended_)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  http_->stop();
}

void RankServer::add_routes() {
  using httplib::Request;
  using httplib::Response;
  using httplib::Server;
  http_->set_pre_routing_handler([this](const Request& req, Response& res) {
    request_started = true;
    request_start = Clock::now();
    if (req.path != "/healthz" && !auth_.allows(req.get_header_value("Authorization"))) {
      res.set_header("WWW-Authenticate", "Bearer");
      set_error(res, kUnauthorized, "missing or wrong bearer token (Authorization: Bearer ...)");
      return Server::HandlerResponse::Handled;
    }
    return Server::HandlerResponse::Unhandled;
  });
  // httplib's own refusals (unknown route, body over the limit, malformed request line) come
  // without a body: give them the JSON error every other refusal has.
  http_->set_error_handler(Server::HandlerWithResponse([this](const Request& req, Response& res) {
    if (!res.body.empty()) return Server::HandlerResponse::Unhandled;
    std::string message;
    if (res.status == kNotFound) {
      message = "no such endpoint: " + printable(req.method) + " " + printable(req.path);
    } else if (res.status == kPayloadTooLarge) {
      message = "request body larger than --max-body-mb " + std::to_string(options_.max_body_mb) +
                " MiB";
    } else {
      message = "malformed HTTP request (status " + std::to_string(res.status) + ")";
    }
    set_error(res, res.status, message);
    return Server::HandlerResponse::Handled;
  }));
  http_->set_exception_handler([](const Request&, Response& res, std::exception_ptr) {
    set_error(res, kInternalError, "internal error");
  });
  http_->set_logger([this](const Request& req, const Response& res) {
    const double seconds =
        request_started ? std::chrono::duration<double>(Clock::now() - request_start).count() : 0.0;
    request_started = false;
    metrics_.observe_request(endpoint_of(req.path), res.status, seconds);
    // Never a header: the Authorization token must not reach a log.
    if (options_.log_requests)
      std::fprintf(stderr, "serve: %s %s %d %.1f ms\n", printable(req.method).c_str(),
                   printable(req.path).c_str(), res.status, seconds * 1e3);
  });

  http_->Get("/healthz", [](const Request&, Response& res) { set_json(res, {{"status", "ok"}}); });
  http_->Get("/readyz", [this](const Request&, Response& res) {
    if (stopping_) return set_error(res, kServiceUnavailable, "stopping");
    set_json(res, {{"status", "ready"}, {"models", service_.names()}});
  });
  http_->Get("/metrics", [this](const Request&, Response& res) {
    res.set_content(metrics_.prometheus_text(), "text/plain; version=0.0.4; charset=utf-8");
  });
  http_->Get("/v1/models", [this](const Request&, Response& res) { set_json(res, service_.describe()); });
  http_->Post(R"(/v1/models/([^/]+)/rank)", [this](const Request& req, Response& res) {
    answer(res, [&] {
      std::string body;
      handle_rank(req.matches[1].str(), req.get_header_value("Content-Type"), req.body, req.params,
                  body);
      res.status = 200;
      res.set_content(body, "application/json");
    });
    if (res.status == kServiceUnavailable) res.set_header("Retry-After", "1");
  });
}

void RankServer::handle_rank(const std::string& model, const std::string& content_type,
                             const std::string& body,
                             const std::multimap<std::string, std::string>& query,
                             std::string& response_body) {
  service_.check_served(model);
  std::string media = content_type.substr(0, content_type.find(';'));
  media.erase(std::remove(media.begin(), media.end(), ' '), media.end());
  std::transform(media.begin(), media.end(), media.begin(), ::tolower);
  if (media != "application/json" && media != "application/octet-stream")
    throw HttpError(kUnsupportedMediaType,
                    "Content-Type must be application/json (arrays) or application/octet-stream "
                    "(an .npz file), got '" + printable(content_type) + "'");
  std::map<std::string, std::string> options;
  for (const auto& [key, value] : query) {
    if (!options.emplace(key, value).second)
      throw HttpError(kBadRequest, "query parameter '" + printable(key) + "' given twice");
  }
  if (media == "application/json" && !options.empty())
    throw HttpError(kBadRequest, "a JSON request takes its options in the body, not the query");
  int64_t configurations = 0;
  // Parsing is work too: the workers do it, so the pool bounds all of a request's computing.
  const bool accepted = pool_.run([&] {
    RankRequest request = media == "application/json"
                              ? parse_json_rank_request(body, options_.limits)
                              : parse_npz_rank_request(body, options, options_.limits);
    const Ranking ranking = service_.rank(model, std::move(request));
    configurations = static_cast<int64_t>(ranking.scores.size());
    response_body = json_text(to_json(ranking));
  });
  if (!accepted)
    throw HttpError(kServiceUnavailable,
                    "busy: " + std::to_string(options_.threads) + " workers busy and " +
                        std::to_string(options_.max_queue) + " requests waiting; retry later");
  metrics_.add_configurations_scored(configurations);
}

}  // namespace graphcost::serve
