// envfleet::image: a small PNG reader, so that envs can draw the sprites their references
// ship (Gymnasium's toy-text art) without linking libpng or zlib into the modules.
//
//   Inflate(data, size)         raw DEFLATE (RFC 1951): stored, fixed and dynamic Huffman blocks
//   ZlibDecompress(data, size)  a zlib stream (RFC 1950): header, DEFLATE data, Adler-32 check
//   DecodePng(data, size)       a PNG file (ISO/IEC 15948) -> Image, 8-bit RGBA
//   ReadPng(path)               the same, from a file
//
// Supported PNGs: bit depth 8, colour types 0 (grey), 2 (RGB), 4 (grey + alpha) and 6 (RGBA),
// not interlaced, every filter type (None, Sub, Up, Average, Paeth). Gymnasium 1.4.0's toy-text
// sprites are all 8-bit RGBA, not interlaced. Palettes, other bit depths and Adam7 raise
// std::runtime_error, as do corrupt files (chunk CRCs and the Adler-32 are checked).
//
// Speed is not a goal (Huffman codes are decoded a bit at a time): images are decoded once per
// process and cached (cpp/common/image/sprite_cache.h).
#ifndef ENVFLEET_COMMON_IMAGE_PNG_H_
#define ENVFLEET_COMMON_IMAGE_PNG_H_

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/files.h"

namespace envfleet::image {

// width x height pixels of 4 bytes (R, G, B, A), rows top first, no padding.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> rgba;

  Image() = default;
  Image(int w, int h) : width(w), height(h), rgba(static_cast<size_t>(w) * h * 4, 0) {}

  uint8_t* At(int x, int y) { return rgba.data() + (static_cast<size_t>(y) * width + x) * 4; }
  const uint8_t* At(int x, int y) const {
    return rgba.data() + (static_cast<size_t>(y) * width + x) * 4;
  }
};

namespace png_internal {

[[noreturn]] inline void Fail(const std::string& what) {
  throw std::runtime_error("PNG/zlib: " + what);
}

// DEFLATE's bit order: bits are taken from the least significant end of each byte; Huffman
// codes arrive most significant bit first, every other field least significant bit first.
class BitReader {
 public:
  BitReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  int Bit() {
    if (pos_ >= size_) Fail("compressed data ends early");
    const int bit = (data_[pos_] >> bit_) & 1;
    if (++bit_ == 8) {
      bit_ = 0;
      ++pos_;
    }
    return bit;
  }

  // `count` bits (<= 16), the first one read as the least significant.
  uint32_t Bits(int count) {
    uint32_t value = 0;
    for (int i = 0; i < count; ++i) value |= static_cast<uint32_t>(Bit()) << i;
    return value;
  }

  // Skips to the next byte boundary (stored blocks).
  void AlignToByte() {
    if (bit_ != 0) {
      bit_ = 0;
      ++pos_;
    }
  }

  uint8_t Byte() {
    if (bit_ != 0) Fail("unaligned byte read");
    if (pos_ >= size_) Fail("compressed data ends early");
    return data_[pos_++];
  }

  size_t position() const { return pos_; }  // bytes consumed (after AlignToByte)

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  int bit_ = 0;
};

constexpr int kMaxCodeLength = 15;

// A canonical Huffman code (RFC 1951 3.2.2) from the code length of each symbol: how many
// codes each length has, and the symbols sorted by (length, symbol value). Decoding walks the
// lengths: the codes of one length are consecutive integers starting at `first`.
class Huffman {
 public:
  Huffman() = default;
  Huffman(const uint8_t* lengths, int num_symbols) {
    count_.fill(0);
    for (int s = 0; s < num_symbols; ++s) ++count_[lengths[s]];
    count_[0] = 0;
    int left = 1;  // codes still available at the current length
    for (int len = 1; len <= kMaxCodeLength; ++len) {
      left = left * 2 - count_[len];
      if (left < 0) Fail("over-subscribed Huffman code");
    }
    // An incomplete code is legal (a distance code of one symbol); a bit pattern outside it
    // fails in Decode.
    std::array<int, kMaxCodeLength + 2> offset{};
    for (int len = 1; len <= kMaxCodeLength; ++len) offset[len + 1] = offset[len] + count_[len];
    symbols_.assign(static_cast<size_t>(offset[kMaxCodeLength + 1]), 0);
    for (int s = 0; s < num_symbols; ++s) {
      if (lengths[s] != 0) symbols_[offset[lengths[s]]++] = static_cast<uint16_t>(s);
    }
  }

