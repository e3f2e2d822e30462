// cpp/common/image/png.h: Inflate / ZlibDecompress on streams that Python's zlib 1.x wrote
// (stored, fixed-Huffman and dynamic-Huffman blocks, a full flush between blocks), with the
// input regenerated here; DecodePng on PNGs built here with every colour type the reader takes
// and every filter type (filtered by an encoder written from the PNG spec, independently of
// the decoder); and the errors. (Gymnasium's real sprites against pygame.image.load:
// tests/families/toy_text/test_toy_text_render.py, through whole frames.)
#include "common/image/png.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"

namespace envfleet {
namespace {

using image::DecodePng;
using image::Image;
using image::Inflate;
using image::ZlibDecompress;
using image::png_internal::Adler32;
using image::png_internal::Crc32;

// The text the compressed streams below encode: words and digits drawn by an LCG (the
// generator that produced the streams with zlib.compress(text, 9) and friends).
std::vector<uint8_t> Text(int n) {
  static const char* const kWords[8] = {"frozen",  "lake",      "taxi", "cliff",
                                        "walking", "blackjack", "hole", "goal"};
  std::vector<uint8_t> out;
  uint64_t x = 12345;
  for (int i = 0; i < n; ++i) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    const uint64_t r = x >> 16;
    if (r % 5 == 0) {
      out.push_back(static_cast<uint8_t>('0' + (x >> 8) % 10));
    } else {
      for (const char* w = kWords[r % 8]; *w; ++w) out.push_back(static_cast<uint8_t>(*w));
      out.push_back(' ');
    }
  }
  return out;
}

// zlib.compress(Text(150), 9): one dynamic-Huffman block.
constexpr uint8_t kDynamic[] = {
    0x78, 0xda, 0x7d, 0x52, 0xd1, 0x0e, 0xc2, 0x20, 0x0c, 0xfc, 0x15, 0x3e, 0x61, 0x0e, 0x99, 0xf2,
    0x39, 0xb8, 0x8c, 0x39, 0x21, 0x5b, 0x62, 0x4c, 0x30, 0x7e, 0xbd, 0xe6, 0x80, 0xb4, 0x0c, 0xe6,
    0xc3, 0x3a, 0x68, 0xaf, 0xc7, 0x71, 0x25, 0x18, 0xef, 0x96, 0x75, 0x16, 0x21, 0xfd, 0x6f, 0xde,
    0x8c, 0xee, 0xf1, 0xfb, 0xc4, 0xcb, 0xbc, 0x17, 0x31, 0x6f, 0xc6, 0x8b, 0xeb, 0x2e, 0xa9, 0x69,
    0x9f, 0xdb, 0x46, 0xbf, 0x58, 0x2b, 0xee, 0x9b, 0x9f, 0x62, 0x8b, 0xb2, 0xcf, 0xed, 0x33, 0xad,
    0xc2, 0x1b, 0x37, 0x35, 0xb8, 0x53, 0x15, 0xd0, 0x0e, 0x31, 0x65, 0x6a, 0xe6, 0xf0, 0x5f, 0x60,
    0x3c, 0x58, 0xa6, 0xf6, 0xb8, 0x43, 0x81, 0xe4, 0x23, 0x90, 0x34, 0xae, 0x4c, 0x21, 0x8d, 0x65,
    0x4a, 0xcb, 0x4a, 0x48, 0x2d, 0x09, 0x78, 0x89, 0x08, 0xc6, 0x0b, 0x58, 0x06, 0x7d, 0x2e, 0x00,
    0x2d, 0x06, 0x99, 0x7d, 0x81, 0xba, 0xc2, 0x9c, 0xd2, 0x49, 0xd4, 0x95, 0x04, 0x3d, 0xcb, 0x1c,
    0xdb, 0x43, 0x95, 0x13, 0xdd, 0x09, 0xed, 0x1a, 0xfb, 0xfe, 0xc8, 0x4f, 0x60, 0x40, 0x0e, 0x1c,
    0xf1, 0xf4, 0xdc, 0x28, 0x00, 0x8a, 0xeb, 0x01, 0x8d, 0x50, 0x78, 0xcf, 0x1e, 0x42, 0x86, 0xd3,
    0x38, 0x5a, 0x96, 0xf0, 0x36, 0x68, 0xd9, 0x0d, 0x98, 0x02, 0xb7, 0x0e, 0x07, 0xc4, 0xa6, 0x7c,
    0x4c, 0x2a, 0x93, 0x2e, 0x26, 0x85, 0x59, 0x38, 0x54, 0x03, 0x2e, 0xf4, 0xf3, 0x97, 0xa9, 0xeb,
    0x1b, 0xe4, 0x4c, 0xc7, 0x26, 0x53, 0x3b, 0xf9, 0x05, 0xed, 0xbd, 0x36, 0xfa};
// zlib.compressobj(9, DEFLATED, 15, 9, Z_FIXED) of "hello hello hello hello, fixed huffman!":
// a fixed-Huffman block with back references that overlap their output.
constexpr uint8_t kFixed[] = {0x78, 0x01, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x27,
                              0x75, 0x14, 0xd2, 0x32, 0x2b, 0x52, 0x53, 0x14, 0x32, 0x4a, 0xd3,
                              0xd2, 0x72, 0x13, 0xf3, 0x14, 0x01, 0x20, 0x53, 0x0e, 0x33};
// compressobj(6): Text(150)[:100], flush(Z_FULL_FLUSH) (an empty stored block), the rest.
constexpr uint8_t kFlushed[] = {
    0x78, 0x9c, 0x2a, 0x4f, 0xcc, 0xc9, 0xce, 0xcc, 0x4b, 0x57, 0x28, 0x87, 0xd2, 0x49, 0x39, 0x89,
    0xc9, 0xd9, 0x59, 0x40, 0xac, 0x50, 0x92, 0x58, 0x91, 0xa9, 0x90, 0x9e, 0x9f, 0x98, 0xa3, 0x60,
    0x81, 0x26, 0x68, 0x89, 0xe0, 0xc3, 0xb4, 0x25, 0xe7, 0x64, 0xa6, 0xa5, 0x29, 0x64, 0xe4, 0xe7,
    0xa4, 0x42, 0xb4, 0x98, 0xa6, 0x15, 0xe5, 0x57, 0xa5, 0xe6, 0x29, 0xe4, 0x24, 0x66, 0xa7, 0x2a,
    0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0x75, 0x52, 0xd1, 0x0e, 0x83, 0x20, 0x0c, 0xfc, 0x95, 0x7e,
    0x82, 0x93, 0xe1, 0xe2, 0xe7, 0x30, 0x23, 0x8e, 0x49, 0x24, 0x59, 0x96, 0xb8, 0xec, 0xeb, 0xb7,
    0x1c, 0x90, 0x16, 0xd0, 0x07, 0x4f, 0x29, 0xd7, 0x6b, 0x7b, 0x75, 0x37, 0x7e, 0x75, 0xdb, 0x42,
    0x77, 0x6f, 0xa6, 0xf5, 0xf9, 0x7f, 0xc8, 0xbe, 0xc2, 0x77, 0xde, 0x68, 0x09, 0xc6, 0x53, 0x07,
    0x4c, 0x11, 0xa6, 0xec, 0x29, 0xa9, 0x7e, 0x33, 0xe3, 0x6d, 0x3e, 0x8e, 0x26, 0xef, 0xac, 0x25,
    0x95, 0xd2, 0xe3, 0x09, 0x17, 0x00, 0x48, 0x03, 0x1e, 0xc1, 0xcf, 0x24, 0x2b, 0x79, 0xb3, 0xce,
    0xa4, 0x11, 0xc6, 0x67, 0x0a, 0xab, 0xa6, 0x91, 0xb6, 0x25, 0xf0, 0x15, 0x10, 0x8a, 0x37, 0xa8,
    0x0c, 0xe3, 0xb5, 0x20, 0x1c, 0x29, 0x28, 0x9d, 0xe4, 0xd1, 0x1d, 0x68, 0xf5, 0x7c, 0x62, 0x04,
    0xad, 0x20, 0x2f, 0x22, 0xe7, 0xf6, 0xf0, 0xcd, 0x85, 0x67, 0x42, 0xfa, 0x88, 0x73, 0x7f, 0xe6,
    0x27, 0x38, 0x10, 0x07, 0x8f, 0x75, 0x7a, 0x69, 0x14, 0x08, 0xc5, 0x78, 0x60, 0x03, 0x0a, 0xef,
    0x23, 0x22, 0x9e, 0xe9, 0xbc, 0x8e, 0x23, 0x4b, 0x64, 0x1a, 0x7a, 0xa9, 0x16, 0xcc, 0x20, 0xad,
    0x43, 0x81, 0x98, 0x94, 0xcb, 0xa4, 0x6b, 0xee, 0x4b, 0xb4, 0x22, 0x2c, 0x1c, 0x9a, 0x05, 0x17,
    0xfd, 0xcb, 0x3f, 0x73, 0x6c, 0x27, 0xc8, 0x91, 0x4e, 0x6c, 0xa6, 0x75, 0xf2, 0x07, 0xed, 0xbd,
    0x36, 0xfa};

std::vector<uint8_t> Bytes(const char* s) {
  return std::vector<uint8_t>(s, s + std::string(s).size());
}

TEST(Zlib, DynamicHuffmanBlock) {
  const std::vector<uint8_t> text = Text(150);
  REQUIRE_EQ(text.size(), 853u);
  CHECK_EQ(Adler32(text.data(), text.size()), 0xedbd36fau);
  CHECK(ZlibDecompress(kDynamic, sizeof(kDynamic)) == text);
}

TEST(Zlib, FixedHuffmanBlockWithOverlappingMatches) {
  CHECK(ZlibDecompress(kFixed, sizeof(kFixed)) == Bytes("hello hello hello hello, fixed huffman!"));
}

TEST(Zlib, SeveralBlocksAcrossAFullFlush) {
  CHECK(ZlibDecompress(kFlushed, sizeof(kFlushed)) == Text(150));
}

TEST(Zlib, StopsAtItsLimit) {
  // A limit below the stream's output fails before writing past it: a few megabytes of DEFLATE
  // data can encode gigabytes.
  CHECK(ZlibDecompress(kDynamic, sizeof(kDynamic), 853) == Text(150));
  CHECK_THROWS_WITH(std::runtime_error, "longer than expected",
                    ZlibDecompress(kDynamic, sizeof(kDynamic), 852));
  CHECK_THROWS_WITH(std::runtime_error, "longer than expected",
                    ZlibDecompress(kFixed, sizeof(kFixed), 10));
}

TEST(Inflate, StoredBlocks) {
  // Two stored blocks ("hel", then the final "lo"), each: header bits, pad to a byte, LEN,
  // NLEN, the bytes.
  const uint8_t data[] = {0x00, 0x03, 0x00, 0xfc, 0xff, 'h', 'e', 'l',
                          0x01, 0x02, 0x00, 0xfd, 0xff, 'l', 'o'};
  size_t consumed = 0;
  CHECK(Inflate(data, sizeof(data), &consumed) == Bytes("hello"));
  CHECK_EQ(consumed, sizeof(data));
  // An empty final stored block.
  const uint8_t empty[] = {0x01, 0x00, 0x00, 0xff, 0xff};
  CHECK(Inflate(empty, sizeof(empty)).empty());
}

TEST(Inflate, RejectsCorruptStreams) {
  const uint8_t type3[] = {0x07};  // final block of the reserved type 3
  CHECK_THROWS_WITH(std::runtime_error, "block type 3", Inflate(type3, sizeof(type3)));
  const uint8_t bad_nlen[] = {0x01, 0x02, 0x00, 0x00, 0x00, 'h', 'i'};
  CHECK_THROWS_WITH(std::runtime_error, "complement", Inflate(bad_nlen, sizeof(bad_nlen)));
  const uint8_t truncated[] = {0x01, 0x05, 0x00, 0xfa, 0xff, 'h', 'i'};
  CHECK_THROWS_WITH(std::runtime_error, "ends early", Inflate(truncated, sizeof(truncated)));
  // Fixed block whose first symbol is a length/distance pair: nothing to copy from yet.
  // Symbol 257 (length 3) = 7-bit code 0000001, distance code 0 = 00000, then end of block.
  const uint8_t far_back[] = {0x03, 0x02, 0x00, 0x00};
  CHECK_THROWS_WITH(std::runtime_error, "too far back", Inflate(far_back, sizeof(far_back)));
}

TEST(Zlib, ChecksHeaderAndAdler32) {
  std::vector<uint8_t> stream(kFixed, kFixed + sizeof(kFixed));
  stream.back() ^= 1;
  CHECK_THROWS_WITH(std::runtime_error, "Adler-32", ZlibDecompress(stream.data(), stream.size()));
  stream.assign(kFixed, kFixed + sizeof(kFixed));
  stream[1] ^= 1;
  CHECK_THROWS_WITH(std::runtime_error, "header", ZlibDecompress(stream.data(), stream.size()));
}

TEST(Crc32, KnownValue) {
  const std::vector<uint8_t> digits = Bytes("123456789");
  CHECK_EQ(Crc32(digits.data(), digits.size()), 0xcbf43926u);  // the CRC-32 check value
}

// ---- PNG files built here --------------------------------------------------------------------

void Put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

void PutChunk(std::vector<uint8_t>& out, const char* type, const std::vector<uint8_t>& body) {
  Put32(out, static_cast<uint32_t>(body.size()));
  const size_t start = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), body.begin(), body.end());
  Put32(out, Crc32(out.data() + start, out.size() - start));
}

