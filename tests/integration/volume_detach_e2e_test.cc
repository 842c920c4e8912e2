// Volume-safe termination on the test cluster: `karpenter controller --cloud-provider sim`, run as
// the chart runs it, deletes a NodeClaim whose Node ran a StatefulSet pod with a volume. The test
// cluster has no CSI driver, so a stand-in attacher here plays the attach/detach controller: a
// VolumeAttachment for each volume of a pod bound to a Node, removed some seconds after the pod
// has left it, as a real detach takes. The NodeClaim is drained (Drained=True), then waits with
// VolumesDetached=False and an AwaitingVolumeDetachment Event until the attachment is gone, and
// only then is its instance terminated; the pod runs again on a new node with its volume.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/labels.h"
#include "common/clock.h"
#include "integration/end_to_end.h"

namespace karpenter::integration {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::Contains;
using testing::HasSubstr;

constexpr std::string_view kNamespace = "e2e-volumes";
constexpr std::string_view kVolume = "e2e-volumes-data";
constexpr seconds kDetachTime(10);

// The attach/detach controller and CSI driver as far as termination sees them: every volume of a
// pod bound to a Node gets a VolumeAttachment "csi-<volume>-<node>"; one whose volume no pod on
// its Node uses any more goes kDetachTime later. Runs on its own thread with its own client.
class StandInAttacher {
 public:
  StandInAttacher()
      : client_(TestClusterClient()),
        thread_([this](const std::stop_token& stop) { Loop(stop); }) {}

  // When the attachment of `volume` to `node` was removed; nullopt while it has not been.
  std::optional<TimePoint> DetachedAt(const std::string& volume, const std::string& node) {
    std::lock_guard lock(mutex_);
    const auto it = detached_.find(Name(volume, node));
    if (it == detached_.end()) return std::nullopt;
    return it->second;
  }

 private:
  static std::string Name(const std::string& volume, const std::string& node) {
    return "csi-" + volume + "-" + node;
  }

  void Loop(const std::stop_token& stop) {
    std::map<std::string, TimePoint> unused_since;  // attachment -> when its pod left
    while (!stop.stop_requested() && client_ != nullptr) {
      std::map<std::string, std::pair<std::string, std::string>> wanted;  // name -> volume, node
      for (const kube::Object& pod :
           List(*client_, kube::resources::kPods, std::string(kNamespace))) {
        const std::string node = NodeName(pod);
        if (node.empty() || !kube::DeletionTimestamp(pod).empty() || Phase(pod) == "Succeeded" ||
            Phase(pod) == "Failed") {
          continue;
        }
        for (const kube::Object& volume :
             Part(pod, "spec").value("volumes", kube::Object::array())) {
          const std::string claim(kube::StringAt(volume, {"persistentVolumeClaim", "claimName"}));
          if (claim.empty()) continue;
          Result<kube::Object> bound = client_->Get(kube::resources::kPersistentVolumeClaims,
                                                    std::string(kNamespace), claim);
          if (!bound.ok()) continue;
          const std::string pv(kube::StringAt(*bound, {"spec", "volumeName"}));
          if (!pv.empty()) wanted[Name(pv, node)] = {pv, node};
        }
      }
      for (const auto& [name, target] : wanted) {
        unused_since.erase(name);
        (void)client_->Create(kube::resources::kVolumeAttachments,
                              {{"apiVersion", "storage.k8s.io/v1"},
                               {"kind", "VolumeAttachment"},
                               {"metadata", {{"name", name}, {"labels", {{"e2e", "volumes"}}}}},
                               {"spec",
                                {{"attacher", "ebs.csi.aws.com"},
                                 {"nodeName", target.second},
                                 {"source", {{"persistentVolumeName", target.first}}}}}},
                              kube::WriteOptions{});
      }
      const TimePoint now = RealClock().Now();
      for (const kube::Object& attachment : List(*client_, kube::resources::kVolumeAttachments)) {
        const std::string name(kube::Name(attachment));
        if (kube::Label(attachment, "e2e") != "volumes" || wanted.contains(name)) continue;
        const TimePoint since = unused_since.try_emplace(name, now).first->second;
        if (now - since < kDetachTime) continue;
        if (client_->Delete(kube::resources::kVolumeAttachments, "", name, {}).ok()) {
          std::lock_guard lock(mutex_);
          detached_[name] = RealClock().Now();
        }
      }
      std::this_thread::sleep_for(milliseconds(200));
    }
  }

