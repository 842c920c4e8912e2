#include "common/read_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace karpenter {

Result<std::string> ReadFile(const std::string& path) {
  // stdio rather than iostreams: fopen and ferror leave errno set, so the message says why.
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                             &std::fclose);
  if (file == nullptr) return Error{"cannot read " + path + ": " + std::strerror(errno)};
  std::string text;
  char buffer[8192];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, n);
  if (std::ferror(file.get()) != 0) {
    return Error{"cannot read " + path + ": " + std::strerror(errno)};
  }
  return text;
}

Result<std::string> ReadTokenFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return Error{"token file " + path + " is empty"};
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

}  // namespace karpenter
