#!/bin/bash
set -euo pipefail
echo 'vm.max_map_count=262144' >> /etc/sysctl.conf
sysctl -p
cat <<'MOTD' > /etc/motd
it's a Karpenter node
MOTD