  int Decode(BitReader& in) const {
    int code = 0;   // the bits read so far
    int first = 0;  // the first code of the current length
    int index = 0;  // the index in symbols_ of that first code
    for (int len = 1; len <= kMaxCodeLength; ++len) {
      code |= in.Bit();
      const int count = count_[len];
      if (code - first < count) return symbols_[index + (code - first)];
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    Fail("invalid Huffman code");
  }

 private:
  std::array<int, kMaxCodeLength + 1> count_{};
  std::vector<uint16_t> symbols_;
};

// Length codes 257..285 and distance codes 0..29: base values and extra bits (RFC 1951 3.2.5).
constexpr uint16_t kLengthBase[29] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                      15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                      67, 83, 99, 115, 131, 163, 195, 227, 258};
constexpr uint8_t kLengthExtra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                      2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
constexpr uint16_t kDistBase[30] = {1,    2,    3,    4,    5,    7,    9,    13,    17,    25,
                                    33,   49,   65,   97,   129,  193,  257,  385,   513,   769,
                                    1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
constexpr uint8_t kDistExtra[30] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                    6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};

// Output past `limit` bytes fails: a few megabytes of DEFLATE data can encode gigabytes.
inline void CheckRoom(const std::vector<uint8_t>& out, size_t more, size_t limit) {
  if (more > limit - out.size()) Fail("decompressed data is longer than expected");
}

// The symbols of one compressed block, up to the end-of-block code 256.
inline void InflateCodes(BitReader& in, const Huffman& lit, const Huffman& dist,
                         std::vector<uint8_t>& out, size_t limit) {
  while (true) {
    const int symbol = lit.Decode(in);
    if (symbol < 256) {
      CheckRoom(out, 1, limit);
      out.push_back(static_cast<uint8_t>(symbol));
      continue;
    }
    if (symbol == 256) return;
    const int l = symbol - 257;
    if (l >= 29) Fail("invalid length code");
    const size_t length = kLengthBase[l] + in.Bits(kLengthExtra[l]);
    const int d = dist.Decode(in);
    if (d >= 30) Fail("invalid distance code");
    const size_t distance = kDistBase[d] + in.Bits(kDistExtra[d]);
    if (distance > out.size()) Fail("distance too far back");
    CheckRoom(out, length, limit);
    // Byte by byte: a match may overlap the bytes it produces (distance < length).
    size_t from = out.size() - distance;
    for (size_t i = 0; i < length; ++i) out.push_back(out[from++]);
  }
}

inline void InflateStored(BitReader& in, std::vector<uint8_t>& out, size_t limit) {
  in.AlignToByte();
  const uint32_t len = in.Byte() | (static_cast<uint32_t>(in.Byte()) << 8);
  const uint32_t nlen = in.Byte() | (static_cast<uint32_t>(in.Byte()) << 8);
  if ((len ^ 0xffffu) != nlen) Fail("stored block length does not match its complement");
  CheckRoom(out, len, limit);
  for (uint32_t i = 0; i < len; ++i) out.push_back(in.Byte());
}

inline void InflateFixed(BitReader& in, std::vector<uint8_t>& out, size_t limit) {
  // RFC 1951 3.2.6: literal/length codes of 8, 9, 7 and 8 bits; distance codes of 5 bits.
  static const Huffman kLit = [] {
    uint8_t lengths[288];
    for (int s = 0; s < 288; ++s) lengths[s] = s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : 8;
    return Huffman(lengths, 288);
  }();
  static const Huffman kDist = [] {
    uint8_t lengths[30];
    for (uint8_t& l : lengths) l = 5;
    return Huffman(lengths, 30);
  }();
  InflateCodes(in, kLit, kDist, out, limit);
}

inline void InflateDynamic(BitReader& in, std::vector<uint8_t>& out, size_t limit) {
  const int num_lit = static_cast<int>(in.Bits(5)) + 257;
  const int num_dist = static_cast<int>(in.Bits(5)) + 1;
  const int num_code = static_cast<int>(in.Bits(4)) + 4;
  if (num_lit > 286 || num_dist > 30) Fail("too many length or distance codes");
  static constexpr int kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                     11, 4,  12, 3, 13, 2, 14, 1, 15};
  uint8_t code_lengths[19] = {};
  for (int i = 0; i < num_code; ++i) code_lengths[kOrder[i]] = static_cast<uint8_t>(in.Bits(3));
  const Huffman code_code(code_lengths, 19);

