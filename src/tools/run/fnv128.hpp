// FNV-1a with 128 bits: the content hash that keys the compiled-kernel cache. Not cryptographic; 128 bits make an
// accidental collision between two builds negligible, and nothing here defends against a crafted one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace kforge {

class Fnv128 {
 public:
  // Raw bytes, appended to the hashed stream.
  Fnv128& bytes(std::string_view s) {
    for (const unsigned char c : s) {
      h_ ^= c;
      h_ *= kPrime;
    }
    return *this;
  }
  // One field of a key: its length, then its bytes, so ("ab", "c") and ("a", "bc") hash differently.
  Fnv128& field(std::string_view s) {
    const std::string length = std::to_string(s.size()) + ":";
    return bytes(length).bytes(s);
  }
  // 32 lowercase hex digits.
  std::string hex() const {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(32, '0');
    unsigned __int128 v = h_;
    for (int i = 31; i >= 0; --i, v >>= 4) out[i] = kDigits[static_cast<int>(v & 0xf)];
    return out;
  }

 private:
  static constexpr unsigned __int128 kOffset =
      (static_cast<unsigned __int128>(0x6c62272e07bb0142ull) << 64) | 0x62b821756295c58dull;
  static constexpr unsigned __int128 kPrime = (static_cast<unsigned __int128>(1) << 88) | 0x13b;
  unsigned __int128 h_ = kOffset;
};

}  // namespace kforge
