// Kubeconfig files (`--kubeconfig`), read from a file as the controller reads them.

#include <unistd.h>

#include <fstream>
#include <string>

#include "fuzz/fuzz_input.h"
#include "kube/http/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/kubeconfig-fuzz-" + std::to_string(::getpid());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  (void)karpenter::kube::http::LoadKubeconfig(path);
  return 0;
}
