// Command etcd is the etcd server of the test cluster, built from the go.etcd.io/etcd/server/v3
// module (the version Kubernetes itself requires), so that no etcd release download is needed.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
