// cpp/core/spec.h: dtypes and their NumPy names, array specs (Box, Discrete, sizes) and the
// option table (Config).
#include "core/spec.h"

#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "check.h"

namespace envfleet {
namespace {

constexpr DType kAllDTypes[] = {DType::kBool,  DType::kInt8,    DType::kUint8,  DType::kInt32,
                                DType::kInt64, DType::kFloat32, DType::kFloat64};

TEST(DType, ItemSizesAreNumpys) {
  CHECK_EQ(ItemSize(DType::kBool), sizeof(bool));
  CHECK_EQ(ItemSize(DType::kInt8), sizeof(int8_t));
  CHECK_EQ(ItemSize(DType::kUint8), sizeof(uint8_t));
  CHECK_EQ(ItemSize(DType::kInt32), sizeof(int32_t));
  CHECK_EQ(ItemSize(DType::kInt64), sizeof(int64_t));
  CHECK_EQ(ItemSize(DType::kFloat32), sizeof(float));
  CHECK_EQ(ItemSize(DType::kFloat64), sizeof(double));
}

TEST(DType, EveryDTypeHasADistinctNameThatRoundTrips) {
  std::set<std::string> names;
  for (DType dtype : kAllDTypes) {
    const std::string name = DTypeName(dtype);
    CHECK_NE(name, "?");
    names.insert(name);
    CHECK(DTypeFromName(name) == dtype);
  }
  CHECK_EQ(names.size(), std::size(kAllDTypes));
  CHECK_EQ(std::size(kDTypeNames), std::size(kAllDTypes));       // the table covers every dtype
  CHECK_EQ(std::string(DTypeName(DType::kFloat32)), "float32");  // NumPy's spelling
  CHECK_EQ(std::string(DTypeName(DType::kBool)), "bool");
}

TEST(DType, UnknownNamesAndValuesAreRejected) {
  CHECK_THROWS_WITH(std::invalid_argument, "'float16'", DTypeFromName("float16"));
  CHECK_THROWS(std::invalid_argument, DTypeFromName(""));
  CHECK_THROWS(std::invalid_argument, DTypeFromName("Float32"));  // exact spelling only
  CHECK_EQ(std::string(DTypeName(static_cast<DType>(200))), "?");
  CHECK_EQ(ItemSize(static_cast<DType>(200)), 0u);
}

TEST(ArraySpec, ElementsAndBytesFollowTheShape) {
  ArraySpec scalar = Box("s", DType::kFloat64, {}, {}, {});
  CHECK_EQ(scalar.NumElements(), 1u);  // a scalar is one element, not zero
  CHECK_EQ(scalar.NumBytes(), 8u);
  ArraySpec cube = Box("c", DType::kInt32, {2, 3, 4}, {}, {});
  CHECK_EQ(cube.NumElements(), 24u);
  CHECK_EQ(cube.NumBytes(), 96u);
  ArraySpec empty = Box("e", DType::kUint8, {0, 5}, {}, {});
  CHECK_EQ(empty.NumElements(), 0u);
  CHECK_EQ(empty.NumBytes(), 0u);
  for (DType dtype : kAllDTypes) {
    ArraySpec spec = Box("x", dtype, {3, 7}, {}, {});
    CHECK_EQ(spec.NumBytes(), 21 * ItemSize(dtype));
  }
}

TEST(ArraySpec, DiscreteIsAnInclusiveInt64Range) {
  const ArraySpec a = Discrete("action", 5);
  CHECK_EQ(a.name, "action");
  CHECK(a.dtype == DType::kInt64);
  CHECK(a.discrete);
  CHECK(a.shape.empty());
  CHECK_EQ(a.low, std::vector<double>{0.0});
  CHECK_EQ(a.high, std::vector<double>{4.0});  // n values: low .. low + n - 1
  const ArraySpec b = Discrete("b", 3, -1);
  CHECK_EQ(b.low, std::vector<double>{-1.0});
  CHECK_EQ(b.high, std::vector<double>{1.0});
  CHECK_EQ(b.NumBytes(), 8u);
}

TEST(ArraySpec, BoxKeepsWhatItIsGiven) {
  const ArraySpec box = Box("obs", DType::kFloat32, {4}, {-1.0, -2.0, -3.0, -4.0}, {2.5});
  CHECK_EQ(box.name, "obs");
  CHECK(box.dtype == DType::kFloat32);
  CHECK(!box.discrete);
  CHECK_EQ(box.shape, std::vector<int64_t>{4});
  CHECK_EQ(box.low.size(), 4u);
  CHECK_EQ(box.high, std::vector<double>{2.5});
}

TEST(EnvSpec, DefaultsAreASingleObsAndAnUnboundedReward) {
  const EnvSpec spec;
  CHECK(spec.obs_layout == ObsLayout::kSingle);
  CHECK(std::isinf(spec.reward_low) && spec.reward_low < 0);
  CHECK(std::isinf(spec.reward_high) && spec.reward_high > 0);
  CHECK(spec.obs.empty());
  CHECK(spec.info.empty());
}

TEST(Config, GetSetHas) {
  Config config = {{"n", int64_t{3}},
                   {"x", 2.5},
                   {"flag", true},
                   {"name", std::string("pong")},
                   {"rows", std::vector<std::string>{"SFF", "FHG"}},
                   {"weights", std::vector<double>{0.5, 1.5}}};
  CHECK(config.Has("n"));
  CHECK(!config.Has("N"));
  CHECK_EQ(config.values().size(), 6u);
  CHECK_EQ(config.Get<int64_t>("n"), 3);
  CHECK_EQ(config.Get<double>("x"), 2.5);
  CHECK(config.Get<bool>("flag"));
  CHECK_EQ(config.Get<std::string>("name"), "pong");
  CHECK_EQ(config.Get<std::vector<std::string>>("rows").size(), 2u);
  CHECK_EQ(config.Get<std::vector<double>>("weights")[1], 1.5);
  config.Set("n", int64_t{7});
  CHECK_EQ(config.Get<int64_t>("n"), 7);
  config.Set("new", false);
  CHECK(config.Has("new"));
  CHECK(!config.Get<bool>("new"));
  CHECK_EQ(config.values().size(), 7u);
}

TEST(Config, MissingOptionsAndWrongKindsThrowNamingTheOption) {
  const Config config = {{"n", int64_t{3}}, {"x", 2.5}};
  CHECK_THROWS_WITH(std::invalid_argument, "missing config option 'm'", config.Get<int64_t>("m"));
  CHECK_THROWS_WITH(std::invalid_argument, "'n' has the wrong type", config.Get<double>("n"));
  CHECK_THROWS_WITH(std::invalid_argument, "'x' has the wrong type", config.Get<int64_t>("x"));
  CHECK_THROWS(std::invalid_argument, config.Get<bool>("n"));
}

TEST(Config, AStringLiteralIsAStringNotABool) {
  // const char* converts to bool as well as to std::string; C++20's variant rules (P0608)
  // pick std::string, and the env defaults rely on it ({"game", "pong"}).
  Config config = {{"game", "pong"}};
  CHECK_EQ(config.Get<std::string>("game"), "pong");
  config.Set("game", "breakout");
  CHECK_EQ(config.Get<std::string>("game"), "breakout");
}

TEST(Config, CopiesAreIndependent) {
  const Config defaults = {{"n", int64_t{1}}};
  Config copy = defaults;
  copy.Set("n", int64_t{2});
  CHECK_EQ(defaults.Get<int64_t>("n"), 1);
  CHECK_EQ(copy.Get<int64_t>("n"), 2);
}

}  // namespace
}  // namespace envfleet
