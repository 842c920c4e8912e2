#pragma once
// The EC2NodeClass controller: keeps each node class's status resolved (upstream-reference §1) —
// all of it when its spec changes, and each part again at its refresh interval, since subnets
// fill up and AMIs are released without the object changing (the instance profile every few
// minutes) — deletes its launch templates no launch used in that while,
// annotates it with the hash of its spec (karpenter.k8s.aws/ec2nodeclass-hash, which NodeClaims
// launched from it carry: drift), sets ValidationSucceeded (the launch permissions checked with
// DryRun calls, as upstream, unless DISABLE_DRY_RUN; remembered while what they depend on is
// unchanged, for half an hour, a minute after a failure), and holds the
// karpenter.k8s.aws/termination finalizer: a node
// class being deleted keeps it until no NodeClaim uses the class, then its launch templates and
// instance profile are deleted and the finalizer removed. Runs on the controller loop, the thread
// the AWS cloud provider runs on too (they share the launch templates).

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "aws/nodeclass/node_class_resolver.h"
#include "aws/provider/aws_cloud_provider.h"
#include "aws/provider/launch_templates.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/result.h"
#include "controllers/cluster_cache.h"
#include "kube/client.h"
#include "kube/event_recorder.h"

namespace karpenter::aws {

// How often each part of a node class's status is resolved again (AMI_REFRESH_INTERVAL,
// SUBNET_REFRESH_INTERVAL, SECURITY_GROUP_REFRESH_INTERVAL), and everything else (the instance
// profile, unused launch templates).
struct NodeClassRefresh {
  std::chrono::milliseconds amis = std::chrono::minutes(1);
  std::chrono::milliseconds subnets = std::chrono::minutes(1);
  std::chrono::milliseconds security_groups = std::chrono::minutes(1);
  // Upstream reads them every minute (their counts change as anyone launches into them).
  std::chrono::milliseconds capacity_reservations = std::chrono::minutes(1);
  std::chrono::milliseconds everything = std::chrono::minutes(5);
};

// Checks the launch permissions of a node class (AwsCloudProvider::CheckLaunchAuthorization); an
// empty function: dry runs are disabled.
using LaunchAuthorizationCheck =
    std::function<Result<LaunchAuthorization>(const api::EC2NodeClass& node_class)>;

class NodeClassController {
 public:
  // The references must outlive the controller.
  NodeClassController(kube::Client& client, controllers::ClusterCache& cluster,
                      kube::EventRecorder& events, NodeClassResolver& resolver,
                      LaunchTemplates& launch_templates, const Clock& clock, Logger logger,
                      NodeClassRefresh refresh = {}, LaunchAuthorizationCheck check = {});

  // Reconciles every node class that changed or is being deleted (all of its status), that was
  // not Ready 15 s ago (all: a fixed IAM policy or a subnet tagged since shows soon), or whose
  // parts are due for a refresh (those). Tries them all; returns the first failure.
  Status ReconcileAll();
  // Reconciles one EC2NodeClass object as the informer has it, resolving `parts` of its status.
  Status Reconcile(const kube::Object& object, const ResolveParts& parts = {});

 private:
  Status Finalize(const kube::Object& object);
  // A Warning Event on the node class for each condition `status` turns False, or False with a
  // new message (a denied AWS call, a selector that matches nothing): where `kubectl describe`
  // and event-based alerting look, beside the condition itself.
  void RecordNewFailures(const kube::Object& object, const api::EC2NodeClass::Status& status);
  // Sets ValidationSucceeded in `status` (and Ready again with it).
  void Validate(const kube::Object& object, const api::EC2NodeClass& node_class,
                api::EC2NodeClass::Status& status);

  kube::Client& client_;
  controllers::ClusterCache& cluster_;
  kube::EventRecorder& events_;
  NodeClassResolver& resolver_;
  LaunchTemplates& launch_templates_;
  const Clock& clock_;
  Logger logger_;
  const NodeClassRefresh refresh_;
  const LaunchAuthorizationCheck check_;
  struct Validated {
    std::string inputs;  // what the verdict depends on
    MonoTime at;
    LaunchAuthorization verdict;
  };
  std::map<std::string, Validated, std::less<>> validated_;  // by name
  struct Resolved {
    int64_t generation = 0;
    MonoTime at;  // all of it
    bool ready = true;
    MonoTime amis_at;
    MonoTime subnets_at;
    MonoTime security_groups_at;
    MonoTime capacity_reservations_at;
  };
  std::map<std::string, Resolved, std::less<>> resolved_;  // by name
};

}  // namespace karpenter::aws
