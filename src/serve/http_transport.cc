#include "serve/http_transport.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "core/error.h"
#include "serve/http_error.h"

namespace graphcost::serve {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// After an answer sent before the body was read, the rest of the request is read and dropped
// for at most this long before the socket is closed: closing with unread bytes makes the
// kernel send a reset, which can destroy the answer before the client reads it (a client
// sending a body over --max-body-mb gets its 413 once it has sent it, not a reset).
constexpr double kLingerSeconds = 2;
// How long to wait before accepting again after accept() failed (no descriptors left).
constexpr int kAcceptRetryMs = 100;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trimmed(std::string_view text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") + 1 - first);
}

int hex_digit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

// A query component with %XX and '+' decoded (a malformed escape is kept as it is).
std::string percent_decoded(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 &&
               hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::multimap<std::string, std::string> parse_query(std::string_view query) {
  std::multimap<std::string, std::string> out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const size_t equals = pair.find('=');
    out.emplace(percent_decoded(pair.substr(0, equals)),
                equals == std::string_view::npos ? "" : percent_decoded(pair.substr(equals + 1)));
  }
  return out;
}

std::string_view view(beast::string_view text) { return {text.data(), text.size()}; }

bool is_http_error(const beast::error_code& ec) {
  return ec.category() == http::make_error_code(http::error::bad_method).category();
}

}  // namespace

std::string HttpRequest::header(const std::string& name) const {
  for (const auto& [key, value] : headers)
    if (iequals(key, name)) return value;
  return "";
}

class Connection;

struct HttpTransport::State {
  State(const TransportOptions& o, HttpHandler& h) : options(o), handler(h) {}

  TransportOptions options;
  HttpHandler& handler;
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer accept_retry{io};
  bool stopping = false;  // network thread only

  // The open connections, for the limits and for stop(). A connection may be destroyed on
  // another thread (the last owner of it can be a worker's answer), hence the mutex.
  mutable std::mutex mutex;
  std::unordered_map<Connection*, std::weak_ptr<Connection>> connections;
  std::unordered_map<std::string, int> per_client;

  void accept();
  void on_accept(beast::error_code ec, tcp::socket socket);
  void close_waiting_connections();
};

// One client connection: wait for a request, read its headers, check them, read its body,
// have it answered, write the answer; again while the connection is kept alive.
class Connection : public std::enable_shared_from_this<Connection> {
 public:
  Connection(HttpTransport::State& state, tcp::socket socket, std::string client)
      : state_(state), stream_(std::move(socket)), client_(std::move(client)) {}
  ~Connection() {
    std::lock_guard<std::mutex> lock(state_.mutex);
    state_.connections.erase(this);
    if (--state_.per_client[client_] == 0) state_.per_client.erase(client_);
  }

  void start() { wait_for_request(); }

  // stop(): a connection that waits for a request or is receiving one is closed now; one
  // whose request is being answered finishes (and closes after writing the answer).
  void close_unless_answering() {
    if (phase_ == Phase::Waiting || phase_ == Phase::Reading || phase_ == Phase::Draining) close();
  }

 private:
  enum class Phase { Waiting, Reading, Answering, Writing, Draining, Closed };