  uint8_t lengths[286 + 30] = {};
  int n = 0;
  while (n < num_lit + num_dist) {
    const int symbol = code_code.Decode(in);
    if (symbol < 16) {
      lengths[n++] = static_cast<uint8_t>(symbol);
      continue;
    }
    uint8_t value = 0;
    int repeat = 0;
    if (symbol == 16) {  // the previous length, 3..6 times
      if (n == 0) Fail("length repeat with no previous length");
      value = lengths[n - 1];
      repeat = 3 + static_cast<int>(in.Bits(2));
    } else if (symbol == 17) {  // zeros, 3..10 times
      repeat = 3 + static_cast<int>(in.Bits(3));
    } else {  // 18: zeros, 11..138 times
      repeat = 11 + static_cast<int>(in.Bits(7));
    }
    if (n + repeat > num_lit + num_dist) Fail("code lengths overrun");
    while (repeat-- > 0) lengths[n++] = value;
  }
  if (lengths[256] == 0) Fail("no end-of-block code");
  const Huffman lit(lengths, num_lit);
  const Huffman dist(lengths + num_lit, num_dist);
  InflateCodes(in, lit, dist, out, limit);
}

inline uint32_t ReadBigEndian32(const uint8_t* p) {
  return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
         (static_cast<uint32_t>(p[2]) << 8) | p[3];
}