// A zlib stream of stored blocks (no compression: the decoder's Huffman paths are tested
// above; here the point is the PNG layer).
std::vector<uint8_t> ZlibStored(const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out = {0x78, 0x01};
  size_t pos = 0;
  do {
    const size_t n = std::min<size_t>(data.size() - pos, 1000);  // several blocks
    const bool last = pos + n == data.size();
    out.push_back(last ? 1 : 0);
    out.push_back(static_cast<uint8_t>(n));
    out.push_back(static_cast<uint8_t>(n >> 8));
    out.push_back(static_cast<uint8_t>(~n));
    out.push_back(static_cast<uint8_t>(~n >> 8));
    out.insert(out.end(), data.begin() + pos, data.begin() + pos + n);
    pos += n;
  } while (pos < data.size());
  Put32(out, Adler32(data.data(), data.size()));
  return out;
}

// PNG 9.2's filters, written from the spec: the byte minus the prediction from a (left),
// b (up), c (up-left).
uint8_t Predict(int filter, int a, int b, int c) {
  switch (filter) {
    case 1:
      return static_cast<uint8_t>(a);
    case 2:
      return static_cast<uint8_t>(b);
    case 3:
      return static_cast<uint8_t>((a + b) >> 1);
    case 4: {
      const int p = a + b - c, pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
      return static_cast<uint8_t>(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
    }
    default:
      return 0;
  }
}

// An 8-bit PNG of `channels` samples per pixel, row y filtered with filter (y + shift) % 5.
std::vector<uint8_t> EncodePng(const std::vector<uint8_t>& samples, int width, int height,
                               int color_type, int channels, int shift) {
  std::vector<uint8_t> raw;
  const size_t stride = static_cast<size_t>(width) * channels;
  for (int y = 0; y < height; ++y) {
    const int filter = (y + shift) % 5;
    raw.push_back(static_cast<uint8_t>(filter));
    for (size_t i = 0; i < stride; ++i) {
      const auto at = [&](int yy, size_t ii) {
        return static_cast<int>(samples[yy * stride + ii]);
      };
      const int a = i >= static_cast<size_t>(channels) ? at(y, i - channels) : 0;
      const int b = y > 0 ? at(y - 1, i) : 0;
      const int c = y > 0 && i >= static_cast<size_t>(channels) ? at(y - 1, i - channels) : 0;
      raw.push_back(static_cast<uint8_t>(at(y, i) - Predict(filter, a, b, c)));
    }
  }
  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> ihdr;
  Put32(ihdr, static_cast<uint32_t>(width));
  Put32(ihdr, static_cast<uint32_t>(height));
  ihdr.insert(ihdr.end(), {8, static_cast<uint8_t>(color_type), 0, 0, 0});
  PutChunk(png, "IHDR", ihdr);
  const char text[] = "Comment\0ignored";  // an ancillary chunk: skipped
  PutChunk(png, "tEXt", std::vector<uint8_t>(text, text + sizeof(text) - 1));
  const std::vector<uint8_t> z = ZlibStored(raw);
  const size_t half = z.size() / 2;  // image data split over two IDAT chunks
  PutChunk(png, "IDAT", std::vector<uint8_t>(z.begin(), z.begin() + half));
  PutChunk(png, "IDAT", std::vector<uint8_t>(z.begin() + half, z.end()));
  PutChunk(png, "IEND", {});
  return png;
}

std::vector<uint8_t> Samples(int width, int height, int channels, uint32_t seed) {
  std::vector<uint8_t> s(static_cast<size_t>(width) * height * channels);
  uint32_t x = seed;
  for (uint8_t& v : s) {
    x = x * 1664525u + 1013904223u;
    // Runs of equal bytes and jumps, so that every predictor sees both.
    v = static_cast<uint8_t>((x >> 29) == 0 ? x >> 8 : (x >> 24) & 0xf0);
  }
  return s;
}

TEST(DecodePng, EveryColourTypeAndFilter) {
  struct Case {
    int color_type, channels;
  };
  for (const Case c : {Case{6, 4}, Case{2, 3}, Case{4, 2}, Case{0, 1}}) {
    for (int shift = 0; shift < 5; ++shift) {
      const int w = 13, h = 11;
      const std::vector<uint8_t> samples = Samples(w, h, c.channels, 7 + shift);
      const std::vector<uint8_t> png = EncodePng(samples, w, h, c.color_type, c.channels, shift);
      const Image img = DecodePng(png.data(), png.size());
      REQUIRE_EQ(img.width, w);
      REQUIRE_EQ(img.height, h);
      bool same = true;
      for (int p = 0; p < w * h; ++p) {
        const uint8_t* s = samples.data() + p * c.channels;
        const uint8_t* d = img.rgba.data() + p * 4;
        const bool grey = c.channels <= 2;
        const uint8_t expected[4] = {s[0], grey ? s[0] : s[1], grey ? s[0] : s[2],
                                     c.channels == 4   ? s[3]
                                     : c.channels == 2 ? s[1]
                                                       : uint8_t{255}};
        same = same && std::equal(expected, expected + 4, d);
      }
      CHECK(same);
    }
  }
}

TEST(DecodePng, RejectsWhatItDoesNotRead) {
  std::vector<uint8_t> png = EncodePng(Samples(4, 3, 4, 1), 4, 3, 6, 4, 0);
  CHECK_EQ(DecodePng(png.data(), png.size()).width, 4);
  std::vector<uint8_t> bad = png;
  bad[1] = 'X';
  CHECK_THROWS_WITH(std::runtime_error, "not a PNG", DecodePng(bad.data(), bad.size()));
  bad = png;
  bad[8 + 8 + 5] ^= 1;  // a byte of IHDR's height: its CRC no longer matches
  CHECK_THROWS_WITH(std::runtime_error, "CRC", DecodePng(bad.data(), bad.size()));
  bad = png;
  bad.resize(bad.size() - 12);  // no IEND
  CHECK_THROWS_WITH(std::runtime_error, "truncated", DecodePng(bad.data(), bad.size()));

  const auto with_ihdr = [](int bit_depth, int color_type, int interlace) {
    std::vector<uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    std::vector<uint8_t> ihdr;
    Put32(ihdr, 2);
    Put32(ihdr, 2);
    ihdr.insert(ihdr.end(), {static_cast<uint8_t>(bit_depth), static_cast<uint8_t>(color_type), 0,
                             0, static_cast<uint8_t>(interlace)});
    PutChunk(out, "IHDR", ihdr);
    PutChunk(out, "IEND", {});
    return out;
  };
  // Image data of 4x3 pixels under headers of other sizes: more rows than the data holds, fewer
  // (the data runs past them), and more than a sprite can have (refused before inflating).
  // (3 rows of a filter byte and 4 RGBA pixels.)
  const std::vector<uint8_t> idat = ZlibStored(std::vector<uint8_t>(3 * (1 + 4 * 4), 0));
  const auto with_size = [&idat](uint32_t width, uint32_t height) {
    std::vector<uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    std::vector<uint8_t> ihdr;
    Put32(ihdr, width);
    Put32(ihdr, height);
    ihdr.insert(ihdr.end(), {8, 6, 0, 0, 0});
    PutChunk(out, "IHDR", ihdr);
    PutChunk(out, "IDAT", idat);
    PutChunk(out, "IEND", {});
    return out;
  };
  bad = with_size(4, 4);
  CHECK_THROWS_WITH(std::runtime_error, "too short", DecodePng(bad.data(), bad.size()));
  bad = with_size(4, 2);
  CHECK_THROWS_WITH(std::runtime_error, "longer than expected", DecodePng(bad.data(), bad.size()));
  bad = with_size(1u << 24, 1u << 24);
  CHECK_THROWS_WITH(std::runtime_error, "image too large", DecodePng(bad.data(), bad.size()));
  bad = with_ihdr(16, 6, 0);
  CHECK_THROWS_WITH(std::runtime_error, "bit depth 16", DecodePng(bad.data(), bad.size()));
  bad = with_ihdr(8, 3, 0);
  CHECK_THROWS_WITH(std::runtime_error, "colour type 3", DecodePng(bad.data(), bad.size()));
  bad = with_ihdr(8, 6, 1);
  CHECK_THROWS_WITH(std::runtime_error, "interlaced", DecodePng(bad.data(), bad.size()));
  bad = with_ihdr(8, 6, 0);
  CHECK_THROWS_WITH(std::runtime_error, "no image data", DecodePng(bad.data(), bad.size()));
  CHECK_THROWS_WITH(std::invalid_argument, "'/nonexistent/x.png' does not exist",
                    image::ReadPng("/nonexistent/x.png"));
  // A folder, or a device that never ends, is refused before anything reads it.
  CHECK_THROWS_WITH(std::invalid_argument, "not a regular file", image::ReadPng("/tmp"));
  CHECK_THROWS_WITH(std::invalid_argument, "not a regular file", image::ReadPng("/dev/zero"));
}

}  // namespace
}  // namespace envfleet