  void wait_for_request() {
    if (state_.stopping) return close();
    phase_ = Phase::Waiting;
    request_ = HttpRequest();
    request_.method = request_.path = "-";
    version_ = 11;
    parser_.emplace();
    parser_->header_limit(state_.options.max_header_bytes);
    parser_->body_limit(state_.options.max_body_bytes);
    if (buffer_.size() > 0) return read_headers();  // the next request came with the last one
    stream_.expires_after(seconds(state_.options.idle_timeout_s));
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = shared_from_this()](beast::error_code ec, size_t bytes) {
                              if (ec) return self->close();
                              self->buffer_.commit(bytes);
                              self->read_headers();
                            });
  }

  // The request's deadline starts with its first byte and covers headers and body together:
  // a client that trickles bytes cannot hold the connection longer.
  void read_headers() {
    phase_ = Phase::Reading;
    request_.start = Clock::now();
    stream_.expires_after(seconds(state_.options.request_timeout_s));
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_headers(ec); });
  }

  void on_headers(beast::error_code ec) {
    if (ec) return on_read_error(ec);
    const auto& message = parser_->get();
    request_.start = Clock::now();
    version_ = message.version();
    request_.method = std::string(view(message.method_string()));
    const std::string_view target = view(message.target());
    const size_t question = target.find('?');
    request_.path = std::string(target.substr(0, question));
    if (question != std::string_view::npos)
      request_.query = parse_query(target.substr(question + 1));
    int content_lengths = 0;
    for (const auto& field : message) {
      request_.headers.emplace_back(view(field.name_string()), view(field.value()));
      if (field.name() == http::field::content_length) ++content_lengths;
    }
    // Two Content-Length headers (even equal ones) or a transfer coding other than chunked are
    // how requests are smuggled past a proxy that reads them otherwise: refused.
    if (content_lengths > 1)
      return refuse(state_.handler.error(kBadRequest, "more than one Content-Length header"));
    const auto coding = message.find(http::field::transfer_encoding);
    if (coding != message.end() && !iequals(trimmed(view(coding->value())), "chunked"))
      return refuse(state_.handler.error(
          kBadRequest, "Transfer-Encoding must be chunked, got '" +
                           std::string(view(coding->value()).substr(0, 60)) + "'"));
    std::optional<HttpResponse> refusal;
    try {
      refusal = state_.handler.check_headers(request_);
    } catch (const std::exception&) {  // a handler's bug, or out of memory: answered, not fatal
      refusal = state_.handler.error(kInternalError, "internal error");
    }
    if (refusal) return refuse(std::move(*refusal));
    const auto expect = message.find(http::field::expect);
    if (expect != message.end() && iequals(trimmed(view(expect->value())), "100-continue")) {
      static const std::string kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      return asio::async_write(stream_, asio::buffer(kContinue),
                               [self = shared_from_this()](beast::error_code ec, size_t) {
                                 if (ec) return self->close();
                                 self->read_body();
                               });
    }
    read_body();
  }

  void read_body() {
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_body(ec); });
  }

  void on_body(beast::error_code ec) {
    if (ec) return on_read_error(ec);
    phase_ = Phase::Answering;
    stream_.expires_never();  // the handler's own limits bound its time (a bounded queue)
    keep_alive_ = parser_->get().keep_alive();
    HttpRequest request = request_;  // request_ keeps the head for answered()
    request.body = std::move(parser_->get().body());
    parser_.reset();
    // The guard keeps run() going until the answer is written, even while stopping.
    auto guard = asio::make_work_guard(state_.io);
    auto answered = std::make_shared<std::atomic<bool>>(false);
    std::function<void(HttpResponse)> answer = [self = shared_from_this(), guard,
                                                answered](HttpResponse response) mutable {
      if (answered->exchange(true)) return;
      asio::io_context& io = self->state_.io;
      asio::post(io, [self = std::move(self), response = std::move(response)]() mutable {
        self->write(std::move(response), self->keep_alive_ && !self->state_.stopping);
      });
      guard.reset();
    };
    try {
      state_.handler.handle(std::move(request), answer);
    } catch (const std::exception&) {  // a handler's bug, or out of memory: answered, not fatal
      answer(state_.handler.error(kInternalError, "internal error"));
    }
  }

  // A read that ended early: the client left or was too slow (closed without an answer), or
  // sent something that is not HTTP or too large (answered, then closed).
  void on_read_error(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
        ec == http::error::short_read || !is_http_error(ec))
      return close();
    if (ec == http::error::header_limit)
      return refuse(state_.handler.error(
          kRequestHeadersTooLarge, "request headers larger than " +
                                       std::to_string(state_.options.max_header_bytes) + " bytes"));
    if (ec == http::error::body_limit)
      return refuse(state_.handler.error(
          kPayloadTooLarge, "request body larger than --max-body-mb " +
                                std::to_string(state_.options.max_body_bytes >> 20) + " MiB"));
    refuse(state_.handler.error(kBadRequest, "malformed HTTP request: " + ec.message()));
  }

  // An answer after which the connection closes without reading what is left of the request.
  void refuse(HttpResponse response) { write(std::move(response), false, /*linger=*/true); }

  void write(HttpResponse answer, bool keep_alive, bool linger = false) {
    if (phase_ == Phase::Closed) return;
    phase_ = Phase::Writing;
    auto response = std::make_shared<http::response<http::string_body>>();
    response->version(version_);
    response->result(static_cast<unsigned>(answer.status));
    response->set(http::field::content_type, answer.content_type);
    for (const auto& [name, value] : answer.headers) response->set(name, value);
    response->body() = std::move(answer.body);
    response->keep_alive(keep_alive);
    response->prepare_payload();
    const int status = answer.status;
    stream_.expires_after(seconds(state_.options.request_timeout_s));
    http::async_write(
        stream_, *response,
        [self = shared_from_this(), response, status, keep_alive, linger](beast::error_code ec,
                                                                          size_t) {
          self->state_.handler.answered(
              self->request_, status,
              std::chrono::duration<double>(Clock::now() - self->request_.start).count());
          if (ec) return self->close();
          if (linger) return self->drain();
          if (!keep_alive) return self->close();
          self->wait_for_request();
        });
  }

  // Half-closes, then reads and drops the rest of the request until the client closes or the
  // linger time passes; never parses it.
  void drain() {
    phase_ = Phase::Draining;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(seconds(std::min(kLingerSeconds, state_.options.request_timeout_s)));
    drain_more();
  }
  void drain_more() {
    stream_.async_read_some(asio::buffer(scratch_),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->close();
                              self->drain_more();
                            });
  }

  void close() {
    if (phase_ == Phase::Closed) return;
    phase_ = Phase::Closed;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  HttpTransport::State& state_;
  beast::tcp_stream stream_;
  std::string client_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  HttpRequest request_;  // the head of the request being handled
  bool keep_alive_ = false;
  unsigned version_ = 11;  // the request's HTTP version, which the answer takes
  Phase phase_ = Phase::Waiting;
  std::array<char, 65536> scratch_{};
};

