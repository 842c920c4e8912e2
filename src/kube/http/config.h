#pragma once
// How to reach and authenticate to an API server: read from a kubeconfig file, or from the
// service-account files Kubernetes mounts into every pod (in-cluster).

#include <string>

#include "common/result.h"

namespace karpenter::kube::http {

struct Config {
  std::string server;                 // "https://127.0.0.1:6443"
  std::string certificate_authority;  // PEM text of the CA bundle; empty: the system's
  bool insecure_skip_tls_verify = false;
  std::string bearer_token;        // empty when not used
  std::string bearer_token_file;   // re-read when it changes (projected tokens rotate); a token
                                   // read from it wins over bearer_token
  std::string client_certificate;  // PEM text; with client_key, mutual TLS
  std::string client_key;          // PEM text; never logged
  std::string namespace_;          // the context's (or the pod's) namespace; empty when not given
  // Client-side rate limit of requests (KUBE_CLIENT_QPS, KUBE_CLIENT_BURST): each request and each
  // retry takes a token; 0 qps: no limit.
  double qps = 0;
  int burst = 0;
};

// Reads the current context of a kubeconfig file (`context` overrides current-context).
// Supports certificate-authority(-data), insecure-skip-tls-verify, token, tokenFile,
// client-certificate(-data) and client-key(-data); exec and auth-provider plugins (and the other
// settings this client cannot honour: username/password, tls-server-name, proxy-url) are refused
// with an error that says so. Relative paths are relative to the file's folder. Errors name the
// file and the field ("kubeconfig /x/config: users[0].user.client-key: cannot read ...").
Result<Config> LoadKubeconfig(const std::string& path, const std::string& context = "");

// In-cluster: KUBERNETES_SERVICE_HOST/PORT, the token and CA under
// /var/run/secrets/kubernetes.io/serviceaccount/ (`root` replaces that folder in tests).
Result<Config> InClusterConfig(
    const std::string& root = "/var/run/secrets/kubernetes.io/serviceaccount");

}  // namespace karpenter::kube::http
