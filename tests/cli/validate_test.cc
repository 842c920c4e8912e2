// End-to-end tests of `karpenter validate`: runs the built binary on the validation corpus and on
// files written here, and checks the exit code, stdout (problems only) and stderr (the summary).

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace karpenter::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string Quote(const std::string& argument) {
  std::string quoted = "'";
  for (const char c : argument) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

class ValidateCommandTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(KARPENTER_BINARY)) {
      GTEST_SKIP() << "karpenter binary not built: " << KARPENTER_BINARY;
    }
    dir_ = std::filesystem::temp_directory_path() /
           ("validate_test_" + std::to_string(::getpid()) + "_" +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }

  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::filesystem::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }

  RunResult Run(const std::vector<std::string>& arguments, const std::string& stdin_text = "") {
    std::string command = Quote(KARPENTER_BINARY) + " validate";
    for (const std::string& argument : arguments) {
      command += ' ';
      command += Quote(argument);
    }
    const std::filesystem::path out = dir_ / "stdout";
    const std::filesystem::path err = dir_ / "stderr";
    const std::filesystem::path in = dir_ / "stdin";
    std::ofstream(in) << stdin_text;
    command +=
        fmt::format(" <{} >{} 2>{}", Quote(in.string()), Quote(out.string()), Quote(err.string()));
    const int status = std::system(command.c_str());
    RunResult result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = ReadFile(out);
    result.err = ReadFile(err);
    return result;
  }

  std::filesystem::path dir_;
};

const std::string kCorpus = std::string(KARPENTER_TESTDATA) + "/validation";

TEST_F(ValidateCommandTest, ValidCorpusPasses) {
  const RunResult result = Run({kCorpus + "/valid"});
  EXPECT_EQ(result.exit_code, 0) << result.out;
  EXPECT_THAT(result.out, IsEmpty());
  EXPECT_THAT(result.err, HasSubstr("0 problems"));
}

TEST_F(ValidateCommandTest, EveryInvalidFileFails) {
  for (const auto& entry : std::filesystem::directory_iterator(kCorpus + "/invalid")) {
    const RunResult result = Run({entry.path().string()});
    EXPECT_EQ(result.exit_code, 1) << entry.path();
    EXPECT_THAT(result.out, StartsWith(entry.path().string() + ":")) << entry.path();
  }
}

TEST_F(ValidateCommandTest, ReportsOneLinePerProblem) {
  const std::string pools = Write("pools.yaml", R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  weight: 0
  template:
    spec:
      requirements:
        - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        - {key: kubernetes.io/os, operator: In, values: [linux]}
        - {key: karpenter.k8s.aws/instance-cpu, operator: Gtt, values: ["4"]}
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)");
  const std::string good = Write("good.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: web, namespace: shop}
spec: {containers: [{name: app}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
)");
  const RunResult result = Run({good, pools});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out,
            pools +
                ": NodePool/default: spec.template.spec.requirements[2].operator: unknown "
                "operator \"Gtt\"\n");
  EXPECT_EQ(result.err, "1 valid object, 1 ignored, 1 problem in 2 files\n");
}

TEST_F(ValidateCommandTest, ValidationProblemsAfterDecoding) {
  const std::string classes = Write("classes.yaml", R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: both}
spec:
  role: KarpenterNodeRole-demo
  instanceProfile: profile
  amiSelectorTerms: [{alias: windows2022@v20240101}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
)");
  const RunResult result = Run({classes});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_EQ(result.out, classes +
                            ": EC2NodeClass/both: spec.amiSelectorTerms[0].alias: invalid alias "
                            "\"windows2022@v20240101\": Windows families only support @latest\n" +
                            classes +
                            ": EC2NodeClass/both: spec: must specify exactly one of role, "
                            "instanceProfile\n");
}

TEST_F(ValidateCommandTest, JsonAndStandardInput) {
  const std::string json = Write("pod.json", R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}})");
  EXPECT_EQ(Run({json}).exit_code, 0);
  const RunResult piped = Run({"-"}, "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n");
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_THAT(piped.err, HasSubstr("1 valid object"));
  const RunResult bad = Run({"-"}, "kind: [\n");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.out, StartsWith("<stdin>:"));
}

TEST_F(ValidateCommandTest, MissingFileFails) {
  const RunResult result = Run({(dir_ / "absent.yaml").string()});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.out, HasSubstr("absent.yaml: cannot read:"));
}

}  // namespace
}  // namespace karpenter::cli
