#pragma once
// What every libcurl user here needs once: the library's global initialisation, and a write
// callback that collects a response body into a std::string. Header-only, for the libraries that
// link libcurl (the Kubernetes and AWS transports); common itself does not.

#include <curl/curl.h>

#include <cstddef>
#include <string>

namespace karpenter {

// curl_global_init must run before any other libcurl call and is not itself thread-safe; a
// function-local constant runs it exactly once, whichever thread gets there first. It is never
// undone: curl_global_cleanup at exit could race other users of libcurl in the process.
inline CURLcode InitCurl() {
  static const CURLcode code = curl_global_init(CURL_GLOBAL_DEFAULT);
  return code;
}

// A CURLOPT_WRITEFUNCTION whose CURLOPT_WRITEDATA is a std::string*.
inline size_t AppendToString(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace karpenter