void HttpTransport::State::accept() {
  acceptor.async_accept(
      io, [this](beast::error_code ec, tcp::socket socket) { on_accept(ec, std::move(socket)); });
}

void HttpTransport::State::on_accept(beast::error_code ec, tcp::socket socket) {
  if (stopping || ec == asio::error::operation_aborted) return;
  if (ec) {  // out of descriptors, or the like: try again shortly rather than spin
    accept_retry.expires_after(std::chrono::milliseconds(kAcceptRetryMs));
    accept_retry.async_wait([this](beast::error_code wait_ec) {
      if (!wait_ec && !stopping) accept();
    });
    return;
  }
  accept();
  beast::error_code address_ec;
  const std::string client = socket.remote_endpoint(address_ec).address().to_string();
  if (address_ec) return;  // gone already
  bool refused = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    const auto from_client = per_client.find(client);
    refused = static_cast<int>(connections.size()) >= options.max_connections ||
              (from_client != per_client.end() &&
               from_client->second >= options.max_connections_per_client);
    if (!refused) ++per_client[client];
  }
  if (refused) {
    beast::error_code ignored;
    socket.close(ignored);
    handler.connection_refused();
    return;
  }
  // Answers are written whole as soon as they are ready: without TCP_NODELAY, Nagle's algorithm
  // holds a keep-alive answer's last segment until the client's delayed ACK (about 40 ms).
  socket.set_option(tcp::no_delay(true), ec);
  if (options.on_accept) options.on_accept(static_cast<int>(socket.native_handle()));
  auto connection = std::make_shared<Connection>(*this, std::move(socket), client);
  {
    std::lock_guard<std::mutex> lock(mutex);
    connections.emplace(connection.get(), connection);
  }
  connection->start();
}

void HttpTransport::State::close_waiting_connections() {
  std::vector<std::shared_ptr<Connection>> open;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const auto& entry : connections)
      if (auto connection = entry.second.lock()) open.push_back(std::move(connection));
  }
  for (const auto& connection : open) connection->close_unless_answering();
}

HttpTransport::HttpTransport(const TransportOptions& options, HttpHandler& handler)
    : state_(std::make_shared<State>(options, handler)) {}

HttpTransport::~HttpTransport() = default;

int HttpTransport::bind() {
  State& s = *state_;
  const std::string where = s.options.host + ":" + std::to_string(s.options.port);
  beast::error_code ec;
  tcp::resolver resolver(s.io);
  const auto endpoints =
      resolver.resolve(s.options.host, std::to_string(s.options.port),
                       tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  check_data(!ec && !endpoints.empty(), "serve", "--host",
             "cannot resolve " + s.options.host + ": " + ec.message());
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  check_data(!ec, "serve", "--port",
             "cannot bind " + where + " (" + ec.message() +
                 "; in use, or not an address of this machine)");
  return s.acceptor.local_endpoint().port();
}

void HttpTransport::run() {
  asio::post(state_->io, [s = state_.get()] {
    if (!s->stopping) s->accept();
  });
  state_->io.run();
}

void HttpTransport::stop() {
  asio::post(state_->io, [s = state_.get()] {
    if (s->stopping) return;
    s->stopping = true;
    beast::error_code ignored;
    s->acceptor.close(ignored);
    s->accept_retry.cancel();
    s->close_waiting_connections();
  });
}

int HttpTransport::open_connections() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return static_cast<int>(state_->connections.size());
}

}  // namespace graphcost::serve
