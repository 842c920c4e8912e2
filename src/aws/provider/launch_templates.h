#pragma once
// The launch templates instances are launched from (upstream-reference §6): one per distinct
// content (image, user data, security groups, instance profile, metadata options, tags, volumes,
// monitoring, public address), named
// `karpenter.k8s.aws/<hash of the content>` and tagged with the cluster and the EC2NodeClass, so
// the same content always finds the same template — after a restart too. Created on first use,
// remembered, deleted when no launch has used them for a while (instances do not need the template
// they were launched from; a launch that needs it again creates it again) and with their
// EC2NodeClass.

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "aws/api/ec2_api.h"
#include "common/clock.h"
#include "common/result.h"

namespace karpenter::aws {

inline constexpr std::string_view kLaunchTemplateNamePrefix = "karpenter.k8s.aws/";
inline constexpr std::string_view kTagCluster = "karpenter.k8s.aws/cluster";
inline constexpr std::string_view kTagNodeClass = "karpenter.k8s.aws/ec2nodeclass";

// The template name for `input`'s content (input.name is not part of it).
std::string LaunchTemplateName(const LaunchTemplateInput& input);

// Not thread-safe, as Ec2Api is not.
class LaunchTemplates {
 public:
  // `ec2` and `clock` must outlive this.
  LaunchTemplates(Ec2Api& ec2, std::string cluster_name, const Clock& clock);

  // `input` as Ensure creates it for `node_class`: tagged with the cluster and the node class,
  // named for its content.
  LaunchTemplateInput Completed(LaunchTemplateInput input, std::string_view node_class) const;
  // The name of a template with `input`'s content made for `node_class`, created the first time
  // (a template another replica created meanwhile is used as is).
  Result<std::string> Ensure(LaunchTemplateInput input, std::string_view node_class);
  // EC2 no longer has the template (someone deleted it): the next Ensure creates it again.
  void Forget(std::string_view name);
  // Deletes this cluster's templates made for `node_class`; returns how many.
  Result<int> DeleteForNodeClass(std::string_view node_class);
  // Deletes this cluster's templates of `node_class` that no launch has used for `idle` (those
  // this process has not used count from when it started); returns how many.
  Result<int> DeleteUnused(std::string_view node_class, std::chrono::milliseconds idle);

 private:
  // Deletes the templates of `node_class` for which `unused` holds.
  Result<int> DeleteIf(std::string_view node_class,
                       const std::function<bool(const std::string& name)>& unused);

  Ec2Api& ec2_;
  const std::string cluster_name_;
  const Clock& clock_;
  const MonoTime started_;
  std::map<std::string, MonoTime, std::less<>> last_used_;  // the templates known to exist
};

}  // namespace karpenter::aws
