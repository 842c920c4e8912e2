//go:build tools

// Package tools pins the Kubernetes commands the test cluster builds, and kubectl, so that
// `go mod tidy` keeps their dependencies in the generated go.mod.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
