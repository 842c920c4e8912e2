// Renders an HTML report in headless Chromium (Debian `chromium`) and checks that the screenshot
// is not blank: many colours, no colour covering almost everything, and the chart lines drawn in
// their colours. Skips when no Chromium is installed (scripts/setup installs it).

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "simulate/html_report.h"
#include "simulate/result.h"

namespace karpenter::simulate {
namespace {

namespace fs = std::filesystem;

// --- A minimal PNG decoder: 8-bit grey, grey+alpha, RGB or RGBA, not interlaced. ----------------

struct Image {
  uint32_t width = 0;
  uint32_t height = 0;
  std::vector<uint32_t> pixels;  // 0xRRGGBB (alpha dropped), row by row
};

uint32_t BigEndian32(std::string_view bytes, std::size_t at) {
  uint32_t value = 0;
  for (std::size_t i = 0; i < 4; ++i) value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

int Paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a);
  const int pb = std::abs(p - b);
  const int pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

// Undoes the PNG filter of each row of `data` (a filter byte, then `stride` bytes) in place.
bool Unfilter(std::vector<uint8_t>& data, std::size_t rows, std::size_t stride, std::size_t bpp) {
  for (std::size_t row = 0; row < rows; ++row) {
    uint8_t* line = &data[row * (stride + 1)];
    const uint8_t* prior = row == 0 ? nullptr : line - (stride + 1);
    const uint8_t filter = line[0];
    uint8_t* cur = line + 1;
    for (std::size_t i = 0; i < stride; ++i) {
      const int a = i >= bpp ? cur[i - bpp] : 0;
      const int b = prior != nullptr ? prior[1 + i] : 0;
      const int c = prior != nullptr && i >= bpp ? prior[1 + i - bpp] : 0;
      int predicted = 0;
      switch (filter) {
        case 0:
          predicted = 0;
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
          return false;
      }
      cur[i] = static_cast<uint8_t>(cur[i] + predicted);
    }
  }
  return true;
}

// Decodes `png`; on failure returns an empty image and says why in `error`.
Image DecodePng(std::string_view png, std::string& error) {
  if (png.size() < 8 || png.substr(0, 8) != "\x89PNG\r\n\x1a\n") {
    error = "not a PNG";
    return {};
  }
  Image image;
  int bit_depth = 0;
  int color_type = -1;
  int interlace = 0;
  std::string idat;
  for (std::size_t at = 8; at + 12 <= png.size();) {
    const uint32_t length = BigEndian32(png, at);
    const std::string_view type = png.substr(at + 4, 4);
    if (at + 12 + length > png.size()) break;
    const std::string_view body = png.substr(at + 8, length);
    if (type == "IHDR" && length >= 13) {
      image.width = BigEndian32(body, 0);
      image.height = BigEndian32(body, 4);
      bit_depth = static_cast<uint8_t>(body[8]);
      color_type = static_cast<uint8_t>(body[9]);
      interlace = static_cast<uint8_t>(body[12]);
    } else if (type == "IDAT") {
      idat.append(body);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + length;
  }
  const std::unordered_map<int, std::size_t> kChannels = {{0, 1}, {2, 3}, {4, 2}, {6, 4}};
  if (bit_depth != 8 || interlace != 0 || !kChannels.contains(color_type)) {
    error = "unsupported PNG: bit depth " + std::to_string(bit_depth) + ", colour type " +
            std::to_string(color_type) + ", interlace " + std::to_string(interlace);
    return {};
  }
  const std::size_t channels = kChannels.at(color_type);
  const std::size_t stride = image.width * channels;
  std::vector<uint8_t> raw(image.height * (stride + 1));
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
          Z_OK ||
      raw_size != raw.size() || !Unfilter(raw, image.height, stride, channels)) {
    error = "corrupt PNG image data";
    return {};
  }
  image.pixels.reserve(static_cast<std::size_t>(image.width) * image.height);
  for (std::size_t row = 0; row < image.height; ++row) {
    const uint8_t* line = &raw[row * (stride + 1) + 1];
    for (std::size_t x = 0; x < image.width; ++x) {
      const uint8_t* p = line + x * channels;
      const bool grey = channels <= 2;
      image.pixels.push_back((uint32_t{p[0]} << 16) | (uint32_t{grey ? p[0] : p[1]} << 8) |
                             uint32_t{grey ? p[0] : p[2]});
    }
  }
  return image;
}

// --- Chromium ------------------------------------------------------------------------------------

// The first executable `chromium` or `chromium-browser` on PATH; empty if none.
std::string FindChromium() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::vector<std::string> dir_list;
  for (std::string dir; std::getline(dirs, dir, ':');) dir_list.push_back(dir.empty() ? "." : dir);
  for (const std::string_view name : {"chromium", "chromium-browser"}) {
    for (const std::string& dir : dir_list) {
      const fs::path candidate = fs::path(dir) / name;
      if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) {
        return candidate.string();
      }
    }
  }
  return {};
}