  std::unique_ptr<kube::Client> client_;
  std::mutex mutex_;
  std::map<std::string, TimePoint> detached_;  // guarded by mutex_
  std::jthread thread_;
};

class VolumeDetachE2E : public ControllerEndToEnd {
 protected:
  VolumeDetachE2E() : ControllerEndToEnd({std::string(kNamespace)}) {}

  void SetUp() override {
    ControllerEndToEnd::SetUp();
    RemoveStorage();
  }
  void TearDown() override {
    ControllerEndToEnd::TearDown();
    RemoveStorage();
  }

  // The cluster-scoped objects the test makes: the volume, its StorageClass, the attachments.
  void RemoveStorage() {
    if (!client_) return;
    (void)client_->Patch(kube::resources::kPersistentVolumes, "", std::string(kVolume),
                         kube::PatchType::kMerge, {{"metadata", {{"finalizers", nullptr}}}},
                         kube::Subresource::kNone);
    (void)client_->Delete(kube::resources::kPersistentVolumes, "", std::string(kVolume), {});
    (void)client_->Delete(kube::resources::kStorageClasses, "", std::string(kNamespace), {});
    for (const kube::Object& attachment : List(*client_, kube::resources::kVolumeAttachments)) {
      if (kube::Label(attachment, "e2e") == "volumes") {
        (void)client_->Delete(kube::resources::kVolumeAttachments, "", kube::Name(attachment), {});
      }
    }
    ASSERT_TRUE(support::WaitFor(
        [&] {
          return !client_->Get(kube::resources::kPersistentVolumes, "", std::string(kVolume)).ok();
        },
        seconds(30)));
  }

  std::string ConditionOf(const kube::Object& claim, std::string_view type) {
    for (const kube::Object& c : Part(claim, "status").value("conditions", kube::Object::array())) {
      if (c.value("type", "") == type) return c.value("status", "");
    }
    return "";
  }
};

TEST_F(VolumeDetachE2E, TheInstanceGoesOnlyOnceTheVolumeIsDetached) {
  StartController();
  StandInAttacher attacher;
  ASSERT_OK(support::ApplyFile(*client_, kTestdata + "volumes.yaml"));
  std::string node;
  ASSERT_TRUE(support::WaitFor(
      [&] {
        for (const kube::Object& pod :
             List(*client_, kube::resources::kPods, std::string(kNamespace))) {
          if (Phase(pod) == "Running") node = NodeName(pod);
        }
        return !node.empty() && client_
                                    ->Get(kube::resources::kVolumeAttachments, "",
                                          "csi-" + std::string(kVolume) + "-" + node)
                                    .ok();
      },
      seconds(180)))
      << "the StatefulSet's pod never ran with its volume attached";
  std::string claim;
  for (const kube::Object& object : List(*client_, kube::resources::kNodeClaims)) {
    if (Part(object, "status").value("nodeName", "") == node) claim = kube::Name(object);
  }
  ASSERT_FALSE(claim.empty());
  const std::string node_uid(kube::Uid(*client_->Get(kube::resources::kNodes, "", node)));

  ASSERT_OK(client_->Delete(kube::resources::kNodeClaims, "", claim, {}));
  // Drained, and waiting for the volume: the pod has left, the attachment has not yet.
  bool waited = false;
  std::optional<TimePoint> gone;
  ASSERT_TRUE(support::WaitFor(
      [&] {
        Result<kube::Object> object = client_->Get(kube::resources::kNodeClaims, "", claim);
        if (object.ok()) {
          waited = waited || (ConditionOf(*object, "Drained") == "True" &&
                              ConditionOf(*object, "VolumesDetached") == "False");
          return false;
        }
        gone = RealClock().Now();
        return true;
      },
      seconds(120), milliseconds(100)))
      << "the NodeClaim was never terminated";
  EXPECT_TRUE(waited) << "never seen Drained=True with VolumesDetached=False";
  const std::optional<TimePoint> detached = attacher.DetachedAt(std::string(kVolume), node);
  ASSERT_TRUE(detached.has_value()) << "the NodeClaim went before its volume was detached";
  EXPECT_GE(*gone, *detached);
  EXPECT_THAT(EventMessages(*client_, "default", node, "AwaitingVolumeDetachment", node_uid),
              Contains(HasSubstr("csi-" + std::string(kVolume) + "-" + node)));

  // The pod runs again elsewhere, with its volume.
  ASSERT_TRUE(support::WaitFor(
      [&] {
        for (const kube::Object& pod :
             List(*client_, kube::resources::kPods, std::string(kNamespace))) {
          if (Phase(pod) == "Running" && NodeName(pod) != node) return true;
        }
        return false;
      },
      seconds(120)));
  EXPECT_TRUE(controller_->Running());
}

}  // namespace
}  // namespace karpenter::integration
