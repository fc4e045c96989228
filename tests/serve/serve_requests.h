// Request bodies for the serve tests: a TpuGraphs .npz as the JSON the service takes, .npz
// images that declare more than they hold, and a seeded corpus of damaged requests.
#pragma once

#include <unistd.h>
#include <zip.h>

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/atomic_file.h"
#include "io/npz.h"

namespace graphcost::testing {

// A version 1.0 .npy image with the given header fields and raw data (which may disagree).
inline std::string npy_image(const std::string& descr, const std::string& shape,
                             const std::string& data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t unpadded = 10 + header.size() + 1;
  header += std::string((64 - unpadded % 64) % 64, ' ') + "\n";
  std::string image = std::string("\x93NUMPY\x01\x00", 8);
  image += static_cast<char>(header.size() & 0xff);
  image += static_cast<char>(header.size() >> 8);
  return image + header + data;
}

// A zip of (entry name, bytes), DEFLATE or stored, as bytes.
inline std::string zip_bytes(const std::vector<std::pair<std::string, std::string>>& entries,
                             bool compress) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("graphcost_serve_zip_" + std::to_string(::getpid()) + ".zip"))
                               .string();
  int code = 0;
  zip_t* archive = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  for (const auto& [name, bytes] : entries) {
    zip_source_t* source = zip_source_buffer(archive, bytes.data(), bytes.size(), 0);
    const zip_int64_t index = zip_file_add(archive, name.c_str(), source, ZIP_FL_ENC_UTF_8);
    zip_set_file_compression(archive, index, compress ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0);
  }
  zip_close(archive);
  std::string out = read_file(path);
  std::remove(path.c_str());
  return out;
}

// An .npz whose node_feat header claims 2^40 x 140 floats over 8 bytes of data (tile kind).
inline std::string npz_with_huge_shape(const std::string& shape = "(1099511627776, 140)") {
  return zip_bytes({{"node_feat.npy", npy_image("<f4", shape, std::string(8, '\0'))},
                    {"config_feat.npy", npy_image("<f4", "(1, 2)", std::string(8, '\0'))}},
                   true);
}

// An .npz of one DEFLATE entry whose zip headers declare `declared` uncompressed bytes (a zip
// bomb as the central directory tells it).
inline std::string npz_declaring(uint32_t declared) {
  std::string bytes = zip_bytes(
      {{"node_feat.npy", npy_image("<f4", "(4096, 64)", std::string(4096 * 64 * 4, '\0'))}}, true);
  auto patch = [&](const std::string& signature, size_t offset) {
    for (size_t at = bytes.find(signature); at != std::string::npos;
         at = bytes.find(signature, at + 4)) {
      for (int b = 0; b < 4; ++b) bytes[at + offset + b] = static_cast<char>((declared >> (8 * b)) & 0xff);
    }
  };
  patch(std::string("PK\x03\x04", 4), 22);  // local header: uncompressed size
  patch(std::string("PK\x01\x02", 4), 24);  // central directory: uncompressed size
  return bytes;
}

struct FuzzRequest {
  std::string what;
  std::string content_type;
  std::string body;
};

// `count` requests mutated from a good JSON body and a good .npz body with a fixed seed:
// truncations, bit flips, values of the wrong type, huge declared sizes and garbage.
inline std::vector<FuzzRequest> fuzz_corpus(const std::string& json_body, const std::string& npz_body,
                                            uint64_t seed, int count) {
  std::mt19937_64 random(seed);
  auto below = [&](size_t n) { return static_cast<size_t>(random() % std::max<size_t>(n, 1)); };
  auto flip_bits = [&](std::string text) {
    const int flips = 1 + static_cast<int>(below(8));
    for (int f = 0; f < flips; ++f) text[below(text.size())] ^= static_cast<char>(1 << below(8));
    return text;
  };
  const nlohmann::json document = nlohmann::json::parse(json_body);
  std::vector<std::string> keys;
  for (const auto& item : document.items()) keys.push_back(item.key());
  const std::vector<nlohmann::json> wrong_values = {
      "text", nullptr, true, nlohmann::json::object(), 1e300, -1, nlohmann::json::array(),
      nlohmann::json{{"a", 1}}, nlohmann::json{"x", 1}, nlohmann::json{{1, 2}, {3}},
      nlohmann::json{{{{{1}}}}}, 18446744073709551615ull, -9223372036854775807ll};
  std::vector<FuzzRequest> corpus;
  const std::string json_type = "application/json", npz_type = "application/octet-stream";
  for (int i = 0; i < count; ++i) {
    switch (i % 8) {
      case 0:
        corpus.push_back({"truncated JSON", json_type, json_body.substr(0, below(json_body.size()))});
        break;
      case 1:
        corpus.push_back({"bit-flipped JSON", json_type, flip_bits(json_body)});
        break;
      case 2: {
        nlohmann::json mutated = document;
        const std::string& key = keys[below(keys.size())];
        if (mutated[key].is_array() && !mutated[key].empty() && below(2)) {
          nlohmann::json& row = mutated[key][below(mutated[key].size())];
          if (row.is_array() && !row.empty()) row[below(row.size())] = wrong_values[below(wrong_values.size())];
          else row = wrong_values[below(wrong_values.size())];
        } else {
          mutated[key] = wrong_values[below(wrong_values.size())];
        }
        corpus.push_back({"wrong type in " + key, json_type, mutated.dump()});
        break;
      }
      case 3:
        corpus.push_back({"truncated npz", npz_type, npz_body.substr(0, below(npz_body.size()))});
        break;
      case 4:
        corpus.push_back({"bit-flipped npz", npz_type, flip_bits(npz_body)});
        break;
      case 5: {
        const uint32_t sizes[] = {0xffffffffu, 0x80000000u, 1u << 28, 0, 7};
        corpus.push_back({"npz declaring a size", npz_type, npz_declaring(sizes[below(5)])});
        break;
      }
      case 6: {
        const std::string shapes[] = {"(1099511627776, 140)", "(4611686018427387904, 4611686018427387904)",
                                      "(-5, 140)", "(3,)", "(1, 2, 3, 4, 5)", "()"};
        corpus.push_back({"npz declaring a shape", npz_type, npz_with_huge_shape(shapes[below(6)])});
        break;
      }
      default: {
        std::string garbage(below(4096), '\0');
        for (char& ch : garbage) ch = static_cast<char>(random());
        const bool as_json = below(2);
        corpus.push_back({"garbage", as_json ? json_type : npz_type,
                          as_json ? std::string(below(100000), '[') + garbage : garbage});
        break;
      }
    }
  }
  return corpus;
}

}  // namespace graphcost::testing
