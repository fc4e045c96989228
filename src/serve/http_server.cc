#include "serve/http_server.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <regex>

#include "core/error.h"
#include "infer/threads.h"
#include "serve/content_encoding.h"
#include "serve/http_error.h"

namespace graphcost::serve {

namespace {

const char kRankRoute[] = "/v1/models/{name}/rank";

// JSON text of a body; bytes of a request echoed in it (a field name, a graph name) that are not
// UTF-8 are replaced rather than failing the answer.
std::string json_text(const nlohmann::json& body) {
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

HttpResponse json_error(int status, const std::string& message) {
  HttpResponse response;
  response.status = status;
  response.body = json_text({{"error", message}, {"status", status}});
  return response;
}

HttpResponse json_answer(const nlohmann::json& body) {
  HttpResponse response;
  response.body = json_text(body);
  return response;
}

// The model a rank path names, or nothing for another path.
std::optional<std::string> rank_model(const std::string& path) {
  static const std::regex rank("/v1/models/([^/]+)/rank");
  std::smatch match;
  if (!std::regex_match(path, match, rank)) return std::nullopt;
  return match[1].str();
}

// The route a path belongs to, as metrics label it (never the raw path: bounded cardinality).
std::string endpoint_of(const std::string& path) {
  for (const char* fixed : {"/healthz", "/readyz", "/metrics", "/v1/models"})
    if (path == fixed) return fixed;
  if (rank_model(path)) return kRankRoute;
  return "other";
}

bool is_get_route(const std::string& path) {
  return path == "/healthz" || path == "/readyz" || path == "/metrics" || path == "/v1/models";
}

// A path as a log may show it: printable ASCII only, at most 120 bytes.
std::string printable(const std::string& text) {
  std::string out = text.substr(0, 120);
  for (char& ch : out)
    if (ch < 0x20 || ch > 0x7e) ch = '?';
  return out;
}

// The media type of a Content-Type value, lower case, without parameters or spaces.
std::string media_type(const std::string& content_type) {
  std::string media = content_type.substr(0, content_type.find(';'));
  media.erase(std::remove(media.begin(), media.end(), ' '), media.end());
  std::transform(media.begin(), media.end(), media.begin(), ::tolower);
  return media;
}

// Runs a handler that returns an answer, turning what it throws into the JSON error body.
template <typename Handler>
HttpResponse answer_or_error(const Handler& handler) {
  try {
    return handler();
  } catch (const HttpError& e) {
    return json_error(e.status(), e.what());
  } catch (const Error& e) {
    return json_error(kBadRequest, e.what());
  } catch (const std::bad_alloc&) {
    return json_error(kPayloadTooLarge, "request too large to hold in memory");
  } catch (const std::exception& e) {
    return json_error(kInternalError, std::string("internal error: ") + e.what());
  }
}

TransportOptions transport_options(const ServerOptions& options) {
  TransportOptions transport = options.transport;
  transport.max_body_bytes = static_cast<uint64_t>(options.max_body_mb) << 20;
  return transport;
}

}  // namespace

RankServer::RankServer(RankService& service, const ServerOptions& options, BearerAuth auth)
    : service_(service),
      options_(options),
      auth_(auth),
      pool_(options.threads, options.max_queue,
            // One intra-op thread per worker, as predict scores each graph of a collection:
            // a graph's scores depend on that count, and this keeps them bitwise predict's.
            [] { infer::configure_scoring_thread(1); }),
      transport_(transport_options(options), *this) {}

RankServer::~RankServer() = default;

int RankServer::bind() { return transport_.bind(); }

void RankServer::listen() {
  transport_.run();  // returns after stop(), every answer in flight written
  pool_.shutdown();
}

void RankServer::stop() {
  stopping_ = true;
  transport_.stop();
}

// Everything that can be refused from the headers alone is, so a refused body is never read.
std::optional<HttpResponse> RankServer::check_headers(const HttpRequest& request) {
  if (request.path != "/healthz" && !auth_.allows(request.header("Authorization"))) {
    HttpResponse refusal =
        json_error(kUnauthorized, "missing or wrong bearer token (Authorization: Bearer ...)");
    refusal.headers.emplace_back("WWW-Authenticate", "Bearer");
    return refusal;
  }
  const std::optional<std::string> model = rank_model(request.path);
  if (!(request.method == "GET" && is_get_route(request.path)) &&
      !(request.method == "POST" && model))
    return json_error(kNotFound, "no such endpoint: " + printable(request.method) + " " +
                                     printable(request.path));
  if (!model) return std::nullopt;
  HttpResponse refusal = answer_or_error([&] {
    service_.check_served(*model);
    const std::string media = media_type(request.header("Content-Type"));
    if (media != "application/json" && media != "application/octet-stream")
      throw HttpError(kUnsupportedMediaType,
                      "Content-Type must be application/json (arrays) or "
                      "application/octet-stream (an .npz file), got '" +
                          printable(request.header("Content-Type")) + "'");
    return HttpResponse();
  });
  if (refusal.status != 200) return refusal;
  return std::nullopt;
}

void RankServer::handle(HttpRequest request, std::function<void(HttpResponse)> answer) {
  const std::string& path = request.path;
  if (path == "/healthz") return answer(json_answer({{"status", "ok"}}));
  if (path == "/readyz") {
    if (stopping_) return answer(json_error(kServiceUnavailable, "stopping"));
    return answer(json_answer({{"status", "ready"}, {"models", service_.names()}}));
  }
  if (path == "/metrics") {
    HttpResponse text;
    text.content_type = "text/plain; version=0.0.4; charset=utf-8";
    text.body = metrics_.prometheus_text();
    return answer(std::move(text));
  }
  if (path == "/v1/models")
    return answer(answer_or_error([&] { return json_answer(service_.describe()); }));
  // check_headers let through the GET routes above and POSTs to a served model's rank only.
  const std::string model = rank_model(path).value_or("");
  bool queued = false;
  HttpResponse refusal = answer_or_error([&] {
    queued = queue_rank(model, std::move(request), answer);
    return HttpResponse();
  });
  if (refusal.status != 200) return answer(std::move(refusal));
  if (!queued) {
    HttpResponse busy =
        json_error(kServiceUnavailable,
                   "busy: " + std::to_string(options_.threads) + " workers busy and " +
                       std::to_string(options_.max_queue) + " requests waiting; retry later");
    busy.headers.emplace_back("Retry-After", "1");
    answer(std::move(busy));
  }
}

bool RankServer::queue_rank(const std::string& model, HttpRequest request,
                            const std::function<void(HttpResponse)>& answer) {
  std::map<std::string, std::string> options;
  for (const auto& [key, value] : request.query) {
    if (!options.emplace(key, value).second)
      throw HttpError(kBadRequest, "query parameter '" + printable(key) + "' given twice");
  }
  const bool as_json = media_type(request.header("Content-Type")) == "application/json";
  if (as_json && !options.empty())
    throw HttpError(kBadRequest, "a JSON request takes its options in the body, not the query");
  const std::string encoding = request.header("Content-Encoding");
  // Decompressing, parsing and scoring are all work: the workers do them, so the pool bounds
  // all of a request's computing.
  return pool_.post([this, model, as_json, encoding, options = std::move(options),
                     body = std::move(request.body), answer]() mutable {
    int64_t configurations = 0;
    HttpResponse response = answer_or_error([&] {
      body = decode_content(encoding, std::move(body),
                            static_cast<uint64_t>(options_.max_body_mb) << 20);
      RankRequest parsed = as_json ? parse_json_rank_request(body, options_.limits)
                                   : parse_npz_rank_request(body, options, options_.limits);
      std::string().swap(body);  // the arrays are parsed: the text is no longer needed
      const Ranking ranking = service_.rank(model, std::move(parsed));
      configurations = static_cast<int64_t>(ranking.scores.size());
      return json_answer(to_json(ranking));
    });
    if (response.status == 200) metrics_.add_configurations_scored(configurations);
    answer(std::move(response));
  });
}

HttpResponse RankServer::error(int status, const std::string& message) {
  return json_error(status, message);
}

void RankServer::answered(const HttpRequest& request, int status, double seconds) {
  metrics_.observe_request(endpoint_of(request.path), status, seconds);
  // Never a header: the Authorization token must not reach a log.
  if (options_.log_requests)
    std::fprintf(stderr, "serve: %s %s %d %.1f ms\n", printable(request.method).c_str(),
                 printable(request.path).c_str(), status, seconds * 1e3);
}

void RankServer::connection_refused() { metrics_.add_connection_refused(); }

}  // namespace graphcost::serve