std::string Quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A report with every chart drawn: on-demand nodes go, spot nodes come, the price falls.
SimulationResult SmallMigration() {
  SimulationResult result;
  result.scenario = "screenshot test";
  result.virtual_seconds = 600;
  result.before = {
      .nodes = 6, .by_type = {{{"m5.xlarge", "on-demand"}, 6}}, .price_per_hour = 1.15};
  result.after = {.nodes = 3,
                  .by_type = {{{"m5.xlarge", "on-demand"}, 1}, {{"c6i.xlarge", "spot"}, 2}},
                  .price_per_hour = 0.35};
  result.pods_disrupted = 12;
  result.max_pending_seconds = 21;
  result.samples = {{0, 6, 0, 1.15, 0},   {60, 5, 1, 1.02, 4},  {120, 4, 1, 0.83, 2},
                    {180, 3, 2, 0.71, 3}, {240, 2, 2, 0.52, 0}, {300, 1, 2, 0.35, 0}};
  result.nodes = {{"default-a", "c6i.xlarge", "spot", "us-east-1a", "default", "", 7},
                  {"default-b", "c6i.xlarge", "spot", "us-east-1b", "default", "", 6},
                  {"ip-10-0-1-1", "m5.xlarge", "on-demand", "us-east-1a", "", "general", 4}};
  result.timeline = {{0, "Action", "general", "scale node group to 1"},
                     {61, "Launched", "default-a", "c6i.xlarge spot"}};
  return result;
}

class HtmlScreenshotTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("karpenter-html-screenshot-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  fs::path dir_;
};

// Pixels within `tolerance` of `rgb` in every channel.
std::size_t CountNear(const Image& image, uint32_t rgb, int tolerance) {
  std::size_t count = 0;
  for (const uint32_t pixel : image.pixels) {
    bool near = true;
    for (int shift = 0; shift <= 16; shift += 8) {
      const int a = static_cast<int>((pixel >> shift) & 0xff);
      const int b = static_cast<int>((rgb >> shift) & 0xff);
      near = near && std::abs(a - b) <= tolerance;
    }
    if (near) ++count;
  }
  return count;
}

TEST_F(HtmlScreenshotTest, ChromiumRendersAReportThatIsNotBlank) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "neither chromium nor chromium-browser is on PATH; install Debian's chromium "
                    "(scripts/setup does)";
  }
  const fs::path html = dir_ / "report.html";
  const fs::path png = dir_ / "report.png";
  const fs::path log = dir_ / "chromium.log";
  std::ofstream(html, std::ios::binary) << RenderHtml(SmallMigration());

  const std::string command =
      "timeout 60 " + Quote(chromium) +
      " --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run"
      " --user-data-dir=" +
      Quote((dir_ / "profile").string()) + " --screenshot=" + Quote(png.string()) +
      " --window-size=1200,1600 " + Quote("file://" + html.string()) + " >" + Quote(log.string()) +
      " 2>&1";
  const int status = std::system(command.c_str());
  ASSERT_EQ(status, 0) << command << "\n" << ReadFile(log);

  const std::string bytes = ReadFile(png);
  ASSERT_GT(bytes.size(), 24U * 1024) << "a tiny screenshot is a blank one\n" << ReadFile(log);
  std::string error;
  const Image image = DecodePng(bytes, error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_GE(image.width, 600U);
  ASSERT_GE(image.height, 600U);
  ASSERT_EQ(image.pixels.size(), std::size_t{image.width} * image.height);

  std::unordered_map<uint32_t, std::size_t> colours;
  for (const uint32_t pixel : image.pixels) ++colours[pixel];
  std::size_t most = 0;
  for (const auto& [colour, count] : colours) most = std::max(most, count);
  EXPECT_GE(colours.size(), 4U);
  EXPECT_LT(static_cast<double>(most), 0.99 * static_cast<double>(image.pixels.size()))
      << "one colour covers almost the whole screenshot";
  // The chart lines were drawn: on-demand blue, spot amber, price green.
  EXPECT_GE(CountNear(image, 0x2563eb, 12), 200U);
  EXPECT_GE(CountNear(image, 0xf59e0b, 12), 200U);
  EXPECT_GE(CountNear(image, 0x059669, 12), 200U);
}

}  // namespace
}  // namespace karpenter::simulate