// CRC-32 of ISO 3309 / PNG (reflected polynomial 0xedb88320).
inline uint32_t Crc32(const uint8_t* data, size_t size, uint32_t crc = 0) {
  static const auto table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  crc = ~crc;
  for (size_t i = 0; i < size; ++i) crc = table[(crc ^ data[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

inline uint32_t Adler32(const uint8_t* data, size_t size) {
  uint32_t a = 1, b = 0;
  for (size_t i = 0; i < size; ++i) {
    a = (a + data[i]) % 65521;
    b = (b + a) % 65521;
  }
  return (b << 16) | a;
}

inline int Paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  if (pb <= pc) return b;
  return c;
}

}  // namespace png_internal

// Raw DEFLATE data -> the bytes it encodes, which must be at most `limit`. `consumed`, if given,
// receives the number of input bytes the blocks used (up to the byte boundary after the last
// block).
inline std::vector<uint8_t> Inflate(const uint8_t* data, size_t size, size_t* consumed = nullptr,
                                    size_t limit = SIZE_MAX) {
  using namespace png_internal;
  BitReader in(data, size);
  std::vector<uint8_t> out;
  bool last = false;
  while (!last) {
    last = in.Bit() != 0;
    const uint32_t type = in.Bits(2);
    if (type == 0) {
      InflateStored(in, out, limit);
    } else if (type == 1) {
      InflateFixed(in, out, limit);
    } else if (type == 2) {
      InflateDynamic(in, out, limit);
    } else {
      Fail("invalid block type 3");
    }
  }
  in.AlignToByte();
  if (consumed) *consumed = in.position();
  return out;
}

// A zlib stream: CMF/FLG header (deflate, no preset dictionary), DEFLATE data, Adler-32; at
// most `limit` bytes of it.
inline std::vector<uint8_t> ZlibDecompress(const uint8_t* data, size_t size,
                                           size_t limit = SIZE_MAX) {
  using namespace png_internal;
  if (size < 6) Fail("zlib stream too short");
  const int cmf = data[0], flg = data[1];
  if ((cmf & 0x0f) != 8 || (cmf >> 4) > 7) Fail("zlib stream is not deflate-compressed");
  if ((cmf * 256 + flg) % 31 != 0) Fail("bad zlib header check bits");
  if (flg & 0x20) Fail("zlib preset dictionaries are not supported");
  size_t consumed = 0;
  std::vector<uint8_t> out = Inflate(data + 2, size - 2, &consumed, limit);
  if (2 + consumed + 4 > size) Fail("zlib stream has no Adler-32 checksum");
  if (ReadBigEndian32(data + 2 + consumed) != Adler32(out.data(), out.size())) {
    Fail("Adler-32 checksum mismatch");
  }
  return out;
}

// The most decoded bytes (filter bytes included) a PNG may have: 2**28, about an 8192x8192 RGBA
// image.
constexpr size_t kMaxPngDataBytes = size_t{1} << 28;

inline Image DecodePng(const uint8_t* data, size_t size) {
  using namespace png_internal;
  static constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (size < 8 || !std::equal(kSignature, kSignature + 8, data)) Fail("not a PNG file");
  size_t pos = 8;
  uint32_t width = 0, height = 0;
  int color_type = -1;
  bool seen_end = false;
  std::vector<uint8_t> idat;
  while (!seen_end) {
    if (pos + 12 > size) Fail("truncated chunk");
    const uint32_t length = ReadBigEndian32(data + pos);
    if (length > size - pos - 12) Fail("truncated chunk");
    const uint8_t* type = data + pos + 4;
    const uint8_t* body = type + 4;
    // The chunk's name as text: its bytes if printable ASCII, as they are in valid files.
    std::string name;
    for (int i = 0; i < 4; ++i) {
      const uint8_t c = type[i];
      if (c >= 0x20 && c < 0x7f) {
        name += static_cast<char>(c);
      } else {
        name += {'\\', 'x', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]};
      }
    }
    if (Crc32(type, length + 4) != ReadBigEndian32(body + length)) {
      Fail("CRC mismatch in chunk " + name);
    }
    if (color_type < 0 && name != "IHDR") Fail("the first chunk is not IHDR");
    if (name == "IHDR") {
      if (length != 13) Fail("bad IHDR length");
      width = ReadBigEndian32(body);
      height = ReadBigEndian32(body + 4);
      const int bit_depth = body[8];
      color_type = body[9];
      if (width == 0 || height == 0 || width > (1u << 24) || height > (1u << 24)) {
        Fail("bad image size");
      }
      if (bit_depth != 8) Fail("bit depth " + std::to_string(bit_depth) + " is not supported");
      if (color_type != 0 && color_type != 2 && color_type != 4 && color_type != 6) {
        Fail("colour type " + std::to_string(color_type) + " is not supported");
      }
      if (body[10] != 0 || body[11] != 0) Fail("unknown compression or filter method");
      if (body[12] != 0) Fail("interlaced PNGs are not supported");
    } else if (name == "IDAT") {
      idat.insert(idat.end(), body, body + length);
    } else if (name == "IEND") {
      seen_end = true;
    } else if ((type[0] & 0x20) == 0 && name != "PLTE") {
      // A critical chunk we do not know (PLTE is only a suggestion for these colour types).
      Fail("unknown critical chunk " + name);
    }
    pos += 12 + length;
  }
  if (idat.empty()) Fail("no image data");

  const int channels = color_type == 0 ? 1 : color_type == 2 ? 3 : color_type == 4 ? 2 : 4;
  const size_t stride = static_cast<size_t>(width) * channels;
  // Sprites are small; the header alone must not make the decoder allocate gigabytes.
  const size_t expected = (stride + 1) * height;
  if (expected > kMaxPngDataBytes) Fail("image too large");
  const std::vector<uint8_t> raw = ZlibDecompress(idat.data(), idat.size(), expected);
  if (raw.size() < expected) Fail("image data too short");

  // Unfilter (PNG 9.2): each row is a filter byte and the row's bytes, predicted from the
  // byte one pixel to the left (a), the byte above (b) and the one above-left (c).
  std::vector<uint8_t> pixels(stride * height);
  for (uint32_t y = 0; y < height; ++y) {
    const uint8_t* in = raw.data() + y * (stride + 1);
    const int filter = in[0];
    ++in;
    uint8_t* row = pixels.data() + y * stride;
    const uint8_t* up = y > 0 ? row - stride : nullptr;
    for (size_t i = 0; i < stride; ++i) {
      const int a = i >= static_cast<size_t>(channels) ? row[i - channels] : 0;
      const int b = up ? up[i] : 0;
      const int c = up && i >= static_cast<size_t>(channels) ? up[i - channels] : 0;
      int predicted = 0;
      switch (filter) {
        case 0:
          break;
        case 1:
          predicted = a;
          break;
        case 2:
          predicted = b;
          break;
        case 3:
          predicted = (a + b) / 2;
          break;
        case 4:
          predicted = Paeth(a, b, c);
          break;
        default:
          Fail("unknown filter type " + std::to_string(filter));
      }
      row[i] = static_cast<uint8_t>(in[i] + predicted);
    }
  }

  Image image(static_cast<int>(width), static_cast<int>(height));
  const size_t count = static_cast<size_t>(width) * height;
  for (size_t p = 0; p < count; ++p) {
    const uint8_t* s = pixels.data() + p * channels;
    uint8_t* d = image.rgba.data() + p * 4;
    switch (channels) {
      case 1:
        d[0] = d[1] = d[2] = s[0];
        d[3] = 255;
        break;
      case 2:
        d[0] = d[1] = d[2] = s[0];
        d[3] = s[1];
        break;
      case 3:
        d[0] = s[0], d[1] = s[1], d[2] = s[2];
        d[3] = 255;
        break;
      default:
        d[0] = s[0], d[1] = s[1], d[2] = s[2], d[3] = s[3];
    }
  }
  return image;
}

// Images are sprites: far smaller than this. A file past it is not one (and is not read whole).
constexpr uintmax_t kMaxPngBytes = 64 << 20;

inline Image ReadPng(const std::string& path) {
  files::CheckFile("image", path, kMaxPngBytes);  // a FIFO or a device would never end
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open image " + path);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                                   std::istreambuf_iterator<char>());
  try {
    return DecodePng(bytes.data(), bytes.size());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) + " (" + path + ")");
  }
}

}  // namespace envfleet::image

#endif  // ENVFLEET_COMMON_IMAGE_PNG_H_
